package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/campaign"
	"github.com/rocesim/cosim/harness/junit/junittest"
	"github.com/rocesim/cosim/harness/scenario/generator"
	"github.com/rocesim/cosim/harness/slurm/slurmtest"
)

// TestCampaignOnSlurm runs a campaign of 20 runs as a job array on a real
// single-node Slurm cluster (slurmctld, slurmd and munge started for the
// test, root only): two scenarios on the switch and one on axis_fifo
// models that fails by construction, times five seeds, and the switch
// scenario again on a mutant of the switch (a bug planted in its RTL,
// built once before submission), submitted with --detach and collected
// by campaign wait. Every run's result is the one a local run of the
// same campaign gives, seed by seed; the mutant is caught, and its rerun
// command reproduces the failure. Then the NIC's soak campaign
// (rtl/nic/tb/soak.toml), its seeds and size set on the command line: the
// tasks run what was planned and generated on the submitting side, not
// what the file says, with the same results as here.
func TestCampaignOnSlurm(t *testing.T) {
	cluster := slurmtest.Start(t)
	models, err := filepath.Abs(needModels(t, "axis_fifo_64", "nic_64", "nic_512", "switch4_64", "switch4_512"))
	require.NoError(t, err)
	t.Setenv("COSIM_TEST_MAIN", "1") // the tasks run this test binary as cosim
	t.Setenv("SLURM_CONF", cluster.Conf)
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	file := smallCampaign(t, dir, "slurm20", 1, 5)
	scen := filepath.Join(dir, "switch.toml")
	require.NoError(t, os.WriteFile(scen, []byte(generator.SwitchTraffic("switch4", 4, 64, 40, generator.SwitchConfigs[64])), 0o644))
	catalogue, err := filepath.Abs(filepath.Join("..", "..", "rtl", "switch", "tb", "mutants.toml"))
	require.NoError(t, err)
	appendFile(t, file, "\n[[scenario]]\nfile = \"switch.toml\"\n\n[[mutant]]\ncatalogue = \""+catalogue+"\"\nname = \"flood_includes_ingress\"\n")
	// Kept between test runs, so that make rebuilds the mutant only when
	// the switch's RTL changed.
	mutants, err := filepath.Abs(filepath.Join("..", "..", "build", "mutants", "campaign"))
	require.NoError(t, err)

	// Submitted detached, then waited for by another process.
	onSlurm := filepath.Join(dir, "slurm")
	code, stdout, stderr := cosim(t, "campaign", "run", file, "--slurm", "--detach", "--partition", cluster.Partition, "--out", onSlurm,
		"--models", models, "--mutants", mutants)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "20 runs, 20 to run as a Slurm job array")
	assert.Contains(t, stdout, "cosim campaign wait "+onSlurm+" waits for it and merges")
	code, stdout, stderr = cosim(t, "campaign", "wait", onSlurm)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "15 runs: 10 passed, 5 failed, 0 timed out, 0 never ended")
	assert.Regexp(t, `mutant flood_includes_ingress caught by run 00\d\d \(.+\): rerun with: cosim run `, stdout)
	junittest.Validate(t, filepath.Join(onSlurm, campaign.JUnitFile))
	var m campaign.Merged
	require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join(onSlurm, campaign.MergedFile)), &m))
	require.Len(t, m.Mutants, 1)
	mm := m.Mutants[0]
	assert.True(t, mm.Caught)
	assert.Equal(t, 5, mm.Runs)
	assert.Contains(t, mm.Rerun, "--models "+filepath.Join(mutants, "flood_includes_ingress", "models"))

	// The mutant's failure reproduces with its rerun command.
	args := strings.Fields(mm.Rerun)[1:] // after "cosim"
	again := filepath.Join(dir, "again")
	args[slices.Index(args, "--out")+1] = again
	code, _, _ = cosim(t, args...)
	assert.Equal(t, 1, code)
	first, second := summaryOf(t, filepath.Join(onSlurm, "runs", mm.CaughtBy)), summaryOf(t, again)
	assert.Equal(t, first["cycles"], second["cycles"])
	assert.Equal(t, first["links"], second["links"], "the same frames matched, mismatched, missing and unexpected on every link")

	local := filepath.Join(dir, "local")
	code, _, _ = cosim(t, "campaign", "run", file, "--jobs", "2", "--out", local, "--models", models, "--mutants", mutants)
	require.Equal(t, 1, code)
	for i := range 20 {
		id := fmt.Sprintf("%04d", i)
		a, b := outcome(t, onSlurm, id), outcome(t, local, id)
		assert.Equal(t, b.Exit, a.Exit, "run %s", id)
		assert.Equal(t, b.Seed, a.Seed, "run %s", id)
		assert.Equal(t, summaryOf(t, filepath.Join(local, "runs", id))["cycles"], summaryOf(t, filepath.Join(onSlurm, "runs", id))["cycles"],
			"run %s: the same cycles on Slurm as here", id)
	}

	// The NIC's soak campaign of the tree, its seeds and size set on the
	// command line: the tasks run what was planned and generated here.
	soak := filepath.Join("..", "..", "rtl", "nic", "tb", "soak.toml")
	set := []string{"--seed-from", "5", "--seed-count", "1", "--set", "messages=20", "--models", models}
	onSlurm, local = filepath.Join(dir, "soak-slurm"), filepath.Join(dir, "soak-local")
	code, stdout, stderr = cosim(t, append([]string{"campaign", "run", soak, "--slurm", "--partition", cluster.Partition, "--out", onSlurm}, set...)...)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "6 runs: 6 passed")
	code, _, _ = cosim(t, append([]string{"campaign", "run", soak, "--out", local}, set...)...)
	require.Equal(t, 0, code)
	for i := range 6 {
		id := fmt.Sprintf("%04d", i)
		a, b := outcome(t, onSlurm, id), outcome(t, local, id)
		assert.Equal(t, uint64(5), a.Seed, "run %s: --seed-from on the nodes", id)
		assert.Equal(t, filepath.Join(onSlurm, campaign.ScenariosDir, id+".toml"), a.Scenario)
		assert.Equal(t, mustRead(t, b.Scenario), mustRead(t, a.Scenario), "run %s: the same scenario generated", id)
		assert.Regexp(t, `\b20 messages|\(of 20:`, a.Description, "run %s: --set on the nodes", id)
		assert.Equal(t, b.Description, a.Description)
		sa, sb := summaryOf(t, filepath.Join(onSlurm, "runs", id)), summaryOf(t, filepath.Join(local, "runs", id))
		assert.Equal(t, sb["cycles"], sa["cycles"], "run %s", id)
		assert.Equal(t, sb["counters"], sa["counters"], "run %s", id)
	}
}

func appendFile(t *testing.T, path, text string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(text)
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

func outcome(t *testing.T, out, id string) campaign.Outcome {
	t.Helper()
	var o campaign.Outcome
	require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join(out, "runs", id, campaign.OutcomeFile)), &o))
	return o
}
