package tap

import (
	"errors"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// TAP is an open TAP device. Read and Write may run at the same time, each
// from one goroutine or several.
type TAP struct {
	// f must stay in non-blocking mode, polled by the runtime: that is
	// what lets Close wake a pending Read. Never call f.Fd(), which
	// switches the descriptor to blocking mode; use f.SyscallConn().
	f          *os.File
	name       string
	index      int
	mtu        int
	created    bool
	persistent bool

	// rbuf takes frames too big for the caller's buffer, so they can be
	// measured and reported instead of cut short by the kernel.
	rmu  sync.Mutex
	rbuf []byte

	closeOnce sync.Once
	closeErr  error

	read, written counters
}

type counters struct {
	frames, bytes                         atomic.Uint64
	runt, oversize, shortBuffer, failedIO atomic.Uint64
}

func (c *counters) snapshot() Counters {
	return Counters{
		Frames:      c.frames.Load(),
		Bytes:       c.bytes.Load(),
		Runt:        c.runt.Load(),
		Oversize:    c.oversize.Load(),
		ShortBuffer: c.shortBuffer.Load(),
		Failed:      c.failedIO.Load(),
	}
}

// Counters counts one direction. Frames and Bytes are delivered frames;
// the rest are frames not delivered, by Reason.
type Counters struct {
	Frames, Bytes uint64
	Runt          uint64 // ReasonRunt
	Oversize      uint64 // ReasonOversize
	ShortBuffer   uint64 // ReasonShortBuffer (reads only)
	Failed        uint64 // ReasonIO
}

// Dropped is the number of frames not delivered, whatever the reason.
func (c Counters) Dropped() uint64 { return c.Runt + c.Oversize + c.ShortBuffer + c.Failed }

// Stats holds both directions of a TAP.
type Stats struct {
	Read  Counters // frames the host sent, returned by Read
	Write Counters // frames given to Write for the host
}

// Name is the interface name (the kernel's choice if Config.Name was
// empty).
func (t *TAP) Name() string { return t.name }

// Index is the interface index at open time, in the opener's namespace.
func (t *TAP) Index() int { return t.index }

// MTU is the MTU the frame limits are computed from.
func (t *TAP) MTU() int { return t.mtu }

// MaxFrame is the longest frame Read returns and Write accepts: MTU plus
// the Ethernet header plus one VLAN tag.
func (t *TAP) MaxFrame() int { return t.mtu + HeaderLen + TagLen }

// Created reports whether Open created the device (rather than attaching
// to one that existed).
func (t *TAP) Created() bool { return t.created }

// Persistent reports whether the device outlives Close.
func (t *TAP) Persistent() bool { return t.persistent }

// Stats returns the counters so far.
func (t *TAP) Stats() Stats {
	return Stats{Read: t.read.snapshot(), Write: t.written.snapshot()}
}

// Read reads one frame into b and returns its length. A frame that cannot
// be delivered is counted and returned as a *FrameError with n = 0; the
// next Read gets the next frame. After Close, or while blocked when Close
// is called, Read returns an error matching os.ErrClosed; after a deadline
// (SetReadDeadline) one matching os.ErrDeadlineExceeded.
func (t *TAP) Read(b []byte) (int, error) {
	if len(b) >= readBufLen {
		// No frame can be longer than b: read in place.
		n, err := t.f.Read(b)
		if err != nil {
			return 0, t.readFailed(err)
		}
		return t.checkRead(n, len(b))
	}
	t.rmu.Lock()
	defer t.rmu.Unlock()
	n, err := t.f.Read(t.rbuf)
	if err != nil {
		return 0, t.readFailed(err)
	}
	if _, err := t.checkRead(n, len(b)); err != nil {
		return 0, err
	}
	return copy(b, t.rbuf[:n]), nil
}

func (t *TAP) checkRead(n, room int) (int, error) {
	switch {
	case n < HeaderLen:
		t.read.runt.Add(1)
		return 0, &FrameError{Device: t.name, Dir: DirRead, Reason: ReasonRunt, Len: n, Limit: HeaderLen}
	case n > t.MaxFrame():
		t.read.oversize.Add(1)
		return 0, &FrameError{Device: t.name, Dir: DirRead, Reason: ReasonOversize, Len: n, Limit: t.MaxFrame()}
	case n > room:
		t.read.shortBuffer.Add(1)
		return 0, &FrameError{Device: t.name, Dir: DirRead, Reason: ReasonShortBuffer, Len: n, Limit: room}
	}
	t.read.frames.Add(1)
	t.read.bytes.Add(uint64(n))
	return n, nil
}

func (t *TAP) readFailed(err error) error {
	if ordinaryEnd(err) {
		return err
	}
	t.read.failedIO.Add(1)
	return &FrameError{Device: t.name, Dir: DirRead, Reason: ReasonIO, Err: err}
}

// ordinaryEnd tells closing and deadlines, which are the caller's doing,
// from failures worth counting.
func ordinaryEnd(err error) bool {
	return errors.Is(err, os.ErrClosed) || errors.Is(err, os.ErrDeadlineExceeded)
}

// Write hands one whole frame (destination MAC first, no FCS) to the host.
// A frame that is too short or too long, or that the kernel refuses, is
// counted and returned as a *FrameError.
func (t *TAP) Write(b []byte) (int, error) {
	switch {
	case len(b) < HeaderLen:
		t.written.runt.Add(1)
		return 0, &FrameError{Device: t.name, Dir: DirWrite, Reason: ReasonRunt, Len: len(b), Limit: HeaderLen}
	case len(b) > t.MaxFrame():
		t.written.oversize.Add(1)
		return 0, &FrameError{Device: t.name, Dir: DirWrite, Reason: ReasonOversize, Len: len(b), Limit: t.MaxFrame()}
	}
	n, err := t.f.Write(b)
	if err != nil {
		if ordinaryEnd(err) {
			return 0, err
		}
		t.written.failedIO.Add(1)
		return 0, &FrameError{Device: t.name, Dir: DirWrite, Reason: ReasonIO, Len: len(b), Err: err}
	}
	t.written.frames.Add(1)
	t.written.bytes.Add(uint64(n))
	return n, nil
}

// SetReadDeadline makes a pending and future Read return
// os.ErrDeadlineExceeded after d; the zero time clears it.
func (t *TAP) SetReadDeadline(d time.Time) error { return t.f.SetReadDeadline(d) }

// Close wakes a blocked Read and closes the device. It returns once the
// descriptor is really closed, so a non-persistent TAP is gone by then; a
// persistent one, or one that existed before Open, stays. Calling Close
// again returns nil.
func (t *TAP) Close() error {
	t.closeOnce.Do(func() {
		// os.File.Close evicts waiting readers and, for a polled
		// descriptor, waits until the last of them has let go.
		t.closeErr = t.f.Close()
	})
	return t.closeErr
}
