package rc

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// message is one work request of a workload and where its bytes live.
type message struct {
	from    int // requester side
	wr      WorkRequest
	src     uint64 // address of the data at side srcSide
	dst     uint64 // address it must reach at the other side
	srcSide int
	recv    bool // consumes a receive WQE at the target
}

// workload posts seeded messages on every QP of a pair, keeps a bounded
// number outstanding, and checks every completion and, at the end, every
// destination byte.
type workload struct {
	t      testing.TB
	s      *pairSim
	conns  int
	queues [][]message // per side*conns+conn, in posting order
	posted []int
	sendOK []int // send completions seen per queue
	recvOK []int // receive completions seen per queue of the *sender*
	depth  int
	alloc  [2]uint64
	done   int
	total  int
}

type mix struct {
	ops      []Op
	maxSize  uint32  // sizes are log-uniform in 0..maxSize
	bigShare float64 // share of 1 MiB messages
	zero     float64 // share of zero-length messages
}

func newWorkload(t testing.TB, s *pairSim, conns, total int, m mix, rng *rand.Rand) *workload {
	w := &workload{t: t, s: s, conns: conns, queues: make([][]message, 2*conns), posted: make([]int, 2*conns),
		sendOK: make([]int, 2*conns), recvOK: make([]int, 2*conns), depth: 64, total: total,
		alloc: [2]uint64{mrBase, mrBase}}
	keys := [2]uint32{mrKeyA, mrKeyB}
	for i := range total {
		side, conn := rng.IntN(2), rng.IntN(conns)
		op := m.ops[rng.IntN(len(m.ops))]
		var size uint32
		switch r := rng.Float64(); {
		case r < m.bigShare:
			size = MaxMessage
		case r < m.bigShare+m.zero:
			size = 0
		default:
			bits := rng.IntN(bitsLen(m.maxSize) + 1)
			size = uint32(rng.Uint64N(1<<bits)) % (m.maxSize + 1)
		}
		msg := message{from: side, wr: WorkRequest{ID: uint64(i), Op: op, Length: size, Imm: rng.Uint32()}}
		if op == OpRead {
			msg.srcSide = 1 - side
		} else {
			msg.srcSide = side
		}
		msg.src = w.take(msg.srcSide, size)
		msg.dst = w.take(1-msg.srcSide, size)
		data := make([]byte, size)
		for j := range data {
			data[j] = byte(rng.Uint32())
		}
		s.mems[msg.srcSide].Write(msg.src, data)
		switch op {
		case OpRead:
			msg.wr.LocalAddr, msg.wr.RemoteAddr, msg.wr.RKey = msg.dst, msg.src, keys[1-side]
		case OpWrite, OpWriteImm:
			msg.wr.LocalAddr, msg.wr.RemoteAddr, msg.wr.RKey = msg.src, msg.dst, keys[1-side]
		default:
			msg.wr.LocalAddr = msg.src
		}
		msg.recv = op.isSend() || op == OpWriteImm
		if msg.recv {
			rr := RecvRequest{ID: uint64(i), Addr: msg.dst, Length: size}
			require.NoError(t, s.nodes[1-side].PostRecv(qpnOf(1-side, conn), rr, 0))
		}
		w.queues[side*conns+conn] = append(w.queues[side*conns+conn], msg)
	}
	w.post()
	return w
}

func bitsLen(x uint32) int {
	n := 0
	for x > 0 {
		n, x = n+1, x>>1
	}
	return n
}

// take allocates size bytes (at least one, aligned to 8 plus a seeded
// misalignment would hide nothing here) at a side.
func (w *workload) take(side int, size uint32) uint64 {
	a := w.alloc[side]
	w.alloc[side] += uint64(size) + 64
	return a + 3 // unaligned on purpose
}

func (w *workload) post() {
	for qi, q := range w.queues {
		side, conn := qi/w.conns, qi%w.conns
		for w.posted[qi] < len(q) && w.posted[qi]-w.sendOK[qi] < w.depth {
			m := q[w.posted[qi]]
			require.NoError(w.t, w.s.nodes[side].PostSend(qpnOf(side, conn), m.wr, w.s.now))
			w.posted[qi]++
		}
	}
}

// collect checks the completions of both nodes and posts more work.
func (w *workload) collect() {
	for side, n := range w.s.nodes {
		for _, c := range n.TakeCompletions() {
			require.Equal(w.t, StatusSuccess, c.Status, "%v", c)
			conn := int(c.QPN & 0xFF)
			if !c.Recv {
				qi := side*w.conns + conn
				m := w.queues[qi][w.sendOK[qi]]
				require.Equal(w.t, m.wr.ID, c.ID, "send completions in posting order on %v", c.QPN)
				require.Equal(w.t, m.wr.Op, c.Op)
				require.Equal(w.t, m.wr.Length, c.Bytes)
				w.sendOK[qi]++
				w.done++
				continue
			}
			qi := (1-side)*w.conns + conn // the sender's queue
			q := w.queues[qi]
			for !q[w.recvOK[qi]].recv {
				w.recvOK[qi]++
			}
			m := q[w.recvOK[qi]]
			w.recvOK[qi]++
			require.Equal(w.t, m.wr.ID, c.ID, "receive completions in order on %v", c.QPN)
			require.Equal(w.t, m.wr.Op, c.Op)
			require.Equal(w.t, m.wr.Length, c.Bytes)
			require.Equal(w.t, m.wr.Op.hasImm(), c.HasImm)
			if c.HasImm {
				require.Equal(w.t, m.wr.Imm, c.Imm)
			}
		}
	}
	w.post()
}

// run drives the pair until every message completed; it fails on a stall.
func (w *workload) run(limit uint64) {
	for w.done < w.total {
		w.collect()
		if !w.s.step() || w.s.now > limit {
			w.collect()
			if w.done < w.total {
				w.t.Fatalf("stalled at cycle %d with %d of %d messages complete", w.s.now, w.done, w.total)
			}
		}
	}
}

// checkMemory compares every destination with its source.
func (w *workload) checkMemory() {
	for _, q := range w.queues {
		for _, m := range q {
			if m.wr.Length == 0 {
				continue
			}
			want := make([]byte, m.wr.Length)
			got := make([]byte, m.wr.Length)
			w.s.mems[m.srcSide].Read(m.src, want)
			w.s.mems[1-m.srcSide].Read(m.dst, got)
			if string(want) != string(got) {
				w.t.Fatalf("message %d (%v, %d B): destination bytes differ from the source", m.wr.ID, m.wr.Op, m.wr.Length)
			}
		}
	}
}

func (w *workload) String() string { return fmt.Sprintf("%d/%d messages", w.done, w.total) }
