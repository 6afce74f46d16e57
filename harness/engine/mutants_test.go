package engine_test

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

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/modeltest"
)

// A mutation campaign asks whether a device's regression would catch a
// bug in its RTL at all: each mutant in testdata/<device>_mutants.toml is
// one small edit to rtl/<device> that plants a bug of the kind RTL
// engineers make. The test builds every mutant with the same Verilator
// flags as the real device (sim/build.mk, pointed at the copy by the
// campaign's variable), but without profile feedback (SIM_PGO=0: a mutant
// runs too briefly to repay a second build), under
// build/mutants/<device>/<name> and runs the
// campaign's scenarios against it until one fails; a mutant that passes
// them all survived, and fails the test: either the regression has a
// hole or the mutant changes nothing and should go.
//
//	COSIM_MUTANTS=name,name   only these mutants (default: all)

// mutant is one entry of a campaign's file.
type mutant struct {
	Name    string `toml:"name"`
	File    string `toml:"file"`    // relative to the repository root, under rtl/<device>
	Find    string `toml:"find"`    // occurs exactly once in File
	Replace string `toml:"replace"` // what takes its place
	Bug     string `toml:"bug"`     // the planted bug, in plain words
}

// mutantScenario is a run each mutant faces, in the campaign's order (the
// one that catches most first): the regression's own scenarios, or its
// directed Go tests.
type mutantScenario struct {
	name  string
	toml  string
	seed  uint64
	tests *goTests // when set, run instead of a scenario
}

// goTests are some of a package's tests, pointed at the mutant's models.
type goTests struct {
	pkg string // from the repository root
	run string // -test.run pattern
	env string // the variable that tells them where the models are
}

// campaign is one device's mutation campaign.
type campaign struct {
	device    string   // rtl/<device>, testdata/<device>_mutants.toml
	dirVar    string   // the sim/build.mk variable naming the device's RTL directory
	model     string   // the model built from each mutant, "top_width"
	with      []string // other models the scenarios run, as built in build/models
	scenarios []mutantScenario
}

// The switch at 64 bits on 4 ports, in the scenarios of switch_test.go.
var switchCampaign = campaign{
	device: "switch", dirVar: "SIM_SWITCH_DIR", model: "switch4_64",
	scenarios: []mutantScenario{
		{"random, strict priority, ECN, PFC", switchTraffic("switch4", 4, 64, 300, switchConfigs[64]), 7, nil},
		{"random, DRR, RED ECN, PFC reception", switchTraffic("switch4", 4, 64, 300, switchConfigs[512]), 7, nil},
		{"incast without PFC", incast(incastTailDropCSR, false), 3, nil},
		{"incast with PFC", incast(incastPFCCSR, true), 3, nil},
		// One directed case per rule of rtl/switch/README.md, cycle by
		// cycle (switch_timing_test.go): boundaries random traffic
		// seldom hits, such as an entry's last live cycle.
		{"directed timing tests", "", 0, &goTests{"./harness/engine", "^TestSwitchTimingDirected$//^switch4_64$", "COSIM_MODELS_DIR"}},
	},
}

// The NIC at 64 bits, two of them joined by links (nic_system_test.go):
// mixed RDMA messages over links with every fault, and over clean ones;
// then through the RTL switch, which marks CE under an incast, with DCQCN
// on (nic_congestion_test.go).
var nicCampaign = campaign{
	device: "nic", dirVar: "SIM_NIC_DIR", model: "nic_64", with: []string{"switch4_64"},
	scenarios: []mutantScenario{
		{"two NICs, faulty links, path MTU 1024", nicDirectTOML(64, 300, 1024, true), 1, nil},
		{"two NICs, clean links, path MTU 4096", nicDirectTOML(64, 300, 4096, false), 1, nil},
		// The incast from cycle 20,000, 100 frames long; 200 messages.
		{"two NICs through the switch, incast, DCQCN", fmt.Sprintf(congestionTOML, fastDCQCN, 20_000, 100, 200,
			nicSwitchNIC(64, congestionCSR, "")), 1, nil},
		// The workloads above expect no error completion; these do (bad
		// R_Key, RNR and retry budgets running out, access errors).
		{"directed requester and responder tests", "", 0, &goTests{"./cosim", "^(TestNICRequester|TestNICResponder)$/^64$", "COSIM_NIC_MODELS_DIR"}},
	},
}

