// Package report writes report.html beside a run's summary.json: one
// self-contained page (inline SVG plots drawn with gonum/plot, no script or
// font from the network) that shows whether the run passed, how to rerun
// it, every problem with its fields and files, and what the fabric did
// over simulated time: throughput per link, ECN marks, PFC pauses, per-QP
// rate, CNPs, NAKs and retransmissions, completion latency. The data is
// what the run already wrote: summary.json and the link captures.
package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/rocesim/cosim/harness/engine"
)

// File is the report's name in a run's output directory.
const File = "report.html"

//go:embed report.html.tmpl
var pageText string

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"add1": func(i int) int { return i + 1 },
	"us": func(cycles uint64, mhz float64) string {
		if mhz <= 0 {
			return ""
		}
		return fmt.Sprintf("%.3f µs", float64(cycles)/mhz)
	},
}).Parse(pageText))

// Options say what the run's command line knows and the summary does not.
type Options struct {
	Rerun   string // the command that reruns the run
	Version string // the cosim build, for the footer
}

// view is what the template shows.
type view struct {
	S        *engine.Summary
	Opt      Options
	Totals   []total
	Plots    []figure
	Counters []modelCounters
	Drops    []kv
	Faults   []kv
	Captures bool
	Waves    map[int]engine.Waveform // by problem number (from 1)
}

type total struct {
	Key, Name string
	Value     int
	Bad       bool
}

type figure struct {
	Title string
	SVG   template.HTML
	Note  string
}

type modelCounters struct {
	Model  string
	Rows   []counterRow
	Differ bool // some counter is unlike the golden model's
}

type counterRow struct {
	Name        string
	DUT, Golden uint64
}

type kv struct {
	Key   string
	Value int
}

// Write writes dir/report.html for the run whose summary is sum.
func Write(dir string, sum *engine.Summary, opt Options) error {
	t, err := readTraffic(dir, sum)
	if err != nil {
		return err
	}
	v := view{S: sum, Opt: opt, Captures: len(t.links) > 0, Waves: map[int]engine.Waveform{}}
	for _, w := range sum.Waveforms {
		v.Waves[w.Problem] = w
	}
	v.Totals = []total{
		{"frames_in", "frames in", sum.FramesIn, false},
		{"frames_out", "frames out", sum.FramesOut, false},
		{"matched", "matched", sum.Matched, false},
		{"mismatched", "mismatched", sum.Mismatched, sum.Mismatched > 0},
		{"missing", "missing", sum.Missing, sum.Missing > 0},
		{"unexpected", "unexpected", sum.Unexpected, sum.Unexpected > 0},
		{"counter_mismatches", "counter mismatches", sum.CounterFails, sum.CounterFails > 0},
		{"stuck_inputs", "stuck inputs", sum.Stuck, sum.Stuck > 0},
		{"workload_failures", "workload failures", len(sum.Workload), len(sum.Workload) > 0},
	}
	v.Drops, v.Faults = sorted(sum.Drops), sorted(sum.Faults)
	v.Counters = counters(sum)
	if v.Plots, err = figures(t, sum); err != nil {
		return err
	}
	var b bytes.Buffer
	if err := page.Execute(&b, v); err != nil {
		return err
	}
	path := filepath.Join(dir, File)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s not written: %w", File, err)
	}
	return os.Rename(tmp, path)
}

