package testbench

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// Received is a frame an output port sent.
type Received struct {
	Port string
	N    int // its number on the port, from 1
	// Cycle is when its first beat left, LastCycle its last.
	Cycle, LastCycle uint64
	Data             []byte
	Bad              bool // tuser[0] on its last beat
}

// ExpectOption sets an expectation's deadline or timing.
type ExpectOption func(*expectOptions)

type expectOptions struct {
	by, at       uint64
	hasBy, hasAt bool
	within       uint64
	hasWithin    bool
	bad          bool
}

// Within gives the frame cycles from Now to come out: its last beat no
// later than Now+cycles.
func Within(cycles uint64) ExpectOption {
	return func(o *expectOptions) { o.within, o.hasWithin = cycles, true }
}

// By gives the frame until cycle (its last beat at cycle at the latest),
// which must not be in the past.
func By(cycle uint64) ExpectOption { return func(o *expectOptions) { o.by, o.hasBy = cycle, true } }

// LeavesAt wants the frame's first beat to leave at exactly cycle: a
// frame that is right but leaves at another cycle fails, with a "cycle"
// field in the report.
func LeavesAt(cycle uint64) ExpectOption {
	return func(o *expectOptions) { o.at, o.hasAt = cycle, true }
}

// MarkedBad wants the frame marked bad (tuser[0] on its last beat); an
// expectation wants it unmarked otherwise.
func MarkedBad() ExpectOption { return func(o *expectOptions) { o.bad = true } }

// options settles an expectation's deadline: By, else Within, else the
// bench's Deadline after Now (after a LeavesAt cycle still to come).
func (b *Bench) options(call string, opts []ExpectOption) expectOptions {
	b.t.Helper()
	var o expectOptions
	for _, f := range opts {
		f(&o)
	}
	now := b.Now()
	switch {
	case o.hasBy && o.hasWithin:
		b.fatal(call, "By and Within both set a deadline: give one")
	case o.hasBy:
		if o.by < now {
			b.fatal(call, "By(%d): the deadline is in the past (the bench is at cycle %d)", o.by, now)
		}
	case o.hasWithin:
		o.by = now + o.within
	case o.hasAt:
		o.by = max(now, o.at) + b.within
	default:
		o.by = now + b.within
	}
	if o.hasAt && o.at > o.by {
		b.fatal(call, "LeavesAt(%d) is after the deadline, cycle %d", o.at, o.by)
	}
	return o
}

// check refuses a Match built wrong.
func (b *Bench) check(call string, want Match) {
	b.t.Helper()
	if want == nil {
		b.fatal(call, "no Match given (Exact, NewMask, Ignoring, Where, OneOf, Any)")
	}
	if err := matchErr(want); err != nil {
		b.fatal(call, "%v", err)
	}
}

// Expect wants the next frame out of port, one no expectation claimed
// yet, to be want's, its last beat by the deadline (Within, By; the
// bench's Deadline by default); it runs the models until that frame
// comes or the deadline passes. Frames are claimed in the order they
// came: the first unclaimed frame must be the one, so a frame nobody
// expected before it fails the expectation (PTF's verify_packet skips
// such frames; here the golden model checks every frame anyway, and
// Count or Out read a port's frames in any order). A failure reports
// the port, the cycle, the fields that differ, both frames in hex and a
// pcapng of the port's last frames, and stops the test; the frame that
// failed counts as claimed.
func (b *Bench) Expect(port string, want Match, opts ...ExpectOption) Received {
	b.t.Helper()
	call := fmt.Sprintf("Expect(%q, %v)", port, want)
	b.usable(call)
	l := b.outPort(call, port)
	b.check(call, want)
	return b.expect(call, l, want, b.options(call, opts))
}

func (b *Bench) expect(call string, l *portLog, want Match, o expectOptions) Received {
	b.t.Helper()
	for {
		if l.next < len(l.frames) {
			f := l.frames[l.next]
			ok, diffs := want.Match(f.Data)
			why := "not the frame wanted"
			if f.Bad != o.bad {
				diffs = append(diffs, scoreboard.FieldDiff{Field: "tuser.bad", Want: fmt.Sprint(o.bad), Got: fmt.Sprint(f.Bad)})
				ok = false
			}
			if o.hasAt && f.Cycle != o.at {
				diffs = append(diffs, scoreboard.FieldDiff{Field: "cycle", Want: fmt.Sprint(o.at), Got: fmt.Sprint(f.Cycle)})
				if ok {
					ok, why = false, fmt.Sprintf("the frame wanted, but its first beat left at cycle %d, not %d", f.Cycle, o.at)
				}
			}
			if ok && f.LastCycle > o.by {
				ok, why = false, fmt.Sprintf("the frame wanted, but it ended at cycle %d, after the deadline %d", f.LastCycle, o.by)
			}
			if !ok {
				b.failFrame(call, l, l.next, want, diffs, why)
			}
			b.claim(l, l.next)
			return f
		}
		if b.Now() > o.by {
			b.failNothing(call, []*portLog{l}, want, o.by)
		}
		b.runTo(call, min(o.by+1, b.Now()+b.grain))
	}
}

