package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/campaign"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// genCampaign is a campaign of the two generators, one seed each, sizes
// the command line is to override; params written both ways TOML allows.
const genCampaign = `name = "gen"
seeds = { from = 1, count = 1 }
no_pcap = true

[[scenario]]
generator = "nic-soak"
params = { width = 64, path = "switch", messages = 20_000 }

[[scenario]]
generator = "switch-random"
[scenario.params]
width = 64
frames = 100_000
`

// TestCampaignGenerators: a campaign of generator scenarios, its seeds
// and sizes set on the command line (seeds whose NIC shapes run in well
// under a second), runs the real models; each run's
// scenario is generated before the runs into scenarios/<id>.toml, the
// same bytes the generator gives for its seed, described in run.json and
// campaign.json; no run captures its links, as no_pcap asks; a rerun
// command reproduces its run's cycles, every link captured.
func TestCampaignGenerators(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "nic_64", "switch4_64"))
	require.NoError(t, err)
	t.Setenv("COSIM_TEST_MAIN", "1") // the runs are this test binary as cosim
	dir := t.TempDir()
	file := filepath.Join(dir, "c.toml")
	require.NoError(t, os.WriteFile(file, []byte(genCampaign), 0o644))
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cosim(t, "campaign", "run", file, "--out", out, "--models", models,
		"--seed-from", "5", "--seed-count", "2", "--set", "messages=20", "--set", "frames=400")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "4 runs: 4 passed, 0 failed")

	var m campaign.Merged
	require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join(out, campaign.MergedFile)), &m))
	require.Len(t, m.All, 4)
	want := []struct {
		gen    string
		params map[string]any
		seed   uint64
	}{
		{"nic-soak", map[string]any{"width": 64, "path": "switch", "messages": 20}, 5},
		{"nic-soak", map[string]any{"width": 64, "path": "switch", "messages": 20}, 6},
		{"switch-random", map[string]any{"width": 64, "frames": 400}, 5},
		{"switch-random", map[string]any{"width": 64, "frames": 400}, 6},
	}
	for i, r := range m.All {
		w := want[i]
		assert.Equal(t, w.seed, r.Seed, "run %s", r.ID)
		assert.Equal(t, filepath.Join(out, campaign.ScenariosDir, r.ID+".toml"), r.Scenario)
		g, err := generator.Lookup(w.gen)
		require.NoError(t, err)
		text, desc, err := g.Generate(w.params, w.seed)
		require.NoError(t, err)
		assert.Equal(t, text, string(mustRead(t, r.Scenario)), "run %s: the generator's bytes for its seed", r.ID)
		assert.Equal(t, desc, r.Description)
		assert.Contains(t, string(mustRead(t, filepath.Join(out, "runs", r.ID, campaign.OutcomeFile))), desc)
		assert.Empty(t, capture(t, filepath.Join(out, "runs", r.ID)), "run %s: no_pcap", r.ID)
	}
	assert.NotEqual(t, m.All[0].Description, m.All[1].Description, "each seed draws its own shape")
	assert.Contains(t, m.All[2].Description, "400 frames into switch4 at 64 bits")

	// Each generator's run reproduces with its rerun command, captured.
	for _, r := range []campaign.MergedRun{m.All[1], m.All[2]} {
		assert.Equal(t, "--seed", strings.Fields(r.Rerun)[3], r.Rerun)
		args := strings.Fields(r.Rerun)[1:] // after "cosim"
		again := filepath.Join(dir, "again"+r.ID)
		args[len(args)-1] = again
		code, stdout, stderr = cosim(t, append(args, "--models", models)...)
		require.Equal(t, 0, code, "%s\nstdout:\n%s\nstderr:\n%s", r.Rerun, stdout, stderr)
		assert.Equal(t, summaryOf(t, filepath.Join(out, "runs", r.ID))["cycles"], summaryOf(t, again)["cycles"], r.Rerun)
		assert.NotEmpty(t, capture(t, again), "the rerun captures every link")
	}
}

// A bad override is bad usage, named by its flag, and runs nothing.
func TestCampaignOverrideErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.toml")
	require.NoError(t, os.WriteFile(file, []byte(genCampaign), 0o644))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--set", "colour=red"}, "campaign run: --set colour=red: no generator of " + file + " takes colour (it has nic-soak, switch-random)"},
		{[]string{"--set", "frames=many"}, `campaign run: --set frames=many: switch-random: frames: want a whole number, not "many"`},
		{[]string{"--set", "width=32"}, "campaign run: --set width=32: [[scenario]] 1: nic-soak: width: 32 is not one of 64, 512"},
		{[]string{"--set", "frames"}, `"frames" is not KEY=VALUE`},
		{[]string{"--seed-count", "0"}, "campaign run: --seed-count: 0 seeds: at least 1"},
	} {
		out := filepath.Join(dir, "out")
		code, _, stderr := cosim(t, append([]string{"campaign", "run", file, "--out", out}, c.args...)...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Contains(t, stderr, c.want, "%v", c.args)
		assert.NoDirExists(t, out, "%v", c.args)
	}
}

