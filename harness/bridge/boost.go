package bridge

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
)

// Boost lets a session that streams use more of the machine, and a
// session that only pings keep its short round trips. While the hosts
// send at least boostFrames frames a boostTick, Go runs on BusyProcs
// threads and the model processes at niceness Nice; once they have sent
// fewer for boostOff, Go is back on IdleProcs threads and the models at
// the niceness they started with. Invariant: boosted streams are faster and
// unboosted pings no slower, measured by make tap-demo (harness/PERFORMANCE.md).
//
// Whatever the Boost, a stream pauses keep-warm (live.go). The zero
// Boost changes nothing else. Raising the models' priority needs
// CAP_SYS_NICE; without it the session says so on its status writer and
// does not boost at all (more Go threads alone made streams slower).
type Boost struct {
	IdleProcs, BusyProcs int // GOMAXPROCS when idle and when streaming; 0 leaves it alone
	Nice                 int // the models' niceness when streaming
}

// The governor's clock: it looks at the hosts' frames every boostTick,
// boosts at boostFrames frames in a tick (10,000 frames a second: a ping
// or an ARP never does) and ends the boost after boostOff below it.
const (
	boostTick   = 10 * time.Millisecond
	boostFrames = 100
	boostOff    = 200 * time.Millisecond
)

// governor tells a session's streams from its idle times: it applies
// the Boost and tells live (keep-warm) when a stream begins and ends.
type governor struct {
	b         Boost
	frames    func() int64 // host frames queued so far
	streaming func(bool)   // hears when a stream begins and ends
	log       io.Writer    // where a refused boost is said; may be nil

	mu   sync.Mutex
	pids []int
	base map[int]int // niceness of each model task before the boost
	on   bool
	stop chan struct{}
	done chan struct{}
}

func newGovernor(b Boost, frames func() int64, streaming func(bool), log io.Writer) *governor {
	return &governor{b: b, frames: frames, streaming: streaming, log: log}
}

// start begins watching once the models run (engine.Config.Started).
func (g *governor) start(pids map[string]int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, pid := range pids {
		g.pids = append(g.pids, pid)
	}
	g.stop, g.done = make(chan struct{}), make(chan struct{})
	go g.watch(g.stop, g.done)
}

func (g *governor) watch(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(boostTick)
	defer t.Stop()
	last, quietSince := g.frames(), time.Now()
	for {
		select {
		case <-stop:
			g.set(false)
			return
		case now := <-t.C:
			n := g.frames()
			busy := n-last >= boostFrames
			last = n
			switch {
			case busy:
				quietSince = now
				if !g.on {
					g.set(true)
				}
			case g.on && now.Sub(quietSince) >= boostOff:
				g.set(false)
			}
		}
	}
}

// set says a stream began or ended, and boosts or restores.
func (g *governor) set(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if on == g.on {
		return
	}
	g.on = on
	g.streaming(on)
	if g.b.Nice != 0 {
		if on {
			base, err := raiseNice(g.pids, g.b.Nice)
			if err != nil {
				if g.log != nil {
					fmt.Fprintf(g.log, "bridge: not boosting the model for the stream (%v); see harness/bridge/README.md\n", err)
				}
				g.b = Boost{} // refused: stay as we are
				return
			}
			g.base = base
		} else {
			restoreNice(g.base) // best effort: a model that ended has no tasks left
		}
	}
	procs := g.b.IdleProcs
	if on {
		procs = g.b.BusyProcs
	}
	if procs > 0 {
		runtime.GOMAXPROCS(procs)
	}
}

// end stops watching and undoes the boost; the session calls it once the
// run is over. Later calls do nothing.
func (g *governor) end() {
	g.mu.Lock()
	stop, done := g.stop, g.done
	g.stop = nil
	g.mu.Unlock()
	if stop == nil {
		return
	}
	close(stop)
	<-done
}