// figures draws the plots the run has data for.
func figures(t *traffic, sum *engine.Summary) ([]figure, error) {
	mhz := sum.ClockMHz
	if mhz <= 0 {
		mhz = 1
	}
	a := timeAxis{clockMHz: mhz, width: t.width}
	binUS := float64(t.width) / mhz
	var out []figure
	add := func(title string, svg template.HTML, note string, err error) error {
		switch {
		case err != nil:
		case svg != "":
			out = append(out, figure{Title: title, SVG: svg, Note: note})
		case len(t.links) > 0: // nothing happened: say so rather than leave it out
			out = append(out, figure{Title: title, Note: "none in this run"})
		}
		return err
	}
	gbps := func(bytes []float64) []float64 {
		r := make([]float64, len(bytes))
		for i, b := range bytes {
			r[i] = b * 8 / binUS / 1000
		}
		return r
	}
	var thr, ce []series
	for _, l := range t.links {
		thr = append(thr, series{name: l.name, values: gbps(l.bytes)})
		ce = append(ce, series{name: l.name, values: l.ce})
	}
	svg, note, err := linePlot("Throughput per link", "Gb/s", a, thr)
	if err := add("Throughput per link", svg, note, err); err != nil {
		return nil, err
	}
	svg, note, err = linePlot("ECN Congestion Experienced marks per link", "frames per bin", a, ce)
	if err := add("ECN marks", svg, note, err); err != nil {
		return nil, err
	}
	svg, err = pausePlot(a, t.pauses)
	if err := add("PFC pauses", svg, fmt.Sprintf("%d pause intervals on %d links", len(t.pauses), pausedLinks(t.pauses)), err); err != nil {
		return nil, err
	}
	for _, k := range []struct {
		title, unit string
		pick        func(q *qpSeries) []float64
	}{
		{"Data rate into each QP, as its peer put it on the wire (DCQCN sets it)", "Gb/s", func(q *qpSeries) []float64 { return gbps(q.bytes) }},
		{"CNPs to each QP", "per bin", func(q *qpSeries) []float64 { return q.cnp }},
		{"NAKs to each QP", "per bin", func(q *qpSeries) []float64 { return q.nak }},
		{"Retransmitted requests to each QP", "per bin", func(q *qpSeries) []float64 { return q.retry }},
	} {
		var ss []series
		for _, q := range t.qps {
			ss = append(ss, series{name: q.key, values: k.pick(q)})
		}
		svg, note, err := linePlot(k.title, k.unit, a, ss)
		if err := add(k.title, svg, note, err); err != nil {
			return nil, err
		}
	}
	for _, g := range []struct {
		kind, title, unit string
		scale             float64
		pick              func(engine.SeriesPoint) float64
	}{
		{"queue_bytes", "Queue depth per switch egress port and priority (golden model, highest in each point)", "bytes", 1,
			func(p engine.SeriesPoint) float64 { return p.Max }},
		{"dcqcn_rate", "DCQCN sending rate per QP (golden model, lowest in each point)", "Gb/s", 8 * mhz / 1000,
			func(p engine.SeriesPoint) float64 { return p.Min }},
		{"timeouts", "Local ACK timeouts per QP so far (golden model)", "timeouts", 1,
			func(p engine.SeriesPoint) float64 { return p.Max }},
	} {
		ss := sampled(sum, g.kind, mhz, g.scale, g.pick)
		svg, note, err := linePlot(g.title, g.unit, a, ss)
		if err := add(g.title, svg, note, err); err != nil {
			return nil, err
		}
	}
	for _, n := range slices.Sorted(maps.Keys(sum.CompletionLatency)) {
		st := sum.CompletionLatency[n]
		svg, err := latencyPlot(n, st)
		note := fmt.Sprintf("%d work requests: min %d, p50 %d, p90 %d, p99 %d, max %d cycles", st.Count, st.Min, st.P50, st.P90, st.P99, st.Max)
		if err := add("Completion latency "+n, svg, note, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// sampled turns the summary's series of one kind ("sw.queue_bytes.out2.prio3")
// into plot series named without the kind ("sw out2.prio3").
func sampled(sum *engine.Summary, kind string, mhz, scale float64, pick func(engine.SeriesPoint) float64) []series {
	var out []series
	for _, n := range slices.Sorted(maps.Keys(sum.Series)) {
		model, rest, _ := strings.Cut(n, ".")
		what, tail, ok := strings.Cut(rest, ".")
		if !ok || what != kind {
			continue
		}
		s := sum.Series[n]
		ser := series{name: model + " " + tail}
		for _, p := range s.Points {
			ser.x = append(ser.x, (float64(p.Cycle)+float64(s.Width)/2)/mhz)
			ser.values = append(ser.values, pick(p)*scale)
		}
		out = append(out, ser)
	}
	return out
}

func pausedLinks(ps []pause) int {
	links := map[string]bool{}
	for _, p := range ps {
		links[p.link] = true
	}
	return len(links)
}

// counters lists each model's non-zero counters, differing ones first.
func counters(sum *engine.Summary) []modelCounters {
	var out []modelCounters
	for _, m := range slices.Sorted(maps.Keys(sum.Counters)) {
		mc := modelCounters{Model: m}
		for name, p := range sum.Counters[m] {
			if p.DUT != 0 || p.Golden != 0 {
				mc.Rows = append(mc.Rows, counterRow{name, p.DUT, p.Golden})
			}
			mc.Differ = mc.Differ || p.DUT != p.Golden
		}
		sort.Slice(mc.Rows, func(i, j int) bool {
			a, b := mc.Rows[i], mc.Rows[j]
			if (a.DUT != a.Golden) != (b.DUT != b.Golden) {
				return a.DUT != a.Golden
			}
			return natural(a.Name, b.Name)
		})
		out = append(out, mc)
	}
	return out
}

// natural orders "port2.x" before "port10.x".
func natural(a, b string) bool {
	pad := func(s string) string {
		var o strings.Builder
		digits := ""
		flush := func() {
			if digits != "" {
				o.WriteString(strings.Repeat("0", max(0, 8-len(digits))) + digits)
				digits = ""
			}
		}
		for _, r := range s {
			if r >= '0' && r <= '9' {
				digits += string(r)
				continue
			}
			flush()
			o.WriteRune(r)
		}
		flush()
		return o.String()
	}
	return pad(a) < pad(b)
}

func sorted(m map[string]int) []kv {
	out := make([]kv, 0, len(m))
	for k, v := range m {
		out = append(out, kv{k, v})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}