// make soak's campaign files load with the Makefile's SOAK_* defaults,
// take its overrides (the switch's frames, the NIC's messages, and not
// the other's) and generate every run's scenario, none capturing links.
func TestSoakCampaignFiles(t *testing.T) {
	mk := string(mustRead(t, filepath.Join("..", "..", "Makefile")))
	def := func(name string) int64 {
		m := regexp.MustCompile(`(?m)^` + name + ` \?= (\d+)$`).FindStringSubmatch(mk)
		require.NotNil(t, m, name)
		n, err := strconv.ParseInt(m[1], 10, 64)
		require.NoError(t, err)
		return n
	}
	for _, c := range []struct {
		file, key, other, soak string
		scenarios              int
	}{
		{"switch", "frames", "messages", "SOAK_FRAMES", 2},
		{"nic", "messages", "frames", "SOAK_MESSAGES", 6},
	} {
		f, err := campaign.Load(filepath.Join("..", "..", "rtl", c.file, "tb", "soak.toml"))
		require.NoError(t, err)
		assert.True(t, f.NoPcap, c.file)
		assert.Equal(t, campaign.Seeds{From: uint64(def("SOAK_SEED")), Count: int(def("SOAK_SEEDS"))}, f.Seeds, c.file)
		require.Len(t, f.Scenarios, c.scenarios)
		for _, s := range f.Scenarios {
			assert.Equal(t, def(c.soak), s.Params[c.key], "%s: %s", c.file, c.key)
		}
		require.NoError(t, f.SetSeeds(7, 1))
		require.NoError(t, f.Set(c.key, "40"))
		assert.ErrorContains(t, f.Set(c.other, "40"), "takes "+c.other)
		runs := f.Plan()
		require.Len(t, runs, c.scenarios)
		require.NoError(t, campaign.Generate(t.TempDir(), runs))
		for _, r := range runs {
			assert.Equal(t, uint64(7), r.Seed)
			assert.True(t, r.NoPcap)
			assert.Contains(t, r.Args("dir", "models"), "--no-pcap")
			assert.Regexp(t, `\b40 |of 40:`, r.Description)
			assert.FileExists(t, r.Scenario)
		}
	}
}

// A generated scenario that cannot be written fails the campaign before
// any run, with exit 1 and the reason, not as an interruption.
func TestCampaignScenarioNotWritten(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "c.toml")
	require.NoError(t, os.WriteFile(file, []byte(genCampaign), 0o644))
	out := filepath.Join(dir, "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, campaign.ScenariosDir), nil, 0o644)) // a file where the folder goes
	code, _, stderr := cosim(t, "campaign", "run", file, "--out", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "campaign run: mkdir "+filepath.Join(out, campaign.ScenariosDir))
	assert.NoDirExists(t, filepath.Join(out, "runs", "0000"))
}

// TestCongestionCampaignCovers: the nic-congestion generator's runs pass
// and reach every step of DCQCN the golden reaction point counts (cuts,
// fast recovery, additive increase, back to line rate): a coverage goals
// file asking for them is met.
func TestCongestionCampaignCovers(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "nic_64", "switch4_64"))
	require.NoError(t, err)
	t.Setenv("COSIM_TEST_MAIN", "1")
	dir := t.TempDir()
	file := filepath.Join(dir, "c.toml")
	require.NoError(t, os.WriteFile(file, []byte("seeds = { from = 1, count = 2 }\nno_pcap = true\n[[scenario]]\ngenerator = \"nic-congestion\"\nparams = { messages = 300 }\n"), 0o644))
	goals := filepath.Join(dir, "goals.toml")
	require.NoError(t, os.WriteFile(goals, []byte(`must_hit = ["nic.dcqcn.cut", "nic.dcqcn.fast_recovery", "nic.dcqcn.additive_increase", "nic.dcqcn.back_to_line_rate", "switch4.port1.ecn_marked.prio0", "nic.tx_cnp"]`), 0o644))
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cosim(t, "campaign", "run", file, "--out", out, "--models", models)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	code, stdout, stderr = cosim(t, "campaign", "merge", out, "--goals", goals)
	assert.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.NotContains(t, stdout, "GOAL NOT MET")
}
