package tb_test

import (
	"cmp"
	"encoding/binary"
	"net"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

// Priorities of the PFC test: QP 0 and the CNPs share pfcPrioA, QP 1 has
// pfcPrioB, and pfcPrioIdle is no one's.
const (
	pfcPrioA    = 3
	pfcPrioB    = 5
	pfcPrioIdle = 6
)

// pfcPause is a MAC Control frame the test puts on in0, and what it must do.
type pfcPause struct {
	at    uint64 // arrival of its first beat, from the run's start
	frame []byte
	what  string
	// decided is the decision cycle D (last beat + 2), once accepted
	decided uint64
}

// The NIC receives PFC and PAUSE frames (rtl/nic/README.md "PFC") while two
// QPs of different priorities send WRITEs: an XOFF of QP 0's priority (its
// CNPs' too), an XOFF cut short by an XON, an 802.3x PAUSE of everything, an
// XOFF of a priority no QP has (nothing stops), one naming both QPs'
// priorities with different times, an XOFF that lands in the middle of a
// long frame (it finishes), and MAC Control frames that must be dropped and
// counted (another opcode, a PFC to a unicast address, short ones). Every
// out0 frame leaves at its golden twin's cycle (golden rc pauses the same
// priorities at the same decisions), nothing reaches the host port, the
// node counters (rx_pfc .. paused_cycles_prio7) match, and frames of a
// paused QP are never decided inside its pause.
func TestNICPFC(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *nicSeed
			t.Logf("seed %d (rerun with -args -nic.seed=%d)", seed, seed)
			const nq = 2
			r := startNICNodes(t, width, seed, nq, func(q int, d, p *rc.QPConfig) {
				d.Timeout, p.Timeout = 12, 12 // 16.8 ms: no ACK timeout while paused
				d.Priority = []uint8{pfcPrioA, pfcPrioB}[q]
				d.DSCP = []uint8{24, 40}[q] // the QP's own, in its IPv4 header
				d.PMTU, p.PMTU = 4096, 4096 // long frames, to pause in the middle of
			}, func(d, p *rc.NodeConfig) {
				d.CNPPriority = pfcPrioA
			})
			r.ceToDUT = 0.05 // CNPs from the DUT, of priority A
			start := r.m.Cycle() + 16
			const opsUntil = 44_000

			// WRITEs of 2..12 KiB on each QP, together about 90% of the wire
			bpc := float64(width / 8)
			var ops []nicOp
			for q := range nq {
				at := start + uint64(r.rng.IntN(300))
				for k := 0; at < start+opsUntil; k++ {
					n := uint32(2048 + r.rng.IntN(10241))
					wr := rc.WorkRequest{ID: uint64(q)<<32 | uint64(k), Op: rc.OpWrite, Length: n,
						LocalAddr: nicReadBase + uint64(r.rng.IntN(nicReadSpan-int(n))), RKey: nicWriteKey,
						RemoteAddr: nicWriteBase + uint64(q)*0x10_0000 + uint64(r.rng.IntN(nicWriteSpan-int(n)))}
					ops = append(ops, nicOp{at: at, q: q, wr: wr})
					at += uint64(float64(n) * nq / (0.9 * bpc))
				}
			}
			slices.SortStableFunc(ops, func(a, b nicOp) int { return cmp.Compare(a.at, b.at) })
			r.schedule(ops, true)

			// pause times in cycles, as quanta at this width (exact: a
			// multiple of 8 cycles)
			q := func(cycles int) uint16 { return uint16(cycles * width / 512) }
			src := net.HardwareAddr(nicPeerMAC[:])
			pfcOf := func(enable uint8, times map[int]int) []byte {
				var quanta [pfc.NumPriorities]uint16
				for p, c := range times {
					quanta[p] = q(c)
				}
				f, err := pfc.New(src, enable, quanta)
				require.NoError(t, err)
				return f
			}
			pause, err := pfc.NewPause(src, q(1_504))
			require.NoError(t, err)
			other := slices.Clone(pause)
			binary.BigEndian.PutUint16(other[14:], 0x0002) // another opcode, to the reserved address
			unicast := pfcOf(1<<pfcPrioA, map[int]int{pfcPrioA: 4_000})
			copy(unicast[0:6], nicDUTMAC[:]) // PFC needs the reserved address
			shortPFC := pfcOf(1<<pfcPrioA, map[int]int{pfcPrioA: 4_000})[:30]
			shortControl := slices.Clone(pause[:15])
			pauses := []*pfcPause{
				{at: 3_000, frame: pfcOf(1<<pfcPrioA, map[int]int{pfcPrioA: 2_000}), what: "XOFF A"},
				{at: 8_000, frame: pfcOf(1<<pfcPrioA, map[int]int{pfcPrioA: 20_000}), what: "long XOFF A"},
				{at: 10_000, frame: pfcOf(1<<pfcPrioA, nil), what: "XON A"},
				{at: 14_000, frame: pause, what: "PAUSE"},
				{at: 18_000, frame: pfcOf(1<<pfcPrioIdle, map[int]int{pfcPrioIdle: 3_000}), what: "XOFF idle priority"},
				{at: 22_000, frame: pfcOf(1<<pfcPrioA|1<<pfcPrioB, map[int]int{pfcPrioA: 1_000, pfcPrioB: 2_504}),
					what: "XOFF A and B"},
				// the reserved high byte of the vector is ignored
				{at: 30_000, frame: pfcOf(1<<pfcPrioB, map[int]int{pfcPrioB: 800}), what: "XOFF B, reserved bits"},
				{at: 32_000, frame: other, what: "opcode 2"},
				{at: 32_200, frame: unicast, what: "PFC to a unicast address"},
				{at: 32_400, frame: shortPFC, what: "short PFC"},
				{at: 32_600, frame: shortControl, what: "short MAC Control"},
				{at: 34_000, frame: pfcOf(1<<pfcPrioB, nil), what: "XON B, not paused"},
			}
			pauses[6].frame[16] = 0xA5
			for _, p := range pauses {
				r.dutFrame(0, start+p.at, p.frame)
			}
			var midFrame *pfcPause // an XOFF aimed at the middle of a long frame
			var long int           // the twin's frame it aims at
			byData := func(data []byte, last uint64) {
				for _, p := range pauses {
					if p.decided == 0 && &p.frame[0] == &data[0] {
						p.decided = last + 2
						return
					}
				}
				if midFrame != nil && midFrame.decided == 0 && &midFrame.frame[0] == &data[0] {
					midFrame.decided = last + 2
				}
			}
			r.onAccept = byData
			r.onStep = func() {
				now := r.m.Cycle()
				if midFrame != nil || now < start+38_000 {
					return
				}
				// a frame of QP 1 of at least 2 KiB the twin sends after now:
				// the XOFF of its priority is decided half way through it
				for k := len(r.twinNet) - 1; k >= 0; k-- {
					f := r.twinNet[k]
					var fr roce.Frame
					if len(f.Data) < 2048 || fr.Decode(f.Data) != nil || fr.BTH.DestQP != r.peerQP[1].QPN {
						continue
					}
					d := f.Cycle + modeltest.Beats(len(f.Data), width)/2
					at := d - 2 - (modeltest.Beats(pfc.FrameLen, width) - 1)
					if at < now+8 {
						break
					}
					midFrame = &pfcPause{at: at - start, frame: pfcOf(1<<pfcPrioB, map[int]int{pfcPrioB: 1_200}),
						what: "XOFF B mid-frame"}
					long = k
					r.dutFrame(0, at, midFrame.frame)
					return
				}
			}
			r.finish(nicMemRegions(r.nq))
			require.NotNil(t, midFrame, "a long frame to pause in the middle of")
			pauses = append(pauses, midFrame)

			for _, p := range pauses {
				require.NotZero(t, p.decided, "%s accepted", p.what)
				t.Logf("%-26s decided at %6d", p.what, p.decided-start)
			}
			// the pauses, worked out here from the frames (802.1Qbb: a
			// frame decided at D pauses D+1 .. D+N, until the next frame
			// naming the priority), checked on the DUT's own frames: none
			// of a paused priority decided inside its pause
			slices.SortFunc(pauses, func(a, b *pfcPause) int { return cmp.Compare(a.decided, b.decided) })
			var until [pfc.NumPriorities][][2]uint64 // per priority, [from, to) spans
			for _, p := range pauses {
				var fr pfc.PFC
				if len(p.frame) < pfc.FrameLen || fr.DecodeFromBytes(p.frame[14:], nil) != nil ||
					!slices.Equal(p.frame[0:6], pfc.DstMAC) {
					continue
				}
				mask, quanta := fr.Request()
				for prio := range pfc.NumPriorities {
					if mask&(1<<prio) == 0 {
						continue
					}
					if n := len(until[prio]); n > 0 && until[prio][n-1][1] > p.decided+1 {
						until[prio][n-1][1] = p.decided + 1 // cut short
					}
					n := pfc.QuantaToCycles(quanta[prio], width)
					until[prio] = append(until[prio], [2]uint64{p.decided + 1, p.decided + 1 + n})
				}
			}
			lat := uint64(nicDMALatency + 4)
			prioOf := map[roce.QPN]uint8{r.peerQP[0].QPN: pfcPrioA, r.peerQP[1].QPN: pfcPrioB}
			sent := map[uint8]int{}
			resumed := 0
			var pausedFor [pfc.NumPriorities]uint64
			for prio, spans := range until {
				for _, s := range spans {
					pausedFor[prio] += s[1] - s[0]
				}
			}
			for _, f := range r.dutNet {
				var fr roce.Frame
				require.NoError(t, fr.Decode(f.Data))
				prio, ok := prioOf[fr.BTH.DestQP]
				require.True(t, ok, "frame to QP %v", fr.BTH.DestQP)
				tx := f.Cycle - lat
				for _, s := range until[prio] {
					require.False(t, tx >= s[0] && tx < s[1], "a frame of priority %d decided at %d, paused %d..%d",
						prio, tx-start, s[0]-start, s[1]-1-start)
				}
				sent[prio]++
				for _, s := range until[prio] {
					if tx == s[1] && s[1] > s[0] {
						resumed++ // it waited for the pause to end
					}
				}
			}
			require.NotZero(t, resumed, "a frame held back by a pause, decided as it ended")
			// the XOFF mid-frame: decided while the frame it aimed at left
			lf := r.dutNet[long]
			require.Greater(t, midFrame.decided, lf.Cycle, "XOFF after the long frame's first beat")
			require.Less(t, midFrame.decided, lf.LastCycle, "XOFF before its last beat")
			// the idle priority's pause stopped no one: both QPs sent in it
			idle := pauses[4].decided
			for _, prio := range []uint8{pfcPrioA, pfcPrioB} {
				n := 0
				for _, f := range r.dutNet {
					var fr roce.Frame
					if fr.Decode(f.Data) == nil && prioOf[fr.BTH.DestQP] == prio && f.Cycle-lat > idle &&
						f.Cycle-lat <= idle+3_000 {
						n++
					}
				}
				require.NotZero(t, n, "priority %d sent while priority %d was paused", prio, pfcPrioIdle)
			}
			pc := r.twin.Node().PauseCounters()
			t.Logf("DUT frames by priority %v; pause counters %+v", sent, pc)
			require.Equal(t, rc.PauseCounters{RxPFC: 8, RxPause: 1, RxMACControl: 2,
				Named: [8]uint64{1, 1, 1, 4 + 1, 1, 4 + 1, 1 + 1, 1}, Cycles: pc.Cycles}, pc, "MAC Control counters")
			c, _ := r.twin.Node().QPCounters(r.dutQP[0].QPN)
			require.NotZero(t, c[rc.TxCNP], "CNPs sent")
			require.Equal(t, pausedFor, pc.Cycles, "paused cycles, golden and worked out here")
			for _, prio := range []int{pfcPrioA, pfcPrioB, pfcPrioIdle} {
				require.NotZero(t, pc.Cycles[prio], "priority %d paused", prio)
			}
		})
	}
}
