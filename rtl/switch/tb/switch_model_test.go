//go:build unix

package tb_test

// Smoke tests of the Ethernet switch model (sim/tops/switch_top.sv around
// rtl/switch/eth_switch.sv) through its real model program, written with
// the public test bench (harness/testbench): registers, flooding with the
// pipeline latency, learning, a runt drop, PFC pause and a few counters.
// Under every expectation the bench checks each frame and, at the end,
// each counter against the golden model (golden/ethswitch); the cycles
// are the tests' own (LeavesAt), from rtl/switch/README.md. The
// cycle-exact check of everything against the golden model is
// switch_timing_test.go; this proves the model is wired up and keeps its
// headline timing.
//
// The models are built by make build (switch4_64, switch4_512, switch8_64);
// a missing one skips the test, or fails it under COSIM_REQUIRE_MODELS=1.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/checksum"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// Timing constants of rtl/switch/README.md and eth_switch.sv.
const (
	switchLatency = 3 // last beat in (L) to first beat out of an idle egress
	switchPorts   = 4
	switchQueues  = 8
)

// CTRL bits (rtl/switch/README.md, CSR map).
const (
	swCtrlDRR   = 1 << 0
	swCtrlEcn   = 1 << 1
	swCtrlPfcTx = 1 << 2
	swCtrlPfcRx = 1 << 3
)

// switchModels are the 4-port switch's models the block tests run.
var switchModels = []struct {
	name  string
	width int
}{{"switch4_64", 64}, {"switch4_512", 512}}

// The ports of a switch bench of n ports, named "sw".
func swIn(p int) string  { return fmt.Sprintf("sw.in%d", p) }
func swOut(p int) string { return fmt.Sprintf("sw.out%d", p) }

func swOuts(ports int, except ...int) []string {
	var out []string
	for p := range ports {
		if !bytes.Contains(intBytes(except), []byte{byte(p)}) {
			out = append(out, swOut(p))
		}
	}
	return out
}

func intBytes(v []int) []byte {
	b := make([]byte, len(v))
	for i, x := range v {
		b[i] = byte(x)
	}
	return b
}

// swQuiet is how long a switch test watches a port for frames that must
// not come: longer than any frame the tests send takes through it.
const swQuiet = 2048

// swNothingElse wants no frame on any port that no expectation claimed.
func swNothingElse(b *tb.Bench, ports int) {
	for p := range ports {
		b.ExpectNone(swOut(p), tb.Any(), 0)
	}
}

// swCounters reads counter name of every port.
func swCounters(b *tb.Bench, ports int, name string) []uint32 {
	regs := make([]string, ports)
	for p := range ports {
		regs[p] = fmt.Sprintf("sw.port%d.%s", p, name)
	}
	return b.ReadCSRs(regs...)
}

type swMAC [6]byte