// repoRoot is the repository seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

func TestSwitchMutants(t *testing.T) { runCampaign(t, switchCampaign) }

func TestNICMutants(t *testing.T) { runCampaign(t, nicCampaign) }

func runCampaign(t *testing.T, c campaign) {
	if testing.Short() {
		t.Skip("builds a model per mutant")
	}
	mutants := loadMutants(t, c)
	if only := os.Getenv("COSIM_MUTANTS"); only != "" {
		names := strings.Split(only, ",")
		mutants = slices.DeleteFunc(mutants, func(m mutant) bool { return !slices.Contains(names, m.Name) })
		if len(mutants) == 0 {
			t.Skipf("COSIM_MUTANTS=%s names no mutant of testdata/%s_mutants.toml", only, c.device)
		}
	}
	modeltest.NeedTool(t, "make")
	modeltest.NeedTool(t, "verilator")
	if slices.ContainsFunc(c.scenarios, func(sc mutantScenario) bool { return sc.tests != nil }) {
		modeltest.NeedTool(t, "go")
	}

	// The scenarios pass on the real device: a mutant that fails one is
	// caught by its bug, not by the scenario.
	unmutated := needModels(t, append([]string{c.model}, c.with...)...)
	for _, sc := range c.scenarios {
		caught, how := runMutantScenario(t, unmutated, sc)
		require.False(t, caught, "scenario %q fails on the unmutated %s: %s", sc.name, c.device, how)
	}

	var table []string
	for _, m := range mutants {
		t.Run(m.Name, func(t *testing.T) {
			dir := buildMutant(t, c, m)
			for _, sc := range c.scenarios {
				if caught, how := runMutantScenario(t, dir, sc); caught {
					t.Logf("caught by %q: %s", sc.name, how)
					table = append(table, fmt.Sprintf("  %-28s caught by %-36q %s", m.Name, sc.name, firstLine(how)))
					return
				}
			}
			table = append(table, fmt.Sprintf("  %-28s SURVIVED", m.Name))
			t.Errorf("mutant %s survived every scenario: %s (%s). The regression misses this bug, or the edit changes nothing",
				m.Name, m.Bug, m.File)
		})
	}
	t.Logf("%s mutants: %d\n%s", c.device, len(mutants), strings.Join(table, "\n"))
}

// loadMutants reads and checks testdata/<device>_mutants.toml.
func loadMutants(t *testing.T, c campaign) []mutant {
	var f struct {
		Mutant []mutant `toml:"mutant"`
	}
	name := c.device + "_mutants.toml"
	md, err := toml.DecodeFile(filepath.Join("testdata", name), &f)
	require.NoError(t, err)
	require.Empty(t, md.Undecoded(), "unknown keys in %s", name)
	require.NotEmpty(t, f.Mutant)
	seen := map[string]bool{}
	for _, m := range f.Mutant {
		require.NotEmpty(t, m.Name)
		require.False(t, seen[m.Name], "mutant %s twice", m.Name)
		seen[m.Name] = true
		require.Equal(t, "rtl/"+c.device, filepath.ToSlash(filepath.Dir(m.File)), "mutant %s: its file must be in rtl/%s", m.Name, c.device)
		require.NotEmpty(t, m.Find, m.Name)
		require.NotEqual(t, m.Find, m.Replace, m.Name)
		require.NotEmpty(t, m.Bug, m.Name)
	}
	return f.Mutant
}

