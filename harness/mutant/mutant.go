// Package mutant plants one bug in a device's RTL and builds models from
// it. A device's mutants are listed in a catalogue, rtl/<device>/tb/
// mutants.toml: each one small edit (find this text, which occurs once,
// and put that in its place) that plants a bug of the kind RTL engineers
// make. Build copies the device's RTL with the edit under a directory of
// its own and builds the models asked for with the project's Verilator
// flags (sim/build.mk, its device variable pointed at the copy); the
// models that do not use the device's RTL are linked from the normal
// models beside them, so that a scenario runs on the mutant unchanged.
//
// The mutation campaigns of make test (harness/mutation) and the
// [[mutant]] tables of campaign files (harness/campaign) both build their
// mutants here.
package mutant

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/rocesim/cosim/harness/inputfile"
)

// Mutant is one entry of a catalogue.
type Mutant struct {
	Name    string `toml:"name"`
	File    string `toml:"file"`    // from the repository root, under rtl/<device>
	Find    string `toml:"find"`    // occurs exactly once in File
	Replace string `toml:"replace"` // what takes its place
	Bug     string `toml:"bug"`     // the planted bug, in plain words
}

// Device is the RTL directory the mutant edits, "rtl/nic" say.
func (m Mutant) Device() string { return filepath.ToSlash(filepath.Dir(m.File)) }

// Catalogue is a device's mutants.toml.
type Catalogue struct {
	Path    string
	Root    string // the repository the catalogue's files are in
	Mutants []Mutant
}

// deviceVars are the sim/build.mk variables that point a device's models
// at a directory of its RTL.
var deviceVars = map[string]string{
	"rtl/nic":    "SIM_NIC_DIR",
	"rtl/switch": "SIM_SWITCH_DIR",
}

// Load reads and checks a catalogue. Its repository is the nearest
// directory above it that holds sim/build.mk.
func Load(path string) (*Catalogue, error) {
	data, err := inputfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f struct {
		Mutant []Mutant `toml:"mutant"`
	}
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("%s: unknown key %s", path, und[0])
	}
	c := &Catalogue{Path: path, Mutants: f.Mutant}
	if c.Root, err = repository(path); err != nil {
		return nil, err
	}
	if len(f.Mutant) == 0 {
		return nil, fmt.Errorf("%s: no [[mutant]]", path)
	}
	seen := map[string]bool{}
	for i, m := range f.Mutant {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s: mutant %d (%q): %s", path, i+1, m.Name, fmt.Sprintf(format, args...))
		}
		switch {
		case m.Name == "":
			return nil, bad("no name")
		case seen[m.Name]:
			return nil, bad("its name again")
		case deviceVars[m.Device()] == "":
			return nil, bad("file %s is not in a device directory sim/build.mk can redirect (rtl/nic or rtl/switch)", m.File)
		case m.Find == "" || m.Find == m.Replace:
			return nil, bad("find must be text that replace changes")
		case m.Bug == "":
			return nil, bad("no bug: say in plain words what it plants")
		}
		seen[m.Name] = true
	}
	return c, nil
}

// Mutant is the catalogue's mutant called name.
func (c *Catalogue) Mutant(name string) (Mutant, error) {
	var names []string
	for _, m := range c.Mutants {
		if m.Name == name {
			return m, nil
		}
		names = append(names, m.Name)
	}
	return Mutant{}, fmt.Errorf("%s: no mutant %q (there are %s)", c.Path, name, strings.Join(names, ", "))
}

func repository(path string) (string, error) {
	abs, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return "", err
	}
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "sim", "build.mk")); err == nil {
			return d, nil
		}
		if d == filepath.Dir(d) {
			return "", fmt.Errorf("%s: no directory above it holds sim/build.mk: a catalogue lives in the repository of the RTL it edits", path)
		}
	}
}

// Build is how one mutant is built.
type Build struct {
	Root   string   // the repository (Catalogue.Root)
	Dir    string   // where the mutant's RTL and models go: Dir/rtl/<device>, Dir/models
	Models []string // the models to give, "switch4_64" say
	Base   string   // the normal models, linked for those that do not use the device
	Log    io.Writer
	// NoPGO builds without profile feedback: a mutant's runs are too short
	// to repay sim/build.mk's second, profiled build.
	NoPGO bool
}

