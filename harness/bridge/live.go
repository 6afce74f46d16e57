package bridge

import (
	"context"
	"sync"
)

// live is the wall-clock side of a session (an engine.Live): the engine
// asks it whether a host frame waits, and sleeps on it when nothing is in
// flight.
type live struct {
	ports  []*port
	notify chan struct{} // a frame was queued; one pending wake is enough
	over   chan struct{} // closed once every reader has ended
	once   sync.Once
}

func newLive() *live {
	return &live{notify: make(chan struct{}, 1), over: make(chan struct{})}
}

// wake is called by readers after they queue a frame.
func (l *live) wake() {
	select {
	case l.notify <- struct{}{}:
	default:
	}
}

func (l *live) start() {
	for _, p := range l.ports {
		go p.read()
	}
}

// Ready implements engine.Live.
func (l *live) Ready() bool {
	for _, p := range l.ports {
		if p.pending() {
			return true
		}
	}
	return false
}

// Wait implements engine.Live. A frame queued before the end is still
// reported, so nothing read from a host is left behind.
func (l *live) Wait(ctx context.Context) bool {
	for {
		if l.Ready() {
			return true
		}
		select {
		case <-l.notify:
		case <-l.over:
			return l.Ready()
		case <-ctx.Done():
			return false
		}
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
