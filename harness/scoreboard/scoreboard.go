// Package scoreboard matches every frame a DUT emits against the frame the
// golden model expected on the same stream (a model's output port), in
// order, byte for byte. It classifies each as matched, mismatched,
// unexpected or missing, explains a mismatch field by field with the cycle
// and packet index, and writes the neighbourhood of each to a pcapng file.
package scoreboard

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rocesim/cosim/harness/internal/fifo"
	"github.com/rocesim/cosim/harness/pcapio"
)

// Stream names where frames are compared: an output port of a model, or
// one of its sub-streams when the port carries several independent orders
// (a NIC's completion records are ordered per QP only: Sub "qp 0x000101").
type Stream struct {
	Model string
	Port  int
	Sub   string
}

func (s Stream) String() string {
	if s.Sub != "" {
		return fmt.Sprintf("%s.out%d[%s]", s.Model, s.Port, s.Sub)
	}
	return fmt.Sprintf("%s.out%d", s.Model, s.Port)
}

// Frame is a frame a DUT emitted, stamped with the cycle its first beat left.
type Frame struct {
	Cycle uint64
	Data  []byte
	Bad   bool // tuser[0] on the last beat
}

// Expected is a frame the golden model predicts on a stream.
type Expected struct {
	Data []byte
	// Cause says which input produced it, for reports (e.g. "icrc.in0 #17").
	Cause string
	// CauseSeq, when HasCauseSeq, numbers the input frame: reports show
	// Cause "icrc.in0" with CauseSeq 17 as "icrc.in0 #17". It spares the
	// caller building a string for every frame.
	CauseSeq    uint32
	HasCauseSeq bool
	Bad         bool
	// Cycle, when HasCycle, is the cycle the frame's first beat must leave
	// (a timed golden model knows it): the same bytes at another cycle are
	// a MISMATCH with a "cycle" field in the diff.
	Cycle    uint64
	HasCycle bool
}

// cause is the text reports show for Cause and CauseSeq.
func (e *Expected) cause() string {
	if !e.HasCauseSeq {
		return e.Cause
	}
	return fmt.Sprintf("%s #%d", e.Cause, e.CauseSeq)
}

// Config sets what reports say and where they go.
type Config struct {
	Run     string    // scenario name
	Seed    uint64    // printed with every report so the run can be repeated
	Dir     string    // mismatch-NNN.pcapng files go here; "" writes none
	Report  io.Writer // one block per problem; nil discards
	Details int       // problems reported in full (default 20); all are counted
	// Resync is how many expected frames a got frame may skip to find an
	// exact match, so one lost frame reads as one missing frame rather
	// than as every later frame mismatching (default 8).
	Resync int
}

// Counts is the tally of a run.
type Counts struct {
	Expected   int `json:"expected"`
	Observed   int `json:"frames_out"`
	Matched    int `json:"matched"`
	Mismatched int `json:"mismatched"`
	Missing    int `json:"missing"`
	Unexpected int `json:"unexpected"`
}

// Pass reports whether nothing went wrong.
func (c Counts) Pass() bool { return c.Mismatched == 0 && c.Missing == 0 && c.Unexpected == 0 }

type stream struct {
	want    fifo.Queue[Expected] // pending expectations, oldest first
	recent  [keepRecent]Frame    // last frames observed, for the neighbourhood: a ring
	seen    int                  // frames put in recent so far
	index   int                  // frames observed so far
	skipped int                  // expectations consumed so far
	held    *held                // a frame that matched nothing, judged on the next one
	counts  Counts               // this stream's share of the run's tally
}

// Scoreboard compares frames. Not safe for concurrent use.
type Scoreboard struct {
	cfg      Config
	streams  map[Stream]*stream
	recent   [recentStreams]recentStream // streams looked up lately, a ring
	next     int                         // the recent slot to fill next
	counts   Counts
	problems int
	detailed []Problem // the problems reported in full, in order
	errs     []error
}

