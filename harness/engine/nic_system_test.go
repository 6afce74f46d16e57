package engine_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// nicSystemTOML is two RTL NICs through the RTL switch, every link 1 us
// (156 cycles at 156.25 MHz) with seeded loss and corruption, and an RDMA
// workload of mixed SEND, WRITE and READ with and without immediate.
const nicSystemTOML = `
name = "nic-switch-nic"
cycles = 200_000_000
[[model]]
name = "nic0"
top = "nic"
data_width = %[1]d
[[model]]
name = "nic1"
top = "nic"
data_width = %[1]d
[[model]]
name = "sw"
top = "switch4"
data_width = %[1]d
[[link]]
from = "nic0.out0"
to = "sw.in0"
latency = 156
loss_pct = %[2]g
corrupt_pct = %[3]g
[[link]]
from = "sw.out0"
to = "nic0.in0"
latency = 156
loss_pct = %[2]g
corrupt_pct = %[3]g
[[link]]
from = "nic1.out0"
to = "sw.in1"
latency = 156
loss_pct = %[2]g
corrupt_pct = %[3]g
[[link]]
from = "sw.out1"
to = "nic1.in0"
latency = 156
loss_pct = %[2]g
corrupt_pct = %[3]g
[[rdma]]
nics = ["nic0", "nic1"]
qps = 8
messages = %[4]d
max_size = 8192
pmtu = 1024
`

// The system test: 10,000 mixed messages between two RTL NICs
// through the RTL switch with 1 % loss and 0.1 % corruption on every link.
// Every frame on every link and every completion matches golden, every
// counter of the three models agrees, every message completes with
// success and both hosts' memory is what golden and the workload say.
func TestNICSwitchNIC(t *testing.T) {
	sc := parse(t, fmt.Sprintf(nicSystemTOML, 64, 1.0, 0.1, 10_000))
	cfg := config(t, sc, 1)
	s, err := run(t, cfg)
	requirePass(t, s, err)
	assert.Positive(t, s.Drops["link_loss"])
	assert.Positive(t, s.Faults["link_corrupt"])
	var retrans, bad uint64
	for _, n := range []string{"nic0", "nic1"} {
		bad += counter(t, s, n, "rx_bad_icrc")
		for q := range 8 {
			retrans += counter(t, s, n, fmt.Sprintf("qp%d.tx_retransmits", q))
		}
	}
	assert.Positive(t, retrans, "losses were recovered by go-back-N")
	assert.Positive(t, bad, "corrupted frames were caught by the ICRC check")
	require.Empty(t, s.Workload)
}
