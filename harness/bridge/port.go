package bridge

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/internal/fifo"
	"github.com/rocesim/cosim/harness/tap"
)

// Device is what a port moves frames through: a *tap.TAP, or a stand-in
// in tests.
type Device interface {
	Name() string
	// Read returns one whole frame; a *tap.FrameError reports one that
	// was counted and skipped.
	Read(b []byte) (int, error)
	Write(b []byte) (int, error)
	// SetReadDeadline wakes a blocked Read, to stop reading.
	SetReadDeadline(t time.Time) error
	// MaxFrame is the longest frame the device carries (MTU, header and
	// one VLAN tag).
	MaxFrame() int
}

// readBuf fits any frame a TAP can hand over, so the kernel never cuts
// one short (tap.Read reads in place into a buffer this big).
const readBuf = tap.MaxMTU + tap.HeaderLen + tap.TagLen

// port is one live tap: a goroutine reads the host's frames into a
// bounded queue, in wall-clock time, and the engine takes them at window
// boundaries (it is an engine.TapEnd).
type port struct {
	name  string
	dev   Device
	input bool // the tap feeds a model input; without one, host frames are counted and dropped
	limit int  // queue bound, frames
	wake  func()
	rec   *recorder
	link  int // the tap's interface in the recording

	mu    sync.Mutex
	queue fifo.Queue[[]byte]
	st    engine.TapStats
	taken []engine.TapFrame // Take's result, reused

	// Frames to the host (Deliver). The first of a window is written at
	// once, on the engine's goroutine: a ping's reply must not wait for
	// another thread to wake. The rest go to the writer goroutine, so the
	// kernel's work on them (a TAP write runs the host's TCP receive)
	// overlaps the next window instead of delaying it. Order is kept: a
	// frame is written at once only when the writer has nothing left.
	// While hosts stream (streaming, set by the governor) every frame
	// goes to the writer: latency matters less than the engine's time,
	// and the writer joins a flow's segments (tap offload).
	out       chan []byte
	unsent    atomic.Int64  // frames given to Deliver and not yet written
	burst     int           // frames delivered since the last Take (engine goroutine only)
	wdone     chan struct{} // closed when the writer has ended
	wclose    sync.Once
	warmTook  func()       // tells the session a window began (keep-warm)
	streaming *atomic.Bool // the session's: hosts stream

	stopping atomic.Bool
	done     chan struct{} // closed when the reader has ended
	readErr  error         // why the reader ended early, if it did
	failed   func()        // called once the reader ends early
	slab     []byte        // where the reader copies frames to (padded)
}

// writeQueue bounds the frames waiting for a port's writer; Deliver
// waits when it is full (the engine slows down, nothing is dropped).
const writeQueue = 4096

func newPort(name string, dev Device, input bool, limit int, wake func(), rec *recorder, link int) *port {
	return &port{name: name, dev: dev, input: input, limit: limit, wake: wake, rec: rec, link: link,
		st: engine.TapStats{Drops: map[string]int{}}, done: make(chan struct{}),
		out: make(chan []byte, writeQueue), wdone: make(chan struct{}), streaming: new(atomic.Bool)}
}

// Name is the tap's name in the scenario.
func (p *port) Name() string { return p.name }

// read runs until stop: every frame the host sends is counted, padded if
// short, and queued for the simulation or dropped with its reason.
func (p *port) read() {
	defer close(p.done)
	buf := make([]byte, readBuf)
	for !p.stopping.Load() {
		n, err := p.dev.Read(buf)
		if err != nil {
			if p.readFailed(err) {
				return
			}
			continue
		}
		p.ingest(buf[:n])
	}
}

// readFailed counts a failed read and reports whether reading is over.
func (p *port) readFailed(err error) bool {
	var fe *tap.FrameError
	switch {
	case p.stopping.Load():
		return true
	case errors.As(err, &fe) && fe.Reason == tap.ReasonRunt:
		p.drop(DropRunt)
	case errors.As(err, &fe) && (fe.Reason == tap.ReasonOversize || fe.Reason == tap.ReasonShortBuffer):
		p.drop(DropOversize)
	case errors.Is(err, os.ErrDeadlineExceeded):
		// A deadline without a stop: nothing to count.
	default:
		// The device is gone or broken (deleted under us, closed): a
		// retry would spin. Count it, and end the session: a host cut off
		// mid-session is a broken session, not a quiet one.
		p.drop(DropReadError)
		p.mu.Lock()
		p.readErr = err
		p.mu.Unlock()
		if p.failed != nil {
			p.failed()
		}
		return true
	}
	return false
}

func (p *port) ingest(f []byte) {
	in := classify(f, p.dev.MaxFrame())
	if in.drop == "" && !p.input {
		in.drop = DropNoInput
	}
	if in.drop != "" {
		p.drop(in.drop)
		return
	}
	data := padded(&p.slab, f)
	p.mu.Lock()
	full := p.queue.Len() >= p.limit
	if full {
		p.st.Drops[DropQueueFull]++
	} else {
		p.queue.Push(data)
		if in.padded {
			p.st.Padded++
		}
		if in.unknown {
			p.st.UnknownEtherType++
		}
	}
	p.mu.Unlock()
	if !full {
		p.wake()
	}
}

