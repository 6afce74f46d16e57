package tb_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/scenario/generator"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// congestionTOML is nic0 -> switch -> nic1 at 64 bits with 1 us links:
// nic0 and nic1 WRITE to each other over 4 QP pairs as fast as the wire
// takes, and from cycle crossFrom a generator on sw.in2 sends 1500-byte
// frames to nic1's MAC at half the line rate for about crossFor cycles
// (an incast: sw.out1 is offered 1.5 times its rate). All frames share
// queue 0 (DSCP_MAP and DEFAULT_PRIO at reset), whose ECN threshold is
// ECN_K0 (%[5]s: nicSwitchNIC with congestionCSR). The DCQCN settings
// (%[1]s) are the fast ones of the NIC model test, so that a rate falls
// and recovers within a few 10,000 cycles.
const congestionTOML = `
name = "congestion"
cycles = 2_000_000
%[5]s
[[traffic]]
kind = "l2"
to = "sw.in2"
to_mac = "02:4e:43:00:00:02" # nic1 (rdma[0], second NIC)
start = %[2]d
frames = %[3]d
min_size = 1500
max_size = 1500
hosts = 1
gap_cycles = 188 # a 1500-byte frame is 188 beats: half the line rate
[[rdma]]
nics = ["nic0", "nic1"]
qps = 4
messages = %[4]d
send_pct = 0
write_pct = 100
read_pct = 0
imm_pct = 0
min_size = 4096
max_size = 8192
outstanding = 16
%[1]s
`

// congestionCSR turns the switch's ECN marking on.
const congestionCSR = `[model.csr]
CTRL = 2      # ECN marking on, strict priority
ECN_K0 = 4096 # bytes queued on an egress port before ECT frames are marked`

// fastDCQCN is the reaction point of TestNICCongestion (nic_model_test.go):
// at 64 bits the line is 10 Gbit/s, so R_AI is a line/8, R_HAI line/4, the
// floor line/32.
const fastDCQCN = `[rdma.dcqcn]
cnp_interval = 2000
alpha_period = 1000
increase_period = 3000
byte_counter = 32768
g_shift = 4
fast_recovery = 3
additive_mbps = 1250
hyper_mbps = 2500
min_mbps = 312.5`

// The congestion test, with every part real: the RTL switch marks
// nic0's frames CE while the incast fills its egress queue to nic1, the
// RTL nic1 answers with CNPs, and the RTL nic0's reaction point cuts the
// rate of its QPs; once the incast ends the rate climbs back. Every frame
// on every link is checked at its exact cycle against golden (golden/
// ethswitch marks, golden/rc through golden/nic sends CNPs and paces), so
// the rate nic0 sends at is golden's prediction, cycle for cycle; the test
// measures it on nic0.out0, the port of the link to sw.in0. The same run
// without [rdma.dcqcn] is the control: CNPs still flow, and nic0 keeps
// sending at the line rate.
func TestNICSwitchCongestion(t *testing.T) {
	const (
		crossFrom = 40_000
		crossFor  = 40_000
		frames    = crossFor / (188 + 188)
		messages  = 600
	)
	// nic0's send rate in bytes per cycle over [from, to), from the
	// first beats of its frames
	rate := func(sent []tb.Received, from, to uint64) float64 {
		var n int
		for _, f := range sent {
			if f.Cycle >= from && f.Cycle < to {
				n += len(f.Data)
			}
		}
		return float64(n) / float64(to-from)
	}
	type result struct{ pre, cong, rec float64 }
	runOne := func(t *testing.T, dcqcn string) result {
		b, s := runScenario(t, fmt.Sprintf(congestionTOML, dcqcn, crossFrom, frames, messages, generator.NICSwitchNIC(64, congestionCSR, "")))
		var marks, sent, got uint64
		for p := range 4 {
			marks += b.Counter(fmt.Sprintf("sw.port%d.ecn_marked[0]", p))
		}
		for q := range 4 {
			sent += b.Counter(fmt.Sprintf("nic1.qp%d.tx_cnp", q))
			got += b.Counter(fmt.Sprintf("nic0.qp%d.rx_cnp", q))
		}
		require.Positive(t, marks, "the switch marked CE")
		require.Positive(t, sent, "nic1 sent CNPs")
		require.Equal(t, sent, got, "nic0 got every CNP (no loss on the links)")
		end := uint64(crossFrom + crossFor)
		require.Greater(t, s.Cycles, end+60_000, "the run outlasts the incast by enough to recover")
		sent0 := b.Out("nic0.out0")
		r := result{rate(sent0, 10_000, crossFrom), rate(sent0, crossFrom+10_000, end), rate(sent0, end+40_000, end+60_000)}
		t.Logf("%d CE marks, %d CNPs; nic0 bytes/cycle: %.2f before the incast, %.2f during, %.2f from 40k cycles after",
			marks, sent, r.pre, r.cong, r.rec)
		return r
	}
	var on, off result
	t.Run("dcqcn", func(t *testing.T) {
		on = runOne(t, fastDCQCN)
		assert.Greater(t, on.pre, 6.0, "close to the line rate (8 bytes/cycle) before")
		assert.Less(t, on.cong, 0.6*on.pre, "the rate dropped")
		assert.Greater(t, on.rec, 0.85*on.pre, "the rate recovered")
	})
	t.Run("control", func(t *testing.T) {
		off = runOne(t, "")
		assert.Greater(t, off.cong, 0.85*off.pre, "without a reaction point nic0 does not slow down")
	})
}

