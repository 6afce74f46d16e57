package cosim

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"
)

// Pipelined windows: Send and Recv split StepInto in two halves, so that a
// caller can send the next window before it reads the reply to the one
// before, and do its own work on that reply while the model simulates the
// next window. Send hands the encoded window to a writer goroutine and
// returns; Recv reads the replies in the order the windows were sent.
// Both messages can be far larger than the socket buffers: the model
// writes its reply while the next window is still being written to it,
// so the writes must not wait for the reads (nor the reads for the
// writes), which the writer goroutine guarantees.

// flight is a window sent and not yet answered: what its reply is checked
// against.
type flight struct {
	start, target uint64
	csrReads      []uint32
	memReads      []Mem    // Addr and Length
	inSeq         []uint32 // per input port: frames sent up to and including this window
}

// Send sends w, like the first half of StepInto, and returns without
// waiting for the reply: Recv reads it. Windows follow one another: w
// starts at the Target of the window sent before it. Send checks w as
// StepInto does (a bad window leaves the Model usable), numbers its frames
// (Seq), and copies everything it needs from w, so the caller may reuse
// w's slices once Send returns.
//
// Send itself does not wait for the model to take the window: a writer
// goroutine writes it while the caller goes on. A model that stops taking
// windows or answering them is caught by Recv's Step timeout (the window
// in flight is bounded with the reply to it); Close ends the writer.
func (m *Model) Send(ctx context.Context, w Window) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.usable("step"); err != nil {
		return err
	}
	if !m.shook {
		return &ModelError{Model: m.name, Op: "step", Err: errors.New("Send before Handshake")}
	}
	op := fmt.Sprintf("step to cycle %d", w.Target)
	if err := m.checkWindow(&w); err != nil {
		return &ModelError{Model: m.name, Op: op, Err: err}
	}
	if err := ctx.Err(); err != nil {
		return &ModelError{Model: m.name, Op: op, Err: err}
	}
	if err := m.wq.failed(); err != nil {
		// An earlier window did not get through: the model died or
		// stopped reading. Its own words, if it sent any, say more.
		return m.fail(ctx, op+": sending the window", m.sentError(err))
	}
	fl := m.newFlight()
	fl.start, fl.target = m.sent, w.Target
	fl.csrReads = append(fl.csrReads[:0], w.CSRReads...)
	fl.memReads = fl.memReads[:0]
	for _, mr := range w.MemReads {
		fl.memReads = append(fl.memReads, Mem{Addr: mr.Addr, Length: mr.Length})
	}
	m.enc.Reset()
	m.enc.handoff = m.wq.push
	m.encodeWindow(&w, fl.start)
	m.enc.Flush() // hands the rest over; write errors come later
	m.enc.handoff = nil
	fl.inSeq = append(fl.inSeq[:0], m.inSeq...)
	m.flights = append(m.flights, fl)
	m.sent = w.Target
	return nil
}

// Recv reads the reply to the oldest window sent with Send and not yet
// received, into r, like the second half of StepInto (the same checks,
// the same reuse of r's slices, the same buffer rules). It is bounded by
// ctx and the Step timeout, counted from the call, and returns as soon as
// the model's process dies. On error *r is reset to empty and the Model
// is unusable.
func (m *Model) Recv(ctx context.Context, r *Reply) error {
	*r = Reply{Accepts: r.Accepts[:0], Frames: r.Frames[:0], CSRData: r.CSRData[:0], MemData: r.MemData[:0]}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.usable("step"); err != nil {
		return err
	}
	if len(m.flights) == 0 {
		return &ModelError{Model: m.name, Op: "step", Err: errors.New("Recv with no window sent")}
	}
	fl := m.flights[0]
	end := m.beginRead(ctx, m.t.Step)
	defer end()
	m.growAccepts(fl, r)
	n, err := m.readReply(fl, r)
	if err != nil {
		*r = Reply{}
		return m.fail(ctx, fmt.Sprintf("step to cycle %d: waiting for DONE (%d reply messages received)", fl.target, n), err)
	}
	m.cycle = fl.target
	copy(m.flights, m.flights[1:])
	m.flights[len(m.flights)-1] = nil
	m.flights = m.flights[:len(m.flights)-1]
	m.spare = append(m.spare, fl)
	return nil
}

// InFlight returns how many windows were sent and not yet received.
func (m *Model) InFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.flights)
}

// growAccepts makes room in r.Accepts for every frame the model may accept
// in window fl: those sent up to it and not accepted yet.
func (m *Model) growAccepts(fl *flight, r *Reply) {
	n := 0
	for p := range m.pending {
		n += int(fl.inSeq[p] - (m.inSeq[p] - uint32(m.pending[p].len())))
	}
	r.Accepts = slices.Grow(r.Accepts, n)
}

func (m *Model) newFlight() *flight {
	if n := len(m.spare); n > 0 {
		fl := m.spare[n-1]
		m.spare = m.spare[:n-1]
		return fl
	}
	return &flight{}
}

// encodeWindow numbers w's frames and encodes the window's messages,
// RUN last.
func (m *Model) encodeWindow(w *Window, start uint64) {
	for i := range w.Frames {
		f := &w.Frames[i]
		f.Seq = m.inSeq[f.Port]
		m.inSeq[f.Port]++
		m.lastIn[f.Port] = f.Cycle
		m.pending[f.Port].push(f.Cycle)
		m.enc.Frame(*f) // checked by checkWindow: cannot fail
	}
	for _, c := range w.CSRWrites {
		m.enc.CSRWrite(start, c)
	}
	for _, a := range w.CSRReads {
		m.enc.CSRRead(start, a)
	}
	for _, mw := range w.MemWrites {
		m.enc.MemWrite(start, mw)
	}
	for _, mr := range w.MemReads {
		m.enc.MemRead(start, mr.Addr, mr.Length)
	}
	m.enc.Run(w.Target)
}

