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

	// With Config.Offload: every frame on f starts with a virtio-net
	// header; split holds the rest of the last super-packet read (under
	// rmu), wbuf is where writes get their header (under wmu).
	vnet    bool
	split   splitter
	pending [][]byte
	wmu     sync.Mutex
	wbuf    []byte
	off     offloadCounters

	closeOnce sync.Once
	closeErr  error

	read, written counters
}

type offloadCounters struct {
	split, segments, joined, joinedFrames, malformed atomic.Uint64
}

// OffloadStats counts the work Config.Offload moved off the hosts.
type OffloadStats struct {
	// Split super-packets from the host were cut into Segments frames.
	Split, Segments uint64
	// Joined writes carried JoinedFrames frames to the host, a run of a
	// flow's segments each (every frame also counted in Stats.Write).
	Joined, JoinedFrames uint64
	// Malformed super-packets: a header that did not match the packet,
	// counted as runts in Stats.Read.
	Malformed uint64
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
	Read    Counters // frames the host sent, returned by Read
	Write   Counters // frames given to Write for the host
	Offload OffloadStats
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
	return Stats{Read: t.read.snapshot(), Write: t.written.snapshot(), Offload: OffloadStats{
		Split: t.off.split.Load(), Segments: t.off.segments.Load(),
		Joined: t.off.joined.Load(), JoinedFrames: t.off.joinedFrames.Load(), Malformed: t.off.malformed.Load()}}
}

// Read reads one frame into b and returns its length. A frame that cannot
// be delivered is counted and returned as a *FrameError with n = 0; the
// next Read gets the next frame. After Close, or while blocked when Close
// is called, Read returns an error matching os.ErrClosed; after a deadline
// (SetReadDeadline) one matching os.ErrDeadlineExceeded.
func (t *TAP) Read(b []byte) (int, error) {
	if t.vnet {
		return t.readVnet(b)
	}
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

// readVnet reads through the virtio-net header: the next frame of the
// last super-packet, or the next packet from the host, split if it is a
// super-packet, its checksum filled in if the host left it.
func (t *TAP) readVnet(b []byte) (int, error) {
	t.rmu.Lock()
	defer t.rmu.Unlock()
	for len(t.pending) == 0 {
		n, err := t.f.Read(t.rbuf)
		if err != nil {
			return 0, t.readFailed(err)
		}
		if n < vnetHdrLen+HeaderLen {
			t.read.runt.Add(1)
			return 0, &FrameError{Device: t.name, Dir: DirRead, Reason: ReasonRunt, Len: max(0, n-vnetHdrLen), Limit: HeaderLen}
		}
		h, pkt := parseVnetHdr(t.rbuf), t.rbuf[vnetHdrLen:n]
		if h.gsoType == gsoNone {
			if h.flags&vnetNeedsCsum != 0 && completeCsum(pkt, h) != nil {
				return 0, t.malformed(len(pkt))
			}
			t.pending = append(t.pending[:0], pkt)
			break
		}
		frames, err := t.split.split(pkt, h)
		if err != nil {
			return 0, t.malformed(len(pkt))
		}
		t.off.split.Add(1)
		t.off.segments.Add(uint64(len(frames)))
		t.pending = append(t.pending[:0], frames...)
	}
	f := t.pending[0]
	t.pending = t.pending[1:]
	if _, err := t.checkRead(len(f), len(b)); err != nil {
		return 0, err
	}
	return copy(b, f), nil
}

// malformed counts a packet whose virtio-net header does not fit it: the
// kernel's own doing, so not expected, but never passed on half-made.
func (t *TAP) malformed(n int) error {
	t.off.malformed.Add(1)
	t.read.runt.Add(1)
	return &FrameError{Device: t.name, Dir: DirRead, Reason: ReasonRunt, Len: n, Limit: HeaderLen, Err: errOffload}
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
	if t.vnet {
		if err := t.writeVnet(b); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	n, err := t.f.Write(b)
	if err != nil {
		return 0, t.writeFailed(len(b), err)
	}
	t.written.frames.Add(1)
	t.written.bytes.Add(uint64(n))
	return n, nil
}

func (t *TAP) writeFailed(n int, err error) error {
	if ordinaryEnd(err) {
		return err
	}
	t.written.failedIO.Add(1)
	return &FrameError{Device: t.name, Dir: DirWrite, Reason: ReasonIO, Len: n, Err: err}
}

// WriteFrames hands frames to the host in order, as Write would one by
// one, and sets errs[i] (len(errs) >= len(frames)) to Write's error for
// frames[i]. With Config.Offload, runs of consecutive segments of one TCP
// flow go to the host as one super-packet.
func (t *TAP) WriteFrames(frames [][]byte, errs []error) {
	errs = errs[:len(frames)]
	if !t.vnet {
		for i, f := range frames {
			_, errs[i] = t.Write(f)
		}
		return
	}
	for i := 0; i < len(frames); {
		n, a := 1, segment{}
		if len(frames[i]) >= HeaderLen {
			n, a = runLen(frames[i:], t.MaxFrame())
		}
		if n == 1 {
			_, errs[i] = t.Write(frames[i])
			i++
			continue
		}
		run := frames[i : i+n]
		err := t.writeJoined(run, a)
		for j := range run {
			errs[i+j] = err
		}
		i += n
	}
}

// writeVnet writes one frame behind an empty virtio-net header: no
// offload asked, the host checks the checksums itself.
func (t *TAP) writeVnet(f []byte) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	n := vnetHdrLen + len(f)
	if cap(t.wbuf) < n {
		t.wbuf = make([]byte, n, max(n, readBufLen))
	}
	w := t.wbuf[:n]
	clear(w[:vnetHdrLen])
	copy(w[vnetHdrLen:], f)
	if _, err := t.f.Write(w); err != nil {
		return t.writeFailed(len(f), err)
	}
	t.written.frames.Add(1)
	t.written.bytes.Add(uint64(len(f)))
	return nil
}

// writeJoined writes a run of segments as one super-packet, and counts
// each frame as written or failed.
func (t *TAP) writeJoined(run [][]byte, a segment) error {
	t.wmu.Lock()
	defer t.wmu.Unlock()
	t.wbuf = join(t.wbuf, run, a)
	_, err := t.f.Write(t.wbuf)
	var bytes uint64
	for _, f := range run {
		bytes += uint64(len(f))
	}
	if err != nil {
		if ordinaryEnd(err) {
			return err
		}
		t.written.failedIO.Add(uint64(len(run)))
		return &FrameError{Device: t.name, Dir: DirWrite, Reason: ReasonIO, Len: len(t.wbuf) - vnetHdrLen, Err: err}
	}
	t.written.frames.Add(uint64(len(run)))
	t.written.bytes.Add(bytes)
	t.off.joined.Add(1)
	t.off.joinedFrames.Add(uint64(len(run)))
	return nil
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
		t.keepClean()
		// os.File.Close evicts waiting readers and, for a polled
		// descriptor, waits until the last of them has let go.
		t.closeErr = t.f.Close()
	})
	return t.closeErr
}
