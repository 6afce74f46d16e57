//go:build unix

package tb_test

// Smoke tests of the Ethernet switch model (sim/tops/switch_top.sv around
// rtl/switch/eth_switch.sv) through its real model program: registers,
// flooding with the pipeline latency, learning, a runt drop, PFC pause and
// a few counters. The cycle-exact check of everything against the golden
// model is switch_timing_test.go; this only proves the model is wired up and
// keeps its headline timing (rtl/switch/README.md).
//
// The models are built by make build (switch4_64, switch4_512); a
// missing one skips the test, or fails it under COSIM_REQUIRE_MODELS=1.

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
)

// Timing constants of rtl/switch/README.md and eth_switch.sv.
const (
	switchLatency = 3 // last beat in (L) to first beat out of an idle egress
	switchPorts   = 4
	switchQueues  = 8
)

// Registers and counters (rtl/switch/README.md, CSR map).
const (
	swRegID     = 0x0000
	swRegShape  = 0x0004
	swRegCtrl   = 0x0010
	swCtrlPfcRx = 1 << 3

	swCntRxFrames = 0
	swCntRxBytes  = 1
	swCntTxFrames = 2
	swCntTxBytes  = 3
	swCntDropRunt = 4
	swCntRxPfc    = 9
)

func swCounterAddr(port, n int) uint32 { return uint32(0x1000 + 0x100*port + 4*n) }

// switchModel returns the path of model name, skipping (or failing under
// COSIM_REQUIRE_MODELS=1) when it is not built.
func switchModel(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(modeltest.Dir(modeltest.DirEnv), name, "Vswitch_top")
	modeltest.NeedBinary(t, path)
	return path
}

// swRun is one switch model and everything it has answered so far.
type swRun struct {
	t       *testing.T
	m       *cosim.Model
	accepts map[[2]uint32]cosim.Accept // by (input port, seq)
	out     [][]cosim.Frame            // frames out, per output port
}

// switchModels are the 4-port switch's models the block tests run.
var switchModels = []struct {
	name  string
	width int
}{{"switch4_64", 64}, {"switch4_512", 512}}

func startSwitch(t *testing.T, name string, width int) *swRun {
	t.Helper()
	return startSwitchPorts(t, name, switchPorts, width)
}

func startSwitchPorts(t *testing.T, name string, ports, width int) *swRun {
	t.Helper()
	m, err := cosim.Start(context.Background(), cosim.Config{
		Name:     name,
		Path:     switchModel(t, name),
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 20 * time.Second, Close: 5 * time.Second},
	})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	h, err := m.Handshake(context.Background(), cosim.HelloAck{Seed: 1})
	require.NoError(t, err)
	require.EqualValues(t, ports, h.InPorts)
	require.EqualValues(t, ports, h.OutPorts)
	require.EqualValues(t, width, h.DataWidth)
	return &swRun{t: t, m: m, accepts: map[[2]uint32]cosim.Accept{}, out: make([][]cosim.Frame, ports)}
}

// step runs one window and files its answers.
func (r *swRun) step(w cosim.Window) cosim.Reply {
	r.t.Helper()
	rep, err := r.m.Step(context.Background(), w)
	require.NoError(r.t, err)
	for _, a := range rep.Accepts {
		r.accepts[[2]uint32{uint32(a.Port), a.Seq}] = a
	}
	for _, f := range rep.Frames {
		r.out[f.Port] = append(r.out[f.Port], f)
	}
	return rep
}

// drain runs windows until the switch is idle.
func (r *swRun) drain() {
	r.t.Helper()
	for i := 0; ; i++ {
		require.Less(r.t, i, 1000, "the switch drains")
		if rep := r.step(cosim.Window{Target: r.m.Cycle() + 64}); !rep.Done.Busy {
			return
		}
	}
}

// send offers frames (Cycle relative to now), runs until the switch is idle
// and returns each frame's ACCEPT.
func (r *swRun) send(frames ...cosim.Frame) []cosim.Accept {
	r.t.Helper()
	now := r.m.Cycle()
	last := now
	for i := range frames {
		frames[i].Cycle += now
		last = max(last, frames[i].Cycle)
	}
	r.step(cosim.Window{Target: last + 1, Frames: frames})
	r.drain()
	var acc []cosim.Accept
	for _, f := range frames {
		a, ok := r.accepts[[2]uint32{uint32(f.Port), f.Seq}]
		require.True(r.t, ok, "port %d seq %d accepted", f.Port, f.Seq)
		acc = append(acc, a)
	}
	return acc
}

