package engine

import (
	"fmt"
	"sort"
	"strings"
)

// Flows is a Workload that says what each of its flows carried: summary.json
// "flows", and one line per pair of models at the end of a run.
type Flows interface {
	Flows() []Flow
}

// Flow is what one QP's host posted and saw complete with success (a READ
// counts as its poster's, though its data comes the other way).
type Flow struct {
	Workload string `json:"workload"`
	From     string `json:"from"` // the model whose host posts
	To       string `json:"to"`
	QPN      uint32 `json:"qpn"`
	Messages int    `json:"messages"`
	Bytes    uint64 `json:"bytes"`
	// FirstPost and LastCompletion are cycles: the first work request's
	// post and the last successful completion's last beat.
	FirstPost      uint64 `json:"first_post"`
	LastCompletion uint64 `json:"last_completion"`
	// GoodputGbps is Bytes over FirstPost..LastCompletion at the
	// scenario's clock.
	GoodputGbps float64 `json:"goodput_gbps"`
}

// goodput fills in each flow's goodput at clockHz.
func goodput(flows []Flow, clockHz float64) {
	for i := range flows {
		f := &flows[i]
		if f.LastCompletion > f.FirstPost {
			f.GoodputGbps = float64(f.Bytes) * 8 * clockHz / float64(f.LastCompletion-f.FirstPost) / 1e9
		}
	}
}

// FlowLines sums the flows up per workload and pair of models, one line
// each, in the order they first come: messages, bytes, QPs and the goodput
// over the pair's first post to its last completion.
func (s *Summary) FlowLines() []string {
	type pair struct{ w, from, to string }
	type sum struct {
		msgs, qps   int
		bytes       uint64
		first, last uint64
	}
	var order []pair
	sums := map[pair]*sum{}
	for _, f := range s.Flows {
		p := pair{f.Workload, f.From, f.To}
		t := sums[p]
		if t == nil {
			t = &sum{first: f.FirstPost}
			sums[p] = t
			order = append(order, p)
		}
		t.msgs += f.Messages
		t.qps++
		t.bytes += f.Bytes
		t.first, t.last = min(t.first, f.FirstPost), max(t.last, f.LastCompletion)
	}
	lines := make([]string, 0, len(order))
	for _, p := range order {
		t := sums[p]
		g := []Flow{{Bytes: t.bytes, FirstPost: t.first, LastCompletion: t.last}}
		goodput(g, s.ClockMHz*1e6)
		lines = append(lines, fmt.Sprintf("%s %s -> %s: %d messages, %d bytes over %d QPs, %.3f Gb/s", p.w, p.from, p.to, t.msgs, t.bytes, t.qps, g[0].GoodputGbps))
	}
	return lines
}

// Figurer is a golden model that reports figures of its run that no DUT
// counter holds (a switch's paused cycles and deepest queues): summary.json
// "figures". The golden model is cycle-exact, so they are the DUT's too.
type Figurer interface {
	Figures(add func(name string, value uint64))
}

// FigureLines sums each model's figures up in a line: the deepest queue
// and where, and the paused cycles of its busiest port and priority.
func (s *Summary) FigureLines() []string {
	models := make([]string, 0, len(s.Figures))
	for m := range s.Figures {
		models = append(models, m)
	}
	sort.Strings(models)
	var lines []string
	for _, m := range models {
		var deepest, paused uint64
		var deepAt, pausedAt string
		for name, v := range s.Figures[m] {
			kind, at, _ := strings.Cut(name, ".")
			switch {
			case kind == "max_queue_bytes" && (v > deepest || v == deepest && at < deepAt):
				deepest, deepAt = v, at
			case kind == "pause_cycles" && (v > paused || v == paused && at < pausedAt):
				paused, pausedAt = v, at
			}
		}
		if deepest == 0 && paused == 0 {
			continue
		}
		line := fmt.Sprintf("%s: deepest queue %d bytes (%s)", m, deepest, deepAt)
		if paused > 0 {
			line += fmt.Sprintf(", most paused %d cycles (%s)", paused, pausedAt)
		}
		lines = append(lines, line)
	}
	return lines
}
