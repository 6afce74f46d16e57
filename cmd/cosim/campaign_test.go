package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/campaign"
	"github.com/rocesim/cosim/harness/junit/junittest"
)

// TestCampaignLocal: a campaign of two scenarios times three seeds runs
// over two workers, each run in its own directory; the scenario cut short
// fails every seed, is reported with its rerun command, and fails again
// when rerun so; the merge writes campaign.json, a JUnit suite per run and
// an index linking every report; --resume redoes only what did not end.
func TestCampaignLocal(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "axis_fifo_64"))
	require.NoError(t, err)
	t.Setenv("COSIM_TEST_MAIN", "1") // the runs are this test binary as cosim
	dir := t.TempDir()
	file := smallCampaign(t, dir, "small", 5, 3)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cosim(t, "campaign", "run", file, "--jobs", "2", "--out", out, "--models", models)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "campaign small: 6 runs, 6 to run, 2 jobs")
	assert.Contains(t, stdout, "6 runs: 3 passed, 3 failed, 0 timed out, 0 never ended")
	assert.Contains(t, stderr, "campaign: 3 of 6 runs did not pass")

	var m campaign.Merged
	b, err := os.ReadFile(filepath.Join(out, campaign.MergedFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &m))
	require.Len(t, m.Failures, 3)
	for _, f := range m.Failures {
		assert.Equal(t, filepath.Join(dir, "short.toml"), f.Scenario)
		assert.Contains(t, stdout, "rerun with: "+f.Rerun)
	}
	junittest.Validate(t, filepath.Join(out, campaign.JUnitFile))
	x, err := os.ReadFile(filepath.Join(out, campaign.JUnitFile))
	require.NoError(t, err)
	assert.Equal(t, 6, strings.Count(string(x), "<testsuite "), "a suite per run")
	html, err := os.ReadFile(filepath.Join(out, campaign.IndexFile))
	require.NoError(t, err)
	links := regexp.MustCompile(`href="(runs/\d{4}/report\.html)"`).FindAllStringSubmatch(string(html), -1)
	require.Len(t, links, 6)
	for _, l := range links {
		assert.FileExists(t, filepath.Join(out, l[1]))
	}

	// The failure reproduces with its rerun command.
	args := strings.Fields(m.Failures[0].Rerun)[1:] // after "cosim"
	args[len(args)-1] = filepath.Join(dir, "again")
	code, _, _ = cosim(t, append(args, "--models", models)...)
	assert.Equal(t, 1, code)
	first, again := summaryOf(t, filepath.Join(out, "runs", m.Failures[0].ID)), summaryOf(t, filepath.Join(dir, "again"))
	assert.Equal(t, first["error"], again["error"])
	assert.Equal(t, first["cycles"], again["cycles"])

	// --resume: only the run whose end was not recorded runs again.
	require.NoError(t, os.Remove(filepath.Join(out, "runs", "0001", campaign.OutcomeFile)))
	code, stdout, _ = cosim(t, "campaign", "run", file, "--jobs", "2", "--out", out, "--models", models, "--resume")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "6 runs, 1 to run")
	assert.Contains(t, stdout, "6 runs: 3 passed, 3 failed")
}