// claim marks frame i of a port claimed.
func (b *Bench) claim(l *portLog, i int) {
	l.claimed[i] = true
	for l.next < len(l.frames) && l.claimed[l.next] {
		l.next++ // past the frames Count claimed out of order too
	}
}

// ExpectAnyPort wants want's frame out of one of ports, as the next frame
// there, by the deadline, and returns it (PTF's verify_packet_any_port).
// When several ports have it, the one whose frame ended first wins.
func (b *Bench) ExpectAnyPort(ports []string, want Match, opts ...ExpectOption) Received {
	b.t.Helper()
	call := fmt.Sprintf("ExpectAnyPort(%s, %v)", quoteAll(ports), want)
	b.usable(call)
	if len(ports) == 0 {
		b.fatal(call, "no port given")
	}
	ls := make([]*portLog, len(ports))
	for i, p := range ports {
		ls[i] = b.outPort(call, p)
	}
	b.check(call, want)
	o := b.options(call, opts)
	for {
		var best *portLog
		for _, l := range ls {
			if l.next >= len(l.frames) {
				continue
			}
			f := &l.frames[l.next]
			if ok, _ := want.Match(f.Data); !ok || f.Bad != o.bad || f.LastCycle > o.by || (o.hasAt && f.Cycle != o.at) {
				continue
			}
			if best == nil || f.LastCycle < best.frames[best.next].LastCycle {
				best = l
			}
		}
		if best != nil {
			f := best.frames[best.next]
			b.claim(best, best.next)
			return f
		}
		if b.Now() > o.by {
			b.failNothing(call, ls, want, o.by)
		}
		b.runTo(call, min(o.by+1, b.Now()+b.grain))
	}
}

// ExpectEach wants want's frame out of every one of ports, each the next
// frame there, by one deadline (PTF's verify_packets, without its check
// that nothing else came: the golden model checks every frame).
func (b *Bench) ExpectEach(ports []string, want Match, opts ...ExpectOption) []Received {
	b.t.Helper()
	call := fmt.Sprintf("ExpectEach(%s, %v)", quoteAll(ports), want)
	b.usable(call)
	ls := make([]*portLog, len(ports))
	for i, p := range ports {
		ls[i] = b.outPort(call, p)
	}
	b.check(call, want)
	o := b.options(call, opts)
	out := make([]Received, len(ports))
	for i, l := range ls {
		out[i] = b.expect(call, l, want, o)
	}
	return out
}

// ExpectNone runs cycles cycles and wants no frame want matches out of
// port by then, among those no expectation claimed (earlier ones too);
// Any() for none at all (PTF's verify_no_packet, and
// verify_no_other_packets on one port).
func (b *Bench) ExpectNone(port string, want Match, cycles uint64) {
	b.t.Helper()
	call := fmt.Sprintf("ExpectNone(%q, %v, %d)", port, want, cycles)
	b.usable(call)
	l := b.outPort(call, port)
	b.check(call, want)
	b.runTo(call, b.Now()+cycles)
	for i := l.next; i < len(l.frames); i++ {
		if l.claimed[i] {
			continue
		}
		if ok, _ := want.Match(l.frames[i].Data); ok {
			b.failFrame(call, l, i, nil, nil, "a frame came where none should")
		}
	}
}

// Count runs cycles cycles and counts the frames want matches among those
// out of port that no expectation claimed, claiming them (PTF's
// count_matched_packets); others stay unclaimed.
func (b *Bench) Count(port string, want Match, cycles uint64) int {
	b.t.Helper()
	call := fmt.Sprintf("Count(%q, %v, %d)", port, want, cycles)
	b.usable(call)
	l := b.outPort(call, port)
	b.check(call, want)
	b.runTo(call, b.Now()+cycles)
	n := 0
	for i := l.next; i < len(l.frames); i++ {
		if l.claimed[i] {
			continue
		}
		if ok, _ := want.Match(l.frames[i].Data); ok {
			n++
			b.claim(l, i)
		}
	}
	return n
}

// keepBefore is how many earlier frames of the port a failure's pcapng
// holds, as the scoreboard's neighbourhood files do.
const keepBefore = 4

