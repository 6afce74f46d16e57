package engine

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"time"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/internal/slab"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
)

// source produces the frames of one [[traffic]] entry, each stamped with
// its arrival cycle at the model's input port. Sources are open loop: the
// whole stimulus is known in advance, so the windows can be long. It is
// drawn as the run goes, a lookahead ahead of the windows, and forgotten
// once sent: a campaign of any length holds a window's frames, not its
// whole stimulus, and its first window starts at once.
type source struct {
	name  string
	model string
	port  int
	node  *node // the model of port, once the run resolved it

	// frames holds frame numbers base, base+1, ... of the stream: every
	// frame drawn and still needed. next is the number of the first one
	// not yet due.
	frames []stamped
	base   int
	next   int
	// draw returns the stream's next frame, false once it has ended; it
	// is nil from then on. err is why the stream ended early.
	draw  func() (stamped, bool, error)
	close func() // releases what draw reads from; nil when nothing
	err   error
	// waited is how long the run loop waited for the prefetcher
	// (Summary.Waited).
	waited time.Duration

	// A pausable source (pause_from) is stamped as it goes: frames are
	// offered at their stamps into one queue per priority and leave one
	// at a time on the line, each as soon as the line is free and its
	// priority is not paused. Pauses become known at window ends and
	// take effect at least a window later (the engine's lookahead is at
	// most pause_latency), so nothing already sent is ever affected.
	pausable   bool
	dataWidth  int
	pending    [8]fifoInts // frame numbers
	pauseUntil [8]uint64
	lineFree   uint64
	out        []stamped
}

// fifoInts is a queue of frame indices.
type fifoInts struct {
	items []int
	head  int
}

func (q *fifoInts) push(i int)  { q.items = append(q.items, i) }
func (q *fifoInts) empty() bool { return q.head == len(q.items) }
func (q *fifoInts) front() int  { return q.items[q.head] }
func (q *fifoInts) pop()        { q.head++; q.compact() }
func (q *fifoInts) compact() {
	if q.head > 1024 && q.head*2 > len(q.items) {
		q.items = q.items[:copy(q.items, q.items[q.head:])]
		q.head = 0
	}
}

type stamped struct {
	cycle uint64
	data  []byte
	bad   bool // tuser[0] on the last beat
}

// beats is how many DATA_WIDTH-bit beats a frame takes.
func beats(n, dataWidth int) uint64 { return uint64((n*8 + dataWidth - 1) / dataWidth) }

func newSource(i int, t scenario.Traffic, sc *scenario.Scenario, dataWidth, ports int, seed uint64) (*source, error) {
	model, port := sc.Port(t.To)
	s := &source{name: fmt.Sprintf("traffic%d", i), model: model, port: port,
		pausable: t.PauseFrom != "", dataWidth: dataWidth}
	rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
	var data slab.Slab // generated frames' bytes
	// frame draws the next frame's bytes and whether it is bad (tuser[0]);
	// io.EOF at the end of a capture.
	var frame func() ([]byte, bool, error)
	limit := t.Frames // frames in the stream; a whole capture when 0
	switch t.Kind {
	case "l2":
		frame = func() ([]byte, bool, error) {
			f, bad := l2Frame(rng, t, port, ports, &data)
			return f, bad, nil
		}
	case "roce":
		ops := framegen.KnownOpCodes()
		frame = func() ([]byte, bool, error) {
			f, err := roceFrame(rng, ops, t)
			if err != nil {
				return nil, false, err
			}
			// Draw for every frame so corrupt_pct does not shift the frames.
			if draw, at := rng.Float64()*100, rng.IntN(1<<30); draw < t.CorruptPct {
				f[14+at%(len(f)-14)] ^= byte(1 + at%255)
			}
			return data.Copy(f), false, nil
		}
	case "pcap":
		r, err := pcapio.Open(t.File)
		if err != nil {
			return nil, err
		}
		s.close = func() { r.Close() }
		if limit == 0 {
			limit = -1
		}
		frame = func() ([]byte, bool, error) {
			p, err := r.Next()
			return p.Data, false, err
		}
	default:
		return nil, fmt.Errorf("unknown traffic kind %q", t.Kind) // the scenario checks kinds
	}
	next, stop := prefetch(frame, limit, s.close, &s.waited)
	s.close = stop
	// Frames arrive back to back at line rate, with the configured gap
	// after every burst (after every frame unless burst is set).
	cycle, burst, count := t.Start, max(t.Burst, 1), 0
	s.draw = func() (stamped, bool, error) {
		f, bad, err := next()
		if errors.Is(err, io.EOF) {
			return stamped{}, false, nil
		}
		if err != nil {
			return stamped{}, false, err
		}
		st := stamped{cycle: cycle, data: f, bad: bad}
		cycle += beats(len(f), dataWidth)
		if count++; count%burst == 0 {
			cycle += uint64(t.GapCycles)
		}
		return st, true, nil
	}
	return s, nil
}

