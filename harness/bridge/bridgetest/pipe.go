// Package bridgetest holds a stand-in for a TAP device, so tests can play
// the host of a bridge session in memory, without root: send exactly the
// frames (or read errors) they want and see what the simulation delivers.
package bridgetest

import (
	"os"
	"sync"
	"time"
)

// Pipe is a bridge.Device in memory. Frames (or read errors) given to Send
// and SendErr are read by the bridge in order; frames the bridge writes
// come out of Out.
type Pipe struct {
	name     string
	maxFrame int
	in       chan hostFrame
	out      chan []byte

	once sync.Once
	dead chan struct{} // closed by a read deadline in the past: reading stops
}

type hostFrame struct {
	data []byte
	err  error
}

// depth bounds what a Pipe holds each way; a test sending more waits.
const depth = 1 << 16

// New returns a Pipe named name whose longest frame is 1518 bytes (a
// TAP's with the default MTU of 1500).
func New(name string) *Pipe {
	return &Pipe{name: name, maxFrame: 1518, in: make(chan hostFrame, depth), out: make(chan []byte, depth),
		dead: make(chan struct{})}
}

// Name implements bridge.Device.
func (p *Pipe) Name() string { return p.name }

// MaxFrame implements bridge.Device.
func (p *Pipe) MaxFrame() int { return p.maxFrame }

// Read implements bridge.Device: the next frame or error sent, or
// os.ErrDeadlineExceeded once a deadline in the past was set.
func (p *Pipe) Read(b []byte) (int, error) {
	select {
	case f := <-p.in:
		if f.err != nil {
			return 0, f.err
		}
		return copy(b, f.data), nil
	case <-p.dead:
		return 0, os.ErrDeadlineExceeded
	}
}

// Write implements bridge.Device. When the test does not read Out and it
// fills up, frames are lost, as a kernel would lose them.
func (p *Pipe) Write(b []byte) (int, error) {
	select {
	case p.out <- append([]byte(nil), b...):
	default:
	}
	return len(b), nil
}

// SetReadDeadline implements bridge.Device: only a deadline that has
// passed does anything (the bridge stops reading that way).
func (p *Pipe) SetReadDeadline(t time.Time) error {
	if !t.IsZero() && !t.After(time.Now()) {
		p.once.Do(func() { close(p.dead) })
	}
	return nil
}

// Send queues frames as the host sending them.
func (p *Pipe) Send(frames ...[]byte) {
	for _, f := range frames {
		p.in <- hostFrame{data: f}
	}
}

// SendErr makes the bridge's next read fail with err (a *tap.FrameError
// says what a TAP would have refused).
func (p *Pipe) SendErr(err error) { p.in <- hostFrame{err: err} }

// Unread is how many sent frames and errors the bridge has not read yet.
func (p *Pipe) Unread() int { return len(p.in) }

// Out gives the frames the bridge delivered to the host, in order.
func (p *Pipe) Out() <-chan []byte { return p.out }

// Receive waits up to d for the next delivered frame; nil when none came.
func (p *Pipe) Receive(d time.Duration) []byte {
	select {
	case f := <-p.out:
		return f
	case <-time.After(d):
		return nil
	}
}
