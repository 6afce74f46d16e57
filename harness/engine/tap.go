package engine

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"

	"github.com/rocesim/cosim/cosim"
)

// TapEnd is the far side of a scenario's [[tap]]: a live TAP device in
// `cosim bridge` (harness/bridge), a recording of one in `cosim run
// --replay`. The engine calls it from its run loop only.
type TapEnd interface {
	// Take returns the frames that enter the tap's input port in the
	// window [start, end). A live end returns frames waiting now, each
	// stamped start (harness/DESIGN.md, "Time"), no more than fit: it stops once
	// budget bytes are given (the frame that crosses it still goes). A
	// recording returns its frames stamped before end and ignores budget.
	// The engine keeps the frames' data; the slice itself is the end's.
	Take(start, end uint64, budget int) []TapFrame
	// Next is the cycle of the next frame when it is known in advance (a
	// recording); a live end reports false.
	Next() (uint64, bool)
	// Deliver takes a frame the model emitted on the tap's output port,
	// its first beat at cycle. data is not changed and may be kept.
	Deliver(cycle uint64, data []byte)
	// Stats counts the tap's frames, for summary.json.
	Stats() TapStats
}

// TapFrame is a frame entering a model from a tap, with its cycle.
type TapFrame struct {
	Cycle uint64
	Data  []byte
}

// TapStats counts one tap's frames: those that entered the simulation,
// those it handed to the host, and what happened on the way.
type TapStats struct {
	FramesIn  int `json:"frames_in"`
	FramesOut int `json:"frames_out"`
	// Padded counts frames shorter than 60 bytes that were padded with
	// zeros to 60, as a real MAC pads them (they entered the model).
	Padded int `json:"padded"`
	// UnknownEtherType counts frames of an EtherType the bridge does not
	// know (they entered the model all the same: the switch is L2).
	UnknownEtherType int `json:"unknown_ethertype"`
	// Drops counts frames that never entered the model (from the host)
	// or never reached the host (to it), by reason.
	Drops map[string]int `json:"drops"`
}

// Live is the wall-clock side of a run whose taps are live devices. When
// nothing is in flight and every model is idle the engine waits on it
// instead of simulating idle windows: simulated time is not wall time.
type Live interface {
	// Ready reports whether the run should step a window now: a frame is
	// waiting at some tap, or the live side asks for an empty window (to
	// keep the model warm, harness/bridge); the next TapEnd.Take takes
	// such a request back.
	Ready() bool
	// Wait blocks until Ready (true), or the session is over or ctx is
	// done (false). Frames read before the end are still taken.
	Wait(ctx context.Context) bool
	// Err is why the live side ended the session on its own (a host's
	// device went away), or nil: the run drains as at a normal end and
	// then fails with it.
	Err() error
}

// Live window lengths when Config leaves them 0, in cycles. Short windows
// serve a ping's latency (at 512 bits it is in the switch in 2 cycles and
// out 3 later), long ones a stream's throughput (a 1514-byte frame takes
// 24): make tap-demo measures the stream (harness/PERFORMANCE.md).
const (
	DefaultLiveWindow    = 8
	DefaultLiveMaxWindow = 512
)

// Status is what the run looks like after a window, for live displays.
type Status struct {
	Cycle      uint64
	Windows    int
	FramesIn   int
	FramesOut  int
	Matched    int
	Mismatched int
	Unexpected int
}

// tapPort is one [[tap]] of the scenario in a run.
type tapPort struct {
	name     string
	end      TapEnd
	in       portRef
	node     *node // the model of in
	hasIn    bool
	width    int    // of the input's model, for the line below
	lineFree uint64 // when the input port has sent what it was given
	drain    uint64 // when its frames are out, if they all leave by one port
	pcap     int    // the input's pcapng, when hasIn
}

// tapOut is a model output attached to a tap.
type tapOut struct {
	name string
	end  TapEnd
}

// addTaps checks the scenario's taps against the ends the caller gave
// and attaches them to the models.
func (r *run) addTaps() error {
	ends := r.cfg.Taps
	for _, t := range r.sc.Taps {
		end := ends[t.Name]
		if end == nil {
			return &ScenarioError{fmt.Errorf("%s: tap %s is a live device: attach it with `cosim bridge`, or replay a recording of it with `cosim run --replay`", r.sc.File, t.Name)}
		}
		tp := &tapPort{name: t.Name, end: end}
		if t.In != "" {
			m, p := r.sc.Port(t.In)
			tp.in, tp.hasIn = portRef{m, p}, true
			if err := r.checkPort(tp.in, true, fmt.Sprintf("tap.%d.in", len(r.taps))); err != nil {
				return err
			}
			tp.node = r.byName[m]
			tp.width = tp.node.width
		}
		if t.Out != "" {
			m, p := r.sc.Port(t.Out)
			if err := r.checkPort(portRef{m, p}, false, fmt.Sprintf("tap.%d.out", len(r.taps))); err != nil {
				return err
			}
			n := r.byName[m]
			if n.taps == nil {
				n.taps = map[int]tapOut{}
			}
			n.taps[p] = tapOut{t.Name, end}
		}
		r.taps = append(r.taps, tp)
	}
	for _, name := range slices.Sorted(maps.Keys(ends)) {
		if !slices.ContainsFunc(r.taps, func(tp *tapPort) bool { return tp.name == name }) {
			return &ScenarioError{fmt.Errorf("%s: no [[tap]] named %s (the recording and the scenario disagree)", r.sc.File, name)}
		}
	}
	return nil
}

