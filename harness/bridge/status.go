package bridge

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/rocesim/cosim/harness/engine"
)

// status prints the live counters of a session: frames each way, check
// results, drops by reason, and simulated time against wall-clock time.
type status struct {
	w        io.Writer
	tty      bool
	every    time.Duration
	clockMHz float64
	ports    []*port

	mu    sync.Mutex
	last  engine.Status
	begin time.Time
}

func newStatus(cfg Config, ports []*port) *status {
	every := cfg.StatusEvery
	if every == 0 {
		every = time.Second
	}
	return &status{w: cfg.Status, tty: cfg.StatusTTY, every: every, clockMHz: cfg.Scenario.ClockMHz, ports: ports, begin: time.Now()}
}

// update is engine.Config.Status: it runs on the engine's loop, so it
// only stores.
func (s *status) update(st engine.Status) {
	s.mu.Lock()
	s.last = st
	s.mu.Unlock()
}

// cycle is the cycle the run has reached, as of its last window.
func (s *status) cycle() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last.Cycle
}

// start prints a line every s.every until the returned stop is called,
// which prints the final line.
func (s *status) start() (stop func()) {
	if s.w == nil {
		return func() {}
	}
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(s.every)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				s.print(false)
			case <-quit:
				s.print(true)
				return
			}
		}
	}()
	return func() { close(quit); <-done }
}

func (s *status) print(final bool) {
	end := "\n"
	if s.tty && !final {
		end = "   " // redrawn in place; the spaces wipe a longer line's tail
	}
	start := ""
	if s.tty {
		start = "\r"
	}
	fmt.Fprintf(s.w, "%s%s%s", start, s.line(), end)
}

// line is one status line.
func (s *status) line() string {
	s.mu.Lock()
	st := s.last
	wall := time.Since(s.begin).Seconds()
	s.mu.Unlock()
	var in, out, padded, unknown int
	drops := map[string]int{}
	for _, p := range s.ports {
		ps := p.counts()
		in += ps.FramesIn
		out += ps.FramesOut
		padded += ps.Padded
		unknown += ps.UnknownEtherType
		for k, v := range ps.Drops {
			drops[k] += v
		}
	}
	sim := float64(st.Cycle) / (s.clockMHz * 1e6)
	var b strings.Builder
	fmt.Fprintf(&b, "bridge %.0fs: cycle %d (%s simulated, %.2g of real time, %.3f Mcycles/s)", wall, st.Cycle,
		time.Duration(sim*1e9).Round(time.Microsecond), sim/max(wall, 1e-9), float64(st.Cycle)/max(wall, 1e-9)/1e6)
	fmt.Fprintf(&b, " | hosts->sim %d sim->hosts %d | matched %d mismatched %d unexpected %d", in, out, st.Matched, st.Mismatched, st.Unexpected)
	fmt.Fprintf(&b, " | padded %d unknown-ethertype %d | drops", padded, unknown)
	keys := make([]string, 0, len(drops))
	for k, v := range drops {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	if len(keys) == 0 {
		b.WriteString(" 0")
	}
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, drops[k])
	}
	return b.String()
}
