package tb_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario/generator"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// nicSystemTOML is two RTL NICs through the RTL switch, every link with
// seeded loss and corruption, and an RDMA workload of mixed SEND, WRITE and
// READ with and without immediate.
func nicSystemTOML(width int, lossPct, corruptPct float64, messages int) string {
	return fmt.Sprintf(`name = "nic-switch-nic"
cycles = 200_000_000
%s
[[rdma]]
nics = ["nic0", "nic1"]
qps = 8
messages = %d
max_size = 8192
pmtu = 1024
`, generator.NICSwitchNIC(width, "", fmt.Sprintf("loss_pct = %g\ncorrupt_pct = %g", lossPct, corruptPct)), messages)
}

// runScenario runs a scenario's workloads to their end on a bench of seed
// 1: Finish fails the test unless every frame and completion matched
// golden, every counter agreed and the workloads found nothing wrong; the
// frames out must all have been checked, none left aside.
func runScenario(t *testing.T, toml string) (*tb.Bench, *engine.Summary) {
	t.Helper()
	b := tb.FromTOML(t, toml, tb.Seed(1))
	s := b.Finish()
	t.Logf("cycles %d, frames in %d out %d matched %d, drops %v, faults %v", s.Cycles, s.FramesIn, s.FramesOut, s.Matched, s.Drops, s.Faults)
	require.True(t, s.Pass, "run failed: %s", s.Error)
	require.Positive(t, s.Matched)
	require.Equal(t, s.FramesOut, s.Matched, "every frame out matched")
	require.Empty(t, s.Workload)
	return b, s
}

// The system test: 10,000 mixed messages between two RTL NICs
// through the RTL switch with 1 % loss and 0.1 % corruption on every link.
// Every frame on every link and every completion matches golden, every
// counter of the three models agrees, every message completes with
// success and both hosts' memory is what golden and the workload say.
func TestNICSwitchNIC(t *testing.T) {
	b, s := runScenario(t, nicSystemTOML(64, 1.0, 0.1, 10_000))
	assert.Positive(t, s.Drops["link_loss"])
	assert.Positive(t, s.Faults["link_corrupt"])
	var retrans, bad uint64
	for _, n := range []string{"nic0", "nic1"} {
		bad += b.Counter(n + ".rx_bad_icrc")
		for q := range 8 {
			retrans += b.Counter(fmt.Sprintf("%s.qp%d.tx_retransmits", n, q))
		}
	}
	assert.Positive(t, retrans, "losses were recovered by go-back-N")
	assert.Positive(t, bad, "corrupted frames were caught by the ICRC check")
}

// Path MTU 4096 end to end through the switch, whose MTU_MAX of 4224
// bytes takes jumbo frames (rtl/switch/README.md): mixed messages of up
// to 16 KiB between two RTL NICs through the RTL switch over links that
// lose and corrupt frames, at 64 and 512 bits. Every frame on every link
// and every completion matches golden, every counter agrees, every message
// completes and both hosts' memory is intact; and full-size packets
// (frames above 2048 bytes, which the switch dropped as oversize before)
// crossed the switch both ways, none dropped by it.
func TestNICSwitchNICJumbo(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(fmt.Sprint(width), func(t *testing.T) {
			b, s := runScenario(t, fmt.Sprintf(`name = "nic-switch-nic-jumbo"
cycles = 200_000_000
%s
[[rdma]]
nics = ["nic0", "nic1"]
qps = 8
messages = 1500
max_size = 16384
pmtu = 4096
`, generator.NICSwitchNIC(width, "", "loss_pct = 1\ncorrupt_pct = 0.1")))
			assert.Positive(t, s.Drops["link_loss"])
			assert.Positive(t, s.Faults["link_corrupt"])
			var retrans uint64
			for _, n := range []string{"nic0", "nic1"} {
				for q := range 8 {
					retrans += b.Counter(fmt.Sprintf("%s.qp%d.tx_retransmits", n, q))
				}
			}
			assert.Positive(t, retrans, "losses were recovered by go-back-N")
			for p := range 2 {
				assert.Zero(t, b.Counter(fmt.Sprintf("sw.port%d.drop_oversize", p)), "port %d", p)
			}
			// A full-size packet: Ethernet 14, IPv4 20, UDP 8, BTH 12,
			// 4096 bytes, ICRC 4 at least; RETH 16 and ImmDt 4 at most.
			// The switch's ports to the NICs: every frame it sent them.
			for _, port := range []string{"sw.out0", "sw.out1"} {
				jumbo, largest := 0, 0
				got := b.Out(port)
				for _, f := range got {
					if len(f.Data) > 2048 {
						jumbo++
					}
					largest = max(largest, len(f.Data))
				}
				t.Logf("%s: %d of %d frames above 2048 bytes, the largest %d", port, jumbo, len(got), largest)
				assert.Positive(t, jumbo, "%s: jumbo frames out of the switch", port)
				assert.GreaterOrEqual(t, largest, 14+20+8+12+4096+4, port)
				assert.LessOrEqual(t, largest, 14+20+8+12+16+4+4096+4, port)
			}
		})
	}
}