// csr applies writes, then answers reads, in one window long enough for
// both (a write takes a cycle, a read two: latency 1, then the next access).
func (r *swRun) csr(writes []cosim.CSR, reads ...uint32) []uint32 {
	r.t.Helper()
	rep := r.step(cosim.Window{
		Target:    r.m.Cycle() + uint64(len(writes)+2*len(reads)+2),
		CSRWrites: writes,
		CSRReads:  reads,
	})
	require.Len(r.t, rep.CSRData, len(reads))
	vals := make([]uint32, len(reads))
	for i, c := range rep.CSRData {
		vals[i] = c.Data
	}
	return vals
}

// counters reads counters n of every port: [port][i] for ns[i].
func (r *swRun) counters(ns ...int) [][]uint32 {
	r.t.Helper()
	var addrs []uint32
	for p := range r.out {
		for _, n := range ns {
			addrs = append(addrs, swCounterAddr(p, n))
		}
	}
	vals := r.csr(nil, addrs...)
	c := make([][]uint32, len(r.out))
	for p := range c {
		c[p] = vals[p*len(ns) : (p+1)*len(ns)]
	}
	return c
}

// takeOut returns and forgets the frames out of every port so far.
func (r *swRun) takeOut() [][]cosim.Frame {
	o := r.out
	r.out = make([][]cosim.Frame, len(o))
	return o
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

func TestSwitchModelSmoke(t *testing.T) {
	for _, tc := range switchModels {
		t.Run(tc.name, func(t *testing.T) {
			r := startSwitch(t, tc.name, tc.width)

			// ID and SHAPE.
			v := r.csr(nil, swRegID, swRegShape)
			assert.Equal(t, uint32(0x53570001), v[0], "ID")
			assert.Equal(t, uint32(switchPorts|switchQueues<<8|(tc.width/8)<<16), v[1], "SHAPE")

			// An unknown destination floods from port 0 to 1..3, first
			// beat LATENCY cycles after the last beat came in.
			fa := swEthFrame(swMacB, swMacA, 100)
			acc := r.send(cosim.Frame{Port: 0, Cycle: 2, Data: fa})
			out := r.takeOut()
			assert.Empty(t, out[0], "nothing back to the ingress port")
			for p := 1; p < switchPorts; p++ {
				require.Len(t, out[p], 1, "flooded to port %d", p)
				assert.Equal(t, fa, out[p][0].Data, "port %d data", p)
				assert.False(t, out[p][0].Bad)
				assert.Equal(t, acc[0].LastCycle+switchLatency, out[p][0].Cycle,
					"port %d: first beat out LATENCY after the last beat in (last in %d)", p, acc[0].LastCycle)
			}

			// The reply from port 2 to A goes only to port 0, where A
			// was learned.
			fb := swEthFrame(swMacA, swMacB, 64)
			acc = r.send(cosim.Frame{Port: 2, Cycle: 1, Data: fb})
			out = r.takeOut()
			for p := 1; p < switchPorts; p++ {
				assert.Empty(t, out[p], "port %d: the learned destination is not flooded", p)
			}
			require.Len(t, out[0], 1, "to the learned port 0")
			assert.Equal(t, fb, out[0][0].Data)
			assert.Equal(t, acc[0].LastCycle+switchLatency, out[0][0].Cycle)

			// A runt (40 bytes) into port 1 is dropped and counted.
			r.send(cosim.Frame{Port: 1, Cycle: 1, Data: swEthFrame(swMacBcast, swMacC, 40)})
			out = r.takeOut()
			for p := range switchPorts {
				assert.Empty(t, out[p], "port %d: the runt is dropped", p)
			}
			c := r.counters(swCntDropRunt)
			assert.Equal(t, uint32(1), c[1][0], "drop_runt of port 1")

			// PFC into port 1 (with CTRL.pfc_rx) pauses queue 3 of egress
			// 1 for quanta*512/width cycles from D+1: a priority-3 frame
			// from port 0 leaves ports 2 and 3 at once and port 1 at
			// D+N+2 = L+3+N; a priority-5 frame is not held.
			const prio, quanta = 3, 40
			n := uint64(quanta * 512 / tc.width)
			r.csr([]cosim.CSR{{Addr: swRegCtrl, Data: swCtrlPfcRx}})
			f3 := swVLANFrame(swMacBcast, swMacD, prio, 100)
			f5 := swVLANFrame(swMacBcast, swMacE, 5, 80)
			acc = r.send(
				cosim.Frame{Port: 1, Cycle: 1, Data: swPFCFrame(swMacC, prio, quanta)},
				cosim.Frame{Port: 0, Cycle: 8, Data: f3},
				cosim.Frame{Port: 3, Cycle: 8, Data: f5},
			)
			lp, l3, l5 := acc[0].LastCycle, acc[1].LastCycle, acc[2].LastCycle
			require.Less(t, l3+switchLatency, lp+switchLatency+n, "the priority-3 frame is decided inside the pause")
			out = r.takeOut()
			t.Logf("PFC last beat %d, N %d; priority 3 last beat %d, priority 5 last beat %d", lp, n, l3, l5)
			for p := range switchPorts {
				for _, f := range out[p] {
					t.Logf("  out port %d: %d bytes, cycles %d..%d", p, len(f.Data), f.Cycle, f.LastCycle)
				}
			}
			require.Len(t, out[1], 2, "port 1: both frames, the PFC frame consumed")
			assert.Equal(t, f5, out[1][0].Data, "port 1: priority 5 first")
			assert.Equal(t, l5+switchLatency, out[1][0].Cycle, "port 1: priority 5 not paused")
			assert.Equal(t, f3, out[1][1].Data, "port 1: then priority 3")
			assert.Equal(t, lp+switchLatency+n, out[1][1].Cycle, "port 1: priority 3 paused for N cycles")
			require.Len(t, out[3], 1)
			assert.Equal(t, f3, out[3][0].Data)
			assert.Equal(t, l3+switchLatency, out[3][0].Cycle, "port 3: priority 3 not paused elsewhere")
			require.Len(t, out[0], 1)
			assert.Equal(t, f5, out[0][0].Data)
			assert.Equal(t, l5+switchLatency, out[0][0].Cycle)
			require.Len(t, out[2], 2, "port 2: both frames")
			assert.ElementsMatch(t, [][]byte{f3, f5}, [][]byte{out[2][0].Data, out[2][1].Data})

			// Counters of every port.
			c = r.counters(swCntRxFrames, swCntRxBytes, swCntTxFrames, swCntTxBytes, swCntDropRunt, swCntRxPfc)
			type cnt struct{ rxFrames, rxBytes, txFrames, txBytes, runt, rxPfc uint32 }
			got := func(p int) cnt { return cnt{c[p][0], c[p][1], c[p][2], c[p][3], c[p][4], c[p][5]} }
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
			r.csr([]cosim.CSR{{Addr: swCounterAddr(1, swCntTxFrames), Data: 0}})
			assert.Equal(t, []uint32{0, 3}, r.csr(nil, swCounterAddr(1, swCntTxFrames), swCounterAddr(2, swCntTxFrames)))

			for p := range switchPorts {
				assert.Empty(t, r.out[p])
			}
			require.NoError(t, r.m.Close(), "GOODBYE and a clean exit")
		})
	}
}

// More registers and counters.
const (
	swRegDefaultPrio = 0x001C
	swRegPfcXoff     = 0x0020
	swRegPfcXon      = 0x0024
	swRegPfcQuanta   = 0x0028
	swRegMacLo       = 0x0030
	swRegMacHi       = 0x0034
	swRegEcnK0       = 0x0080
	swCtrlEcn        = 1 << 1
	swCtrlPfcTx      = 1 << 2

	swCntDropNoSlot = 7
	swCntTxPfc      = 11
	swCntDropTail0  = 16
	swCntEcnMarked0 = 24
)

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
	binary.BigEndian.PutUint16(ip[10:], ^swIPSum(ip))
	return b
}

