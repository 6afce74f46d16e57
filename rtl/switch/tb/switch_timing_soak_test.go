package tb_test

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestSwitchTimingSoak is the long form of TestSwitchTimingRandom, run by
// make soak after its campaigns (rtl/switch/tb/soak.toml), not by make
// test: a tenth of COSIM_SOAK_FRAMES random frames through the 4-port
// switch at 64 and 512 bits and the 8-port one at 64, the RTL and
// golden/ethswitch agreeing cycle by cycle, for COSIM_SOAK_SEEDS seeds
// (default 4) from COSIM_SOAK_SEED (default 1). It is no campaign run:
// cosim run checks the frames at the ports, this every block's timing.
// Each run logs its seed, so a failure is rerun with
// COSIM_SOAK_SEED=<seed> COSIM_SOAK_SEEDS=1.
func TestSwitchTimingSoak(t *testing.T) {
	frames := soakEnv(t, "COSIM_SOAK_FRAMES", 0) / 10
	if frames == 0 {
		t.Skip("a soak: set COSIM_SOAK_FRAMES (make soak does)")
	}
	first, count := soakEnv(t, "COSIM_SOAK_SEED", 1), soakEnv(t, "COSIM_SOAK_SEEDS", 4)
	for seed := uint64(first); seed < uint64(first+count); seed++ {
		for _, model := range []string{"switch4_64", "switch4_512", "switch8_64"} {
			t.Run(fmt.Sprintf("seed%d/%s", seed, model), func(t *testing.T) {
				t.Logf("seed %d: %d frames through %s, cycle by cycle against golden", seed, frames, model)
				swtCheckRun(t, swtRandom(model, frames, seed))
			})
		}
	}
}

// soakEnv reads a whole number from the environment.
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
