package campaign

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/junit/junittest"
)

// The merge of a campaign directory whose runs ended as written here (no
// models: the merge only reads run.json and summary.json): a mutant is
// caught by its first failing run, with that run's rerun command and how
// it failed; one whose runs all pass survived and fails its JUnit case;
// neither mutant's runs count among the campaign's runs or its coverage.
func TestMergeMutants(t *testing.T) {
	dir := t.TempDir()
	run := func(id, mutant string, exit int, sum *engine.Summary) {
		rd := filepath.Join(dir, "runs", id)
		require.NoError(t, os.MkdirAll(rd, 0o755))
		o := Outcome{Run: Run{ID: id, Scenario: "/s.toml", Seed: 1, Mutant: mutant, Bug: "bug of " + mutant}, Exit: exit,
			Rerun: "cosim run /s.toml --seed 1 --out " + rd, Log: "run.log"}
		b, err := json.Marshal(o)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(rd, OutcomeFile), b, 0o644))
		b, err = json.Marshal(sum)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(rd, "summary.json"), b, 0o644))
	}
	pass := &engine.Summary{Scenario: "s", Seed: 1, Pass: true, Counters: map[string]map[string]engine.CounterPair{}}
	run("0000", "", 0, pass)
	run("0001", "", 0, pass)
	run("0002", "a", 0, pass)
	run("0003", "a", 1, &engine.Summary{Scenario: "s", Seed: 1, Mismatched: 3, Unexpected: 1})
	run("0004", "a", 1, &engine.Summary{Scenario: "s", Seed: 1, Missing: 2})
	run("0005", "b", 0, pass)
	run("0006", "b", 0, pass)

	m, err := Merge(dir, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, m.Runs)
	assert.Equal(t, 2, m.Passed)
	assert.Empty(t, m.Failures)
	assert.Len(t, m.All, 7)
	require.Len(t, m.Mutants, 2)
	assert.Equal(t, MergedMutant{Name: "a", Bug: "bug of a", Runs: 3, Caught: true, CaughtBy: "0003",
		Error: "3 mismatched, 0 missing, 1 unexpected, 0 counter mismatches, 0 workload failures",
		Rerun: "cosim run /s.toml --seed 1 --out " + filepath.Join(dir, "runs", "0003")}, m.Mutants[0])
	assert.Equal(t, MergedMutant{Name: "b", Bug: "bug of b", Runs: 2}, m.Mutants[1])
	assert.Equal(t, 1, m.Survived)

	junittest.Validate(t, filepath.Join(dir, JUnitFile))
	x, err := os.ReadFile(filepath.Join(dir, JUnitFile))
	require.NoError(t, err)
	assert.Equal(t, 3, strings.Count(string(x), "<testsuite "), "a suite per unmutated run, one for the mutants")
	assert.Contains(t, string(x), `<failure message="mutant b survived its 2 runs"`)
	html, err := os.ReadFile(filepath.Join(dir, IndexFile))
	require.NoError(t, err)
	assert.Contains(t, string(html), "<h2>Mutants: 2, 1 survived</h2>")
	assert.Contains(t, string(html), "caught by run 0003")
}
