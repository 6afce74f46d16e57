package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/slurm/slurmtest"
)

// benchCampaign writes a campaign of n runs of the switch under incast
// (about half a second each) and returns its file.
func benchCampaign(b *testing.B, n int) string {
	dir := b.TempDir()
	require.NoError(b, os.Chmod(dir, 0o755))
	scen, err := filepath.Abs("testdata/pinned/switch_incast_pfc.toml")
	require.NoError(b, err)
	file := filepath.Join(dir, "c.toml")
	require.NoError(b, os.WriteFile(file, []byte(fmt.Sprintf("seeds = { from = 1, count = %d }\n[[scenario]]\nfile = %q\n", n, scen)), 0o644))
	return file
}

// BenchmarkCampaign reports a local campaign's throughput with one and two
// workers (runs per minute) on this machine (make bench).
func BenchmarkCampaign(b *testing.B) {
	models, err := filepath.Abs(needModels(b, "switch4_64"))
	require.NoError(b, err)
	b.Setenv("COSIM_TEST_MAIN", "1")
	const runs = 8
	file := benchCampaign(b, runs)
	for _, jobs := range []int{1, 2} {
		b.Run(fmt.Sprintf("jobs=%d", jobs), func(b *testing.B) {
			var took time.Duration
			for range b.N {
				out := filepath.Join(b.TempDir(), "out")
				start := time.Now()
				code, stdout, stderr := cosim(b, "campaign", "run", file, "--jobs", fmt.Sprint(jobs), "--out", out, "--models", models)
				took = time.Since(start)
				require.Equal(b, 0, code, "%s\n%s", stdout, stderr)
			}
			b.ReportMetric(runs/took.Minutes(), "runs/min")
		})
	}
}

// BenchmarkCampaignSlurm reports the same campaign as a job array on the
// single-node test cluster, and Slurm's cost per task against a local
// run of the same work with as many workers as the node has CPUs.
func BenchmarkCampaignSlurm(b *testing.B) {
	cluster := slurmtest.Start(b)
	models, err := filepath.Abs(needModels(b, "switch4_64"))
	require.NoError(b, err)
	b.Setenv("COSIM_TEST_MAIN", "1")
	b.Setenv("SLURM_CONF", cluster.Conf)
	const runs = 8
	file := benchCampaign(b, runs)
	var local, onSlurm time.Duration
	for range b.N {
		start := time.Now()
		code, stdout, stderr := cosim(b, "campaign", "run", file, "--jobs", fmt.Sprint(cluster.CPUs), "--out", filepath.Join(b.TempDir(), "l"), "--models", models)
		local = time.Since(start)
		require.Equal(b, 0, code, "%s\n%s", stdout, stderr)
		start = time.Now()
		code, stdout, stderr = cosim(b, "campaign", "run", file, "--slurm", "--out", filepath.Join(b.TempDir(), "s"), "--models", models)
		onSlurm = time.Since(start)
		require.Equal(b, 0, code, "%s\n%s", stdout, stderr)
	}
	b.ReportMetric(runs/onSlurm.Minutes(), "runs/min")
	b.ReportMetric((onSlurm-local).Seconds()/runs, "s-overhead/task")
}