// swIPSum is the one's complement sum of the 16-bit words of h.
func swIPSum(h []byte) uint16 {
	var s uint32
	for i := 0; i+1 < len(h); i += 2 {
		s += uint32(binary.BigEndian.Uint16(h[i:]))
	}
	for s>>16 != 0 {
		s = s&0xffff + s>>16
	}
	return uint16(s)
}

// The ECN rewrite: with ECN_K[0] = 0 the second and third of three
// back-to-back IPv4 frames (one of them tagged) find their queue non-empty
// and leave with ECN = 11 and a checksum that still verifies; nothing else
// changes.
func TestSwitchModelECN(t *testing.T) {
	for _, tc := range switchModels {
		t.Run(tc.name, func(t *testing.T) {
			r := startSwitch(t, tc.name, tc.width)
			r.csr([]cosim.CSR{{Addr: swRegCtrl, Data: swCtrlEcn}, {Addr: swRegEcnK0, Data: 0}})
			in := [][]byte{
				swIPv4Frame(swMacBcast, swMacA, 0x02, false, 200),
				swIPv4Frame(swMacBcast, swMacA, 0x05, false, 200),
				swIPv4Frame(swMacBcast, swMacA, 0xb9, true, 200),
			}
			r.send(cosim.Frame{Port: 1, Cycle: 1, Data: in[0]}, cosim.Frame{Port: 1, Cycle: 1, Data: in[1]},
				cosim.Frame{Port: 1, Cycle: 1, Data: in[2]})
			out := r.takeOut()
			for _, p := range []int{0, 2, 3} {
				require.Len(t, out[p], 3, "port %d", p)
				assert.Equal(t, in[0], out[p][0].Data, "port %d: the first finds its queue empty", p)
				for k := 1; k < 3; k++ {
					got, want := out[p][k].Data, bytes.Clone(in[k])
					o := 14
					if k == 2 {
						o = 18
					}
					want[o+1] |= 3
					assert.Equal(t, uint16(0xffff), swIPSum(got[o:o+20]), "port %d frame %d: checksum verifies", p, k)
					copy(want[o+10:o+12], got[o+10:o+12])
					assert.Equal(t, want, got, "port %d frame %d: only TOS and checksum change", p, k)
				}
			}
			c := r.counters(swCntEcnMarked0)
			assert.Equal(t, []uint32{2, 0, 2, 2}, []uint32{c[0][0], c[1][0], c[2][0], c[3][0]}, "ecn_marked[0]")
			require.NoError(t, r.m.Close())
		})
	}
}

