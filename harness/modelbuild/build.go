package modelbuild

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Spec is a user's model to build.
type Spec struct {
	Top string // the Verilog top module
	// Sources are files, or directories whose .sv and .v files are all
	// read, packages (*_pkg.sv) first; each directory is also searched
	// for `include files.
	Sources []string
	Params  []string // NAME=VALUE Verilog parameters (-G)
	Defines []string // NAME or NAME=VALUE preprocessor defines (-D)
	Width   int      // DATA_WIDTH: bits per beat
	Name    string   // the model's name before _<width>; the top's by default
	Out     string   // the models directory: the model goes to Out/<name>_<width>/V<top>
	Repo    string   // the checkout whose sim/ builds it (FindRepo)
	Verbose bool     // show every command (make V=1)
}

// Model is a built model.
type Model struct {
	Name  string // <name>_<width>, as scenarios and benches find it
	Path  string // the program
	Shape Shape
}

// InputError is a build refused for what it was given (a top that breaks
// the port convention, a missing source, a bad parameter), as opposed to
// a build that failed.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErr(format string, args ...any) error {
	return &InputError{fmt.Errorf(format, args...)}
}

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Build checks the top's ports against the port convention, then builds
// it with sim/build.mk's user-model rule: the project's Verilator flags,
// the sim/ library and the generic main. Make rebuilds only what changed;
// a change of parameters or defines rebuilds the model. What make and
// Verilator print goes to stdout and stderr.
func Build(ctx context.Context, s Spec, stdout, stderr io.Writer) (*Model, error) {
	p, err := s.resolve()
	if err != nil {
		return nil, err
	}
	ports, params, err := p.inspect(ctx)
	if err != nil {
		return nil, err
	}
	shape, err := Check(ports, s.Width)
	if err != nil {
		return nil, &InputError{fmt.Errorf("top %s breaks the port convention:\n%w", s.Top, err)}
	}
	name := fmt.Sprintf("%s_%d", cmp.Or(s.Name, s.Top), s.Width)
	dir := filepath.Join(p.out, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	vflags := append(slices.Clone(p.defines), p.incdirs...)
	// The flags file changes when the flags do, and the rule depends on it.
	flagsFile := filepath.Join(dir, "build.flags")
	flags := fmt.Sprintf("top=%s\nsources=%s\nparams=%s\nvflags=%s\nwidth=%d\n", s.Top, strings.Join(p.sources, " "),
		strings.Join(params, " "), strings.Join(vflags, " "), s.Width)
	if old, err := os.ReadFile(flagsFile); err != nil || string(old) != flags {
		if err := os.WriteFile(flagsFile, []byte(flags), 0o644); err != nil {
			return nil, err
		}
	}
	args := []string{"--no-print-directory", "-C", p.repo, "-f", "sim/build.mk",
		"SIM_MODELS_DIR=" + p.out, "SIM_USER_MODEL=" + name, "SIM_USER_TOP=" + s.Top,
		"SIM_USER_RTL=" + strings.Join(p.sources, " "), "SIM_USER_PARAMS=" + strings.Join(params, " "),
		"SIM_USER_DW=" + strconv.Itoa(s.Width), "SIM_USER_IN=" + strconv.Itoa(shape.In),
		"SIM_USER_OUT=" + strconv.Itoa(shape.Out), "SIM_USER_VFLAGS=" + strings.Join(vflags, " "),
		"SIM_USER_DEPS=" + flagsFile, "user-model"}
	if s.Verbose {
		args = append(args, "V=1")
	}
	cmd := exec.CommandContext(ctx, "make", args...)
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("make -f %s user-model (model %s): %w", filepath.Join(p.repo, "sim", "build.mk"), name, err)
	}
	return &Model{Name: name, Path: filepath.Join(dir, "V"+s.Top), Shape: shape}, nil
}

// prepared is a Spec with its paths made absolute and its sources listed.
type prepared struct {
	spec             Spec
	repo, out        string
	sources          []string
	incdirs, defines []string // -I and -D flags
}