// smallCampaign writes, in dir, a campaign of two scenarios on axis_fifo
// models with count seeds from from: ok.toml passes, short.toml has too
// few cycles for its frames and fails every seed.
func smallCampaign(t *testing.T, dir, name string, from, count int) string {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.toml"), catEdit(nil), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "short.toml"), catEdit(map[int]string{2: `cycles = 20`}), 0o644))
	file := filepath.Join(dir, "c.toml")
	text := fmt.Sprintf("name = %q\ntime_limit = \"2m\"\nseeds = { from = %d, count = %d }\n\n[[scenario]]\nfile = \"ok.toml\"\n\n[[scenario]]\nfile = \"short.toml\"\n", name, from, count)
	require.NoError(t, os.WriteFile(file, []byte(text), 0o644))
	return file
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// A campaign file with a mistake is refused with its file, line and key.
func TestCampaignFileErrors(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "ok.toml"), catEdit(nil), 0o644))
	nicMutants, err := filepath.Abs(filepath.Join("..", "..", "rtl", "nic", "tb", "mutants.toml"))
	require.NoError(t, err)
	for _, c := range []struct{ text, want string }{
		{"seeds = { from = 1, count = 0 }\n[[scenario]]\nbuiltin = \"default\"\n", "c.toml:1: seeds: seeds = { from = N, count = M } with count at least 1"},
		{"seeds = { from = 1, count = 2 }\n", "c.toml: scenario: at least one [[scenario]]"},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\nbuiltin = \"other\"\n", "c.toml:3: scenario[0].builtin: no built-in scenario \"other\""},
		{"seeds = { from = 1, count = 2 }\ntime_limit = \"soon\"\n[[scenario]]\nbuiltin = \"default\"\n", "c.toml:2: time_limit: \"soon\" is not a positive duration"},
		{"seeds = { from = 1, count = 2 }\ncolour = 1\n[[scenario]]\nbuiltin = \"default\"\n", "c.toml:2: colour: unknown key"},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\nfile = \"missing.toml\"\n", "missing.toml"},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\nbuiltin = \"default\"\n[[mutant]]\nname = \"x\"\n", "c.toml:4: mutant[0]: [[mutant]] 1 needs catalogue (a mutants.toml) and name"},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\nbuiltin = \"default\"\n[[mutant]]\ncatalogue = \"" + nicMutants + "\"\nname = \"nosuch\"\n",
			"c.toml:6: mutant[0].name: " + nicMutants + ": no mutant \"nosuch\" (there are psn_one_ahead_accepted, "},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\nfile = \"ok.toml\"\n[[mutant]]\ncatalogue = \"" + nicMutants + "\"\nname = \"psn_one_ahead_accepted\"\n",
			"c.toml:6: mutant[0].name: mutant psn_one_ahead_accepted changes rtl/nic, which none of the campaign's scenarios runs"},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\ngenerator = \"nope\"\n", `c.toml:3: scenario[0].generator: no generator "nope" (there are nic-congestion, nic-soak, switch-random)`},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\nbuiltin = \"default\"\n[[scenario]]\ngenerator = \"nic-soak\"\nparams = { width = 32 }\n", "c.toml:6: scenario[1].params.width: 32 is not one of 64, 512"},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\ngenerator = \"nic-soak\"\nparams = { messages = \"many\" }\n", `c.toml:4: scenario[0].params.messages: want a whole number, not "many"`},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\ngenerator = \"nic-soak\"\n[scenario.params]\ncolour = 1\n", "c.toml:2: scenario[0].params.colour: nic-soak takes no such parameter (it takes width, path, messages)"},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\nbuiltin = \"default\"\nparams = { width = 64 }\n", "c.toml:4: scenario[0].params: params are a generator's: [[scenario]] 1 has none"},
		{"seeds = { from = 1, count = 2 }\n[[scenario]]\nbuiltin = \"default\"\ngenerator = \"nic-soak\"\n", "c.toml:2: scenario[0]: [[scenario]] 1 needs one of file, builtin or generator"},
	} {
		file := filepath.Join(dir, "c.toml")
		require.NoError(t, os.WriteFile(file, []byte(c.text), 0o644))
		code, _, stderr := cosim(t, "campaign", "run", file, "--out", filepath.Join(dir, "out"))
		assert.Equal(t, 2, code, c.text)
		assert.Contains(t, stderr, c.want, c.text)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", filepath.Join(dir, "c.toml"), "--detach"}, "campaign run: --detach goes with --slurm"},
		{[]string{"wait", dir}, "campaign wait: no submitted job array: " + dir + " holds none"},
		{[]string{"wait"}, "campaign wait: one campaign directory"},
	} {
		code, _, stderr := cosim(t, append([]string{"campaign"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, stderr, c.want, c.args)
	}
}

// TestCampaignCoverage: the merge counts the golden models' events as
// functional coverage bins over the runs, lists the holes, and with
// --goals exits 1 while a goal is unmet.
func TestCampaignCoverage(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "switch4_64"))
	require.NoError(t, err)
	t.Setenv("COSIM_TEST_MAIN", "1")
	dir := t.TempDir()
	scen, err := filepath.Abs("testdata/pinned/switch_incast_pfc.toml")
	require.NoError(t, err)
	file := filepath.Join(dir, "c.toml")
	require.NoError(t, os.WriteFile(file, []byte("seeds = { from = 1, count = 2 }\n[[scenario]]\nfile = \""+scen+"\"\n"), 0o644))
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cosim(t, "campaign", "run", file, "--out", out, "--models", models)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Regexp(t, `functional coverage: \d+ of \d+ bins hit \(coverage.json\)`, stdout)
	var cov struct {
		Bins []struct {
			Name string `json:"name"`
			Runs int    `json:"runs"`
		} `json:"bins"`
		Holes []string `json:"holes"`
	}
	require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join(out, campaign.CoverageFile)), &cov))
	runs := map[string]int{}
	for _, b := range cov.Bins {
		runs[b.Name] = b.Runs
	}
	assert.Equal(t, 2, runs["switch4.port0.tx_pfc"], "the incast pauses its senders in both runs")
	assert.Contains(t, cov.Holes, "switch4.port0.drop_runt", "nothing sends runts")

	goals := filepath.Join(dir, "goals.toml")
	require.NoError(t, os.WriteFile(goals, []byte(`must_hit = ["switch4.port*.tx_pfc", "switch4.port*.drop_runt"]`), 0o644))
	code, stdout, stderr = cosim(t, "campaign", "merge", out, "--goals", goals)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "GOAL NOT MET: switch4.port*.drop_runt")
	assert.NotContains(t, stdout, "GOAL NOT MET: switch4.port*.tx_pfc")
	assert.Contains(t, stderr, "campaign: 1 coverage goals not met")
	require.NoError(t, os.WriteFile(goals, []byte(`must_hit = ["switch4.port*.tx_pfc"]`), 0o644))
	code, _, _ = cosim(t, "campaign", "merge", out, "--goals", goals)
	assert.Equal(t, 0, code)
}
