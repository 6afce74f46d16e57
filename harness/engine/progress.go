package engine

import (
	"fmt"
	"io"
	"time"
)

// progress prints one status line a second while a run goes; it is only
// made for a terminal (Config.Progress nil otherwise).
type progress struct {
	w     io.Writer
	start time.Time
	last  time.Time
}

func newProgress(w io.Writer) *progress { return &progress{w: w, start: time.Now(), last: time.Now()} }

func (p *progress) update(r *run) {
	if p.w == nil || time.Since(p.last) < time.Second {
		return
	}
	p.last = time.Now()
	c := r.check.snapshot()
	el := time.Since(p.start).Seconds()
	fmt.Fprintf(p.w, "\rcycle %d  in %d  out %d  matched %d  mismatched %d  %.2f Mcycles/s   ",
		r.cycle, r.in, c.Observed, c.Matched, c.Mismatched, float64(r.cycle)/el/1e6)
}
