package tb_test

import (
	"fmt"
	"testing"

	"github.com/rocesim/cosim/harness/modeltest"
)

// Long constrained-random campaigns of the switch, run by make soak (not by
// make test): COSIM_SOAK_FRAMES frames per run through the harness (every
// frame checked by the scoreboard, 4 ports, 64 and 512 bits) and a tenth of
// that through the cycle-exact RTL-versus-golden runs (4 and 8 ports), for
// COSIM_SOAK_SEEDS seeds from COSIM_SOAK_SEED on (default 1). Each run logs
// its seed, so a failure is rerun with COSIM_SOAK_SEED=<seed>
// COSIM_SOAK_SEEDS=1.
func TestSwitchSoak(t *testing.T) {
	frames, seeds := modeltest.SoakCampaign(t, "COSIM_SOAK_FRAMES")
	for _, seed := range seeds {
		for _, width := range []int{64, 512} {
			t.Run(fmt.Sprintf("harness/seed%d/%d", seed, width), func(t *testing.T) {
				t.Logf("seed %d: %d frames through switch4 at %d bits", seed, frames, width)
				modeltest.SoakRun(t, modeltest.SwitchTraffic("switch4", 4, width, frames/4, modeltest.SwitchConfigs[width]), seed)
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
