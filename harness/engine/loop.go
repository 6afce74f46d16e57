package engine

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// begin starts the models and settles how the run steps them.
func (r *run) begin(ctx context.Context) error {
	if err := r.start(ctx); err != nil {
		return err
	}
	r.started()
	r.window = r.lookahead()
	r.pol = r.policy(r.window)
	r.progress = newProgress(r.cfg.Progress)
	return nil
}

// loop runs windows until every source is exhausted, nothing is in flight
// and every expected frame came out, or until a limit. It decides where
// each window ends (nextWindow); the policy decides how the windows go to
// the models (policy.go).
func (r *run) loop(ctx context.Context) error {
	p := pacer{lookahead: r.window, drain: drainWindow}
	for {
		end, limit, ok, err := r.nextWindow(ctx, &p)
		if !ok || err != nil {
			return err
		}
		if err := r.runWindows(ctx, r.pol, end, limit, r.progress); err != nil {
			return err
		}
	}
}

// started tells Config.Started the process id of every local model.
func (r *run) started() {
	if r.cfg.Started == nil {
		return
	}
	pids := map[string]int{}
	for _, n := range r.nodes {
		if n.spec.Remote == "" {
			pids[n.name] = n.m.Pid()
		}
	}
	r.cfg.Started(pids)
}

// lookahead is the longest a window may be: nothing a model emits in a
// window may reach a model, a paused source or a workload's host within
// the same window.
func (r *run) lookahead() uint64 {
	la := r.cfg.MaxWindow
	for _, l := range r.links {
		la = min(la, l.latency)
	}
	for _, n := range r.nodes {
		for _, ps := range n.pausers {
			for _, p := range ps {
				la = min(la, p.latency)
			}
		}
	}
	for _, w := range r.workloads {
		la = min(la, w.Reaction())
	}
	return la
}

// pacer is what nextWindow carries from one window to the next.
type pacer struct {
	lookahead uint64
	// drain: once every source is done, what is left is the models
	// emptying their queues, and windows grow from drainWindow, so that
	// the run stops soon after the last frame instead of up to a
	// lookahead later.
	drain uint64
	// woke: the run was quiet and a live frame just came; nothing ran
	// since, so it still is, and asking the checker again would only
	// delay the frame.
	woke bool
}

// drainWindow is how far a window goes past the last source frame, in
// cycles; the windows after it double up to the lookahead.
const drainWindow = 1024

// nextWindow decides the next window, [r.front, end), and how far a live
// one may stretch (limit). ok is false when the run is over: drained (err
// nil), or stopped by a limit, a broken source or ctx (err says which).
func (r *run) nextWindow(ctx context.Context, p *pacer) (end, limit uint64, ok bool, err error) {
	live := r.cfg.Live
	for {
		if err := ctx.Err(); err != nil {
			return 0, 0, false, interrupted(ctx, r.cycle)
		}
		// A source that broke off (a capture damaged past its start) has
		// no frames after the damage; those before it go on through the
		// models and are checked, and the run reports the damage once it
		// has drained.
		quiet := p.woke || r.quiet()
		p.woke = false
		if quiet {
			// Nothing in flight and nothing expected: no stall, however
			// long a live session's idle windows (keep-warm) ran.
			r.lastProgress = r.cycle
		}
		nextSrc, more := r.nextSource()
		waiting := live != nil && live.Ready()
		if quiet && !more && !waiting {
			woken := false
			if live != nil {
				t := time.Now()
				woken = live.Wait(ctx)
				r.waitHosts += time.Since(t)
			}
			if !woken {
				if err := ctx.Err(); err != nil {
					return 0, 0, false, interrupted(ctx, r.cycle)
				}
				return 0, 0, false, r.sourceErr() // drained, unless a source broke off
			}
			p.woke = true
			continue // a live frame came: take it in the next window
		}
		if r.cycle >= r.sc.Cycles || r.cycle > r.lastProgress+r.sc.DrainCap {
			if err := r.sourceErr(); err != nil {
				return 0, 0, false, err // the damage is the cause
			}
		}
		if r.cycle >= r.sc.Cycles {
			return 0, 0, false, &WorkLeftError{fmt.Sprintf("stopped at the scenario's limit of %d cycles with work left (raise cycles): %s", r.sc.Cycles, r.left())}
		}
		if r.cycle > r.lastProgress+r.sc.DrainCap {
			return 0, 0, false, &WorkLeftError{fmt.Sprintf("stalled: no frame accepted or emitted for %d cycles (since cycle %d) with work left (raise drain to wait longer): %s", r.sc.DrainCap, r.lastProgress, r.left())}
		}
		end = r.cycle + p.lookahead
		limit = end
		if live != nil {
			end, limit = r.liveWindow(p.lookahead)
		}
		if quiet && nextSrc > r.cycle && !waiting {
			// Nothing in flight and every DUT idle: nothing can leave a
			// model before the next source frame arrives.
			end = nextSrc + p.lookahead
		}
		if live == nil {
			end = r.clampDrain(r.cycle, r.capFrames(end))
			if !more {
				end, p.drain = min(end, r.cycle+p.drain), min(2*p.drain, p.lookahead)
			}
		}
		limit = max(limit, end)
		return min(end, r.sc.Cycles), min(limit, r.sc.Cycles), true, nil
	}
}

