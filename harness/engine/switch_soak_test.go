package engine_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/rocesim/cosim/harness/scenario"
)

// Long constrained-random campaigns of the switch, run by make soak (not by
// make test): COSIM_SOAK_FRAMES frames per run through the harness (every
// frame checked by the scoreboard, 4 ports, 64 and 512 bits) and a tenth of
// that through the cycle-exact RTL-versus-golden runs (4 and 8 ports), for
// COSIM_SOAK_SEEDS seeds from COSIM_SOAK_SEED on (default 1). Each run logs
// its seed, so a failure is rerun with COSIM_SOAK_SEED=<seed>
// COSIM_SOAK_SEEDS=1.
func TestSwitchSoak(t *testing.T) {
	frames := soakEnv(t, "COSIM_SOAK_FRAMES", 0)
	if frames == 0 {
		t.Skip("a soak campaign: set COSIM_SOAK_FRAMES (make soak does)")
	}
	seeds := soakEnv(t, "COSIM_SOAK_SEEDS", 4)
	first := soakEnv(t, "COSIM_SOAK_SEED", 1)
	for seed := uint64(first); seed < uint64(first+seeds); seed++ {
		for _, width := range []int{64, 512} {
			t.Run(fmt.Sprintf("harness/seed%d/%d", seed, width), func(t *testing.T) {
				t.Logf("seed %d: %d frames through switch4 at %d bits", seed, frames, width)
				sc := parse(t, switchTraffic("switch4", 4, width, frames/4, switchConfigs[width]))
				sc.Cycles = 1 << 50 // the frame count bounds the run
				soakRun(t, sc, seed)
			})
		}
		for _, model := range []string{"switch4_64", "switch4_512", "switch8_64"} {
			t.Run(fmt.Sprintf("timing/seed%d/%s", seed, model), func(t *testing.T) {
				t.Logf("seed %d: %d frames through %s, cycle by cycle against golden", seed, frames/10, model)
				swtCheckRun(t, swtRandom(model, frames/10, seed))
			})
		}
	}
}

// soakRun runs a scenario of a soak campaign on seed. No capture of
// millions of frames: a failure still writes its mismatch files, and the
// seed reruns with captures. Bounded by soakBound instead of run's three
// minutes, which a campaign of ten million frames outlasts; the harness's
// own stall detection still ends a run that stops moving.
func soakRun(t *testing.T, sc *scenario.Scenario, seed uint64) {
	cfg := config(t, sc, seed)
	cfg.NoLinkPcaps = true
	s, err := runWithin(t, cfg, soakBound)
	requirePass(t, s, err)
}

const soakBound = 2 * time.Hour

// soakEnv reads a positive integer from the environment.
func soakEnv(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a whole number", name, v)
	}
	return n
}