// The prefetcher hands over batches of prefetchBatch frames or
// prefetchBytes bytes, whichever comes first, and may be prefetchDepth
// batches ahead: a source holds a few MiB at most beyond its window.
const (
	prefetchBatch = 256
	prefetchBytes = 256 << 10
	prefetchDepth = 4
)

// prefetched is a batch of frames drawn ahead; err ends the stream after
// them (io.EOF at its clean end).
type prefetched struct {
	frames []drawnFrame
	err    error
}

type drawnFrame struct {
	data []byte
	bad  bool
}

// prefetch draws a stream's frames on a goroutine of its own, a few
// batches ahead of the run loop: reading a capture or generating frames
// is about a third of the run loop's work in a campaign of small frames,
// and it depends on nothing the run learns. The stream is the same: one
// goroutine calls frame, in order, at most limit times (no limit when
// negative). next returns the frames in order, then io.EOF or the error
// that ended the stream. stop ends the goroutine, waits for it and then
// calls release (when not nil), so nothing reads what release frees. next
// adds the time it waits for the goroutine to waited.
func prefetch(frame func() ([]byte, bool, error), limit int, release func(), waited *time.Duration) (next func() ([]byte, bool, error), stop func()) {
	out := make(chan prefetched, prefetchDepth)
	free := make(chan []drawnFrame, prefetchDepth+2)
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		defer close(out)
		count := 0
		for {
			var b prefetched
			select {
			case b.frames = <-free:
			default:
				b.frames = make([]drawnFrame, 0, prefetchBatch)
			}
			for bytes := 0; len(b.frames) < prefetchBatch && bytes < prefetchBytes && b.err == nil; {
				if count == limit {
					b.err = io.EOF
					break
				}
				data, bad, err := frame()
				if err != nil {
					b.err = err
					break
				}
				b.frames = append(b.frames, drawnFrame{data, bad})
				count++
				bytes += len(data)
			}
			select {
			case out <- b:
			case <-done:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	var cur prefetched
	pos := 0
	next = func() ([]byte, bool, error) {
		for pos == len(cur.frames) {
			if cur.err != nil {
				return nil, false, cur.err
			}
			if cur.frames != nil {
				clear(cur.frames)
				select {
				case free <- cur.frames[:0]:
				default:
				}
			}
			var b prefetched
			var ok bool
			select {
			case b, ok = <-out:
			default:
				t := time.Now()
				b, ok = <-out
				*waited += time.Since(t)
			}
			if !ok { // stopped
				b.err = io.EOF
			}
			cur, pos = b, 0
		}
		f := cur.frames[pos]
		pos++
		return f.data, f.bad, nil
	}
	stop = func() {
		close(done)
		<-exited
		if release != nil {
			release()
		}
	}
	return next, stop
}

// drawn returns frame number i of the stream, which must be drawn and
// still held.
func (s *source) drawn(i int) stamped { return s.frames[i-s.base] }

// end is the number of the first frame not drawn yet.
func (s *source) end() int { return s.base + len(s.frames) }

// ensure draws frames until every frame arriving before cycle end is
// drawn and one arriving at or after it too, or the stream has ended.
// The frames from next on then tell everything the engine asks of the
// stream up to end: which frames are due, and where the next one is.
func (s *source) ensure(end uint64) {
	for s.draw != nil && (s.end() == s.next || s.frames[len(s.frames)-1].cycle < end) {
		f, ok, err := s.draw()
		if !ok {
			s.stop(err)
			return
		}
		s.frames = append(s.frames, f)
	}
}

// stop ends the stream: it has no more frames, or err says why it broke.
func (s *source) stop(err error) {
	s.draw, s.err = nil, err
	s.release()
}

// release closes what the stream reads from, once.
func (s *source) release() {
	if s.close != nil {
		s.close()
		s.close = nil
	}
}

// forget drops the frames no longer needed (before next, and before the
// oldest one a pausable source still holds) once they are most of the
// array, so that it stays about a lookahead long. Called before frames
// are taken: what due returned before is no longer in use.
func (s *source) forget() {
	keep := s.next
	for p := range s.pending {
		if !s.pending[p].empty() {
			keep = min(keep, s.pending[p].front())
		}
	}
	if dead := keep - s.base; dead >= 1024 && 2*dead >= len(s.frames) {
		n := copy(s.frames, s.frames[dead:])
		clear(s.frames[n:]) // let the sent frames' bytes go
		s.frames, s.base = s.frames[:n], keep
	}
}

// framePCP is a frame's 802.1Q priority, 0 when untagged.
func framePCP(f []byte) uint8 {
	if len(f) >= 16 && f[12] == 0x81 && f[13] == 0x00 {
		return f[14] >> 5
	}
	return 0
}

// pause applies a PFC frame that reaches the source at cycle at: each
// enabled priority is paused for its time in quanta of 512 bit times (a
// time of 0 resumes it), from at on.
func (s *source) pause(enable uint8, times [8]uint16, at uint64) {
	for p := range 8 {
		if enable&(1<<p) != 0 {
			s.pauseUntil[p] = at + uint64(times[p])*512/uint64(s.dataWidth)
		}
	}
}

// start is when the head of priority p's queue can go: the line free, the
// frame offered, the priority not paused.
func (s *source) start(p int) uint64 {
	i := s.pending[p].front()
	return max(s.lineFree, s.drawn(i).cycle, s.pauseUntil[p])
}

// pick returns the pending frame that can go first (ties: the one offered
// first) and when; ok is false when nothing is pending.
func (s *source) pick() (p int, at uint64, ok bool) {
	for q := range 8 {
		if s.pending[q].empty() {
			continue
		}
		c := s.start(q)
		if !ok || c < at || c == at && s.pending[q].front() < s.pending[p].front() {
			p, at, ok = q, c, true
		}
	}
	return p, at, ok
}

// HostMAC is the MAC of host h behind input port p in "l2" traffic.
func HostMAC(p, h int) [6]byte { return [6]byte{0x02, 0, 0, 0, byte(p), byte(h)} }

// l2Frame draws one "l2" frame from a host behind port to a host behind
// another of the model's ports, or one of the special kinds. Every draw is
// made for every frame, so changing one share does not shift the others.
// The frame is cut from data.
func l2Frame(rng *rand.Rand, t scenario.Traffic, port, ports int, data *slab.Slab) ([]byte, bool) {
	pct := func() float64 { return rng.Float64() * 100 }
	spec := framegen.L2Spec{Src: HostMAC(port, rng.IntN(t.Hosts))}
	to := rng.IntN(max(ports-1, 1))
	if to >= port && ports > 1 {
		to++
	}
	if t.ToPort != nil {
		to = *t.ToPort
	}
	spec.Dst = HostMAC(to, rng.IntN(t.Hosts))
	if t.ToMAC != "" {
		mac, _ := net.ParseMAC(t.ToMAC) // checked by the scenario
		spec.Dst = [6]byte(mac)
	}
	kind, group, unknown := pct(), rng.IntN(2), rng.Uint32()
	pfcFrame := false
	switch {
	case kind < t.BroadcastPct:
		spec.Dst = [6]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
		if group == 1 {
			spec.Dst = [6]byte{0x01, 0x00, 0x5E, 0x00, 0x00, byte(unknown)}
		}
	case kind < t.BroadcastPct+t.UnknownPct:
		spec.Dst = [6]byte{0x02, 0, 0xFF, byte(unknown >> 16), byte(unknown >> 8), byte(unknown)}
	case kind < t.BroadcastPct+t.UnknownPct+t.PFCPct:
		pfcFrame = true
	}
	spec.VLAN, spec.PCP, spec.VID = pct() < t.VLANPct, uint8(rng.IntN(8)), uint16(1+rng.IntN(4094))
	if t.PCP != nil {
		spec.PCP = uint8(*t.PCP)
	}
	spec.IPv4, spec.DSCP = pct() < t.IPv4Pct, uint8(rng.IntN(64))
	if pct() < t.ECTPct {
		spec.ECN = 0b10
	}
	spec.Len = t.MinSize + rng.IntN(t.MaxSize-t.MinSize+1)
	size, runt, oversize := pct(), 20+rng.IntN(40), t.MaxSize+1+rng.IntN(64)
	switch {
	case size < t.RuntPct:
		spec.Len = runt
	case size < t.RuntPct+t.OversizePct:
		spec.Len = oversize
	}
	bad := pct() < t.BadPct
	if pfcFrame {
		// Draws of its own, made only for PFC frames: a campaign without
		// them draws what it drew before pfc_pct existed.
		f := data.Alloc(pfc.FrameLen)
		framegen.WritePFC(rng, spec.Src, f)
		return f, bad
	}
	f := data.Alloc(spec.Len)
	framegen.WriteL2(rng, spec, f)
	return f, bad
}

// roceFrame draws a RoCEv2 frame of a random opcode and encapsulation whose
// size falls in [MinSize, MaxSize] as far as the opcode allows. Without
// WithICRC it ends before the ICRC: what a transport engine hands the ICRC
// unit (IP and UDP lengths already count the ICRC; no Ethernet padding).
func roceFrame(rng *rand.Rand, ops []roce.OpCode, t scenario.Traffic) ([]byte, error) {
	op := ops[rng.IntN(len(ops))]
	e := framegen.Encaps[rng.IntN(len(framegen.Encaps))]
	hdr := 14 + 20 + 8 + roce.BTHLen + op.Headers().HeaderLen() + roce.ICRCLen
	if e == framegen.IPv6 || e == framegen.VLANIPv6 {
		hdr += 20
	}
	if e == framegen.VLANIPv4 || e == framegen.VLANIPv6 {
		hdr += 4
	}
	size := t.MinSize + rng.IntN(t.MaxSize-t.MinSize+1)
	n := framegen.PayloadLen(rng, op, size-hdr)
	f, err := framegen.Build(rng, framegen.Spec{OpCode: op, Encap: e, PayloadLen: n})
	if err != nil {
		return nil, err
	}
	if t.WithICRC {
		return f, nil
	}
	_, end, err := roce.IPPacket(f)
	if err != nil {
		return nil, err
	}
	return f[:end-roce.ICRCLen], nil
}

// due returns the frames arriving before cycle end and consumes them. The
// slice is valid until the next call.
func (s *source) due(end uint64) []stamped {
	s.forget()
	s.ensure(end)
	if s.pausable {
		return s.duePausable(end)
	}
	i := s.next
	for s.next < s.end() && s.drawn(s.next).cycle < end {
		s.next++
	}
	return s.frames[i-s.base : s.next-s.base]
}

func (s *source) duePausable(end uint64) []stamped {
	for s.next < s.end() && s.drawn(s.next).cycle < end {
		s.pending[framePCP(s.drawn(s.next).data)].push(s.next)
		s.next++
	}
	s.out = s.out[:0]
	for {
		p, at, ok := s.pick()
		if !ok || at >= end {
			return s.out
		}
		i := s.pending[p].front()
		s.pending[p].pop()
		f := s.drawn(i)
		f.cycle = at
		s.out = append(s.out, f)
		s.lineFree = at + beats(len(f.data), s.dataWidth)
	}
}

// nextCycle returns the arrival of the next frame, or false when done.
func (s *source) nextCycle() (uint64, bool) {
	s.ensure(0)
	if s.pausable {
		c, ok := uint64(0), false
		if _, at, pok := s.pick(); pok {
			c, ok = at, true
		}
		if s.next < s.end() {
			if at := max(s.lineFree, s.drawn(s.next).cycle); !ok || at < c {
				c, ok = at, true
			}
		}
		return c, ok
	}
	if s.next >= s.end() {
		return 0, false
	}
	return s.drawn(s.next).cycle, true
}

// last returns the arrival of the stream's last frame not yet due, or of
// a frame at or after end when the stream goes on past it; false when
// every frame is due.
func (s *source) last(end uint64) (uint64, bool) {
	s.ensure(end)
	if s.next >= s.end() {
		return 0, false
	}
	return s.frames[len(s.frames)-1].cycle, true
}
