package engine_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocesim/cosim/harness/engine"
)

// switchTraffic: a switch of the given width with random l2 traffic into
// every port (perPort frames each), random output backpressure and the
// given CSR settings; every frame and counter is checked by golden/ethswitch.
func switchTraffic(top string, ports, width, perPort int, csr string) string {
	s := fmt.Sprintf(`
name = "switch-random"
cycles = 200_000_000

[[model]]
name = "sw"
top = %q
data_width = %d
src_gap_pct = 5
sink_stall_pct = 20
[model.csr]
%s
`, top, width, csr)
	for p := range ports {
		s += fmt.Sprintf(`
[[traffic]]
kind = "l2"
to = "sw.in%d"
frames = %d
min_size = 60
max_size = 1518
hosts = 6
burst = 4
gap_cycles = %d
vlan_pct = 30
ipv4_pct = 60
ect_pct = 70
broadcast_pct = 3
unknown_pct = 5
runt_pct = 1
oversize_pct = 1
bad_pct = 1
pfc_pct = 1
`, p, perPort, 3*1518*8/width)
	}
	return s
}

// Strict priority with ECN, PFC generation and reception at 64 bits; DRR,
// the RED form of ECN and PFC reception at 512.
var switchConfigs = map[int]string{
	64: `CTRL = 14
MTU = 1518
AGE_CYCLES = 400000
DSCP_MAP0 = 0x76543210
DSCP_MAP5 = 0x01234567
ECN_K3 = 3000
ECN_K5 = 2000
ECN_K0 = 6000
PFC_XOFF = 6000
PFC_XON = 3000
PFC_REFRESH = 20000
SWITCH_MAC_LO = 0x00000042
SWITCH_MAC_HI = 0x0200`,
	512: `CTRL = 27
RED_LFSR = 0x1D2E
ECN_KMAX1 = 12000
ECN_PMAX1 = 64
MTU = 1518
QUANTUM0 = 1518
QUANTUM1 = 3000
QUANTUM5 = 6000
QUANTUM7 = 2000
ECN_K1 = 4000
DEFAULT_PRIO = 1`,
}

func TestSwitchSmall(t *testing.T) {
	sc := parse(t, switchTraffic("switch4", 4, 64, 300, switchConfigs[64]))
	s, err := run(t, config(t, sc, 7))
	requirePass(t, s, err)
}

// The constrained-random run: 100,000 frames through the 4-port
// switch at 64 and 512 bits.
func TestSwitchRandom100k(t *testing.T) {
	if testing.Short() {
		t.Skip("long")
	}
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			sc := parse(t, switchTraffic("switch4", 4, width, 25_000, switchConfigs[width]))
			s, err := run(t, config(t, sc, 20261130))
			requirePass(t, s, err)
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

func sumCounter(s *engine.Summary, name string, ports int) (n uint64) {
	for p := range ports {
		n += s.Counters["sw"][fmt.Sprintf("port%d.%s", p, name)].DUT
	}
	return n
}

// Incast without PFC: the egress overflows and drops exactly where the
// golden model says; ECN marks start at the threshold.
func TestSwitchIncastTailDrop(t *testing.T) {
	sc := parse(t, incast(incastTailDropCSR, false))
	s, err := run(t, config(t, sc, 3))
	requirePass(t, s, err)
	assert.Positive(t, counter(t, s, "sw", "port3.drop_tail[3]"), "the egress overflows")
	assert.Positive(t, counter(t, s, "sw", "port3.ecn_marked[3]"))
	assert.Zero(t, sumCounter(s, "tx_pfc", 4))
}

// Incast with PFC: the switch pauses the three senders before the egress
// overflows, and they honour it: not one frame is dropped.
func TestSwitchIncastPFC(t *testing.T) {
	sc := parse(t, incast(incastPFCCSR, true))
	s, err := run(t, config(t, sc, 3))
	requirePass(t, s, err)
	assert.Zero(t, counter(t, s, "sw", "port3.drop_tail[3]"), "lossless")
	assert.Positive(t, sumCounter(s, "tx_pfc", 4), "PFC frames sent")
	assert.Positive(t, counter(t, s, "sw", "port3.ecn_marked[3]"))
	assert.EqualValues(t, 4540, sumCounter(s, "rx_frames", 4), "every frame arrived")
}