// pfcTOML is congestionTOML's incast with PFC in place of ECN: the
// cross traffic into sw.in2 is tagged with priority 5, which strict
// priority serves before the NICs' priority 3 (DSCP 26, DSCP_MAP3 bits
// 10:8), so nic0's frames queue up in the switch; an ingress port holding
// more than 8 KiB of a priority sends an XOFF of 256 quanta (2,048 cycles
// at 64 bits), refreshed every 1,000 cycles, and an XON once at 2 KiB.
const pfcTOML = `
name = "pfc"
cycles = 2_000_000
%[4]s
[[traffic]]
kind = "l2"
to = "sw.in2"
to_mac = "02:4e:43:00:00:02" # nic1 (rdma[0], second NIC)
start = %[1]d
frames = %[2]d
min_size = 1500
max_size = 1500
hosts = 1
gap_cycles = 188 # a 1500-byte frame is 188 beats: half the line rate
vlan_pct = 100
pcp = 5
[[rdma]]
nics = ["nic0", "nic1"]
qps = 4
messages = %[3]d
send_pct = 0
write_pct = 100
read_pct = 0
imm_pct = 0
min_size = 4096
max_size = 8192
outstanding = 16
priorities = [3]
dscps = [26]
cnp_priority = 3
`

const pfcCSR = `[model.csr]
CTRL = 4
DSCP_MAP3 = 0x300
PFC_XOFF = 8192
PFC_XON = 2048
PFC_QUANTA = 256
PFC_REFRESH = 1000`

// The NICs under a switch that sends PFC (rtl/nic/README.md "PFC"): cross
// traffic of a higher priority takes half of the switch's port to nic1,
// the switch sends nic0 XOFFs of its QPs' priority, and nic0 pauses them
// until they run out or an XON comes; every frame on every link at its
// golden cycle (golden/ethswitch sends the PFC frames, golden/rc pauses),
// the counters of both sides equal, the workload complete, nothing lost.
func TestNICSwitchPFC(t *testing.T) {
	const crossFrom, crossFor = 40_000, 40_000
	b, _ := runScenario(t, fmt.Sprintf(pfcTOML, crossFrom, crossFor/(188+188), 600,
		generator.NICSwitchNIC(64, pfcCSR, "")))
	xoff := b.Counter("sw.port0.tx_pfc")
	got := b.Counter("nic0.rx_pfc")
	named := b.Counter("nic0.rx_pause_prio3")
	paused := b.Counter("nic0.paused_cycles_prio3")
	t.Logf("the switch sent nic0 %d PFC frames; nic0 took %d, paused %d cycles", xoff, got, paused)
	require.Positive(t, xoff, "the switch sent PFC frames to nic0")
	require.Equal(t, xoff, got, "nic0 took every one")
	require.Equal(t, xoff, named, "each of priority 3")
	require.Positive(t, paused, "nic0 paused priority 3")
	require.Zero(t, b.Counter("nic0.paused_cycles_prio0"), "and nothing else")
	for p := range 4 {
		for q := range 8 {
			require.Zero(t, b.Counter(fmt.Sprintf("sw.port%d.drop_tail[%d]", p, q)), "lossless")
		}
	}
}