// failFrame stops the test at frame i of a port that is not what call
// wanted: the scoreboard's report of a mismatch, and its pcapng.
func (b *Bench) failFrame(call string, l *portLog, i int, want Match, diffs []scoreboard.FieldDiff, why string) {
	b.t.Helper()
	f := l.frames[i]
	var w strings.Builder
	fmt.Fprintf(&w, "testbench: %s failed: port %s frame #%d, cycle %d (last beat %d): %s\n", call, l.name, i+1, f.Cycle, f.LastCycle, why)
	for _, d := range diffs {
		fmt.Fprintf(&w, "  %s\n", d)
	}
	var wantData []byte
	if want != nil {
		wantData = want.Want()
	}
	off := firstDiff(wantData, f.Data)
	if wantData != nil {
		fmt.Fprintf(&w, "  want (%d bytes):\n%s", len(wantData), scoreboard.HexAround(wantData, off))
	} else if want != nil {
		fmt.Fprintf(&w, "  want: %s\n", want)
	}
	fmt.Fprintf(&w, "  got  (%d bytes, bad=%t):\n%s", len(f.Data), f.Bad, scoreboard.HexAround(f.Data, off))
	b.neighbourhood(&w, l, l.frames[max(0, i-keepBefore):i], &f, wantData, f.Cycle)
	fmt.Fprintf(&w, "  seed %d; rerun: %s", b.seed, b.Rerun())
	b.claim(l, i) // judged: a bench that goes on (a subtest's) starts after it
	b.t.Fatalf("%s", w.String())
}

// failNothing stops the test when nothing call wanted came by deadline.
func (b *Bench) failNothing(call string, ls []*portLog, want Match, deadline uint64) {
	b.t.Helper()
	var w strings.Builder
	fmt.Fprintf(&w, "testbench: %s failed: nothing by cycle %d\n", call, deadline)
	for _, l := range ls {
		if l.next < len(l.frames) {
			// ExpectAnyPort: a port whose next frame is another one.
			f := l.frames[l.next]
			_, diffs := want.Match(f.Data)
			fmt.Fprintf(&w, "  %s: its next frame, #%d at cycle %d (last beat %d), is another:\n", l.name, l.next+1, f.Cycle, f.LastCycle)
			for _, d := range diffs {
				fmt.Fprintf(&w, "    %s\n", d)
			}
			continue
		}
		fmt.Fprintf(&w, "  %s: no frame since #%d\n", l.name, len(l.frames))
	}
	if want.Want() != nil {
		fmt.Fprintf(&w, "  want (%d bytes):\n%s", len(want.Want()), scoreboard.HexAround(want.Want(), 0))
	}
	l := ls[0]
	b.neighbourhood(&w, l, l.frames[max(0, len(l.frames)-keepBefore):], nil, want.Want(), deadline)
	fmt.Fprintf(&w, "  seed %d; rerun: %s", b.seed, b.Rerun())
	b.t.Fatalf("%s", w.String())
}

// neighbourhood writes a failure's pcapng: the port's frames before, the
// frame that came and the one wanted, each with a comment saying which,
// and says where it is.
func (b *Bench) neighbourhood(w *strings.Builder, l *portLog, before []Received, got *Received, want []byte, cycle uint64) {
	b.failures++
	path := filepath.Join(b.dir, fmt.Sprintf("expect-%03d.pcapng", b.failures))
	err := func() error {
		pw, err := pcapio.CreateLinkFile(path, l.name, pcapio.LinkWriterOptions{
			SectionComment: fmt.Sprintf("testbench %s seed=%d port=%s", b.t.Name(), b.seed, l.name),
		})
		if err != nil {
			return err
		}
		for _, f := range before {
			if err := pw.WriteFrameOn(0, f.Cycle, f.Data, "earlier frame on this port"); err != nil {
				pw.Close()
				return err
			}
		}
		if got != nil {
			if err := pw.WriteFrameOn(0, got.Cycle, got.Data, fmt.Sprintf("GOT bad=%t", got.Bad)); err != nil {
				pw.Close()
				return err
			}
		}
		if want != nil {
			if err := pw.WriteFrameOn(0, cycle, want, "WANT"); err != nil {
				pw.Close()
				return err
			}
		}
		return pw.Close()
	}()
	if err != nil {
		fmt.Fprintf(w, "  neighbourhood not written: %v\n", err)
		return
	}
	fmt.Fprintf(w, "  neighbourhood: %s\n", path)
}

func firstDiff(want, got []byte) int {
	n := min(len(want), len(got))
	for i := range n {
		if want[i] != got[i] {
			return i
		}
	}
	return n
}