func (s Spec) resolve() (*prepared, error) {
	if !identifier.MatchString(s.Top) {
		return nil, inputErr("--top %q: a Verilog module name is wanted", s.Top)
	}
	if s.Name != "" && !identifier.MatchString(s.Name) {
		return nil, inputErr("--name %q: letters, digits and _ only (it names a directory and a C macro)", s.Name)
	}
	if err := CheckWidth(s.Width); err != nil {
		return nil, &InputError{err}
	}
	if len(s.Sources) == 0 {
		return nil, inputErr("no sources: give --src DIR or --src FILE")
	}
	p := &prepared{spec: s, repo: s.Repo}
	var err error
	if p.out, err = filepath.Abs(cmp.Or(s.Out, filepath.Join("build", "models"))); err != nil {
		return nil, err
	}
	seenDir := map[string]bool{}
	for _, src := range s.Sources {
		abs, err := filepath.Abs(src)
		if err != nil {
			return nil, err
		}
		st, err := os.Stat(abs)
		if err != nil {
			return nil, inputErr("--src %s: %v", src, err)
		}
		dir, files := filepath.Dir(abs), []string{abs}
		if st.IsDir() {
			dir, files = abs, nil
			for _, pat := range []string{"*.sv", "*.v"} {
				m, _ := filepath.Glob(filepath.Join(abs, pat))
				files = append(files, m...)
			}
			// A package must be read before the modules that import it.
			slices.SortFunc(files, func(a, b string) int {
				pa, pb := strings.HasSuffix(a, "_pkg.sv"), strings.HasSuffix(b, "_pkg.sv")
				if pa != pb {
					if pa {
						return -1
					}
					return 1
				}
				return strings.Compare(a, b)
			})
			if len(files) == 0 {
				return nil, inputErr("--src %s: no .sv or .v file there", src)
			}
		}
		p.sources = append(p.sources, files...)
		if !seenDir[dir] {
			seenDir[dir] = true
			p.incdirs = append(p.incdirs, "-I"+dir)
		}
	}
	for _, d := range s.Defines {
		name, _, _ := strings.Cut(d, "=")
		if !identifier.MatchString(name) || strings.ContainsAny(d, " \t\"'") {
			return nil, inputErr("--define %q: NAME or NAME=VALUE, without spaces or quotes", d)
		}
		p.defines = append(p.defines, "-D"+d)
	}
	for _, kv := range s.Params {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !identifier.MatchString(k) || v == "" || strings.ContainsAny(v, " \t\"',") {
			return nil, inputErr("--param %q: NAME=VALUE, the value without spaces, quotes or commas", kv)
		}
	}
	// make splits its variables at spaces.
	for _, path := range append([]string{p.out}, p.sources...) {
		if strings.ContainsAny(path, " \t") {
			return nil, inputErr("%s: a path with a space, which make cannot take", path)
		}
	}
	return p, nil
}

// inspect asks Verilator for the top's ports as they are with the
// model's parameters, and returns them with the parameters to build with:
// the user's, and DATA_WIDTH=width when the top has that parameter and
// the user did not set it.
func (p *prepared) inspect(ctx context.Context) (*Ports, []string, error) {
	s := p.spec
	params := slices.Clone(s.Params)
	ports, err := p.xmlPorts(ctx, params)
	if err != nil {
		return nil, nil, err
	}
	if v, ok := ports.Params["DATA_WIDTH"]; ok {
		set := slices.ContainsFunc(params, func(kv string) bool { return strings.HasPrefix(kv, "DATA_WIDTH=") })
		switch {
		case set && v != strconv.Itoa(s.Width):
			return nil, nil, inputErr("--param DATA_WIDTH=%s and --width %d disagree: give --width alone", v, s.Width)
		case !set:
			params = append(params, "DATA_WIDTH="+strconv.Itoa(s.Width))
			if v != strconv.Itoa(s.Width) {
				if ports, err = p.xmlPorts(ctx, params); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	return ports, params, nil
}

// xmlPorts runs Verilator's --xml-only on the sources.
func (p *prepared) xmlPorts(ctx context.Context, params []string) (*Ports, error) {
	tmp, err := os.MkdirTemp("", "cosim-model-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "top.xml")
	// Warnings are the build's to report (-Wall): here only the ports count.
	args := []string{"--xml-only", "-Wno-fatal", "--xml-output", out, "--Mdir", tmp, "--top-module", p.spec.Top,
		"-I" + filepath.Join(p.repo, "rtl", "common")}
	args = append(args, p.defines...)
	args = append(args, p.incdirs...)
	for _, kv := range params {
		args = append(args, "-G"+kv)
	}
	args = append(args, p.sources...)
	cmd := exec.CommandContext(ctx, cmp.Or(os.Getenv("VERILATOR"), "verilator"), args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return nil, inputErr("verilator could not read top %s:\n%s", p.spec.Top, strings.TrimSpace(stderr.String()))
		}
		return nil, fmt.Errorf("verilator: %w", err)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, err
	}
	return parsePorts(data)
}
