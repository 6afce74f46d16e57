package bridge

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// live is the wall-clock side of a session (an engine.Live): the engine
// asks it whether a host frame waits, and sleeps on it when nothing is in
// flight.
type live struct {
	ports  []*port
	notify chan struct{} // a frame was queued; one pending wake is enough
	over   chan struct{} // closed once every reader has ended
	once   sync.Once

	// Keep-warm (Config.KeepWarm): while hosts are active, an idle
	// session still steps a short empty window every warm, so the model
	// process's code and data stay in the CPU caches. warm is 0 when it
	// is off.
	warm     time.Duration
	warmFor  time.Duration // how long after the last host frame
	due      atomic.Bool   // a keep-warm window is asked for
	lastHost atomic.Int64  // wall clock of the last frame queued, ns
	timer    *time.Timer

	queued    atomic.Int64 // host frames queued so far (for the governor)
	streaming atomic.Bool  // hosts stream (the governor says): no keep-warm
}

// DefaultKeepWarm is Config.KeepWarm for `cosim bridge` and `cosim
// tap-demo`: an empty window every 250 us, for two seconds (keepWarmFor)
// after the last host frame; an idle session thus advances about 32
// cycles a millisecond (engine.DefaultLiveWindow), which the engine never
// counts as a stall. While hosts stream (governor) there is no keep-warm.
// Invariant: shorter ping RTT for no more CPU than 1 ms, measured by make
// tap-demo (harness/PERFORMANCE.md, keep-warm).
const (
	DefaultKeepWarm = 250 * time.Microsecond
	keepWarmFor     = 2 * time.Second
)

func newLive(warm time.Duration) *live {
	l := &live{notify: make(chan struct{}, 1), over: make(chan struct{}), warm: warm, warmFor: keepWarmFor}
	if warm > 0 {
		l.timer = time.NewTimer(time.Hour)
		l.timer.Stop()
	}
	return l
}

// wake is called by readers after they queue a frame.
func (l *live) wake() {
	l.queued.Add(1)
	if l.warm > 0 {
		l.lastHost.Store(time.Now().UnixNano())
	}
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

func (l *live) start() {
	inputs := false
	for _, p := range l.ports {
		p.streaming = &l.streaming
		// stop waits for this reader too: not from inside it.
		p.failed = func() { go l.stop() }
		go p.read()
		go p.writer()
		if p.input {
			inputs = true
			p.warmTook = l.took
		}
	}
	if !inputs {
		l.warm = 0 // no window would take the request back (see took)
	}
}

// took is called by every port's Take: the window a keep-warm request
// asked for has begun.
func (l *live) took() { l.due.Store(false) }

// Ready implements engine.Live: a frame waits, or a keep-warm window is due.
func (l *live) Ready() bool {
	for _, p := range l.ports {
		if p.pending() {
			return true
		}
	}
	return l.due.Load()
}

// Wait implements engine.Live. A frame queued before the end is still
// reported, so nothing read from a host is left behind.
func (l *live) Wait(ctx context.Context) bool {
	for {
		if l.Ready() {
			return true
		}
		var warm <-chan time.Time
		if l.warm > 0 && !l.streaming.Load() && !l.ended() && time.Since(time.Unix(0, l.lastHost.Load())) < l.warmFor {
			l.timer.Reset(l.warm)
			warm = l.timer.C
		}
		select {
		case <-l.notify:
		case <-warm:
			l.due.Store(true)
		case <-l.over:
			l.due.Store(false)
			return l.Ready()
		case <-ctx.Done():
			return false
		}
		if l.timer != nil {
			l.timer.Stop()
		}
	}
}

// ended reports whether the session's input has ended.
func (l *live) ended() bool {
	select {
	case <-l.over:
		return true
	default:
		return false
	}
}

// stop ends every reader and then the session's input: the engine drains
// what is in flight and finishes.
func (l *live) stop() {
	l.once.Do(func() {
		for _, p := range l.ports {
			p.stop()
		}
		for _, p := range l.ports {
			<-p.done
		}
		close(l.over)
	})
}

// Err implements engine.Live: why readers ended the session, if they did.
func (l *live) Err() error {
	var errs []error
	for _, p := range l.ports {
		errs = append(errs, p.Err())
	}
	return errors.Join(errs...)
}

// closeWriters ends the writers once the engine is done delivering.
func (l *live) closeWriters() {
	for _, p := range l.ports {
		p.closeWriter()
	}
}