// buildMutant writes rtl/<device> with m's edit under
// build/mutants/<device>/<name> and builds the campaign's model from it,
// returning its model directory. Files are rewritten only when they
// change, so make rebuilds only what the RTL or the sim library changed
// since the last campaign.
func buildMutant(t *testing.T, c campaign, m mutant) string {
	base := filepath.Join("build", "mutants", c.device, m.Name) // from the repository root
	rtl := filepath.Join(base, "rtl", c.device)
	require.NoError(t, os.MkdirAll(filepath.Join(repoRoot, rtl), 0o755))
	src := filepath.Join(repoRoot, "rtl", c.device)
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	edited := false
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		if e.Name() == filepath.Base(m.File) {
			n := bytes.Count(data, []byte(m.Find))
			require.Equal(t, 1, n, "mutant %s: its find text occurs %d times in %s; the RTL changed, update testdata/%s_mutants.toml", m.Name, n, m.File, c.device)
			data = bytes.Replace(data, []byte(m.Find), []byte(m.Replace), 1)
			edited = true
		}
		dst := filepath.Join(repoRoot, rtl, e.Name())
		if old, err := os.ReadFile(dst); err != nil || !bytes.Equal(old, data) {
			require.NoError(t, os.WriteFile(dst, data, 0o644))
		}
	}
	require.True(t, edited, "mutant %s: no file %s", m.Name, m.File)

	models := filepath.Join(base, "models")
	top, width, err := modeltest.Parse(c.model)
	require.NoError(t, err)
	target := engine.ModelPath(models, top, width)
	cmd := exec.Command("make", "--no-print-directory", "-f", "sim/build.mk",
		"SIM_MODELS_DIR="+models, "SIM_PGO=0", c.dirVar+"="+rtl, target)
	cmd.Dir = repoRoot
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("building mutant %s: %v\n%s", m.Name, err, tail(string(out), 30))
	}
	t.Logf("mutant %s (%s) built in %.0fs: %s", m.Name, m.File, time.Since(start).Seconds(), m.Bug)
	// The other models the scenarios need, unmutated, beside it.
	for _, w := range c.with {
		link := filepath.Join(repoRoot, models, w)
		if _, err := os.Lstat(link); err != nil {
			rel, err := filepath.Rel(filepath.Dir(link), filepath.Join(modelsDir, w))
			require.NoError(t, err)
			require.NoError(t, os.Symlink(rel, link))
		}
	}
	return filepath.Join(repoRoot, models)
}

// runMutantScenario runs sc on the switch built in dir and reports
// whether the run failed, and how: the summary's figures and the first
// lines of the mismatch report, or the run's error.
func runMutantScenario(t *testing.T, dir string, sc mutantScenario) (caught bool, how string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if sc.tests != nil {
		return runGoTests(ctx, t, dir, *sc.tests)
	}
	var report bytes.Buffer
	s, err := engine.Run(ctx, engine.Config{Scenario: parse(t, sc.toml), Seed: sc.seed, OutDir: t.TempDir(), ModelDir: dir, Report: &report})
	var se *engine.ScenarioError
	require.False(t, errors.As(err, &se), "scenario %q: %v", sc.name, err)
	if err == nil && s.Pass {
		return false, ""
	}
	if s != nil {
		how = fmt.Sprintf("%d mismatched, %d missing, %d unexpected, %d counter mismatches, %d workload failures; ",
			s.Mismatched, s.Missing, s.Unexpected, s.CounterFails, len(s.Workload))
	}
	if err != nil {
		how += "the run failed: " + err.Error()
	}
	return true, strings.TrimSuffix(how, "; ") + "\n" + head(report.String(), 6)
}

// runGoTests runs the tests gt names with the models in dir, and reports
// whether they failed, and how: the failing tests and the last lines of
// their output, where the failure message is.
func runGoTests(ctx context.Context, t *testing.T, dir string, gt goTests) (caught bool, how string) {
	abs, err := filepath.Abs(dir)
	require.NoError(t, err)
	cmd := exec.CommandContext(ctx, testBinary(t, gt.pkg), "-test.run", gt.run, "-test.count", "1")
	cmd.Dir = filepath.Join(repoRoot, gt.pkg)
	// A model that is not there fails the tests rather than skipping them.
	cmd.Env = append(os.Environ(), gt.env+"="+abs, "COSIM_REQUIRE_MODELS=1")
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
	return true, fmt.Sprintf("the tests %s of %s failed (%v)\n%s", gt.run, gt.pkg, err,
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
	bin, err := filepath.Abs(filepath.Join(repoRoot, "build", "mutants", filepath.Base(pkg)+".test"))
	require.NoError(t, err)
	cmd := exec.Command("go", "test", "-c", "-o", bin, pkg)
	cmd.Dir = repoRoot
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

func tail(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "")
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}
