package tb_test

import (
	"testing"

	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/mutation"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// The switch at 64 bits on 4 ports, in the scenarios of switch_test.go
// (harness/mutation runs the campaign).
var switchCampaign = mutation.Campaign{
	Device: "switch", Model: "switch4_64",
	Scenarios: []mutation.Scenario{
		{Name: "random, strict priority, ECN, PFC", TOML: generator.SwitchTraffic("switch4", 4, 64, 300, generator.SwitchConfigs[64]), Seed: 7},
		{Name: "random, DRR, RED ECN, PFC reception", TOML: generator.SwitchTraffic("switch4", 4, 64, 300, generator.SwitchConfigs[512]), Seed: 7},
		{Name: "incast without PFC", TOML: incast(incastTailDropCSR, false), Seed: 3},
		{Name: "incast with PFC", TOML: incast(incastPFCCSR, true), Seed: 3},
		// One directed case per rule of rtl/switch/README.md, cycle by
		// cycle (switch_timing_test.go): boundaries random traffic
		// seldom hits, such as an entry's last live cycle.
		{Name: "directed timing tests", Tests: &mutation.GoTests{Pkg: "./rtl/switch/tb", Run: "^TestSwitchTimingDirected$//^switch4_64$", Env: modeltest.DirEnv}},
	},
}

func TestSwitchMutants(t *testing.T) { mutation.Run(t, switchCampaign) }
