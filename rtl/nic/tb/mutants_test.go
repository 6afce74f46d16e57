package tb_test

import (
	"fmt"
	"testing"

	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/mutation"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// The NIC at 64 bits, two of them joined by links (nic_system_test.go):
// mixed RDMA messages over links with every fault, and over clean ones;
// then through the RTL switch, which marks CE under an incast, with DCQCN
// on (nic_congestion_test.go). harness/mutation runs the campaign.
var nicCampaign = mutation.Campaign{
	Device: "nic", Model: "nic_64", With: []string{"switch4_64"},
	Scenarios: []mutation.Scenario{
		{Name: "two NICs, faulty links, path MTU 1024", TOML: nicDirectTOML(64, 300, 1024, true), Seed: 1},
		{Name: "two NICs, clean links, path MTU 4096", TOML: nicDirectTOML(64, 300, 4096, false), Seed: 1},
		// The incast from cycle 20,000, 100 frames long; 200 messages.
		{Name: "two NICs through the switch, incast, DCQCN", TOML: fmt.Sprintf(congestionTOML, fastDCQCN, 20_000, 100, 200,
			generator.NICSwitchNIC(64, congestionCSR, "")), Seed: 1},
		// The workloads above expect no error completion; these do (bad
		// R_Key, RNR and retry budgets running out, access errors).
		{Name: "directed requester, responder, PFC and VLAN tests", Tests: &mutation.GoTests{Pkg: "./rtl/nic/tb",
			Run: "^(TestNICRequester|TestNICResponder|TestNICPFC|TestNICVLAN)$/^64$", Env: modeltest.DirEnv}},
	},
}

func TestNICMutants(t *testing.T) { mutation.Run(t, nicCampaign) }