// writeQueue writes the chunks Send encodes, in order, on its own
// goroutine (started by the first chunk). A failed write stops it: the
// stream is broken, so later chunks are dropped and the error kept.
type writeQueue struct {
	conn net.Conn

	mu       sync.Mutex
	cond     sync.Cond
	q        [][]byte // chunks to write, from head on
	head     int
	free     [][]byte // written chunks, for the encoder to fill again
	writing  bool
	started  bool
	stop     bool // write nothing more (abort)
	closed   bool // end the goroutine once the queue is empty
	err      error
	deadline time.Time // of every write; zero: none
	done     chan struct{}
}

func newWriteQueue(conn net.Conn) *writeQueue {
	wq := &writeQueue{conn: conn, done: make(chan struct{})}
	wq.cond.L = &wq.mu
	return wq
}

// maxFree bounds the written chunks kept for reuse (a chunk is about
// encChunk bytes).
const maxFree = 256

// push queues b for writing and returns a buffer to encode the next
// chunk into. The queue owns b from now on.
func (wq *writeQueue) push(b []byte) []byte {
	wq.mu.Lock()
	defer wq.mu.Unlock()
	if wq.stop || wq.err != nil {
		return b[:0] // the stream is broken: nothing more goes out
	}
	if !wq.started {
		wq.started = true
		go wq.loop()
	}
	wq.q = append(wq.q, b)
	wq.cond.Broadcast()
	if n := len(wq.free); n > 0 {
		next := wq.free[n-1]
		wq.free = wq.free[:n-1]
		return next
	}
	// Room for a chunk and the message that crosses its end, so that
	// the encoder does not grow it piece by piece.
	return make([]byte, 0, encChunk+chunkSlack)
}

// chunkSlack is the room past encChunk in a new chunk buffer: the
// message that starts before encChunk and ends after it (a frame of up to
// a jumbo's size; larger ones make the encoder grow the buffer).
const chunkSlack = 16 << 10

func (wq *writeQueue) loop() {
	defer close(wq.done)
	wq.mu.Lock()
	defer wq.mu.Unlock()
	for {
		for wq.head == len(wq.q) && !wq.closed {
			wq.cond.Wait()
		}
		if wq.head == len(wq.q) {
			return // closed, and everything written or dropped
		}
		b := wq.q[wq.head]
		wq.q[wq.head] = nil
		if wq.head++; wq.head == len(wq.q) {
			wq.q, wq.head = wq.q[:0], 0
		}
		if !wq.stop && wq.err == nil {
			// Under mu, so that an abort after this point cuts the write.
			wq.conn.SetWriteDeadline(wq.deadline)
			wq.writing = true
			wq.mu.Unlock()
			_, err := wq.conn.Write(b)
			wq.mu.Lock()
			wq.writing = false
			if err != nil && wq.err == nil {
				wq.err = err
			}
		}
		if cap(b) <= 2*encChunk && len(wq.free) < maxFree {
			wq.free = append(wq.free, b[:0])
		}
		wq.cond.Broadcast()
	}
}

// failed returns the error of a write that failed, if one did.
func (wq *writeQueue) failed() error {
	wq.mu.Lock()
	defer wq.mu.Unlock()
	return wq.err
}

// abort cuts the write in progress and drops the rest.
func (wq *writeQueue) abort() {
	wq.mu.Lock()
	defer wq.mu.Unlock()
	wq.stop = true
	if wq.err == nil {
		wq.err = ErrClosed
	}
	wq.conn.SetWriteDeadline(aLongTimeAgo)
	wq.cond.Broadcast()
}

// setDeadline bounds the writes from now on by deadline.
func (wq *writeQueue) setDeadline(deadline time.Time) {
	wq.mu.Lock()
	defer wq.mu.Unlock()
	if wq.stop {
		return
	}
	wq.deadline = deadline
	wq.conn.SetWriteDeadline(deadline)
}

// drain waits until every queued chunk is written or a write failed; the
// writes are bounded by deadline from now on.
func (wq *writeQueue) drain(deadline time.Time) error {
	wq.setDeadline(deadline)
	wq.mu.Lock()
	defer wq.mu.Unlock()
	for (wq.head < len(wq.q) || wq.writing) && wq.err == nil {
		wq.cond.Wait()
	}
	return wq.err
}

// close ends the goroutine, dropping what is not written yet.
func (wq *writeQueue) close() {
	wq.mu.Lock()
	wq.stop, wq.closed = true, true
	wq.conn.SetWriteDeadline(aLongTimeAgo)
	wq.cond.Broadcast()
	started := wq.started
	wq.mu.Unlock()
	if started {
		<-wq.done
	}
}

// cycleQueue is a FIFO of cycles that reuses its room: popping from the
// front of a plain slice and appending at its back would make a new array
// every few windows.
type cycleQueue struct {
	buf  []uint64
	head int
}

func (q *cycleQueue) len() int      { return len(q.buf) - q.head }
func (q *cycleQueue) front() uint64 { return q.buf[q.head] }

func (q *cycleQueue) push(c uint64) {
	if len(q.buf) == cap(q.buf) && q.head >= len(q.buf)/2 {
		q.buf = q.buf[:copy(q.buf, q.buf[q.head:])]
		q.head = 0
	}
	q.buf = append(q.buf, c)
}

func (q *cycleQueue) pop() {
	if q.head++; q.head == len(q.buf) {
		q.buf, q.head = q.buf[:0], 0
	}
}
