package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// SummaryFormat is the version of summary.json's layout. Within a format
// fields are only ever added; it changes when a field is renamed, removed
// or changes its meaning or type (cmd/cosim TestSummaryLayoutOnlyGrows
// holds the layout to that).
const SummaryFormat = 2

// Summary is summary.json.
type Summary struct {
	// Format is SummaryFormat, Protocol the socket protocol's version
	// (cosim.ProtoVersion): what a tool reading this file may rely on.
	Format       int                               `json:"format"`
	Protocol     int                               `json:"protocol"`
	Scenario     string                            `json:"scenario"`
	Seed         uint64                            `json:"seed"`
	Cycles       uint64                            `json:"cycles"`
	WallSeconds  float64                           `json:"wall_seconds"`
	CyclesPerSec float64                           `json:"cycles_per_second"`
	Windows      int                               `json:"windows"`
	FramesIn     int                               `json:"frames_in"`
	FramesOut    int                               `json:"frames_out"`
	Matched      int                               `json:"matched"`
	Mismatched   int                               `json:"mismatched"`
	Missing      int                               `json:"missing"`
	Unexpected   int                               `json:"unexpected"`
	Drops        map[string]int                    `json:"drops"`
	Faults       map[string]int                    `json:"faults"`
	Counters     map[string]map[string]CounterPair `json:"counters"`
	// Stalls counts backpressure per model: cycles a source had a beat
	// the DUT did not take, and cycles a sink held tready low on a beat.
	Stalls       map[string]Stalls   `json:"backpressure_cycles"`
	CounterFails int                 `json:"counter_mismatches"`
	Stuck        int                 `json:"stuck_inputs"`
	Taps         map[string]TapStats `json:"taps,omitempty"`
	// Workload lists what the [[rdma]] workloads found wrong: a message
	// that did not complete with success, host memory that is not what the
	// messages leave (rdma.go), or DUT memory unlike the golden model's.
	Workload []string `json:"workload_failures,omitempty"`
	// Workloads names the run's closed-loop workloads; each failure
	// starts with one of them.
	Workloads []string `json:"workloads,omitempty"`
	// CompletionLatency is, per workload that times its messages, the
	// cycles from a post to its completion.
	CompletionLatency map[string]*LatencyStats `json:"completion_latency_cycles,omitempty"`
	// Figures are, per model, what its golden model measured beyond the
	// counters (Figurer): a switch's pause_cycles.outE.prioP and
	// max_queue_bytes.outE.prioP.
	Figures map[string]map[string]uint64 `json:"figures,omitempty"`
	// Flows lists each workload QP's traffic (Flows), in workload order.
	Flows []Flow `json:"flows,omitempty"`
	// ClockMHz converts cycles to time, for reports.
	ClockMHz float64 `json:"clock_mhz"`
	// Models says what each model is, for reports: its RTL top and width.
	Models map[string]ModelInfo `json:"models"`
	// Links is each checked stream's share of the frame counts.
	Links []scoreboard.StreamCounts `json:"links"`
	// Problems are the scoreboard's problems reported in full (the first
	// 20), each with its neighbourhood pcapng.
	Problems []scoreboard.Problem `json:"problems,omitempty"`
	// Events are, per model, the golden model's coverage events (Eventer):
	// what it did that no DUT counter tells apart.
	Events map[string]map[string]uint64 `json:"events,omitempty"`
	// Series are the golden models' state over time, "model.name"
	// (Sampler): queue depths, rates.
	Series map[string]*Series `json:"series,omitempty"`
	// Waveforms trace windows of cycles around problems (the first
	// problem's, by a rerun: harness/waveform).
	Waveforms []Waveform `json:"waveforms,omitempty"`
	// Waited is what the run loop waited for: the largest share says
	// what bounds the run's speed.
	Waited Waits  `json:"waited"`
	Error  string `json:"error,omitempty"`
	Pass   bool   `json:"pass"`
	// RTLCoverage lists the Verilator coverage files the models wrote
	// (cosim run --coverage), relative to the run's directory.
	RTLCoverage []string `json:"rtl_coverage,omitempty"`
}

