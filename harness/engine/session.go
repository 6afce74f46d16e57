package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/rocesim/cosim/cosim"
)

// Session is a run stepped from outside, window by window, as a test
// drives it (harness/testbench): it sends frames into input ports at
// cycles of its choosing, reads and writes registers and host memory
// between windows, and runs to a cycle. Everything else is a Run's: the
// scenario's sources, links and workloads go on, every frame a DUT
// accepts goes to its golden model and every frame it emits to the
// scoreboard, and Finish ends the run exactly as Run ends one (drained,
// counters compared, summary.json written). A Session is not safe for
// concurrent use.
type Session struct {
	r     *run
	start time.Time
	err   error // the step that broke the run: Finish reports it
	ended bool
}

// Start starts the scenario's models for a Session. Like Run, it leaves
// summary.json in Config.OutDir when the run cannot start.
func Start(ctx context.Context, cfg Config) (*Session, error) {
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	r, err := newRun(cfg)
	if err != nil {
		_, err = notStarted(cfg, err)
		return nil, err
	}
	r.session = true
	s := &Session{r: r, start: time.Now()}
	if err := r.begin(ctx); err != nil {
		_, err = r.end(ctx, s.start, err)
		return nil, err
	}
	return s, nil
}

// Cycle is where the session stands: every window before it has run and
// its replies are routed; a frame sent now may arrive from here on.
func (s *Session) Cycle() uint64 { return s.r.cycle }

// ClockHz is the scenario's clock, which converts cycles to time.
func (s *Session) ClockHz() uint64 { return clockHz(s.r.sc) }

// Lookahead is the longest window the session runs at once.
func (s *Session) Lookahead() uint64 { return s.r.window }

// Port resolves a port named as scenarios name them ("sw.in0",
// "sw.out2"): its model, number and direction.
func (s *Session) Port(ref string) (model string, port int, in bool, err error) {
	n, port, in, err := s.r.port(ref)
	if err != nil {
		return "", 0, false, err
	}
	return n.name, port, in, nil
}

// Top is the registered top of a model of the session.
func (s *Session) Top(model string) (Top, bool) {
	n := s.r.byName[model]
	if n == nil {
		return Top{}, false
	}
	return n.top, true
}

// Width is the data width of a model of the session, in bits.
func (s *Session) Width(model string) int {
	if n := s.r.byName[model]; n != nil {
		return n.width
	}
	return 0
}

// Configure sets a model up before anything runs, as a workload does
// (WorkloadSetup): f may add CSR writes to its first window (one a cycle
// from cycle 0, after the scenario's own), host memory written before its
// first cycle, and configure its golden model alike. It fails once a
// window has run: a golden model sets itself up as reset leaves it then.
func (s *Session) Configure(model string, f func(*SetupModel) error) error {
	if err := s.usable(); err != nil {
		return err
	}
	if s.r.sentWindows > 0 {
		return fmt.Errorf("model %s: configure it before anything runs (the session is at cycle %d)", model, s.r.front)
	}
	n := s.r.byName[model]
	if n == nil {
		return fmt.Errorf("no model %q", model)
	}
	return f(&SetupModel{Spec: n.spec, Top: n.top, Golden: n.golden, n: n})
}

// Idle reports whether the run has nothing left to do for now: every
// frame sent and every source's frame taken, nothing on a link or in a
// model, and every frame the golden models expect come out.
func (s *Session) Idle() bool {
	if _, more := s.r.nextSource(); more {
		return false
	}
	return s.r.quiet()
}

// Send offers a frame on an input port from cycle at (not before Cycle):
// the model takes it once the frames sent there before it have gone in.
// Data must not change afterwards.
func (s *Session) Send(model string, port int, at uint64, data []byte, bad bool) error {
	if err := s.usable(); err != nil {
		return err
	}
	n := s.r.byName[model]
	switch {
	case n == nil:
		return fmt.Errorf("no model %q", model)
	case port < 0 || port >= n.top.In:
		return fmt.Errorf("%s: top %s has %d input ports", portRef{model, port}.in(), n.top.Name, n.top.In)
	case at < s.r.front:
		return fmt.Errorf("%s: cycle %d is in the past (the session is at cycle %d)", portRef{model, port}.in(), at, s.r.front)
	case len(data) == 0:
		return fmt.Errorf("%s: an empty frame", portRef{model, port}.in())
	}
	// Kept in arrival order; frames of equal cycles in the order sent.
	i, _ := slices.BinarySearchFunc(n.inject, at+1, func(f cosim.Frame, c uint64) int {
		if f.Cycle < c {
			return -1
		}
		return 1
	})
	n.inject = slices.Insert(n.inject, i, cosim.Frame{Port: uint16(port), Cycle: at, Data: data, Bad: bad})
	return nil
}

// RunTo runs every model up to cycle target (exclusive), in windows no
// longer than the lookahead.
func (s *Session) RunTo(ctx context.Context, target uint64) error {
	if err := s.usable(); err != nil {
		return err
	}
	r := s.r
	if target > r.sc.Cycles {
		return fmt.Errorf("cycle %d is past the scenario's limit of %d cycles", target, r.sc.Cycles)
	}
	for r.cycle < target {
		if err := ctx.Err(); err != nil {
			return s.broke(interrupted(ctx, r.cycle))
		}
		if err := r.runWindows(ctx, lockStep{}, min(target, r.cycle+r.window), min(target, r.cycle+r.window), r.progress); err != nil {
			return s.broke(err)
		}
	}
	return nil
}