var (
	swMacA      = swMAC{0x02, 0, 0, 0, 0, 0x0a}
	swMacB      = swMAC{0x02, 0, 0, 0, 0, 0x0b}
	swMacC      = swMAC{0x02, 0, 0, 0, 0, 0x0c}
	swMacD      = swMAC{0x02, 0, 0, 0, 0, 0x0d}
	swMacE      = swMAC{0x02, 0, 0, 0, 0, 0x0e}
	swMacBcast  = swMAC{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	swMacPFCDst = swMAC{0x01, 0x80, 0xc2, 0x00, 0x00, 0x01}
)

// swEthFrame is an untagged frame of n bytes (no FCS) with EtherType 0x88B5
// (local experimental) and a counting payload.
func swEthFrame(dst, src swMAC, n int) []byte {
	b := make([]byte, n)
	copy(b[0:], dst[:])
	copy(b[6:], src[:])
	if n >= 14 {
		binary.BigEndian.PutUint16(b[12:], 0x88b5)
		for i := 14; i < n; i++ {
			b[i] = byte(i)
		}
	}
	return b
}

// swVLANFrame is a frame of n bytes with one VLAN tag of priority pcp.
func swVLANFrame(dst, src swMAC, pcp int, n int) []byte {
	b := swEthFrame(dst, src, n)
	binary.BigEndian.PutUint16(b[12:], 0x8100)
	binary.BigEndian.PutUint16(b[14:], uint16(pcp)<<13|1)
	binary.BigEndian.PutUint16(b[16:], 0x88b5)
	return b
}

// swPFCFrame is a 60-byte 802.1Qbb frame pausing priority p for quanta.
func swPFCFrame(src swMAC, p int, quanta uint16) []byte {
	b := make([]byte, 60)
	copy(b[0:], swMacPFCDst[:])
	copy(b[6:], src[:])
	binary.BigEndian.PutUint16(b[12:], 0x8808)
	binary.BigEndian.PutUint16(b[14:], 0x0101)
	binary.BigEndian.PutUint16(b[16:], 1<<p)
	binary.BigEndian.PutUint16(b[18+2*p:], quanta)
	return b
}

// startSwitch starts a switch model named sw on a bench of its own.
func startSwitch(t *testing.T, model string) *tb.Bench {
	return tb.Model(t, model, tb.Name("sw"))
}

func TestSwitchModelSmoke(t *testing.T) {
	for _, tc := range switchModels {
		t.Run(tc.name, func(t *testing.T) {
			b := startSwitch(t, tc.name)

			// ID and SHAPE.
			v := b.ReadCSRs("sw.ID", "sw.SHAPE")
			assert.Equal(t, uint32(0x53570001), v[0], "ID")
			assert.Equal(t, uint32(switchPorts|switchQueues<<8|(tc.width/8)<<16), v[1], "SHAPE")

			// An unknown destination floods from port 0 to 1..3, first
			// beat LATENCY cycles after the last beat came in; nothing
			// goes back to the ingress port.
			fa := swEthFrame(swMacB, swMacA, 100)
			s := b.Send(swIn(0), fa, tb.At(b.Now()+2))
			b.RunUntil(s.Taken, 100)
			b.ExpectEach(swOuts(switchPorts, 0), tb.Exact(fa), tb.LeavesAt(s.Last()+switchLatency))
			b.ExpectNone(swOut(0), tb.Any(), swQuiet)

			// The reply from port 2 to A goes only to port 0, where A
			// was learned.
			fb := swEthFrame(swMacA, swMacB, 64)
			s = b.Send(swIn(2), fb, tb.At(b.Now()+1))
			b.RunUntil(s.Taken, 100)
			b.Expect(swOut(0), tb.Exact(fb), tb.LeavesAt(s.Last()+switchLatency))
			for _, p := range swOuts(switchPorts, 0) {
				b.ExpectNone(p, tb.Any(), 0) // the learned destination is not flooded
			}

			// A runt (40 bytes) into port 1 is dropped and counted.
			b.Send(swIn(1), swEthFrame(swMacBcast, swMacC, 40), tb.At(b.Now()+1))
			b.RunUntilIdle(swQuiet)
			for p := range switchPorts {
				b.ExpectNone(swOut(p), tb.Any(), 0)
			}
			assert.Equal(t, uint32(1), b.ReadCSR("sw.port1.drop_runt"), "drop_runt of port 1")

			// PFC into port 1 (with CTRL.pfc_rx) pauses queue 3 of egress
			// 1 for quanta*512/width cycles from D+1: a priority-3 frame
			// from port 0 leaves ports 2 and 3 at once and port 1 at
			// D+N+2 = L+3+N; a priority-5 frame is not held.
			const prio, quanta = 3, 40
			n := uint64(quanta * 512 / tc.width)
			b.WriteCSR("sw.CTRL", swCtrlPfcRx)
			f3 := swVLANFrame(swMacBcast, swMacD, prio, 100)
			f5 := swVLANFrame(swMacBcast, swMacE, 5, 80)
			now := b.Now()
			sp := b.Send(swIn(1), swPFCFrame(swMacC, prio, quanta), tb.At(now+1))
			s3 := b.Send(swIn(0), f3, tb.At(now+8))
			s5 := b.Send(swIn(3), f5, tb.At(now+8))
			b.RunUntil(func() bool { return sp.Taken() && s3.Taken() && s5.Taken() }, 1000)
			lp, l3, l5 := sp.Last(), s3.Last(), s5.Last()
			require.Less(t, l3+switchLatency, lp+switchLatency+n, "the priority-3 frame is decided inside the pause")
			t.Logf("PFC last beat %d, N %d; priority 3 last beat %d, priority 5 last beat %d", lp, n, l3, l5)
			b.Expect(swOut(1), tb.Exact(f5), tb.LeavesAt(l5+switchLatency)) // priority 5 first, not paused
			b.Expect(swOut(1), tb.Exact(f3), tb.LeavesAt(lp+switchLatency+n))
			b.Expect(swOut(3), tb.Exact(f3), tb.LeavesAt(l3+switchLatency)) // priority 3 not paused elsewhere
			b.Expect(swOut(0), tb.Exact(f5), tb.LeavesAt(l5+switchLatency))
			first := b.Expect(swOut(2), tb.OneOf(tb.Exact(f3), tb.Exact(f5)))
			other := f5
			if bytes.Equal(first.Data, f5) {
				other = f3
			}
			b.Expect(swOut(2), tb.Exact(other), tb.Within(swQuiet))
			b.RunUntilIdle(swQuiet)
			swNothingElse(b, switchPorts) // the PFC frame is consumed

			// Counters of every port.
			type cnt struct{ rxFrames, rxBytes, txFrames, txBytes, runt, rxPfc uint32 }
			var c [6][]uint32
			for i, name := range []string{"rx_frames", "rx_bytes", "tx_frames", "tx_bytes", "drop_runt", "rx_pfc"} {
				c[i] = swCounters(b, switchPorts, name)
			}
			got := func(p int) cnt { return cnt{c[0][p], c[1][p], c[2][p], c[3][p], c[4][p], c[5][p]} }
			l := func(b ...[]byte) (n uint32) {
				for _, x := range b {
					n += uint32(len(x))
				}
				return n
			}
			assert.Equal(t, cnt{2, l(fa, f3), 2, l(fb, f5), 0, 0}, got(0), "port 0")
			assert.Equal(t, cnt{2, 40 + 60, 3, l(fa, f3, f5), 1, 1}, got(1), "port 1")
			assert.Equal(t, cnt{1, l(fb), 3, l(fa, f3, f5), 0, 0}, got(2), "port 2")
			assert.Equal(t, cnt{1, l(f5), 2, l(fa, f3), 0, 0}, got(3), "port 3")

			// Counters are writable: write 0 to clear.
			b.WriteCSR("sw.port1.tx_frames", 0)
			assert.Equal(t, []uint32{0, 3}, b.ReadCSRs("sw.port1.tx_frames", "sw.port2.tx_frames"))

			s2 := b.Finish() // GOODBYE and a clean exit; every frame and counter as golden says
			assert.True(t, s2.Pass)
		})
	}
}

// swIPv4Frame is a frame of n bytes carrying an IPv4 header with a correct
// checksum and the given TOS, untagged or with one VLAN tag (PCP 0).
func swIPv4Frame(dst, src swMAC, tos byte, tagged bool, n int) []byte {
	b := swEthFrame(dst, src, n)
	o := 14
	if tagged {
		binary.BigEndian.PutUint16(b[12:], 0x8100)
		binary.BigEndian.PutUint16(b[14:], 1)
		o = 18
	}
	binary.BigEndian.PutUint16(b[o-2:], 0x0800)
	ip := b[o : o+20]
	ip[0], ip[1] = 0x45, tos
	binary.BigEndian.PutUint16(ip[2:], uint16(n-o))
	ip[8], ip[9] = 64, 17
	copy(ip[12:], []byte{10, 0, 0, 1, 10, 0, 0, 2})
	ip[10], ip[11] = 0, 0
	binary.BigEndian.PutUint16(ip[10:], checksum.Checksum(ip))
	return b
}

// The ECN rewrite: with ECN_K[0] = 0 the second and third of three
// back-to-back IPv4 frames (one of them tagged) find their queue non-empty
// and leave with ECN = 11 and a checksum that still verifies; nothing else
// changes.
func TestSwitchModelECN(t *testing.T) {
	for _, tc := range switchModels {
		t.Run(tc.name, func(t *testing.T) {
			b := startSwitch(t, tc.name)
			b.WriteCSR("sw.CTRL", swCtrlEcn)
			b.WriteCSR("sw.ECN_K0", 0)
			in := [][]byte{
				swIPv4Frame(swMacBcast, swMacA, 0x02, false, 200),
				swIPv4Frame(swMacBcast, swMacA, 0x05, false, 200),
				swIPv4Frame(swMacBcast, swMacA, 0xb9, true, 200),
			}
			for _, f := range in {
				b.Send(swIn(1), f, tb.At(b.Now()+1))
			}
			// The first finds its queue empty; the others are marked CE,
			// TOS and checksum changed, the checksum right for them.
			marked := func(k int) tb.Match {
				want := bytes.Clone(in[k])
				o := 14
				if k == 2 {
					o = 18
				}
				want[o+1] |= 3
				return tb.Ignoring(want, tb.IPv4Checksum)
			}
			for _, p := range []string{swOut(0), swOut(2), swOut(3)} {
				b.Expect(p, tb.Exact(in[0]))
				b.Expect(p, marked(1))
				b.Expect(p, marked(2))
			}
			b.RunUntilIdle(swQuiet)
			swNothingElse(b, switchPorts)
			assert.Equal(t, []uint32{2, 0, 2, 2}, swCounters(b, switchPorts, "ecn_marked[0]"), "ecn_marked[0]")
		})
	}
}

// PFC generation: one 200-byte priority-6 frame from port 2 with
// PFC_XOFF = 100 sends XOFF out of port 2 (from the decision's next cycle,
// so at L+3) and, when its last copy has left (cycle z), XON at z+2.
func TestSwitchModelPFCTx(t *testing.T) {
	for _, tc := range switchModels {
		t.Run(tc.name, func(t *testing.T) {
			b := startSwitch(t, tc.name)
			sw := swMAC{0x0e, 0x0f, 0x0a, 0x0b, 0x0c, 0x0d}
			for _, w := range []struct {
				reg string
				v   uint32
			}{{"CTRL", swCtrlPfcTx}, {"PFC_XOFF", 100}, {"PFC_XON", 50}, {"PFC_QUANTA", 0x1234},
				{"SWITCH_MAC_LO", 0x0a0b0c0d}, {"SWITCH_MAC_HI", 0x0e0f}, {"DEFAULT_PRIO", 6}} {
				b.WriteCSR("sw."+w.reg, w.v)
			}
			f := swEthFrame(swMacBcast, swMacA, 200)
			s := b.Send(swIn(2), f, tb.At(b.Now()+1))
			b.RunUntil(s.Taken, 1000)
			l := s.Last()
			var z uint64
			for _, got := range b.ExpectEach([]string{swOut(0), swOut(1), swOut(3)}, tb.Exact(f), tb.LeavesAt(l+switchLatency)) {
				z = max(z, got.LastCycle)
			}
			b.Expect(swOut(2), tb.Exact(swPFCFrame(sw, 6, 0x1234)), tb.LeavesAt(l+switchLatency)) // XOFF
			b.Expect(swOut(2), tb.Exact(swPFCFrame(sw, 6, 0)), tb.LeavesAt(z+2))                  // XON
			b.RunUntilIdle(swQuiet)
			swNothingElse(b, switchPorts)
			assert.Equal(t, []uint32{2, 2, 120}, b.ReadCSRs("sw.port2.tx_pfc", "sw.port2.tx_frames", "sw.port2.tx_bytes"),
				"port 2: tx_pfc, tx_frames, tx_bytes")
		})
	}
}

// swMACIndex is the MAC table entry of m (rtl/switch/README.md, 64 entries).
func swMACIndex(m swMAC) int {
	h := binary.BigEndian.Uint16(m[0:]) ^ binary.BigEndian.Uint16(m[2:]) ^ binary.BigEndian.Uint16(m[4:])
	return int(h^h>>8) % 64
}

// Three ports send 1500-byte frames to one: the egress holds at most
// BUF_BYTES = 32768 bytes, the rest is dropped at the tail and counted;
// nothing runs out of slots, every delivered frame is intact.
func TestSwitchModelTailDrop(t *testing.T) {
	for _, tc := range switchModels {
		t.Run(tc.name, func(t *testing.T) {
			b := startSwitch(t, tc.name)
			b.Send(swIn(0), swEthFrame(swMacBcast, swMacA, 64), tb.At(b.Now()+1))
			b.ExpectEach(swOuts(switchPorts, 0), tb.Any()) // A learned on port 0
			// Sources that do not evict A from the direct-mapped table.
			const each = 12
			in := map[string]bool{}
			src := byte(0)
			start := b.Now() + 1
			for range each {
				for p := 1; p < switchPorts; p++ {
					s := swMAC{0x02, 0, 0, 0, 1, src}
					for ; swMACIndex(s) == swMACIndex(swMacA); s[5]++ {
					}
					src = s[5] + 1
					d := swEthFrame(swMacA, s, 1500)
					in[string(d)] = true
					b.Send(swIn(p), d, tb.At(start))
				}
			}
			b.RunUntilIdle(100_000)
			for p := 1; p < switchPorts; p++ {
				b.ExpectNone(swOut(p), tb.Any(), 0)
			}
			// Every delivered frame is one of those sent, intact.
			out := b.Count(swOut(0), tb.Where("one of the 1500-byte frames to A", func(f []byte) bool { return in[string(f)] }), 0)
			b.ExpectNone(swOut(0), tb.Any(), 0)
			tx, tail := b.ReadCSR("sw.port0.tx_frames"), b.ReadCSR("sw.port0.drop_tail[0]")
			t.Logf("port 0: %d frames out, %d dropped at the tail", tx, tail)
			assert.Greater(t, tail, uint32(0), "some dropped at the tail")
			assert.Equal(t, uint32(len(in)), tx+tail, "every frame out or dropped")
			assert.Equal(t, int(tx), out)
			for p, n := range swCounters(b, switchPorts, "drop_no_slot") {
				assert.Zero(t, n, "port %d: drop_no_slot", p)
			}
		})
	}
}

// DRR's step limit: one backlogged queue with QUANTUM = the frame length.
// After each pick the queue's deficit is 0, so the next pick walks the
// other 7 queues back to it in 8 steps without picking, and the one after
// adds the quantum and picks: a one-cycle gap between frames. Strict
// priority sends the same frames back to back.
func TestSwitchModelDRRSteps(t *testing.T) {
	for _, tc := range switchModels {
		for _, drr := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/drr=%v", tc.name, drr), func(t *testing.T) {
				b := startSwitch(t, tc.name)
				const size = 100
				ctrl := uint32(0)
				if drr {
					ctrl = swCtrlDRR
				}
				b.WriteCSR("sw.CTRL", ctrl)
				b.WriteCSR("sw.QUANTUM1", size)
				b.Send(swIn(0), swEthFrame(swMacBcast, swMacA, 64), tb.At(b.Now()+1))
				b.ExpectEach(swOuts(switchPorts, 0), tb.Any()) // A learned on port 0
				var in []*tb.Sent
				at := b.Now() + 1
				for k := range 4 {
					in = append(in, b.Send(swIn(1), swVLANFrame(swMacA, swMAC{0x02, 0, 0, 0, 2, byte(k)}, 1, size), tb.At(at)))
				}
				b.RunUntil(in[0].Taken, 1000)
				prev := b.Expect(swOut(0), tb.Exact(in[0].Data), tb.LeavesAt(in[0].Last()+switchLatency))
				gap := uint64(1)
				if drr {
					gap = 2
				}
				for k := 1; k < len(in); k++ {
					prev = b.Expect(swOut(0), tb.Exact(in[k].Data), tb.LeavesAt(prev.LastCycle+gap))
				}
				b.RunUntilIdle(swQuiet)
				swNothingElse(b, switchPorts)
			})
		}
	}
}