// Waits splits the wall time the run loop spent waiting, in seconds. The
// rest it spent on its own work: building windows, routing replies.
type Waits struct {
	// Models: sending windows and waiting for the replies (reading them
	// included). Near the wall time, the RTL bounds the run.
	Models float64 `json:"models_seconds"`
	// Checking: the checker (golden models, scoreboard) and the pcapng
	// writers behind it, several windows back; --no-pcap drops the
	// writers' share.
	Checking float64 `json:"checking_seconds"`
	// Stimulus: the sources' prefetchers (reading captures, generating
	// frames) behind.
	Stimulus float64 `json:"stimulus_seconds"`
	// Hosts: a live run idle, waiting for a frame from a host.
	Hosts float64 `json:"hosts_seconds"`
}

// ModelInfo is one model of the run.
type ModelInfo struct {
	Top       string `json:"top"`
	DataWidth int    `json:"data_width"`
	InPorts   int    `json:"in_ports"`
	OutPorts  int    `json:"out_ports"`
}

// Waveform is an FST trace of cycles From..To-1 around problem number
// Problem (from 1), at Cycle. Files and SaveFile are in the output
// directory; View is the command that opens them.
type Waveform struct {
	Problem    int               `json:"problem"`
	Cycle      uint64            `json:"cycle"`
	From       uint64            `json:"from"`
	To         uint64            `json:"to"`
	Files      map[string]string `json:"files"` // model -> its FST
	SaveFile   string            `json:"gtkw"`
	View       string            `json:"view"`
	Reproduced bool              `json:"reproduced"` // the rerun met the same problem at the same cycle
}

// Stalls is one model's backpressure, in cycles.
type Stalls struct {
	Source uint64 `json:"source"`
	Sink   uint64 `json:"sink"`
}

// CounterPair is one DUT counter beside its golden value.
type CounterPair struct {
	DUT    uint64 `json:"dut"`
	Golden uint64 `json:"golden"`
}

// notStarted reports a run that failed before any model started: like a
// failed run, it leaves summary.json (seed, error, pass false) behind.
func notStarted(cfg Config, err error) (*Summary, error) {
	s := &Summary{
		Format: SummaryFormat, Protocol: cosim.ProtoVersion,
		Scenario: cfg.Scenario.Name, Seed: cfg.Seed, Error: err.Error(),
		Drops: map[string]int{}, Faults: map[string]int{}, Counters: map[string]map[string]CounterPair{},
		Stalls: map[string]Stalls{}, Links: []scoreboard.StreamCounts{}, Models: map[string]ModelInfo{},
	}
	if cfg.Scenario != nil {
		s.ClockMHz = cfg.Scenario.ClockMHz
	}
	if werr := WriteSummary(cfg.OutDir, s); werr != nil {
		return s, errors.Join(err, werr)
	}
	return s, err
}

// WriteSummary writes s as dir/summary.json (also for what adds to a
// finished run's summary: a waveform rerun), whole or not at all: a full
// disk leaves no truncated summary for a tool to misread.
func WriteSummary(dir string, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "summary.json")
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("summary.json not written: %w", err)
	}
	return os.Rename(tmp, path)
}

// Tally says in one line what failed: the scoreboard's counts, counter
// mismatches and workload failures.
func (s *Summary) Tally() string {
	return fmt.Sprintf("%d mismatched, %d missing, %d unexpected, %d counter mismatches, %d workload failures",
		s.Mismatched, s.Missing, s.Unexpected, s.CounterFails, len(s.Workload))
}

