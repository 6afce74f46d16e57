package engine

import (
	"context"
	"slices"
	"sync/atomic"
)

// policy is how a run sends its windows to the models: how many may be in
// flight at once, and whether the next may go before the replies to those
// in flight are in. Whatever the policy, the windows are the same as in
// lock step, and so is every result; pipelining only lets the models run
// a window while the harness routes and checks the last.
type policy interface {
	// depth is how many windows may be in flight; 1 is lock step.
	depth() int
	// ahead decides whether the window after last can be sent while the
	// windows oldest..last are in flight, where it ends and how far it
	// may stretch.
	ahead(ctx context.Context, oldest, last *window) (end, limit uint64, ok bool)
}

// policy picks the run's policy. A window may go ahead only when its shape
// cannot depend on the replies before it: never when a source hears back
// from the models (PFC pausers) or a workload does (a host reacting to
// completions), nor for taps replayed from a recording.
func (r *run) policy(lookahead uint64) policy {
	pausable := slices.ContainsFunc(r.sources, func(s *source) bool { return s.pausable })
	closedLoop := pausable || len(r.workloads) > 0
	switch {
	case r.cfg.NoPipeline || closedLoop:
		return lockStep{}
	case r.cfg.Live != nil:
		return livePipelined{r, lookahead}
	case len(r.taps) == 0:
		return openLoop{r, lookahead}
	}
	return lockStep{}
}

// sentAhead counts the windows sent before the replies to the one before
// them were in, sentDeep those sent while two or more were in flight,
// over every run of the process (for tests).
var sentAhead, sentDeep atomic.Uint64

// runWindows runs the window [r.front, end) and, as far as the policy
// allows, the windows after it, until none is in flight.
func (r *run) runWindows(ctx context.Context, pol policy, end, limit uint64, progress *progress) error {
	if pol.depth() == 1 {
		if err := r.step(ctx, end, limit); err != nil {
			return err
		}
		progress.update(r)
		r.status()
		return nil
	}
	w, err := r.send(ctx, end, limit)
	if err != nil {
		return err
	}
	flight := []*window{w} // oldest first
	for len(flight) > 0 {
		for len(flight) < pol.depth() {
			e, l, ok := pol.ahead(ctx, flight[0], flight[len(flight)-1])
			if !ok {
				break
			}
			next, err := r.send(ctx, e, l)
			if err != nil {
				return err
			}
			sentAhead.Add(1)
			if len(flight) > 1 {
				sentDeep.Add(1)
			}
			flight = append(flight, next)
		}
		if err := r.recv(ctx, flight[0]); err != nil {
			return err
		}
		flight = flight[1:]
		progress.update(r)
		r.status()
	}
	return nil
}

// lockStep sends one window and waits for its replies before the next.
type lockStep struct{}

func (lockStep) depth() int { return 1 }

func (lockStep) ahead(context.Context, *window, *window) (uint64, uint64, bool) { return 0, 0, false }

// openLoop pipelines a run whose sources are all open loop.
type openLoop struct {
	r         *run
	lookahead uint64
}

// depth: with four windows in flight rather than two the model less
// often waits for its next window while Go checks the last
// (BenchmarkHarnessVsRaw).
func (openLoop) depth() int { return 4 }

// ahead: the window after last can go before the replies are in when its
// shape is already certain, so that in lock step the loop would not stop,
// fail or skip ahead after last, and nothing the models emit in the
// windows in flight can arrive in it:
//   - sources have frames left;
//   - a frame emitted in oldest or later arrives a link latency after its
//     last beat, at oldest.start + latency or later: after the new end;
//   - the loop skips ahead only when the run is quiet, which it is not
//     while a link carries a frame or a frame sent up to last cannot have
//     been taken by last's end (busyAfter), nor when the next source
//     frame is due at last's end anyway.
func (o openLoop) ahead(ctx context.Context, oldest, last *window) (uint64, uint64, bool) {
	r := o.r
	if !last.more || last.end >= r.sc.Cycles || ctx.Err() != nil {
		return 0, 0, false
	}
	end := min(r.clampDrain(last.end, r.capFrames(last.end+o.lookahead)), r.sc.Cycles)
	if !r.linksSpan(end - oldest.start) {
		return 0, 0, false
	}
	if next, _ := r.nextSource(); next > last.end && !r.busyAfter(last) {
		return 0, 0, false
	}
	return end, end, true
}

// busyAfter reports whether something is certainly still in flight when w
// ends, whatever its replies say: a frame on a link, or a frame sent to a
// model that it cannot have taken in full by then (a port takes one beat
// a cycle).
func (r *run) busyAfter(w *window) bool {
	for _, l := range r.links {
		if l.pending() > 0 {
			return true
		}
	}
	for _, n := range r.nodes {
		for p := range n.sent {
			q := n.sent[p].Items()
			if len(q) == 0 {
				continue
			}
			b := beats(len(q[len(q)-1].Data), n.width)
			if q[len(q)-1].Cycle+b-1 >= w.end {
				return true
			}
			// None of them was taken in full before w.start. Frame j's
			// last beat is at t_j or later: after its arrival's beats,
			// and after the frame before it.
			var t uint64
			for j, f := range q {
				b := beats(len(f.Data), n.width)
				if j == 0 {
					t = max(f.Cycle+b-1, w.start)
				} else {
					t = max(f.Cycle+b-1, t+b)
				}
				if t >= w.end {
					return true
				}
			}
		}
	}
	return false
}

// livePipelined pipelines a live run while host frames wait.
type livePipelined struct {
	r         *run
	lookahead uint64
}

// depth: five windows in hand keep the model process busy while the run
// loop is late with the next (a TAP write, the scheduler); make tap-demo's
// stream rate (harness/PERFORMANCE.md).
func (livePipelined) depth() int { return 5 }

// ahead: the next window goes while host frames wait. It starts where
// last ends and takes what waits, as it would after the replies (in lock
// step the loop takes the next window at once when a frame waits), and
// its shape depends only on the frames it takes (takeTaps), never on the
// replies. Nothing the models emit in a window in flight may arrive in it
// over a link, so no link may be shorter than the span from oldest's
// start to its limit.
func (p livePipelined) ahead(ctx context.Context, oldest, last *window) (uint64, uint64, bool) {
	r := p.r
	if last.end >= r.sc.Cycles || ctx.Err() != nil || !r.cfg.Live.Ready() {
		return 0, 0, false
	}
	end, limit := r.liveWindow(p.lookahead)
	end, limit = min(end, r.sc.Cycles), min(limit, r.sc.Cycles)
	if !r.linksSpan(limit - oldest.start) {
		return 0, 0, false
	}
	return end, limit, true
}

// linksSpan reports whether every link is at least span cycles long: a
// frame emitted in a window in flight cannot reach a window that ends
// span cycles after the oldest one started.
func (r *run) linksSpan(span uint64) bool {
	for _, l := range r.links {
		if l.latency < span {
			return false
		}
	}
	return true
}