// Problem is one problem the scoreboard reported in full, for summaries
// and reports (the text report has the hex dumps).
type Problem struct {
	Kind     string      `json:"kind"` // MISMATCH, MISSING or UNEXPECTED
	Stream   string      `json:"link"`
	Cycle    uint64      `json:"cycle"`
	Packet   int         `json:"packet,omitempty"`    // expected frame number on the stream
	DUTFrame int         `json:"dut_frame,omitempty"` // DUT frame number on the stream
	Cause    string      `json:"cause,omitempty"`
	Diffs    []FieldDiff `json:"fields,omitempty"`
	File     string      `json:"file,omitempty"` // the neighbourhood pcapng, if written
}

// StreamCounts is one stream's tally.
type StreamCounts struct {
	Stream string `json:"link"`
	Counts
}

// New returns an empty scoreboard.
func New(cfg Config) *Scoreboard {
	if cfg.Details == 0 {
		cfg.Details = 20
	}
	if cfg.Resync == 0 {
		cfg.Resync = 8
	}
	if cfg.Report == nil {
		cfg.Report = io.Discard
	}
	return &Scoreboard{cfg: cfg, streams: map[Stream]*stream{}}
}

// recentStreams is how many streams the scoreboard finds without the map:
// a run's frames go to a handful of streams, and comparing a Stream whose
// Model string is the very one seen before (the same pointer) costs less
// than hashing it for every frame.
const recentStreams = 8

type recentStream struct {
	key Stream
	x   *stream
}

func (s *Scoreboard) stream(st Stream) *stream {
	for i := range s.recent {
		if r := &s.recent[i]; r.x != nil && r.key == st {
			return r.x
		}
	}
	x := s.streams[st]
	if x == nil {
		x = &stream{}
		s.streams[st] = x
	}
	s.recent[s.next] = recentStream{st, x}
	s.next = (s.next + 1) % recentStreams
	return x
}

// Expect queues a frame the golden model predicts on st.
func (s *Scoreboard) Expect(st Stream, e Expected) {
	s.counts.Expected++
	x := s.stream(st)
	x.counts.Expected++
	x.want.Push(e)
}

// Observe checks a frame the DUT emitted on st against the oldest
// expectation there. A frame that matches neither it nor one of the next
// few is held until the next frame shows whether it was inserted (the next
// frame matches the expectation: UNEXPECTED) or wrong (MISMATCH), so one
// extra frame does not make every later one mismatch.
func (s *Scoreboard) Observe(st Stream, f Frame) {
	s.counts.Observed++
	x := s.stream(st)
	x.counts.Observed++
	x.index++
	idx := x.index
	defer func() {
		if x.held == nil || x.held.index != idx {
			x.remember(f)
		}
	}()
	if h := x.held; h != nil {
		x.held = nil
		if same(x.want.Items()[0], f) {
			s.unexpected(st, x, h.frame, h.index)
		} else {
			s.mismatch(st, x, h.frame, h.index)
		}
		x.remember(h.frame)
	}
	want := x.want.Items()
	if len(want) == 0 {
		s.unexpected(st, x, f, idx)
		return
	}
	if same(want[0], f) {
		s.counts.Matched++
		x.counts.Matched++
		x.pop()
		return
	}
	// A frame lost by the DUT shows up as a later expectation matching.
	for k := 1; k <= s.cfg.Resync && k < len(want); k++ {
		if same(want[k], f) {
			for j := 0; j < k; j++ {
				s.counts.Missing++
				x.counts.Missing++
				e := x.want.Items()[0]
				s.report(st, x, Frame{Cycle: f.Cycle}, &e, "MISSING", 0, nil)
				x.pop()
			}
			s.counts.Matched++
			x.counts.Matched++
			x.pop()
			return
		}
	}
	x.held = &held{frame: f, index: idx}
}

// keepRecent is how many earlier frames a neighbourhood file shows.
const keepRecent = 4

// remember keeps the last frames of the stream for neighbourhood files,
// in a ring: this runs for every frame and allocates nothing.
func (x *stream) remember(f Frame) {
	x.recent[x.seen%keepRecent] = f
	x.seen++
}

// recentFrames returns the frames remember kept, oldest first.
func (x *stream) recentFrames() []Frame {
	out := make([]Frame, 0, keepRecent)
	for i := max(0, x.seen-keepRecent); i < x.seen; i++ {
		out = append(out, x.recent[i%keepRecent])
	}
	return out
}

type held struct {
	frame Frame
	index int // the DUT's frame number on the stream
}