// takeTaps gives each tap's frames for the window [r.front, end) to its
// model and records them. A live run then stretches the window, up to
// limit, for the frames still entering to come out: a store-and-forward
// model starts a frame out once its last beat is in and the port out is
// free, and takes as long as it took to come in, plus a short pipeline
// (the switch's is 3 cycles). Frames of a stream leave while the next
// ones come in, so a window of n equal frames lasts about n+1 frame
// times, not 2n (stretching to twice the time in, as before, doubled the
// cycles simulated for a window of several frames). The window's length
// never changes what the models do, only how soon a host sees the result.
func (r *run) takeTaps(end, limit uint64, batch []job) ([]job, uint64) {
	stretch := end
	for _, tp := range r.taps {
		if !tp.hasIn {
			continue
		}
		n := tp.node
		// A live tap hands over what the port can start sending before
		// end (limit when frames queue up); the rest waits in its bounded
		// queue, in wall-clock time.
		free := max(tp.lineFree, r.front)
		budget := 0
		if take := r.takeUntil(end, limit); free < take {
			budget = int(take-free) * tp.width / 8
		}
		for _, f := range tp.end.Take(r.front, end, budget) {
			c := max(f.Cycle, r.front)
			n.window.Frames = append(n.window.Frames, cosim.Frame{Port: uint16(tp.in.port), Cycle: c, Data: f.Data})
			b := beats(len(f.Data), tp.width)
			tp.lineFree = max(tp.lineFree, c) + b
			tp.drain = max(tp.drain, tp.lineFree) + b
			batch = r.check.flush(append(batch, job{kind: jobRecord, pcap: uint16(tp.pcap), cycle: c, data: f.Data}))
		}
		if tp.drain > r.front {
			stretch = max(stretch, tp.drain+pipelineSlack)
		}
	}
	if r.cfg.Live == nil {
		return batch, end
	}
	r.backlog = r.cfg.Live.Ready()
	return batch, min(stretch, limit)
}

// pipelineSlack is what takeTaps allows a model beyond store and forward:
// the switch's LATENCY (rtl/switch/README.md) and one cycle.
const pipelineSlack = 4

// liveWindow is the next window of a live run, [r.front, end), and how far
// takeTaps may stretch it.
func (r *run) liveWindow(lookahead uint64) (end, limit uint64) {
	w := cmp.Or(r.cfg.LiveWindow, DefaultLiveWindow)
	most := max(cmp.Or(r.cfg.LiveMaxWindow, DefaultLiveMaxWindow), w)
	return r.front + min(lookahead, w), r.front + min(lookahead, most)
}

// takeUntil is how far the frames a live tap hands over may reach: a
// window's worth while a frame or two come at a time, for latency; up to
// limit while hosts send faster than windows go by (frames were still
// waiting after the last window took its share), so that fewer round trips
// carry more frames. Either way the window then ends once the frames it
// took are out (takeTaps), not at limit: a window of idle cycles after a
// short backlog would cost model time and hold the next frames back.
func (r *run) takeUntil(end, limit uint64) uint64 {
	if r.backlog {
		return limit
	}
	return end
}

// nextTap is the cycle of the next frame a recorded tap holds.
func (r *run) nextTap() (uint64, bool) {
	next, more := uint64(0), false
	for _, tp := range r.taps {
		if c, ok := tp.end.Next(); ok && (!more || c < next) {
			next, more = c, true
		}
	}
	return next, more
}

// tapStats adds each tap's counters to the summary: drops by reason go
// into the run's drops as "tap_<reason>".
func (r *run) tapStats(s *Summary) {
	if len(r.taps) == 0 {
		return
	}
	s.Taps = map[string]TapStats{}
	for _, tp := range r.taps {
		st := tp.end.Stats()
		s.Taps[tp.name] = st
		for k, v := range st.Drops {
			if v > 0 {
				s.Drops["tap_"+k] += v
			}
		}
	}
}

// status reports the run after a window to Config.Status.
func (r *run) status() {
	if r.cfg.Status == nil {
		return
	}
	c := r.check.snapshot()
	r.cfg.Status(Status{Cycle: r.cycle, Windows: r.windows, FramesIn: r.in, FramesOut: c.Observed,
		Matched: c.Matched, Mismatched: c.Mismatched, Unexpected: c.Unexpected})
}