// Build writes the device's RTL with m planted under b.Dir and builds from
// it each of b.Models that reads the device's RTL; the others are linked
// from b.Base. It returns the models directory and the models built with
// the bug (none, and nothing built, when no model reads the device). Files are rewritten only when they change, so a second build
// remakes only what changed since.
func (b Build) Build(ctx context.Context, m Mutant) (dir string, mutated []string, err error) {
	if _, err := exec.LookPath("make"); err != nil {
		return "", nil, errors.New("building a mutant needs make and verilator (make deps)")
	}
	rtl := filepath.Join(b.Dir, filepath.FromSlash(m.Device()))
	if err := plant(b.Root, m, rtl); err != nil {
		return "", nil, err
	}
	models := filepath.Join(b.Dir, "models")
	if err := os.MkdirAll(models, 0o755); err != nil {
		return "", nil, err
	}
	variable := deviceVars[m.Device()] + "=" + rtl
	tops := map[string]string{}
	for _, name := range b.Models {
		top, uses, err := b.usesDevice(ctx, name, variable, rtl)
		if err != nil {
			return "", nil, err
		}
		if uses {
			mutated = append(mutated, name)
			tops[name] = top
		}
	}
	if len(mutated) == 0 {
		return models, nil, nil // nothing to build: the caller says why that is wrong
	}
	for _, name := range b.Models {
		top, ok := tops[name]
		if !ok {
			if err := link(filepath.Join(b.Base, name), filepath.Join(models, name)); err != nil {
				return "", nil, err
			}
			continue
		}
		// Never build through a link into the normal models.
		if fi, err := os.Lstat(filepath.Join(models, name)); err == nil && fi.Mode()&os.ModeSymlink != 0 {
			if err := os.Remove(filepath.Join(models, name)); err != nil {
				return "", nil, err
			}
		}
		// The goal is the model's binary, sim/build.mk's name for it.
		bin := filepath.Join(models, name, "V"+top)
		args := []string{"--no-print-directory", "-f", "sim/build.mk", "SIM_MODELS_DIR=" + models, variable, bin}
		if b.NoPGO {
			args = append(args, "SIM_PGO=0")
		}
		out, err := b.make(ctx, args)
		if err != nil && strings.Contains(out, "No rule to make target") {
			// The build's dependency files name sources that are gone (a
			// checkout moved or deleted since): build it afresh, once.
			if err := os.RemoveAll(filepath.Join(models, name)); err != nil {
				return "", nil, err
			}
			out, err = b.make(ctx, args)
		}
		if err != nil {
			return "", nil, fmt.Errorf("building %s with mutant %s: %v\n%s", name, m.Name, err, tail(out, 30))
		}
	}
	return models, mutated, nil
}

// make runs make in the repository, its output kept (and logged).
func (b Build) make(ctx context.Context, args []string) (string, error) {
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Dir = b.Root
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if b.Log != nil {
		cmd.Stdout, cmd.Stderr = io.MultiWriter(&out, b.Log), io.MultiWriter(&out, b.Log)
	}
	err := cmd.Run()
	return out.String(), err
}

// usesDevice asks sim/build.mk for model name's top module and whether it
// reads the device's RTL, by printing its sources with the device
// redirected to rtl.
func (b Build) usesDevice(ctx context.Context, name, variable, rtl string) (top string, uses bool, err error) {
	cmd := exec.CommandContext(ctx, "make", "--no-print-directory", "-f", "sim/build.mk", variable,
		"--eval", "mutant-sources: ; @echo $("+name+".top) $("+name+".rtl)", "mutant-sources")
	cmd.Dir = b.Root
	out, err := cmd.Output()
	if err != nil {
		return "", false, fmt.Errorf("make -f sim/build.mk: the sources of %s: %v", name, err)
	}
	f := strings.Fields(string(out))
	if len(f) < 2 {
		return "", false, fmt.Errorf("no model %s in sim/build.mk", name)
	}
	return f[0], bytes.Contains(out, []byte(rtl+string(filepath.Separator))), nil
}

// plant writes the device directory of root into dst with m's edit.
func plant(root string, m Mutant, dst string) error {
	src := filepath.Join(root, filepath.FromSlash(m.Device()))
	ents, err := os.ReadDir(src)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	edited := false
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			return err
		}
		if e.Name() == filepath.Base(m.File) {
			if n := bytes.Count(data, []byte(m.Find)); n != 1 {
				return fmt.Errorf("mutant %s: its find text occurs %d times in %s, not once: the RTL changed, update the catalogue", m.Name, n, m.File)
			}
			data = bytes.Replace(data, []byte(m.Find), []byte(m.Replace), 1)
			edited = true
		}
		p := filepath.Join(dst, e.Name())
		if old, err := os.ReadFile(p); err != nil || !bytes.Equal(old, data) {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				return err
			}
		}
	}
	if !edited {
		return fmt.Errorf("mutant %s: no file %s", m.Name, m.File)
	}
	return nil
}

// link points dst at the model directory src (relative when both are in
// one tree, so that the tree can move).
func link(src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("model %s is not built (make build): %w", filepath.Base(src), err)
	}
	if _, err := os.Lstat(dst); err == nil {
		return nil
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return err
	}
	target := abs
	if d, err := filepath.Abs(filepath.Dir(dst)); err == nil {
		if rel, err := filepath.Rel(d, abs); err == nil {
			target = rel
		}
	}
	return os.Symlink(target, dst)
}

func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "")
}