func (s *Scoreboard) unexpected(st Stream, x *stream, f Frame, idx int) {
	s.counts.Unexpected++
	x.counts.Unexpected++
	s.report(st, x, f, nil, "UNEXPECTED", idx, nil)
}

func (s *Scoreboard) mismatch(st Stream, x *stream, f Frame, idx int) {
	e := x.pop()
	s.counts.Mismatched++
	x.counts.Mismatched++
	diffs := Diff(e.Data, f.Data)
	if e.HasCycle && e.Cycle != f.Cycle {
		diffs = append(diffs, FieldDiff{"cycle", fmt.Sprint(e.Cycle), fmt.Sprint(f.Cycle)})
	}
	if e.Bad != f.Bad {
		diffs = append(diffs, FieldDiff{"tuser.bad", fmt.Sprint(e.Bad), fmt.Sprint(f.Bad)})
	}
	s.report(st, x, f, &e, "MISMATCH", idx, diffs)
}

// Outstanding returns how many expected frames the DUTs have yet to emit.
// A held frame counts as emitted: whatever it turns out to be, it is the
// DUT's answer in that place.
func (s *Scoreboard) Outstanding() int {
	n := 0
	for _, x := range s.streams {
		n += x.want.Len()
		if x.held != nil {
			n--
		}
	}
	return n
}

func (x *stream) pop() Expected {
	x.skipped++
	return x.want.Pop()
}

func same(e Expected, f Frame) bool {
	return e.Bad == f.Bad && (!e.HasCycle || e.Cycle == f.Cycle) && bytes.Equal(e.Data, f.Data)
}

// Drain ends the run: whatever is still expected is missing. cycle is where
// the run stopped.
func (s *Scoreboard) Drain(cycle uint64) {
	for _, st := range s.sortedStreams() {
		x := s.streams[st]
		if h := x.held; h != nil {
			x.held = nil
			s.mismatch(st, x, h.frame, h.index)
			x.remember(h.frame)
		}
		for x.want.Len() > 0 {
			e := x.want.Items()[0]
			s.counts.Missing++
			x.counts.Missing++
			s.report(st, x, Frame{Cycle: cycle}, &e, "MISSING", 0, nil)
			x.pop()
		}
	}
}

// Counts returns the tally so far.
func (s *Scoreboard) Counts() Counts { return s.counts }

// Streams returns each stream's tally, in stream order.
func (s *Scoreboard) Streams() []StreamCounts {
	out := make([]StreamCounts, 0, len(s.streams))
	for _, st := range s.sortedStreams() {
		out = append(out, StreamCounts{Stream: st.String(), Counts: s.streams[st].counts})
	}
	return out
}

// Problems returns the problems reported in full (Config.Details), in
// the order they were found.
func (s *Scoreboard) Problems() []Problem { return s.detailed }

// Errors returns failures to write neighbourhood files.
func (s *Scoreboard) Errors() []error { return s.errs }

func (s *Scoreboard) sortedStreams() []Stream {
	out := make([]Stream, 0, len(s.streams))
	for st := range s.streams {
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Model != out[j].Model {
			return out[i].Model < out[j].Model
		}
		if out[i].Port != out[j].Port {
			return out[i].Port < out[j].Port
		}
		return out[i].Sub < out[j].Sub
	})
	return out
}

