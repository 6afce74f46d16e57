package tb_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario/generator"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// runScenario runs a scenario's traffic to its end on a bench: Finish
// fails the test unless every frame out of the switch matched golden at
// its cycle and every counter agreed; and something must have come out.
func runScenario(t *testing.T, toml string, seed uint64) (*tb.Bench, *engine.Summary) {
	t.Helper()
	b := tb.FromTOML(t, toml, tb.Seed(seed))
	s := b.Finish()
	t.Logf("cycles %d, frames in %d out %d matched %d, drops %v", s.Cycles, s.FramesIn, s.FramesOut, s.Matched, s.Drops)
	require.True(t, s.Pass, "run failed: %s", s.Error)
	require.Positive(t, s.Matched)
	require.Equal(t, s.FramesOut, s.Matched, "every frame out matched")
	return b, s
}

// 300 frames of constrained-random traffic into each port of the 4-port
// switch, checked frame by frame and counter by counter against golden.
func TestSwitchSmall(t *testing.T) {
	runScenario(t, generator.SwitchTraffic("switch4", 4, 64, 300, generator.SwitchConfigs[64]), 7)
}

// The constrained-random run: 100,000 frames through the 4-port
// switch at 64 and 512 bits.
func TestSwitchRandom100k(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			_, s := runScenario(t, generator.SwitchTraffic("switch4", 4, width, 25_000, generator.SwitchConfigs[width]), 20261130)
			assert.Equal(t, 100_000, s.FramesIn)
			// The run exercised what it claims: every drop reason the
			// traffic asks for, tail drops, ECN marks, PFC frames (64-bit
			// configuration only), on some port and priority.
			sum := func(name string) (n uint64) {
				for p := range 4 {
					for q := range 8 {
						if c, ok := s.Counters["sw"][fmt.Sprintf("port%d.%s[%d]", p, name, q)]; ok {
							n += c.DUT
						}
					}
					if c, ok := s.Counters["sw"][fmt.Sprintf("port%d.%s", p, name)]; ok {
						n += c.DUT
					}
				}
				return n
			}
			for _, name := range []string{"drop_runt", "drop_oversize", "drop_bad", "drop_tail", "ecn_marked", "rx_frames", "tx_frames", "rx_pfc"} {
				assert.Positive(t, sum(name), name)
				t.Logf("%s: %d", name, sum(name))
			}
			if width == 64 {
				assert.Positive(t, sum("tx_pfc"), "PFC frames sent")
				t.Logf("tx_pfc: %d", sum("tx_pfc"))
			}
		})
	}
}

// incast: ports 0, 1 and 2 send tagged priority-3 frames at line rate to
// the hosts behind port 3, which first sends a few frames so the switch
// learns them. With pfc, the generators honour the switch's PFC frames.
func incast(csr string, pfc bool) string {
	s := fmt.Sprintf(`
name = "switch-incast"
cycles = 50_000_000

[[model]]
name = "sw"
top = "switch4"
data_width = 64
[model.csr]
%s

[[traffic]]
kind = "l2"
to = "sw.in3"
frames = 40
max_size = 200
hosts = 2
to_port = 0
gap_cycles = 20
`, csr)
	for p := range 3 {
		s += fmt.Sprintf(`
[[traffic]]
kind = "l2"
to = "sw.in%d"
frames = 1500
min_size = 200
max_size = 1518
hosts = 2
to_port = 3
vlan_pct = 100
pcp = 3
ipv4_pct = 100
ect_pct = 100
`, p)
		if pfc {
			s += fmt.Sprintf("pause_from = \"sw.out%d\"\npause_latency = 64\n", p)
		}
	}
	return s
}

// The incast tests' switch settings: ECN on priority 3 without PFC, and
// with PFC generation and reception on.
const (
	incastTailDropCSR = "CTRL = 2\nECN_K3 = 4000\nMTU = 1518"
	incastPFCCSR      = "CTRL = 14\nECN_K3 = 4000\nMTU = 1518\nPFC_XOFF = 2000\nPFC_XON = 1000\nPFC_QUANTA = 200\nPFC_REFRESH = 800"
)

// sumCounter sums a counter of the switch over its ports.
func sumCounter(b *tb.Bench, name string, ports int) (n uint64) {
	for p := range ports {
		n += b.Counter(fmt.Sprintf("sw.port%d.%s", p, name))
	}
	return n
}

// Incast without PFC: the egress overflows and drops exactly where the
// golden model says; ECN marks start at the threshold.
func TestSwitchIncastTailDrop(t *testing.T) {
	b, _ := runScenario(t, incast(incastTailDropCSR, false), 3)
	assert.Positive(t, b.Counter("sw.port3.drop_tail[3]"), "the egress overflows")
	assert.Positive(t, b.Counter("sw.port3.ecn_marked[3]"))
	assert.Zero(t, sumCounter(b, "tx_pfc", 4))
}

// Incast with PFC: the switch pauses the three senders before the egress
// overflows, and they honour it: not one frame is dropped.
func TestSwitchIncastPFC(t *testing.T) {
	b, _ := runScenario(t, incast(incastPFCCSR, true), 3)
	assert.Zero(t, b.Counter("sw.port3.drop_tail[3]"), "lossless")
	assert.Positive(t, sumCounter(b, "tx_pfc", 4), "PFC frames sent")
	assert.Positive(t, b.Counter("sw.port3.ecn_marked[3]"))
	assert.EqualValues(t, 4540, sumCounter(b, "rx_frames", 4), "every frame arrived")
}
