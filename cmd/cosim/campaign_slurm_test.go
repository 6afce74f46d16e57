package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/campaign"
	"github.com/rocesim/cosim/harness/junit/junittest"
	"github.com/rocesim/cosim/harness/slurm/slurmtest"
)

// TestCampaignOnSlurm runs a campaign of 16 runs (8 of them failing by
// construction) as a job array on a real single-node Slurm cluster
// (slurmctld, slurmd and munge started for the test, root only), and
// checks that every run's result is the one a local run of the same
// campaign gives: same exit status and same cycles, seed by seed. Then a
// campaign of generator scenarios whose seeds and sizes the command line
// sets: the tasks run what was planned and generated on the submitting
// side, not what the file says.
func TestCampaignOnSlurm(t *testing.T) {
	cluster := slurmtest.Start(t)
	models, err := filepath.Abs(needModels(t, "axis_fifo_64", "nic_64", "switch4_64"))
	require.NoError(t, err)
	t.Setenv("COSIM_TEST_MAIN", "1") // the tasks run this test binary as cosim
	t.Setenv("SLURM_CONF", cluster.Conf)
	dir := t.TempDir()
	require.NoError(t, os.Chmod(dir, 0o755))
	file := smallCampaign(t, dir, "slurm16", 1, 8)

	onSlurm := filepath.Join(dir, "slurm")
	code, stdout, stderr := cosim(t, "campaign", "run", file, "--slurm", "--partition", cluster.Partition, "--out", onSlurm, "--models", models)
	require.Equal(t, 1, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "16 runs, 16 to run as a Slurm job array")
	assert.Contains(t, stdout, "16 runs: 8 passed, 8 failed, 0 timed out, 0 never ended")
	junittest.Validate(t, filepath.Join(onSlurm, campaign.JUnitFile))

	local := filepath.Join(dir, "local")
	code, _, _ = cosim(t, "campaign", "run", file, "--jobs", "2", "--out", local, "--models", models)
	require.Equal(t, 1, code)
	for i := range 16 {
		id := fmt.Sprintf("%04d", i)
		a, b := outcome(t, onSlurm, id), outcome(t, local, id)
		assert.Equal(t, b.Exit, a.Exit, "run %s", id)
		assert.Equal(t, b.Seed, a.Seed, "run %s", id)
		assert.Equal(t, summaryOf(t, filepath.Join(local, "runs", id))["cycles"], summaryOf(t, filepath.Join(onSlurm, "runs", id))["cycles"],
			"run %s: the same cycles on Slurm as here", id)
	}

	gen := filepath.Join(dir, "gen.toml")
	require.NoError(t, os.WriteFile(gen, []byte(genCampaign), 0o644))
	set := []string{"--seed-from", "5", "--seed-count", "2", "--set", "messages=20", "--set", "frames=400", "--models", models}
	onSlurm, local = filepath.Join(dir, "gen-slurm"), filepath.Join(dir, "gen-local")
	code, stdout, stderr = cosim(t, append([]string{"campaign", "run", gen, "--slurm", "--partition", cluster.Partition, "--out", onSlurm}, set...)...)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Contains(t, stdout, "4 runs: 4 passed")
	code, _, _ = cosim(t, append([]string{"campaign", "run", gen, "--out", local}, set...)...)
	require.Equal(t, 0, code)
	for i := range 4 {
		id := fmt.Sprintf("%04d", i)
		a, b := outcome(t, onSlurm, id), outcome(t, local, id)
		assert.Equal(t, uint64(5+i%2), a.Seed, "run %s: --seed-from on the nodes", id)
		assert.Equal(t, filepath.Join(onSlurm, campaign.ScenariosDir, id+".toml"), a.Scenario)
		assert.Equal(t, mustRead(t, b.Scenario), mustRead(t, a.Scenario), "run %s: the same scenario generated", id)
		assert.Equal(t, b.Description, a.Description)
		assert.Equal(t, summaryOf(t, filepath.Join(local, "runs", id))["cycles"], summaryOf(t, filepath.Join(onSlurm, "runs", id))["cycles"], "run %s", id)
	}
}

func outcome(t *testing.T, out, id string) campaign.Outcome {
	t.Helper()
	var o campaign.Outcome
	require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join(out, "runs", id, campaign.OutcomeFile)), &o))
	return o
}