// sourceErr reports a source whose stream broke off (a capture that turns
// out damaged past its start) as the scenario's fault, like one that
// cannot be opened at all; the run ends with it once it has drained.
func (r *run) sourceErr() error {
	for i, s := range r.sources {
		if s.err != nil {
			return &ScenarioError{fmt.Errorf("%s: traffic[%d]: %w", r.sc.File, i, s.err)}
		}
	}
	return nil
}

// clampDrain ends a window that starts at start and takes the last frame
// of every source at most drainWindow cycles after that frame. Only open
// loop sources count: a paused, tap or workload source may send later.
func (r *run) clampDrain(start, end uint64) uint64 {
	if len(r.taps) > 0 || len(r.workloads) > 0 {
		return end
	}
	var last uint64
	taking := false
	for _, s := range r.sources {
		if s.pausable {
			return end
		}
		if c, ok := s.last(end); ok {
			last, taking = max(last, c), true
		}
	}
	if !taking || last >= end {
		return end
	}
	return max(min(end, last+drainWindow), start+1)
}

// capFrames moves a window's end before the first source frame that
// would bring more than Config.MaxWindowFrames frames or MaxWindowBytes
// bytes into it (each source gets an equal share of both). It depends
// only on the sources' frames, so the windows stay the same from run to
// run. A source's frames due from the window's start on are all stamped at
// or after it, one beat apart at least, and the first always fits: the
// window is never empty.
func (r *run) capFrames(end uint64) uint64 {
	if len(r.sources) == 0 {
		return end
	}
	share := max(r.cfg.MaxWindowFrames/len(r.sources), 1)
	bytes := max(r.cfg.MaxWindowBytes/len(r.sources), 1)
	for _, s := range r.sources {
		if s.pausable {
			continue
		}
		n := 0
		s.ensure(end)
		for i := s.next; i < s.end() && s.drawn(i).cycle < end; i++ {
			if i > s.next && (i-s.next >= share || n >= bytes) {
				end = s.drawn(i).cycle
				break
			}
			n += len(s.drawn(i).data)
		}
	}
	return end
}

// quiet reports whether nothing is in flight: no frame on a link, no input
// queued in a model, no model busy, no workload waiting, no expected frame
// outstanding.
func (r *run) quiet() bool {
	for _, l := range r.links {
		if l.pending() > 0 {
			return false
		}
	}
	for _, w := range r.workloads {
		if w.Pending() {
			return false
		}
	}
	for _, n := range r.nodes {
		if n.busy || n.queued > 0 {
			return false
		}
		for i := range n.sent {
			if n.sent[i].Len() > 0 {
				return false
			}
		}
	}
	return r.check.settled()
}

// left says what a run that stopped with work left was still waiting
// for, so that a stall points at its cause.
func (r *run) left() string {
	var why []string
	for _, w := range r.workloads {
		if !w.Pending() {
			continue
		}
		if e, ok := w.(Explainer); ok {
			why = append(why, w.Name()+" waits for "+e.Waiting())
		} else {
			why = append(why, w.Name()+" has work outstanding")
		}
	}
	for _, l := range r.links {
		if n := l.pending(); n > 0 {
			why = append(why, fmt.Sprintf("link %s carries %d frames", l.name, n))
		}
	}
	for _, n := range r.nodes {
		if n.busy {
			why = append(why, fmt.Sprintf("model %s is busy (not idle)", n.name))
		}
		if n.queued > 0 {
			why = append(why, fmt.Sprintf("model %s holds %d input frames", n.name, n.queued))
		}
		for i := range n.sent {
			if k := n.sent[i].Len(); k > 0 {
				why = append(why, fmt.Sprintf("%s.in%d has not taken %d frames", n.name, i, k))
			}
		}
	}
	if len(why) == 0 {
		return "the golden models expect frames the DUT has not emitted (listed as missing)"
	}
	return strings.Join(why, "; ")
}

// nextSource is the cycle of the next frame a source, a recorded tap or a
// workload will give, if any will.
func (r *run) nextSource() (uint64, bool) {
	next, more := r.nextTap()
	if r.session {
		if c, ok := r.nextInjected(); ok && (!more || c < next) {
			next, more = c, true
		}
	}
	for _, s := range r.sources {
		if c, ok := s.nextCycle(); ok && (!more || c < next) {
			next, more = c, true
		}
	}
	for _, w := range r.workloads {
		if c, ok := w.Next(); ok && (!more || c < next) {
			next, more = c, true
		}
	}
	return next, more
}