// CounterLines gives each model's non-zero DUT counters on one line,
// "model: name value ...", models and names in order, summed over ports
// and QPs ("port2.drop_tail[3]" counts into "drop_tail", "qp5.tx_packets"
// into "tx_packets"), with "!" after any sum that holds a counter unlike
// the golden model's; such a sum shows even when it is zero. A run's
// thousands of per-port and per-QP counters read at a glance this way;
// summary.json keeps every one of them.
func (s *Summary) CounterLines() []string {
	models := make([]string, 0, len(s.Counters))
	for m := range s.Counters {
		models = append(models, m)
	}
	sort.Strings(models)
	lines := make([]string, 0, len(models))
	for _, m := range models {
		total := map[string]uint64{}
		differ := map[string]bool{}
		for name, p := range s.Counters[m] {
			key := name
			if i := strings.IndexByte(name, '.'); i > 0 && (strings.HasPrefix(name, "port") || strings.HasPrefix(name, "qp")) {
				key = name[i+1:]
			}
			if i := strings.IndexByte(key, '['); i > 0 {
				key = key[:i]
			}
			total[key] += p.DUT
			differ[key] = differ[key] || p.DUT != p.Golden
		}
		names := make([]string, 0, len(total))
		for k, v := range total {
			if v != 0 || differ[k] {
				names = append(names, k)
			}
		}
		sort.Strings(names)
		var b strings.Builder
		b.WriteString(m + ":")
		for _, k := range names {
			mark := ""
			if differ[k] {
				mark = "!"
			}
			fmt.Fprintf(&b, " %s %d%s", k, total[k], mark)
		}
		lines = append(lines, b.String())
	}
	return lines
}

// csrReadCycles is what the counter readout allows per CSR read; tops
// document their read latency next to their CSR map.
const csrReadCycles = 8

// compareCounters reads every DUT counter through the CSR path and
// compares it with the golden model's.
func (r *run) compareCounters(ctx context.Context) error {
	// The reads go over the CSR bus during one window: give them room
	// (sim/README.md bounds a read at 1024 cycles).
	most := 0
	for _, n := range r.nodes {
		most = max(most, len(n.top.Counters))
	}
	target := r.cycle + uint64(most)*csrReadCycles + 16
	defer func() { r.cycle = target }()
	return r.parallel(func(n *node) error {
		names := make([]string, 0, len(n.top.Counters))
		for name := range n.top.Counters {
			names = append(names, name)
		}
		sort.Strings(names)
		w := cosim.Window{Target: target}
		for _, name := range names {
			w.CSRReads = append(w.CSRReads, n.top.Counters[name])
		}
		rep, err := n.m.Step(ctx, w)
		if err != nil {
			return err
		}
		want := n.golden.Counters()
		pairs := map[string]CounterPair{}
		for i, name := range names {
			p := CounterPair{DUT: uint64(rep.CSRData[i].Data), Golden: want[name] & 0xFFFFFFFF}
			pairs[name] = p
		}
		r.setCounters(n.name, pairs)
		return nil
	})
}

func (r *run) setCounters(model string, p map[string]CounterPair) {
	r.ctrMu.Lock()
	defer r.ctrMu.Unlock()
	r.ctrs[model] = p
}

// finishWorkloads lets every workload check its end state once the models
// drained: it may read them back (host memory).
func (r *run) finishWorkloads(ctx context.Context) error {
	if len(r.workloads) == 0 {
		return nil
	}
	models := make(map[string]*cosim.Model, len(r.nodes))
	for _, n := range r.nodes {
		models[n.name] = n.m
	}
	for _, w := range r.workloads {
		fails, err := w.Finish(ctx, r.cycle, models)
		if err != nil {
			return err
		}
		r.workFails = append(r.workFails, fails...)
	}
	return nil
}

