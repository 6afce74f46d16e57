package rc

import (
	"math/rand/v2"
	"testing"

	"github.com/rocesim/cosim/golden/roce"
	"github.com/stretchr/testify/require"
)

// Targeted losses: one chosen frame is dropped (its first copy only) and
// the pair must recover by the one mechanism that can, then complete
// with every byte in place.
func TestTargetedLoss(t *testing.T) {
	type pick func(from int, op roce.OpCode, psn roce.PSN, ackReq bool, syn roce.AETHSyndrome) bool
	cases := []struct {
		name string
		ops  []Op
		size uint32
		drop pick
		// want: counters of the two nodes added up.
		want map[Counter]uint64
		more Counter // a counter that must be non-zero, if set
	}{
		{
			// The last packet of a message: nothing follows it to reveal the
			// gap, so only the local ACK timer recovers it.
			name: "last_packet_of_message", ops: []Op{OpWrite}, size: 5000,
			drop: func(from int, op roce.OpCode, _ roce.PSN, _ bool, _ roce.AETHSyndrome) bool {
				return from == 0 && op == roce.RCWriteLast
			},
			want: map[Counter]uint64{ReqRetryTimeout: 1, ReqRetryNAK: 0, RespNAKSeq: 0},
		},
		{
			// The only ACK of a message: the timer resends the last packet,
			// the responder sees a duplicate and ACKs it again.
			name: "ack", ops: []Op{OpSend}, size: 3000,
			drop: func(from int, op roce.OpCode, _ roce.PSN, _ bool, syn roce.AETHSyndrome) bool {
				return from == 1 && op == roce.RCAcknowledge && syn.Kind() == roce.KindACK
			},
			want: map[Counter]uint64{ReqRetryTimeout: 1, ReqRetryNAK: 0},
			more: RespDuplicate,
		},
		{
			// A READ response in the middle: the next response reveals the
			// gap and the rest of the READ is asked for again at once.
			name: "read_response_middle", ops: []Op{OpRead}, size: 6000,
			drop: func(from int, op roce.OpCode, _ roce.PSN, _ bool, _ roce.AETHSyndrome) bool {
				return from == 1 && op == roce.RCReadResponseMiddle
			},
			want: map[Counter]uint64{ReqRetryReadGap: 1, ReqRetryTimeout: 0, RespDuplicateRead: 1},
		},
		{
			// A NAK: the gap it reported stays silent, so the timer recovers.
			name: "nak", ops: []Op{OpWrite}, size: 5000,
			drop: func(from int, op roce.OpCode, _ roce.PSN, _ bool, syn roce.AETHSyndrome) bool {
				return (from == 0 && op == roce.RCWriteMiddle) || (from == 1 && syn.Kind() == roce.KindNAK)
			},
			want: map[Counter]uint64{RespNAKSeq: 1, ReqRetryTimeout: 1, ReqRetryNAK: 0},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newPair(t, 1, 1, nil, nil)
			dropped := map[int]bool{}
			s.drop = func(from int, f []byte) bool {
				var fr roce.Frame
				require.NoError(t, fr.Decode(f))
				b := &fr.BTH
				syn := roce.AETHSyndrome(0)
				if b.OpCode.Headers()&roce.HasAETH != 0 {
					syn = b.AETH.Syndrome
				}
				key := from<<8 | int(b.OpCode)
				if !dropped[key] && tc.drop(from, b.OpCode, b.PSN, b.AckReq, syn) {
					dropped[key] = true
					return true
				}
				return false
			}
			w := newWorkload(t, s, 1, 0, mix{ops: tc.ops}, rand.New(rand.NewPCG(1, 1)))
			w.addOne(0, 0, tc.ops[0], tc.size, 7)
			w.run(1 << 40)
			w.checkMemory()
			require.NotEmpty(t, dropped, "the chosen frame was never sent")
			var total Counters
			for _, n := range s.nodes {
				c := n.Counters()
				total.add(&c)
			}
			for c, v := range tc.want {
				require.Equal(t, v, total[c], "counter %v", c)
			}
			if tc.more != 0 {
				require.NotZero(t, total[tc.more], "counter %v", tc.more)
			}
			require.NotZero(t, total[TxRetransmits])
		})
	}
}

// addOne adds and posts one message of a given kind.
func (w *workload) addOne(side, conn int, op Op, size uint32, fill byte) {
	keys := [2]uint32{mrKeyA, mrKeyB}
	m := message{from: side, wr: WorkRequest{ID: uint64(w.total), Op: op, Length: size, Imm: 0x1234}}
	m.srcSide = side
	if op == OpRead {
		m.srcSide = 1 - side
	}
	m.src, m.dst = w.take(m.srcSide, size), w.take(1-m.srcSide, size)
	data := make([]byte, size)
	for i := range data {
		data[i] = fill + byte(i*7)
	}
	w.s.mems[m.srcSide].Write(m.src, data)
	switch op {
	case OpRead:
		m.wr.LocalAddr, m.wr.RemoteAddr, m.wr.RKey = m.dst, m.src, keys[1-side]
	case OpWrite, OpWriteImm:
		m.wr.LocalAddr, m.wr.RemoteAddr, m.wr.RKey = m.src, m.dst, keys[1-side]
	default:
		m.wr.LocalAddr = m.src
	}
	m.recv = op.isSend() || op == OpWriteImm
	if m.recv {
		require.NoError(w.t, w.s.nodes[1-side].PostRecv(qpnOf(1-side, conn), RecvRequest{ID: m.wr.ID, Addr: m.dst, Length: size}, w.s.now))
	}
	w.queues[side*w.conns+conn] = append(w.queues[side*w.conns+conn], m)
	w.total++
	w.post()
}

// The retry cascade of rtl/nic README "Bounded queues", end to end: READs
// and WRITEs in flight, the first READ response lost. The implied NAK
// resends them all, and the responder's ACK for each duplicate WRITE
// stops before the next READ, whose replay follows it (doc.go Responder
// "PSN behind"). Acknowledging the last accepted PSN instead reaches the
// requester ahead of that replay: an implied NAK for each later READ, one
// more retry each with no frame lost.
func TestTargetedNoRetryCascade(t *testing.T) {
	s := newPair(t, 1, 1, nil, nil)
	lost := false
	s.drop = func(from int, f []byte) bool {
		var fr roce.Frame
		require.NoError(t, fr.Decode(f))
		if !lost && from == 1 && fr.BTH.OpCode == roce.RCReadResponseOnly {
			lost = true
			return true
		}
		return false
	}
	w := newWorkload(t, s, 1, 0, mix{ops: allOps}, rand.New(rand.NewPCG(1, 1)))
	for i := range 4 {
		w.addOne(0, 0, OpRead, 100, byte(2*i))
		w.addOne(0, 0, OpWrite, 100, byte(2*i+1))
	}
	w.run(1 << 40)
	w.checkMemory()
	require.True(t, lost)
	var total Counters
	for _, n := range s.nodes {
		c := n.Counters()
		total.add(&c)
	}
	require.Equal(t, uint64(1), total[ReqRetryReadGap]+total[ReqRetryNAK]+total[ReqRetryTimeout],
		"one lost frame, one retry: %v", total.Map())
	require.Equal(t, uint64(4), total[RespDuplicate], "the go-back-N sends all four WRITEs again")
}