// nicDirectTOML is two RTL NICs joined by a pair of 1 us links, with
// every fault on both (loss, corruption, duplication and reordering) when
// faults is set, and an RDMA workload of mixed messages.
func nicDirectTOML(width, messages, pmtu int, faults bool) string {
	s := "name = \"nic-nic\"\ncycles = 200_000_000\n"
	if faults {
		s += generator.NICDirect(width, 1, 0.2, 0.5, 0.5)
	} else {
		s += generator.NICDirect(width, 0, 0, 0, 0)
	}
	return s + fmt.Sprintf("[[rdma]]\nnics = [\"nic0\", \"nic1\"]\nqps = 8\nmessages = %d\nmax_size = 8192\npmtu = %d\n", messages, pmtu)
}

// The direct scenario, nic0 <-> nic1 with no switch, at 512 bits
// (the switch scenarios run at 64) and path MTU 4096: mixed messages over
// links that lose, corrupt, duplicate and reorder frames. Every frame and
// completion matches golden, every message completes, memory matches, and
// each fault happened and was recovered from.
func TestNICDirect(t *testing.T) {
	b, s := runScenario(t, nicDirectTOML(512, 2_000, 4096, true))
	for _, f := range []string{"link_corrupt", "link_duplicate", "link_reorder"} {
		assert.Positive(t, s.Faults[f], f)
	}
	assert.Positive(t, s.Drops["link_loss"])
	var retrans, dups uint64
	for _, n := range []string{"nic0", "nic1"} {
		for q := range 8 {
			retrans += b.Counter(fmt.Sprintf("%s.qp%d.tx_retransmits", n, q))
			dups += b.Counter(fmt.Sprintf("%s.qp%d.resp_duplicate", n, q))
		}
	}
	assert.Positive(t, retrans, "losses were recovered by go-back-N")
	assert.Positive(t, dups, "duplicates were recognised")
}

// Empty messages (zero_pct): an ONLY packet with no payload of every
// opcode, padded to the Ethernet minimum, between two RTL NICs over lossy
// links; every frame, completion and byte matches golden, and golden
// counted the empty messages it was given (summary.json's events).
func TestNICEmptyMessages(t *testing.T) {
	_, s := runScenario(t, "name = \"nic-empty\"\ncycles = 20_000_000\n"+generator.NICDirect(64, 1, 0, 0, 0)+
		"[[rdma]]\nnics = [\"nic0\", \"nic1\"]\nqps = 4\nmessages = 300\nmax_size = 2048\nzero_pct = 30\nimm_pct = 50\n")
	var empty, one uint64
	for _, n := range []string{"nic0", "nic1"} {
		empty += s.Events[n]["message.pmtu1024.empty"]
		one += s.Events[n]["message.pmtu1024.one_packet"]
	}
	assert.InDelta(t, 90, empty, 30, "about 30 %% of 300 messages empty")
	assert.Positive(t, one)
}
