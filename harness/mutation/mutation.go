// Package mutation runs a device's mutation campaign, which asks whether
// the device's regression would catch a bug in its RTL at all: each
// mutant in rtl/<device>/tb/mutants.toml is one small edit to
// rtl/<device> that plants a bug of the kind RTL engineers make. Run
// builds every mutant (harness/mutant) under build/mutants/<device>/<name>
// and runs the
// campaign's scenarios against it until one fails; a mutant that passes
// them all survived, and fails the test: either the regression has a
// hole or the mutant changes nothing and should go.
//
//	COSIM_MUTANTS=name,name   only these mutants (default: all)
package mutation

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/mutant"
)

// Scenario is a run each mutant faces, in the campaign's order (the one
// that catches most first): one of the regression's scenarios, or some of
// its directed Go tests.
type Scenario struct {
	Name  string
	TOML  string
	Seed  uint64
	Tests *GoTests // when set, run instead of a scenario
}

// GoTests are some of a package's tests, pointed at the mutant's models.
type GoTests struct {
	Pkg string // from the repository root
	Run string // -test.run pattern
	Env string // the variable that tells them where the models are
}

// Campaign is one device's mutation campaign.
type Campaign struct {
	Device    string     // rtl/<device>; its mutants are rtl/<device>/tb/mutants.toml
	Model     string     // the model built from each mutant, "top_width"
	With      []string   // other models the scenarios run, as built in build/models
	Scenarios []Scenario // what each mutant faces, in order
}

// root is the repository seen from the test's package directory.
var root = cmodeltest.Root()

// Run runs campaign c from the test's package directory, the device's
// tb/ beside its RTL, where its mutants.toml is.
func Run(t *testing.T, c Campaign) {
	if testing.Short() {
		t.Skip("builds a model per mutant")
	}
	mutants := loadMutants(t, c)
	if only := os.Getenv("COSIM_MUTANTS"); only != "" {
		names := strings.Split(only, ",")
		mutants = slices.DeleteFunc(mutants, func(m mutant.Mutant) bool { return !slices.Contains(names, m.Name) })
		if len(mutants) == 0 {
			t.Skipf("COSIM_MUTANTS=%s names no mutant of rtl/%s/tb/mutants.toml", only, c.Device)
		}
	}
	cmodeltest.NeedTool(t, "make")
	cmodeltest.NeedTool(t, "verilator")
	if slices.ContainsFunc(c.Scenarios, func(sc Scenario) bool { return sc.Tests != nil }) {
		cmodeltest.NeedTool(t, "go")
	}

	// The scenarios pass on the real device: a mutant that fails one is
	// caught by its bug, not by the scenario.
	unmutated := modeltest.NeedModels(t, append([]string{c.Model}, c.With...)...)
	for _, sc := range c.Scenarios {
		caught, how := runMutantScenario(t, unmutated, sc)
		require.False(t, caught, "scenario %q fails on the unmutated %s: %s", sc.Name, c.Device, how)
	}

	var table []string
	for _, m := range mutants {
		t.Run(m.Name, func(t *testing.T) {
			dir := buildMutant(t, c, m)
			for _, sc := range c.Scenarios {
				if caught, how := runMutantScenario(t, dir, sc); caught {
					t.Logf("caught by %q: %s", sc.Name, how)
					table = append(table, fmt.Sprintf("  %-28s caught by %-36q %s", m.Name, sc.Name, firstLine(how)))
					return
				}
			}
			table = append(table, fmt.Sprintf("  %-28s SURVIVED", m.Name))
			t.Errorf("mutant %s survived every scenario: %s (%s). The regression misses this bug, or the edit changes nothing",
				m.Name, m.Bug, m.File)
		})
	}
	t.Logf("%s mutants: %d\n%s", c.Device, len(mutants), strings.Join(table, "\n"))
}

// Build builds c's mutant called name and returns the directory of its
// models (c.Model mutated, c.With beside it): for tests outside the
// campaign that need a device with a known bug.
func Build(t *testing.T, c Campaign, name string) string {
	cmodeltest.NeedTool(t, "make")
	cmodeltest.NeedTool(t, "verilator")
	modeltest.NeedModels(t, c.With...)
	for _, m := range loadMutants(t, c) {
		if m.Name == name {
			return buildMutant(t, c, m)
		}
	}
	t.Fatalf("no mutant %s in rtl/%s/tb/mutants.toml", name, c.Device)
	return ""
}