// PFC generation: one 200-byte priority-6 frame from port 2 with
// PFC_XOFF = 100 sends XOFF out of port 2 (from the decision's next cycle,
// so at L+3) and, when its last copy has left (cycle z), XON at z+2.
func TestSwitchModelPFCTx(t *testing.T) {
	for _, tc := range switchModels {
		t.Run(tc.name, func(t *testing.T) {
			r := startSwitch(t, tc.name, tc.width)
			sw := swMAC{0x0e, 0x0f, 0x0a, 0x0b, 0x0c, 0x0d}
			r.csr([]cosim.CSR{
				{Addr: swRegCtrl, Data: swCtrlPfcTx}, {Addr: swRegPfcXoff, Data: 100}, {Addr: swRegPfcXon, Data: 50},
				{Addr: swRegPfcQuanta, Data: 0x1234}, {Addr: swRegMacLo, Data: 0x0a0b0c0d}, {Addr: swRegMacHi, Data: 0x0e0f},
				{Addr: swRegDefaultPrio, Data: 6},
			})
			f := swEthFrame(swMacBcast, swMacA, 200)
			acc := r.send(cosim.Frame{Port: 2, Cycle: 1, Data: f})
			out := r.takeOut()
			l := acc[0].LastCycle
			var z uint64
			for _, p := range []int{0, 1, 3} {
				require.Len(t, out[p], 1, "port %d", p)
				assert.Equal(t, f, out[p][0].Data)
				assert.Equal(t, l+switchLatency, out[p][0].Cycle)
				z = max(z, out[p][0].LastCycle)
			}
			require.Len(t, out[2], 2, "XOFF and XON out of port 2")
			assert.Equal(t, swPFCFrame(sw, 6, 0x1234), out[2][0].Data, "XOFF")
			assert.Equal(t, l+switchLatency, out[2][0].Cycle, "XOFF")
			assert.Equal(t, swPFCFrame(sw, 6, 0), out[2][1].Data, "XON")
			assert.Equal(t, z+2, out[2][1].Cycle, "XON")
			c := r.counters(swCntTxPfc, swCntTxFrames, swCntTxBytes)
			assert.Equal(t, []uint32{2, 2, 120}, c[2], "port 2: tx_pfc, tx_frames, tx_bytes")
			require.NoError(t, r.m.Close())
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
			r := startSwitch(t, tc.name, tc.width)
			r.send(cosim.Frame{Port: 0, Cycle: 1, Data: swEthFrame(swMacBcast, swMacA, 64)})
			r.takeOut()
			// Sources that do not evict A from the direct-mapped table.
			const each = 12
			var in []cosim.Frame
			src := byte(0)
			for range each {
				for p := 1; p < switchPorts; p++ {
					s := swMAC{0x02, 0, 0, 0, 1, src}
					for ; swMACIndex(s) == swMACIndex(swMacA); s[5]++ {
					}
					src = s[5] + 1
					d := swEthFrame(swMacA, s, 1500)
					in = append(in, cosim.Frame{Port: uint16(p), Cycle: 1, Data: d})
				}
			}
			r.send(in...)
			out := r.takeOut()
			for p := 1; p < switchPorts; p++ {
				assert.Empty(t, out[p], "port %d", p)
			}
			c := r.counters(swCntTxFrames, swCntDropTail0, swCntDropNoSlot)
			t.Logf("port 0: %d frames out, %d dropped at the tail", c[0][0], c[0][1])
			assert.Greater(t, c[0][1], uint32(0), "some dropped at the tail")
			assert.Equal(t, uint32(len(in)), c[0][0]+c[0][1], "every frame out or dropped")
			assert.Len(t, out[0], int(c[0][0]))
			for _, f := range out[0] {
				assert.Len(t, f.Data, 1500)
				assert.Equal(t, swMacA[:], f.Data[:6])
			}
			for p := range switchPorts {
				assert.Zero(t, c[p][2], "port %d: drop_no_slot", p)
			}
			require.NoError(t, r.m.Close())
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
				r := startSwitch(t, tc.name, tc.width)
				const size = 100
				ctrl := uint32(0)
				if drr {
					ctrl = 1
				}
				r.csr([]cosim.CSR{{Addr: swRegCtrl, Data: ctrl}, {Addr: 0x00C0 + 4*1, Data: size}})
				r.send(cosim.Frame{Port: 0, Cycle: 1, Data: swEthFrame(swMacBcast, swMacA, 64)})
				r.takeOut()
				var in []cosim.Frame
				for k := range 4 {
					in = append(in, cosim.Frame{Port: 1, Cycle: 1, Data: swVLANFrame(swMacA, swMAC{0x02, 0, 0, 0, 2, byte(k)}, 1, size)})
				}
				acc := r.send(in...)
				out := r.takeOut()
				require.Len(t, out[0], len(in))
				assert.Equal(t, acc[0].LastCycle+switchLatency, out[0][0].Cycle)
				gap := uint64(1)
				if drr {
					gap = 2
				}
				for k := 1; k < len(in); k++ {
					assert.Equal(t, in[k].Data, out[0][k].Data)
					assert.Equal(t, out[0][k-1].LastCycle+gap, out[0][k].Cycle, "frame %d", k)
				}
				require.NoError(t, r.m.Close())
			})
		}
	}
}