func (p *port) drop(reason string) {
	p.mu.Lock()
	p.st.Drops[reason]++
	p.mu.Unlock()
}

// pending reports whether frames wait for the simulation.
func (p *port) pending() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.queue.Len() > 0
}

// stop ends the reader: it wakes a blocked Read with a deadline in the
// past. The device stays open for frames to the host.
func (p *port) stop() {
	p.stopping.Store(true)
	_ = p.dev.SetReadDeadline(time.Unix(1, 0))
}

// Take implements engine.TapEnd: the frames waiting now, stamped start,
// as many as the port can start sending by end (budget bytes). Each is
// recorded with its stamp.
func (p *port) Take(start, _ uint64, budget int) []engine.TapFrame {
	p.burst = 0
	if p.warmTook != nil {
		p.warmTook()
	}
	p.taken = p.taken[:0]
	p.mu.Lock()
	for used := 0; p.queue.Len() > 0 && used < budget; {
		f := p.queue.Pop()
		p.taken = append(p.taken, engine.TapFrame{Cycle: start, Data: f})
		used += len(f)
	}
	p.st.FramesIn += len(p.taken)
	p.mu.Unlock()
	for _, f := range p.taken {
		p.rec.write(p.link, f.Cycle, f.Data)
	}
	return p.taken
}

// Next implements engine.TapEnd: a live port cannot know its next frame.
func (p *port) Next() (uint64, bool) { return 0, false }

// Deliver implements engine.TapEnd: the frame goes to the host, at once
// when it is the first of its window, the writer is idle and hosts do not
// stream, else through the writer goroutine (see port.out).
func (p *port) Deliver(_ uint64, data []byte) {
	p.burst++
	if p.burst == 1 && p.unsent.Load() == 0 && !p.streaming.Load() {
		p.write(data)
		return
	}
	p.unsent.Add(1)
	p.out <- data
}

// batchWriter is a Device that takes several frames at once (a
// *tap.TAP: with offload it joins a TCP flow's segments into one write).
type batchWriter interface {
	WriteFrames(frames [][]byte, errs []error)
}

// maxWriteBatch bounds the frames the writer hands over at once: more
// than a 64 KB super-packet's worth of full frames.
const maxWriteBatch = 64

// writer writes what Deliver queued, in order, until closeWriter. A
// batchWriter gets every frame already waiting, in one call.
func (p *port) writer() {
	defer close(p.wdone)
	bw, _ := p.dev.(batchWriter)
	batch, errs := make([][]byte, 0, maxWriteBatch), make([]error, maxWriteBatch)
	for data := range p.out {
		if bw == nil {
			p.count(p.dev.Write(data))
			p.unsent.Add(-1)
			continue
		}
		batch = fifo.Gather(append(batch[:0], data), p.out, maxWriteBatch)
		bw.WriteFrames(batch, errs)
		for _, err := range errs[:len(batch)] {
			p.count(0, err)
		}
		p.unsent.Add(-int64(len(batch)))
	}
}

// closeWriter ends the writer once it has written everything queued; the
// engine delivers nothing more by then.
func (p *port) closeWriter() {
	p.wclose.Do(func() { close(p.out) })
	<-p.wdone
}

// flush waits until every frame given to Deliver is written (or counted
// as refused), so the counts are final.
func (p *port) flush() {
	for p.unsent.Load() > 0 {
		select {
		case <-p.wdone:
			return
		case <-time.After(50 * time.Microsecond):
		}
	}
}

// write hands one frame to the host and counts the outcome.
func (p *port) write(data []byte) { p.count(p.dev.Write(data)) }

// count counts the outcome of one frame's write.
func (p *port) count(_ int, err error) {
	var fe *tap.FrameError
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case err == nil:
		p.st.FramesOut++
	case errors.As(err, &fe) && fe.Reason == tap.ReasonOversize:
		p.st.Drops[DropToHostOversize]++
	default:
		p.st.Drops[DropToHostError]++
	}
}

// Stats implements engine.TapEnd. It waits for the frames still on their
// way to the host, so the counts are final at the end of a run.
func (p *port) Stats() engine.TapStats {
	p.flush()
	return p.counts()
}

// counts is the counters now, for the status line.
func (p *port) counts() engine.TapStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := p.st
	st.Drops = maps.Clone(p.st.Drops)
	return st
}

// Err is why the reader ended before the session did (the device went
// away), or nil.
func (p *port) Err() error {
	p.mu.Lock()
	err := p.readErr
	p.mu.Unlock()
	if err == nil {
		return nil
	}
	if _, ierr := tap.Inspect(p.dev.Name()); errors.Is(ierr, tap.ErrNotFound) {
		return fmt.Errorf("tap %s: device %s is gone (%w); the session ended there", p.name, p.dev.Name(), err)
	}
	return fmt.Errorf("tap %s: device %s stopped reading (%w); the session ended there", p.name, p.dev.Name(), err)
}
