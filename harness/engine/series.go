package engine

import "sort"

// Sampler is a golden model that shows its state over time for reports
// (queue depths, rates): after each window it was advanced to, the engine
// calls Sample, which reports each value by a name of its own
// ("queue_bytes.port2.prio3"). Values that stay 0 all run are left out.
type Sampler interface {
	Sample(add func(name string, value float64))
}

// SeriesPoint is a value's lowest and highest sample in the cycles
// Cycle..Cycle+width-1 of its series.
type SeriesPoint struct {
	Cycle uint64  `json:"cycle"`
	Min   float64 `json:"min"`
	Max   float64 `json:"max"`
}

// Series is one sampled value over a run: at most maxPoints points of
// equal width in cycles, the width doubling (neighbours merged) as the run
// goes on, so a series costs the same whatever the run's length.
type Series struct {
	Width  uint64        `json:"width_cycles"`
	Points []SeriesPoint `json:"points"`
	any    bool          // some sample was not 0
}

const (
	maxPoints    = 256
	firstWidth   = 64 // cycles per point to start with
	seriesPerRun = 512
)

func (s *Series) add(cycle uint64, v float64) {
	if s.Width == 0 {
		s.Width = firstWidth
	}
	for cycle/s.Width >= maxPoints {
		s.halve()
	}
	s.any = s.any || v != 0
	start := cycle / s.Width * s.Width
	if n := len(s.Points); n > 0 && s.Points[n-1].Cycle == start {
		p := &s.Points[n-1]
		p.Min, p.Max = min(p.Min, v), max(p.Max, v)
		return
	}
	s.Points = append(s.Points, SeriesPoint{Cycle: start, Min: v, Max: v})
}

// halve doubles the width, merging the points that fall together.
func (s *Series) halve() {
	s.Width *= 2
	out := s.Points[:0]
	for _, p := range s.Points {
		p.Cycle = p.Cycle / s.Width * s.Width
		if n := len(out); n > 0 && out[n-1].Cycle == p.Cycle {
			q := &out[n-1]
			q.Min, q.Max = min(q.Min, p.Min), max(q.Max, p.Max)
			continue
		}
		out = append(out, p)
	}
	s.Points = out
}

// seriesSet holds a run's series by "model.name"; the checker goroutine
// owns it until the run ends.
type seriesSet struct {
	m     map[string]*Series
	extra int // samples of names past seriesPerRun, dropped
}

func (ss *seriesSet) sample(model string, g Golden, cycle uint64) {
	sm, ok := g.(Sampler)
	if !ok {
		return
	}
	sm.Sample(func(name string, v float64) {
		key := model + "." + name
		s := ss.m[key]
		if s == nil {
			if len(ss.m) >= seriesPerRun {
				ss.extra++
				return
			}
			if ss.m == nil {
				ss.m = map[string]*Series{}
			}
			s = &Series{}
			ss.m[key] = s
		}
		s.add(cycle, v)
	})
}

// result returns the series with something in them, by name.
func (ss *seriesSet) result() map[string]*Series {
	if len(ss.m) == 0 {
		return nil
	}
	names := make([]string, 0, len(ss.m))
	for n := range ss.m {
		names = append(names, n)
	}
	sort.Strings(names)
	out := map[string]*Series{}
	for _, n := range names {
		if s := ss.m[n]; s.any {
			out[n] = &Series{Width: s.Width, Points: s.Points} // as summary.json holds it
		}
	}
	return out
}