// The 8-port model: SHAPE, a flood to the 7 other ports at LATENCY, and
// the learned reply to one port.
func TestSwitchModel8Ports(t *testing.T) {
	const ports, width = 8, 64
	r := startSwitchPorts(t, "switch8_64", ports, width)
	v := r.csr(nil, swRegID, swRegShape)
	assert.Equal(t, uint32(0x53570001), v[0], "ID")
	assert.Equal(t, uint32(ports|switchQueues<<8|(width/8)<<16), v[1], "SHAPE")

	fa := swEthFrame(swMacB, swMacA, 300)
	acc := r.send(cosim.Frame{Port: 5, Cycle: 1, Data: fa})
	out := r.takeOut()
	for p := range ports {
		if p == 5 {
			assert.Empty(t, out[p])
			continue
		}
		require.Len(t, out[p], 1, "flooded to port %d", p)
		assert.Equal(t, fa, out[p][0].Data)
		assert.Equal(t, acc[0].LastCycle+switchLatency, out[p][0].Cycle, "port %d", p)
	}
	fb := swEthFrame(swMacA, swMacB, 61)
	acc = r.send(cosim.Frame{Port: 7, Cycle: 1, Data: fb})
	out = r.takeOut()
	for p := range ports {
		if p != 5 {
			assert.Empty(t, out[p], "port %d", p)
		}
	}
	require.Len(t, out[5], 1)
	assert.Equal(t, fb, out[5][0].Data)
	assert.Equal(t, acc[0].LastCycle+switchLatency, out[5][0].Cycle)
	c := r.counters(swCntRxFrames, swCntTxFrames)
	for p := range ports {
		wantRx, wantTx := uint32(0), uint32(1)
		switch p {
		case 5:
			wantRx = 1
		case 7:
			wantRx, wantTx = 1, 1
		}
		assert.Equal(t, []uint32{wantRx, wantTx}, c[p], "port %d: rx_frames, tx_frames", p)
	}
	require.NoError(t, r.m.Close())
}