// The 8-port model: SHAPE, a flood to the 7 other ports at LATENCY, and
// the learned reply to one port.
func TestSwitchModel8Ports(t *testing.T) {
	const ports, width = 8, 64
	b := startSwitch(t, "switch8_64")
	v := b.ReadCSRs("sw.ID", "sw.SHAPE")
	assert.Equal(t, uint32(0x53570001), v[0], "ID")
	assert.Equal(t, uint32(ports|switchQueues<<8|(width/8)<<16), v[1], "SHAPE")

	fa := swEthFrame(swMacB, swMacA, 300)
	s := b.Send(swIn(5), fa, tb.At(b.Now()+1))
	b.RunUntil(s.Taken, 1000)
	b.ExpectEach(swOuts(ports, 5), tb.Exact(fa), tb.LeavesAt(s.Last()+switchLatency))
	b.ExpectNone(swOut(5), tb.Any(), swQuiet)
	fb := swEthFrame(swMacA, swMacB, 61)
	s = b.Send(swIn(7), fb, tb.At(b.Now()+1))
	b.RunUntil(s.Taken, 1000)
	b.Expect(swOut(5), tb.Exact(fb), tb.LeavesAt(s.Last()+switchLatency))
	b.RunUntilIdle(swQuiet)
	swNothingElse(b, ports)
	rx, tx := swCounters(b, ports, "rx_frames"), swCounters(b, ports, "tx_frames")
	for p := range ports {
		wantRx, wantTx := uint32(0), uint32(1)
		switch p {
		case 5:
			wantRx = 1
		case 7:
			wantRx, wantTx = 1, 1
		}
		assert.Equal(t, []uint32{wantRx, wantTx}, []uint32{rx[p], tx[p]}, "port %d: rx_frames, tx_frames", p)
	}
}