// report writes one problem: what, where, when, the field diff, both frames
// in hex around the first difference, and the neighbourhood pcapng. A
// packet number counts the expected frames on the stream (the one this
// problem concerns); dutFrame, when not 0, counts the frames the DUT
// emitted there.
func (s *Scoreboard) report(st Stream, x *stream, got Frame, want *Expected, what string, dutFrame int, diffs []FieldDiff) {
	s.problems++
	if s.problems > s.cfg.Details {
		if s.problems == s.cfg.Details+1 {
			fmt.Fprintf(s.cfg.Report, "further problems are counted but not detailed (%d shown)\n", s.cfg.Details)
		}
		return
	}
	w := s.cfg.Report
	p := Problem{Kind: what, Stream: st.String(), Cycle: got.Cycle, Diffs: diffs}
	fmt.Fprintf(w, "%s run=%s seed=%d link=%s cycle=%d", what, s.cfg.Run, s.cfg.Seed, st, got.Cycle)
	switch what {
	case "MISMATCH":
		p.Packet, p.DUTFrame = x.skipped, dutFrame // pop came first
		fmt.Fprintf(w, " packet=#%d dut_frame=#%d", p.Packet, dutFrame)
	case "MISSING":
		p.Packet = x.skipped + 1
		fmt.Fprintf(w, " packet=#%d", p.Packet)
	default:
		p.DUTFrame = dutFrame
		fmt.Fprintf(w, " dut_frame=#%d", dutFrame)
	}
	if want != nil && want.cause() != "" {
		p.Cause = want.cause()
		fmt.Fprintf(w, " cause=%s", p.Cause)
	}
	fmt.Fprintln(w)
	for _, d := range diffs {
		fmt.Fprintf(w, "  %s\n", d)
	}
	off := firstDiff(want, got)
	if want != nil {
		fmt.Fprintf(w, "  want (%d bytes, bad=%t):\n%s", len(want.Data), want.Bad, dumpAround(want.Data, off))
	}
	if what != "MISSING" {
		fmt.Fprintf(w, "  got  (%d bytes, bad=%t):\n%s", len(got.Data), got.Bad, dumpAround(got.Data, off))
	}
	if s.cfg.Dir != "" {
		path := filepath.Join(s.cfg.Dir, fmt.Sprintf("mismatch-%03d.pcapng", s.problems))
		if err := s.writeNeighbourhood(path, st, x, got, want, what); err != nil {
			s.errs = append(s.errs, err)
		} else {
			p.File = filepath.Base(path)
			fmt.Fprintf(w, "  neighbourhood: %s\n", path)
		}
	}
	s.detailed = append(s.detailed, p)
}

func firstDiff(want *Expected, got Frame) int {
	if want == nil {
		return 0
	}
	n := min(len(want.Data), len(got.Data))
	for i := 0; i < n; i++ {
		if want.Data[i] != got.Data[i] {
			return i
		}
	}
	return n
}

// HexAround shows a frame as reports do: up to 64 bytes in hex from the
// 16-byte line that holds offset off (the first difference), real offsets
// on the left.
func HexAround(b []byte, off int) string { return dumpAround(b, off) }

// dumpAround shows up to 64 bytes from the 16-byte line holding off.
func dumpAround(b []byte, off int) string {
	start := off &^ 15
	if start >= len(b) && len(b) > 0 {
		start = (len(b) - 1) &^ 15
	}
	end := min(len(b), start+64)
	var sb strings.Builder
	for _, line := range strings.SplitAfter(hex.Dump(b[start:end]), "\n") {
		if line == "" {
			continue
		}
		// hex.Dump numbers from 0: show real offsets instead.
		var n int
		fmt.Sscanf(line[:8], "%x", &n)
		fmt.Fprintf(&sb, "    %08x%s", n+start, line[8:])
	}
	if end < len(b) {
		fmt.Fprintf(&sb, "    ... %d more bytes\n", len(b)-end)
	}
	return sb.String()
}

// writeNeighbourhood puts the last frames seen on the stream, the got frame
// and the wanted frame into one pcapng, each with a comment saying which.
func (s *Scoreboard) writeNeighbourhood(path string, st Stream, x *stream, got Frame, want *Expected, what string) error {
	w, err := pcapio.CreateLinkFile(path, st.String(), pcapio.LinkWriterOptions{
		SectionComment: fmt.Sprintf("%s run=%s seed=%d link=%s", what, s.cfg.Run, s.cfg.Seed, st),
	})
	if err != nil {
		return err
	}
	for _, f := range x.recentFrames() {
		if err := w.WriteFrameOn(0, f.Cycle, f.Data, "earlier frame on this link (matched or reported before)"); err != nil {
			w.Close()
			return err
		}
	}
	if what != "MISSING" {
		if err := w.WriteFrameOn(0, got.Cycle, got.Data, fmt.Sprintf("GOT (%s) bad=%t", strings.ToLower(what), got.Bad)); err != nil {
			w.Close()
			return err
		}
	}
	if want != nil {
		if err := w.WriteFrameOn(0, got.Cycle, want.Data, strings.TrimSpace(fmt.Sprintf("WANT bad=%t %s", want.Bad, want.cause()))); err != nil {
			w.Close()
			return err
		}
	}
	return w.Close()
}