// Access is what a test asks of a model's host interfaces at once: CSR
// writes, then CSR reads, and host memory writes, then reads.
type Access struct {
	CSRWrites []cosim.CSR
	CSRReads  []uint32
	MemWrites []cosim.Mem
	MemReads  []cosim.Mem // Addr and Length
}

// AccessReply answers an Access: CSR read data and memory read data in
// the order asked.
type AccessReply struct {
	CSR []uint32
	Mem [][]byte
}

// Access runs a model's accesses from the current cycle, in windows of
// their own: each CSR write alone in a window of one cycle, on the bus in
// that cycle and in force from the next (a golden model that hears
// writes, CSRGolden, hears it with that cycle before anything the DUT
// takes from then on); the reads in a window long enough for each to be
// answered; memory in a window of no cycles, a golden model that keeps
// host memory (MemGolden) hearing the writes. Every model runs those
// cycles.
func (s *Session) Access(ctx context.Context, model string, a Access) (AccessReply, error) {
	var rep AccessReply
	if err := s.usable(); err != nil {
		return rep, err
	}
	r := s.r
	n := r.byName[model]
	if n == nil {
		return rep, fmt.Errorf("no model %q", model)
	}
	step := func(acc *Access, cycles uint64) error {
		if r.sentWindows == 0 {
			cycles += uint64(len(n.config)) // the scenario's own writes go first
		}
		end := r.cycle + cycles
		if end > r.sc.Cycles {
			return fmt.Errorf("cycle %d is past the scenario's limit of %d cycles", end, r.sc.Cycles)
		}
		n.access = acc
		if err := r.runWindows(ctx, lockStep{}, end, end, r.progress); err != nil {
			return s.broke(err)
		}
		return nil
	}
	for _, w := range a.CSRWrites {
		if err := step(&Access{CSRWrites: []cosim.CSR{w}}, 1); err != nil {
			return rep, err
		}
	}
	if len(a.CSRReads) > 0 {
		// A read takes its latency and a cycle (sim/README.md, "CSR
		// bus"); tops answer within csrReadCycles.
		if err := step(&Access{CSRReads: a.CSRReads}, uint64(len(a.CSRReads))*csrReadCycles+1); err != nil {
			return rep, err
		}
		for _, d := range n.reply.CSRData {
			rep.CSR = append(rep.CSR, d.Data)
		}
	}
	if len(a.MemWrites) > 0 || len(a.MemReads) > 0 {
		if err := step(&Access{MemWrites: a.MemWrites, MemReads: a.MemReads}, 0); err != nil {
			return rep, err
		}
		for _, m := range n.reply.MemData {
			rep.Mem = append(rep.Mem, m.Data)
		}
	}
	return rep, nil
}

// Finish ends the session as Run ends a run: it runs until every frame
// sent is in, nothing is in flight and every expected frame came out (or
// a limit), compares the counters, stops the models and writes
// summary.json. It returns what Run returns.
func (s *Session) Finish(ctx context.Context) (*Summary, error) {
	if s.ended {
		return nil, errors.New("session already finished")
	}
	s.ended = true
	runErr := s.err
	if runErr == nil {
		runErr = s.r.loop(ctx)
	}
	return s.r.end(ctx, s.start, runErr)
}

// usable refuses a session that ended or broke.
func (s *Session) usable() error {
	if s.ended {
		return errors.New("session already finished")
	}
	if s.err != nil {
		return fmt.Errorf("the session broke before: %w", s.err)
	}
	return nil
}

// broke records the error that ended the session's run.
func (s *Session) broke(err error) error {
	s.err = err
	return err
}

// buildSession puts the frames sent from outside and the pending host
// accesses into the window [start, end) being built.
func (r *run) buildSession(start, end uint64, batch []job) []job {
	for _, n := range r.nodes {
		k := 0
		for ; k < len(n.inject) && n.inject[k].Cycle < end; k++ {
			f := n.inject[k]
			f.Cycle = max(f.Cycle, start)
			n.window.Frames = append(n.window.Frames, f)
			batch = r.check.flush(append(batch, job{kind: jobRecord, pcap: uint16(n.injectPcap[f.Port]), cycle: f.Cycle, data: f.Data}))
		}
		if k > 0 {
			n.inject = slices.Delete(n.inject, 0, k)
		}
		a := n.access
		if a == nil {
			continue
		}
		n.access = nil
		// After the scenario's configuration in the first window, which
		// takes cycles 0, 1, ...
		at := start + uint64(len(n.window.CSRWrites))
		for i, w := range a.CSRWrites {
			batch = append(batch, job{kind: jobCSRWrite, n: n, seq: w.Addr, last: uint64(w.Data), cycle: at + uint64(i)})
		}
		for _, m := range a.MemWrites {
			batch = append(batch, job{kind: jobMemWrite, n: n, last: m.Addr, data: m.Data, cycle: start})
		}
		n.window.CSRWrites = append(slices.Clip(n.window.CSRWrites), a.CSRWrites...)
		n.window.CSRReads = a.CSRReads
		n.window.MemWrites = append(slices.Clip(n.window.MemWrites), a.MemWrites...)
		n.window.MemReads = a.MemReads
	}
	return batch
}

// nextInjected is the arrival of the next frame sent from outside, if any.
func (r *run) nextInjected() (uint64, bool) {
	next, more := uint64(0), false
	for _, n := range r.nodes {
		if len(n.inject) > 0 && (!more || n.inject[0].Cycle < next) {
			next, more = n.inject[0].Cycle, true
		}
	}
	return next, more
}