// loadMutants reads the device's catalogue.
func loadMutants(t *testing.T, c Campaign) []mutant.Mutant {
	cat, err := mutant.Load(filepath.Join(root, "rtl", c.Device, "tb", "mutants.toml"))
	require.NoError(t, err)
	for _, m := range cat.Mutants {
		require.Equal(t, "rtl/"+c.Device, m.Device(), "mutant %s: its file must be in rtl/%s", m.Name, c.Device)
	}
	return cat.Mutants
}

// buildMutant builds the campaign's model with m planted under
// build/mutants/<device>/<name>, c.With linked beside it, and returns its
// models directory.
func buildMutant(t *testing.T, c Campaign, m mutant.Mutant) string {
	abs, err := filepath.Abs(root)
	require.NoError(t, err)
	b := mutant.Build{Root: abs, Dir: filepath.Join(abs, "build", "mutants", c.Device, m.Name),
		Models: append([]string{c.Model}, c.With...), Base: modeltest.Dir(), NoPGO: true}
	start := time.Now()
	dir, _, err := b.Build(context.Background(), m)
	require.NoError(t, err)
	t.Logf("mutant %s (%s) built in %.0fs: %s", m.Name, m.File, time.Since(start).Seconds(), m.Bug)
	return dir
}

// runMutantScenario runs sc on the switch built in dir and reports
// whether the run failed, and how: the summary's figures and the first
// lines of the mismatch report, or the run's error.
func runMutantScenario(t *testing.T, dir string, sc Scenario) (caught bool, how string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if sc.Tests != nil {
		return runGoTests(ctx, t, dir, *sc.Tests)
	}
	var report bytes.Buffer
	s, err := engine.Run(ctx, engine.Config{Scenario: modeltest.Scenario(t, sc.TOML), Seed: sc.Seed, OutDir: t.TempDir(), ModelDir: dir, Report: &report})
	var se *engine.ScenarioError
	require.False(t, errors.As(err, &se), "scenario %q: %v", sc.Name, err)
	if err == nil && s.Pass {
		return false, ""
	}
	if s != nil {
		how = s.Tally() + "; "
	}
	if err != nil {
		how += "the run failed: " + err.Error()
	}
	return true, strings.TrimSuffix(how, "; ") + "\n" + head(report.String(), 6)
}

// runGoTests runs the tests gt names with the models in dir, and reports
// whether they failed, and how: the failing tests and the last lines of
// their output, where the failure message is.
func runGoTests(ctx context.Context, t *testing.T, dir string, gt GoTests) (caught bool, how string) {
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, testBinary(t, gt.Pkg), "-test.run", gt.Run, "-test.count", "1")
	cmd.Dir = filepath.Join(root, gt.Pkg)
	// A model that is not there fails the tests rather than skipping them.
	cmd.Env = append(os.Environ(), gt.Env+"="+abs, "COSIM_REQUIRE_MODELS=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		return false, ""
	}
	var failed, rest []string
	for l := range strings.Lines(string(out)) {
		switch l = strings.TrimSpace(l); {
		case strings.HasPrefix(l, "--- FAIL"):
			failed = append(failed, l)
		case l != "FAIL" && l != "":
			rest = append(rest, l)
		}
	}
	return true, fmt.Sprintf("the tests %s of %s failed (%v)\n%s", gt.Run, gt.Pkg, err,
		strings.Join(append(failed, rest[max(0, len(rest)-4):]...), "\n"))
}

// testBinary builds pkg's test binary into build/mutants, once a
// process.
func testBinary(t *testing.T, pkg string) string {
	testBinaries.Lock()
	defer testBinaries.Unlock()
	if bin, ok := testBinaries.built[pkg]; ok {
		return bin
	}
	// Named after the whole path: every device's package is a tb.
	name := strings.ReplaceAll(strings.Trim(filepath.ToSlash(pkg), "./"), "/", "_")
	bin, err := filepath.Abs(filepath.Join(root, "build", "mutants", name+".test"))
	require.NoError(t, err)
	cmd := exec.Command("go", "test", "-c", "-o", bin, pkg)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go test -c %s: %s", pkg, out)
	testBinaries.built[pkg] = bin
	return bin
}

var testBinaries = struct {
	sync.Mutex
	built map[string]string
}{built: map[string]string{}}

func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[:min(n, len(lines))], "")
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
