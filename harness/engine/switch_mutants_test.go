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
	"testing"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/modeltest"
)

// The mutation campaign asks whether the switch's regression would catch a
// bug in the RTL at all: each mutant in testdata/switch_mutants.toml is one
// small edit to rtl/switch that plants a bug of the kind RTL engineers
// make. The test builds every mutant with the same Verilator flags as the
// real switch (sim/build.mk, SIM_SWITCH_DIR) under build/mutants/<name>
// and runs the campaign's scenarios against it until one fails; a mutant
// that passes them all survived, and fails the test: either the
// regression has a hole or the mutant changes nothing and should go.
//
//	COSIM_MUTANTS=name,name   only these mutants (default: all)

// switchMutant is one entry of testdata/switch_mutants.toml.
type switchMutant struct {
	Name    string `toml:"name"`
	File    string `toml:"file"`    // relative to the repository root, under rtl/switch
	Find    string `toml:"find"`    // occurs exactly once in File
	Replace string `toml:"replace"` // what takes its place
	Bug     string `toml:"bug"`     // the planted bug, in plain words
}

// mutantScenario is a run each mutant faces, at 64 bits on 4 ports: the
// regression's own scenarios (switch_test.go), cheapest first.
type mutantScenario struct {
	name string
	toml string
	seed uint64
}

var mutantScenarios = []mutantScenario{
	{"random, strict priority, ECN, PFC", switchTraffic("switch4", 4, 64, 300, switchConfigs[64]), 7},
	{"random, DRR, RED ECN, PFC reception", switchTraffic("switch4", 4, 64, 300, switchConfigs[512]), 7},
	{"incast without PFC", incast(incastTailDropCSR, false), 3},
	{"incast with PFC", incast(incastPFCCSR, true), 3},
}

// repoRoot is the repository seen from this package's directory.
var repoRoot = filepath.Join("..", "..")

func TestSwitchMutants(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a switch per mutant")
	}
	mutants := loadSwitchMutants(t)
	if only := os.Getenv("COSIM_MUTANTS"); only != "" {
		names := strings.Split(only, ",")
		mutants = slices.DeleteFunc(mutants, func(m switchMutant) bool { return !slices.Contains(names, m.Name) })
		require.NotEmpty(t, mutants, "COSIM_MUTANTS=%s names no mutant of testdata/switch_mutants.toml", only)
	}
	needTool(t, "make")
	needTool(t, "verilator")

	// The scenarios pass on the real switch: a mutant that fails one is
	// caught by its bug, not by the scenario.
	unmutated := needModels(t, "switch4_64")
	for _, sc := range mutantScenarios {
		caught, how := runMutantScenario(t, unmutated, sc)
		require.False(t, caught, "scenario %q fails on the unmutated switch: %s", sc.name, how)
	}

	var table []string
	for _, m := range mutants {
		t.Run(m.Name, func(t *testing.T) {
			dir := buildMutant(t, m)
			for _, sc := range mutantScenarios {
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
	t.Logf("mutants: %d\n%s", len(mutants), strings.Join(table, "\n"))
}

// loadSwitchMutants reads and checks testdata/switch_mutants.toml.
func loadSwitchMutants(t *testing.T) []switchMutant {
	var f struct {
		Mutant []switchMutant `toml:"mutant"`
	}
	md, err := toml.DecodeFile(filepath.Join("testdata", "switch_mutants.toml"), &f)
	require.NoError(t, err)
	require.Empty(t, md.Undecoded(), "unknown keys in switch_mutants.toml")
	require.NotEmpty(t, f.Mutant)
	seen := map[string]bool{}
	for _, m := range f.Mutant {
		require.NotEmpty(t, m.Name)
		require.False(t, seen[m.Name], "mutant %s twice", m.Name)
		seen[m.Name] = true
		require.Equal(t, "rtl/switch", filepath.ToSlash(filepath.Dir(m.File)), "mutant %s: its file must be in rtl/switch", m.Name)
		require.NotEmpty(t, m.Find, m.Name)
		require.NotEqual(t, m.Find, m.Replace, m.Name)
		require.NotEmpty(t, m.Bug, m.Name)
	}
	return f.Mutant
}

// buildMutant writes rtl/switch with m's edit under build/mutants/<name>
// and builds the 4-port 64-bit switch from it, returning its model
// directory. Files are rewritten only when they change, so make rebuilds
// only what the RTL or the sim library changed since the last campaign.
func buildMutant(t *testing.T, m switchMutant) string {
	base := filepath.Join("build", "mutants", m.Name) // from the repository root
	rtl := filepath.Join(base, "rtl", "switch")
	require.NoError(t, os.MkdirAll(filepath.Join(repoRoot, rtl), 0o755))
	src := filepath.Join(repoRoot, "rtl", "switch")
	ents, err := os.ReadDir(src)
	require.NoError(t, err)
	edited := false
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".sv") {
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		require.NoError(t, err)
		if e.Name() == filepath.Base(m.File) {
			n := bytes.Count(data, []byte(m.Find))
			require.Equal(t, 1, n, "mutant %s: its find text occurs %d times in %s; the RTL changed, update testdata/switch_mutants.toml", m.Name, n, m.File)
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
	target := filepath.Join(models, "switch4_64", "Vswitch_top")
	cmd := exec.Command("make", "--no-print-directory", "-f", "sim/build.mk",
		"SIM_MODELS_DIR="+models, "SIM_SWITCH_DIR="+rtl, target)
	cmd.Dir = repoRoot
	start := time.Now()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("building mutant %s: %v\n%s", m.Name, err, tail(string(out), 30))
	}
	t.Logf("mutant %s (%s) built in %.0fs: %s", m.Name, m.File, time.Since(start).Seconds(), m.Bug)
	return filepath.Join(repoRoot, models)
}

// runMutantScenario runs sc on the switch built in dir and reports
// whether the run failed, and how: the summary's figures and the first
// lines of the mismatch report, or the run's error.
func runMutantScenario(t *testing.T, dir string, sc mutantScenario) (caught bool, how string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var report bytes.Buffer
	s, err := engine.Run(ctx, engine.Config{Scenario: parse(t, sc.toml), Seed: sc.seed, OutDir: t.TempDir(), ModelDir: dir, Report: &report})
	var se *engine.ScenarioError
	require.False(t, errors.As(err, &se), "scenario %q: %v", sc.name, err)
	if err == nil && s.Pass {
		return false, ""
	}
	if s != nil {
		how = fmt.Sprintf("%d mismatched, %d missing, %d unexpected, %d counter mismatches; ", s.Mismatched, s.Missing, s.Unexpected, s.CounterFails)
	}
	if err != nil {
		how += "the run failed: " + err.Error()
	}
	return true, strings.TrimSuffix(how, "; ") + "\n" + head(report.String(), 6)
}

// needTool skips (or fails, under COSIM_REQUIRE_MODELS=1) without a tool
// the mutants' build needs.
func needTool(t *testing.T, name string) {
	if _, err := exec.LookPath(name); err != nil {
		msg := name + " is missing: run make deps"
		if os.Getenv(modeltest.RequireEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
}

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
