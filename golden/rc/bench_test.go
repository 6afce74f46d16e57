package rc

import (
	"fmt"
	"testing"
)

// fifoLink is a lossless one-way link for benchmarks: frames arrive in
// order, latency cycles after their last byte left; buffers are reused.
type fifoLink struct {
	at   []uint64
	buf  [][]byte
	head int
	n    int
}

func newFIFOLink(slots int) *fifoLink {
	l := &fifoLink{at: make([]uint64, slots), buf: make([][]byte, slots)}
	for i := range l.buf {
		l.buf[i] = make([]byte, MaxFrameLen)
	}
	return l
}

func (l *fifoLink) push(f []byte, at uint64) {
	if l.n == len(l.at) {
		panic("benchmark link full")
	}
	i := (l.head + l.n) % len(l.at)
	l.buf[i] = l.buf[i][:copy(l.buf[i][:cap(l.buf[i])], f)]
	l.at[i] = at
	l.n++
}

// benchPair runs b.N messages of size bytes (op) over conns QP pairs,
// node A to node B, keeping depth outstanding per QP, on a lossless 64-bit
// link. It reports frames/s and messages/s.
func benchPair(b *testing.B, op Op, size uint32, conns, depth int) {
	s := newPair(b, conns, 1, func(side int, c *QPConfig) { c.RQDepth = 1024 }, nil)
	a, z := s.nodes[0], s.nodes[1]
	links := [2]*fifoLink{newFIFOLink(256), newFIFOLink(256)}
	wireFree := [2]uint64{}
	buf := make([]byte, MaxFrameLen)
	wr := WorkRequest{Op: op, Length: size, LocalAddr: mrBase, RemoteAddr: mrBase, RKey: mrKeyB}
	needRecv := op.isSend() || op == OpWriteImm
	posted, done, frames := 0, 0, 0
	post := func(conn int, now uint64) {
		if needRecv {
			if err := z.PostRecv(qpnOf(1, conn), RecvRequest{Addr: mrBase, Length: size}, now); err != nil {
				b.Fatal(err)
			}
		}
		wr.ID = uint64(posted)
		if err := a.PostSend(qpnOf(0, conn), wr, now); err != nil {
			b.Fatal(err)
		}
		posted++
	}
	for c := range conns {
		for range depth {
			post(c, 0)
		}
	}
	// Touch the memory once so that steady state allocates no pages.
	s.mems[0].Write(mrBase, make([]byte, size+8))
	s.mems[1].Write(mrBase, make([]byte, size+8))
	now := uint64(0)
	b.ReportAllocs()
	b.ResetTimer()
	for done < b.N {
		for side, l := range links {
			for l.n > 0 && l.at[l.head] <= now {
				s.nodes[1-side].Receive(l.buf[l.head], now)
				l.head = (l.head + 1) % len(l.at)
				l.n--
			}
		}
		for _, cpl := range a.TakeCompletions() {
			if cpl.Status != StatusSuccess {
				b.Fatalf("%v", cpl)
			}
			done++
			post(int(cpl.QPN&0xFF), now)
		}
		z.TakeCompletions()
		next := now + 1<<40
		for side, n := range s.nodes {
			if wireFree[side] <= now {
				if f, ok := n.Poll(now, buf); ok {
					frames++
					ser := uint64(len(f)+7) / 8
					wireFree[side] = now + ser
					links[side].push(f, now+ser+s.latency)
					next = min(next, wireFree[side]) // it may have more: ask again when the wire frees
				} else if c, ok := n.NextEvent(); ok {
					next = min(next, c)
				}
			} else {
				next = min(next, wireFree[side])
			}
			if l := links[side]; l.n > 0 {
				next = min(next, l.at[l.head])
			}
		}
		now = max(next, now+1)
	}
	sec := b.Elapsed().Seconds()
	b.ReportMetric(float64(frames)/sec, "frames/s")
	b.ReportMetric(float64(done)/sec, "msgs/s")
	b.ReportMetric(float64(frames)/float64(done), "frames/msg")
	b.ReportMetric(float64(now)/float64(done), "cycles/msg")
}

// BenchmarkPair measures a golden node pair on one core: frames (data,
// ACKs, READ responses) and messages per second of wall time.
func BenchmarkPair(b *testing.B) {
	for _, op := range []Op{OpWrite, OpSend, OpRead} {
		for _, size := range []uint32{64, 1024, 4096} {
			b.Run(fmt.Sprintf("%v/%dB", op, size), func(b *testing.B) { benchPair(b, op, size, 16, 32) })
		}
	}
}

// The steady state allocates nothing: every buffer is reused.
func TestPairZeroAllocs(t *testing.T) {
	if testing.Short() {
		t.Skip("runs benchmarks")
	}
	for _, op := range []Op{OpWrite, OpSendImm, OpRead} {
		r := testing.Benchmark(func(b *testing.B) { benchPair(b, op, 3000, 4, 8) })
		if r.N < 1000 {
			t.Fatalf("%v: only %d messages ran", op, r.N)
		}
		if a := r.AllocsPerOp(); a != 0 || r.AllocedBytesPerOp() != 0 {
			t.Errorf("%v: %d allocations (%d bytes) per message in steady state", op, a, r.AllocedBytesPerOp())
		}
	}
}