// summary is summary.json, and the report of every counter and workload
// failure.
func (r *run) summary(wall time.Duration, runErr error) *Summary {
	c := r.sb.Counts()
	s := &Summary{
		Format: SummaryFormat, Protocol: cosim.ProtoVersion,
		Scenario: r.sc.Name, Seed: r.cfg.Seed, Cycles: r.cycle, WallSeconds: wall.Seconds(),
		Windows: r.windows, FramesIn: r.in, FramesOut: c.Observed, Matched: c.Matched,
		Mismatched: c.Mismatched, Missing: c.Missing, Unexpected: c.Unexpected,
		Drops: r.drops, Faults: r.faults, Counters: r.ctrs, Stuck: r.stuck,
		Stalls: map[string]Stalls{},
	}
	s.Models = map[string]ModelInfo{}
	for _, n := range r.nodes {
		s.Stalls[n.name] = n.stalls
		s.Models[n.name] = ModelInfo{Top: n.spec.Top, DataWidth: n.width, InPorts: n.top.In, OutPorts: n.top.Out}
		if f, ok := n.golden.(Figurer); ok {
			fig := map[string]uint64{}
			f.Figures(func(name string, v uint64) { fig[name] = v })
			if s.Figures == nil {
				s.Figures = map[string]map[string]uint64{}
			}
			s.Figures[n.name] = fig
		}
		if e, ok := n.golden.(Eventer); ok {
			ev := map[string]uint64{}
			e.Events(func(name string, count uint64) { ev[name] += count })
			if s.Events == nil {
				s.Events = map[string]map[string]uint64{}
			}
			s.Events[n.name] = ev
		}
	}
	r.tapStats(s)
	if wall > 0 {
		s.CyclesPerSec = float64(r.cycle) / wall.Seconds()
	}
	for _, n := range r.nodes {
		names := make([]string, 0, len(r.ctrs[n.name]))
		for name := range r.ctrs[n.name] {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if p := r.ctrs[n.name][name]; p.DUT != p.Golden {
				s.CounterFails++
				fmt.Fprintf(r.cfg.Report, "COUNTER MISMATCH run=%s seed=%d counter=%s.%s want %d got %d\n",
					r.sc.Name, r.cfg.Seed, n.name, name, p.Golden, p.DUT)
			}
		}
	}
	if runErr != nil {
		s.Error = runErr.Error()
	}
	s.Workload = r.workFails
	for _, w := range r.workloads {
		s.Workloads = append(s.Workloads, w.Name())
		if f, ok := w.(Flows); ok {
			s.Flows = append(s.Flows, f.Flows()...)
		}
		if l, ok := w.(Latencies); ok {
			if st := latencyStats(l.Latencies()); st != nil {
				if s.CompletionLatency == nil {
					s.CompletionLatency = map[string]*LatencyStats{}
				}
				s.CompletionLatency[w.Name()] = st
			}
		}
	}
	goodput(s.Flows, r.sc.ClockMHz*1e6)
	s.ClockMHz, s.Links, s.Problems = r.sc.ClockMHz, r.sb.Streams(), r.sb.Problems()
	// after closeModels: the models have written them
	s.RTLCoverage = r.coverageFiles()
	if r.check != nil { // the checker has ended: its series are the run's
		s.Series = r.check.series.result()
	}
	for _, f := range s.Workload {
		fmt.Fprintf(r.cfg.Report, "WORKLOAD FAILURE run=%s seed=%d %s\n", r.sc.Name, r.cfg.Seed, f)
	}
	s.Waited = Waits{Models: r.waitModels.Seconds(), Hosts: r.waitHosts.Seconds()}
	if r.check != nil { // nil when the run stopped before it (a capture not created)
		s.Waited.Checking = r.check.waited.Seconds()
	}
	for _, src := range r.sources {
		s.Waited.Stimulus += src.waited.Seconds()
	}
	s.Pass = runErr == nil && c.Pass() && s.CounterFails == 0 && s.Stuck == 0 && len(s.Workload) == 0
	return s
}

// finish closes the pcapng and writes summary.json; both happen on failed
// runs too, so a failure can be studied.
func (r *run) finish(s *Summary) error {
	var errs, bad []error
	for _, w := range r.pcaps {
		if err := w.Close(); err != nil {
			bad = append(bad, err)
		}
	}
	if len(bad) > 0 {
		// One cause (a full disk) fails them all: said once.
		errs = append(errs, fmt.Errorf("%d of %d captures not written in full; the first: %w", len(bad), len(r.pcaps), bad[0]))
	}
	errs = append(errs, WriteSummary(r.cfg.OutDir, s))
	errs = append(errs, r.sb.Errors()...)
	return errors.Join(errs...)
}
