// Package engine runs a scenario: it starts the Verilated models, steps them
// in parallel in windows no longer than the smallest link latency, moves
// stamped frames between sources, links and models, feeds every frame a DUT
// accepted to its golden model, and checks every frame a DUT emitted on the
// scoreboard. It writes a pcapng per link (sources and unlinked outputs
// count as links) and summary.json. Taps (tap.go) put live TAP devices,
// or recordings of them, on model ports.
package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/harness/internal/fifo"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// Config is one run.
type Config struct {
	Scenario *scenario.Scenario
	Seed     uint64
	OutDir   string    // summary.json, a pcapng per link, mismatch files, traces
	ModelDir string    // where sim/build.mk puts models: <ModelDir>/<top>_<width>/V<module>
	Trace    bool      // FST trace of every model into OutDir
	Report   io.Writer // mismatch reports and the summary
	Progress io.Writer // live progress; nil for none (not a terminal)
	Timeouts cosim.Timeouts
	// MaxWindow bounds a window when no link constrains it.
	MaxWindow uint64
	// MaxWindowFrames bounds the source frames a window takes in, over
	// all sources (default 1024): a window ends early, before the frame
	// that would exceed it. Every window costs the model and the harness
	// some work of its own, but a model holds a window's frames queued at
	// its inputs until they go in, and the simulation slows down as they
	// leave the CPU's caches: the switch at 64 bits with 64-byte frames
	// spent 1.28 s simulating what its own loop (a few frames queued per
	// port) simulates in 0.95 s when windows took 16384 frames, 0.76 s at
	// 2048. HarnessVsRaw at 1024 against 65536: switch4_64/64B 0.97 of the
	// model's own speed instead of 0.57-0.69, switch4_512/64B 0.62
	// instead of 0.27; 1500-byte frames did not move beyond the noise.
	MaxWindowFrames int
	// MaxWindowBytes bounds the bytes of those frames in the same way
	// (default 4 MiB): 65536 cycles of full-size frames at 512 bits are
	// 16 MiB.
	MaxWindowBytes int
	// NoLinkPcaps writes no pcapng per link, source and output, for long
	// campaigns: mismatch files are still written. Captures of every frame
	// take gigabytes over millions of frames and, at 512 bits, much of a
	// run's CPU (writing them took a third of the Go side's in
	// HarnessVsRaw at 1500 bytes).
	NoLinkPcaps bool
	// Taps are the far ends of the scenario's [[tap]] tables, by name
	// (tap.go): live devices or recordings.
	Taps map[string]TapEnd
	// Live, when set, makes the run wait for live tap frames whenever
	// nothing is in flight, and step short windows otherwise: LiveWindow
	// cycles, up to LiveMaxWindow while frames enter or queue up (tap.go;
	// 0 for the defaults). It ends once Live is over and all drained.
	Live          Live
	LiveWindow    uint64
	LiveMaxWindow uint64
	// Status, when set, hears the run's counts after every window.
	Status func(Status)
	// Started, when set, hears the process id of every model the run
	// started (a remote model has none), once all of them answered the
	// handshake: a live session tunes their scheduling (bridge.Boost).
	Started func(pids map[string]int)
	// NoPipeline steps the models in lock step, one window at a time,
	// even in open loop (for tests and studies; the results are the
	// same). See run.ahead.
	NoPipeline bool
}

// Summary is summary.json.
type Summary struct {
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
	// Waited is what the run loop waited for: the largest share says
	// what bounds the run's speed.
	Waited Waits  `json:"waited"`
	Error  string `json:"error,omitempty"`
	Pass   bool   `json:"pass"`
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

// node is one model in the run.
type node struct {
	name   string
	spec   scenario.Model // as the scenario wrote it
	top    Top
	width  int
	m      *cosim.Model
	golden Golden
	sent   []fifo.Queue[cosim.Frame] // per input port: frames sent, not yet accepted
	window cosim.Window
	reply  cosim.Reply
	busy   bool
	queued uint32
	stalls Stalls      // as of the last reply (the model counts cumulatively)
	sinks  map[int]int // output port -> pcap interface, for unlinked outputs
	// inNames names the input ports ("icrc.in0") once, for the cause of
	// every expected frame.
	inNames []string
	// goldenCause is the cause of the frames the golden model emits on
	// its own ("golden sw"), made once rather than for every frame.
	goldenCause string
	links       map[int]*link
	// config holds the scenario's CSR settings, written in the first
	// window (one per cycle from cycle 0).
	config []cosim.CSR
	taps   map[int]tapOut // output port -> the tap it feeds
	// A NIC in an [[rdma]] workload: its side there, and its host memory's
	// first contents, written in the first window.
	rdma    *rdma
	side    int
	memInit []cosim.Mem
}

// Run runs the scenario to completion and returns its summary. The error
// is non-nil when the run could not complete (a model died, hung or broke
// the protocol) or could not start (a model binary missing, a
// *ScenarioError); a run that completed with failed checks returns a
// Summary with Pass false and a nil error. summary.json is written in
// every case but one: an output directory that cannot be made, when Run
// returns a nil Summary.
func Run(ctx context.Context, cfg Config) (*Summary, error) {
	if err := os.MkdirAll(cfg.OutDir, 0o755); err != nil {
		return nil, err
	}
	r, err := newRun(cfg)
	if err != nil {
		return notStarted(cfg, err)
	}
	start := time.Now()
	runErr := r.loop(ctx)
	if r.check != nil {
		// Everything the models said is checked before anything is judged.
		if err := r.check.close(); err != nil && runErr == nil {
			runErr = err
		}
	}
	if runErr == nil {
		runErr = r.compareCounters(ctx)
	}
	if runErr == nil {
		runErr = r.checkMemory(ctx)
	}
	r.sb.Drain(r.cycle)
	r.closeModels()
	for _, s := range r.sources {
		s.release()
	}
	s := r.summary(time.Since(start), runErr)
	if err := r.finish(s); err != nil && runErr == nil {
		runErr = err
	}
	return s, runErr
}

// ScenarioError is a scenario that parsed but cannot run as written: it
// names an RTL top nobody registered or a port its top lacks, or its
// traffic cannot be built (a capture that cannot be read). It is a bad
// input, unlike a run that fails.
type ScenarioError struct {
	Err error
}

func (e *ScenarioError) Error() string { return e.Err.Error() }
func (e *ScenarioError) Unwrap() error { return e.Err }

// notStarted reports a run that failed before any model started: like a
// failed run, it leaves summary.json (seed, error, pass false) behind.
func notStarted(cfg Config, err error) (*Summary, error) {
	s := &Summary{
		Scenario: cfg.Scenario.Name, Seed: cfg.Seed, Error: err.Error(),
		Drops: map[string]int{}, Faults: map[string]int{}, Counters: map[string]map[string]CounterPair{},
		Stalls: map[string]Stalls{},
	}
	if werr := writeSummary(cfg.OutDir, s); werr != nil {
		return s, errors.Join(err, werr)
	}
	return s, err
}

func writeSummary(dir string, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "summary.json"), append(b, '\n'), 0o644)
}

type run struct {
	cfg     Config
	sc      *scenario.Scenario
	nodes   []*node
	byName  map[string]*node
	links   []*link
	sources []*source
	taps    []*tapPort
	backlog bool // live frames were still waiting after the last window took its share
	// pausers: the sources that honour the PFC frames leaving an output
	// port, and how late those frames reach them.
	pausers map[portRef][]pauser
	sb      *scoreboard.Scoreboard
	check   *checker             // owns sb, the golden models and pcaps while the loop runs
	pcaps   []*pcapio.LinkWriter // one per source, link and unlinked output
	srcPcap map[*source]int
	cycle   uint64 // the end of the last window whose replies are routed
	windows int
	// Pipelined windows (run.ahead, run.liveAhead): front is the end of
	// the last window sent, where the next one starts (cycle, unless a
	// window is in flight); sentWindows counts the windows sent; batch
	// holds the checker jobs not submitted yet.
	pipe        bool
	livePipe    bool
	front       uint64
	sentWindows int
	batch       []job
	// lastProgress is the end of the last window in which a model accepted
	// or emitted a frame, or a source still had frames to give, or the
	// cycle at which the run was last quiet.
	lastProgress uint64
	in           int
	stuck        int
	drops        map[string]int
	faults       map[string]int
	ctrMu        sync.Mutex // guards ctrs, which models fill in parallel
	ctrs         map[string]map[string]CounterPair
	rdmas        []*rdma
	memFails     []string // DUT memory unlike golden's (checkMemory)
	// waitModels and waitHosts: the loop's waits for the models and for
	// live hosts (Summary.Waited).
	waitModels, waitHosts time.Duration
}

func newRun(cfg Config) (_ *run, err error) {
	sc := cfg.Scenario
	if cfg.MaxWindow == 0 {
		cfg.MaxWindow = 1 << 16
	}
	if cfg.MaxWindowFrames <= 0 {
		cfg.MaxWindowFrames = 1 << 10
	}
	if cfg.MaxWindowBytes <= 0 {
		cfg.MaxWindowBytes = 4 << 20
	}
	if cfg.Report == nil {
		cfg.Report = io.Discard
	}
	r := &run{cfg: cfg, sc: sc, byName: map[string]*node{}, srcPcap: map[*source]int{},
		drops: map[string]int{}, faults: map[string]int{}, ctrs: map[string]map[string]CounterPair{}}
	r.sb = scoreboard.New(scoreboard.Config{Run: sc.Name, Seed: cfg.Seed, Dir: cfg.OutDir, Report: cfg.Report})
	for _, m := range sc.Models {
		top, err := LookupTop(m.Top)
		if err != nil {
			return nil, &ScenarioError{fmt.Errorf("%s: model %s: %w", sc.File, m.Name, err)}
		}
		if path := ModelPath(cfg.ModelDir, top, m.DataWidth); m.Remote == "" {
			if _, err := os.Stat(path); err != nil {
				return nil, fmt.Errorf("model %s: no binary for top %s at %d bits (%s): build the models first (make build)", m.Name, top.Name, m.DataWidth, path)
			}
		}
		env := GoldenEnv{Seed: backpressureSeed(cfg.Seed, m.Name), SinkStallPct: uint32(m.SinkStallPct),
			DataWidth: m.DataWidth, Params: m.Params}
		n := &node{name: m.Name, spec: m, top: top, width: m.DataWidth, golden: top.Golden(env),
			sent: make([]fifo.Queue[cosim.Frame], top.In), sinks: map[int]int{}, links: map[int]*link{}}
		for p := range top.In {
			n.inNames = append(n.inNames, portRef{m.Name, p}.in())
		}
		n.goldenCause = "golden " + m.Name
		if n.config, err = configWrites(sc.File, m, top); err != nil {
			return nil, err
		}
		if g, ok := n.golden.(CSRGolden); ok {
			for i, w := range n.config {
				g.CSRWrite(w.Addr, w.Data, uint64(i))
			}
		}
		r.nodes = append(r.nodes, n)
		r.byName[m.Name] = n
	}
	for _, l := range sc.Links {
		lk := newLink(l, sc, cfg.Seed)
		if err := r.checkPort(lk.from, false); err != nil {
			return nil, err
		}
		if err := r.checkPort(lk.to, true); err != nil {
			return nil, err
		}
		if r.byName[lk.from.model].links[lk.from.port] != nil {
			return nil, &ScenarioError{fmt.Errorf("%s: %s feeds two links", sc.File, lk.from.out())}
		}
		r.byName[lk.from.model].links[lk.from.port] = lk
		r.links = append(r.links, lk)
	}
	srcs, srcErrs := r.makeSources()
	defer func() {
		if err != nil { // a run that never starts closes its captures here
			for _, s := range srcs {
				if s != nil {
					s.release()
				}
			}
		}
	}()
	for i, t := range sc.Traffic {
		model, port := sc.Port(t.To)
		if err := r.checkPort(portRef{model, port}, true); err != nil {
			return nil, err
		}
		s, err := srcs[i], srcErrs[i]
		if err != nil {
			return nil, &ScenarioError{fmt.Errorf("%s: traffic[%d]: %w", sc.File, i, err)}
		}
		r.sources = append(r.sources, s)
		if t.PauseFrom != "" {
			pm, pp := sc.Port(t.PauseFrom)
			from := portRef{pm, pp}
			if err := r.checkPort(from, false); err != nil {
				return nil, err
			}
			if r.pausers == nil {
				r.pausers = map[portRef][]pauser{}
			}
			r.pausers[from] = append(r.pausers[from], pauser{s, t.PauseLatency})
		}
	}
	if err := r.addTaps(); err != nil {
		return nil, err
	}
	if err := r.addRDMA(); err != nil {
		return nil, err
	}
	return r, nil
}

// makeSources builds the source of every [[traffic]] entry whose port
// exists, in parallel: opening a large capture checks its framing, and
// every source is its own (its own file, its own random stream). newRun
// reports the errors in the scenario's order.
func (r *run) makeSources() ([]*source, []error) {
	sc := r.sc
	srcs, errs := make([]*source, len(sc.Traffic)), make([]error, len(sc.Traffic))
	var wg sync.WaitGroup
	for i, t := range sc.Traffic {
		model, port := sc.Port(t.To)
		if r.checkPort(portRef{model, port}, true) != nil {
			continue // newRun reports it
		}
		n := r.byName[model]
		wg.Add(1)
		go func() {
			defer wg.Done()
			srcs[i], errs[i] = newSource(i, t, sc, n.width, n.top.In, r.cfg.Seed)
		}()
	}
	wg.Wait()
	return srcs, errs
}

// pauser is a source that honours PFC frames, latency cycles after their
// last beat left the model.
type pauser struct {
	s       *source
	latency uint64
}

// pfcFrame decodes an 802.1Qbb PFC frame: the priorities it names and
// their pause times (PROTOCOL-NOTES 7).
func pfcFrame(f []byte) (enable uint8, times [8]uint16, ok bool) {
	if len(f) < 34 || f[0] != 0x01 || f[1] != 0x80 || f[2] != 0xC2 || f[3] != 0 || f[4] != 0 || f[5] != 0x01 ||
		f[12] != 0x88 || f[13] != 0x08 || f[14] != 0x01 || f[15] != 0x01 {
		return 0, times, false
	}
	for p := range 8 {
		times[p] = uint16(f[18+2*p])<<8 | uint16(f[19+2*p])
	}
	return f[17], times, true
}

func (r *run) checkPort(p portRef, in bool) error {
	n := r.byName[p.model]
	limit, dir := n.top.Out, "out"
	if in {
		limit, dir = n.top.In, "in"
	}
	if p.port >= limit {
		return &ScenarioError{fmt.Errorf("%s: %s.%s%d: top %s has %d %sput ports", r.sc.File, p.model, dir, p.port, n.top.Name, limit, dir)}
	}
	return nil
}

// PcapName is the file a link's frames go to: "icrc.out0->icrc.in1" is
// written to icrc.out0--icrc.in1.pcapng.
func PcapName(link string) string { return strings.ReplaceAll(link, "->", "--") + ".pcapng" }

// ModelName is sim/build.mk's name for the model of a top at a data width.
func ModelName(top Top, width int) string { return fmt.Sprintf("%s_%d", top.Name, width) }

// ModelPath is where sim/build.mk puts the binary of a top at a data width.
func ModelPath(dir string, top Top, width int) string {
	return filepath.Join(dir, ModelName(top, width), "V"+top.Module)
}

// start launches and handshakes every model, in parallel, and opens one
// pcapng per link, source and unlinked output.
func (r *run) start(ctx context.Context) error {
	var names []string
	for _, s := range r.sources {
		names = append(names, fmt.Sprintf("%s->%s", s.name, portRef{s.model, s.port}.in()))
	}
	for _, l := range r.links {
		names = append(names, l.name)
	}
	for _, n := range r.nodes {
		for p := 0; p < n.top.Out; p++ {
			if n.links[p] == nil {
				names = append(names, n.sinkName(p))
			}
		}
	}
	for _, tp := range r.taps {
		if tp.hasIn {
			names = append(names, tp.name+"->"+tp.in.in())
		}
	}
	if len(names) > math.MaxUint16 { // jobs number the files in 16 bits
		return fmt.Errorf("%s: %d links, sources and outputs to capture: at most %d", r.sc.File, len(names), math.MaxUint16)
	}
	ifaces := make([]int, len(names))
	for i, nm := range names {
		if r.cfg.NoLinkPcaps {
			continue // the checker drops the frames' record jobs
		}
		w, err := pcapio.CreateLinkFile(filepath.Join(r.cfg.OutDir, PcapName(nm)), nm, pcapio.LinkWriterOptions{
			ClockPeriodPS:  uint64(1e6/r.sc.ClockMHz + 0.5),
			SectionComment: fmt.Sprintf("scenario=%s seed=%d link=%s", r.sc.Name, r.cfg.Seed, nm),
		})
		if err != nil {
			return err
		}
		ifaces[i] = len(r.pcaps)
		r.pcaps = append(r.pcaps, w)
	}
	r.check = newChecker(r.sb, r.pcaps)
	k := 0
	for _, s := range r.sources {
		r.srcPcap[s] = ifaces[k]
		k++
	}
	for _, l := range r.links {
		l.pcap = ifaces[k]
		k++
	}
	for _, n := range r.nodes {
		for p := 0; p < n.top.Out; p++ {
			if n.links[p] == nil {
				n.sinks[p] = ifaces[k]
				k++
			}
		}
	}
	for _, tp := range r.taps {
		if tp.hasIn {
			tp.pcap = ifaces[k]
			k++
		}
	}
	return r.parallel(func(n *node) error {
		var mod *cosim.Model
		var err error
		if remote := n.spec.Remote; remote != "" {
			mod, err = cosim.Dial(ctx, n.name, "tcp", remote)
			if err == nil {
				mod.SetTimeouts(r.cfg.Timeouts)
			}
		} else {
			mod, err = cosim.Start(ctx, r.modelConfig(n))
		}
		if err != nil {
			return err
		}
		n.m = mod
		ack := cosim.HelloAck{Seed: backpressureSeed(r.cfg.Seed, n.name),
			SrcGapPct: uint16(n.spec.SrcGapPct), SinkStallPct: uint16(n.spec.SinkStallPct)}
		if r.cfg.Trace {
			ack.Trace, ack.TracePath = true, filepath.Join(r.cfg.OutDir, n.name+".fst")
		}
		h, err := mod.Handshake(ctx, ack)
		if err != nil {
			return err
		}
		if int(h.DataWidth) != n.width || int(h.InPorts) != n.top.In || int(h.OutPorts) != n.top.Out {
			return fmt.Errorf("model %s: the binary reports data width %d and %d/%d ports; the scenario wants %d bits and top %s has %d/%d",
				n.name, h.DataWidth, h.InPorts, h.OutPorts, n.width, n.top.Name, n.top.In, n.top.Out)
		}
		return nil
	})
}

// sinkName names the pcapng of an output that feeds no link: "sw.out0->h1"
// for one attached to tap h1, else "sw.out0->sink".
func (n *node) sinkName(p int) string {
	if t, ok := n.taps[p]; ok {
		return portRef{n.name, p}.out() + "->" + t.name
	}
	return portRef{n.name, p}.out() + "->sink"
}

func (r *run) modelConfig(n *node) cosim.Config {
	path := ModelPath(r.cfg.ModelDir, n.top, n.width)
	return cosim.Config{Name: n.name, Path: path, Timeouts: r.cfg.Timeouts, SharedMemory: true}
}

// backpressureSeed is the seed of a model's source gaps and sink stalls:
// the run seed mixed with the model's name.
func backpressureSeed(seed uint64, name string) uint64 { return seed ^ hashName(name) }

func hashName(s string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// parallel runs f on every node at once and returns the first error in
// node order, so reports do not depend on scheduling.
func (r *run) parallel(f func(*node) error) error {
	if len(r.nodes) == 1 {
		// One model: no goroutine to start and wake, which costs a live
		// run's short windows about as much as the model's work.
		return f(r.nodes[0])
	}
	var wg sync.WaitGroup
	errs := make([]error, len(r.nodes))
	for i, n := range r.nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(n)
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// timedParallel is parallel for a window's exchange with the models,
// whose wall time it adds to the run's wait for them.
func (r *run) timedParallel(f func(*node) error) error {
	t := time.Now()
	err := r.parallel(f)
	r.waitModels += time.Since(t)
	return err
}

// loop runs windows until every source is exhausted, nothing is in flight
// and every expected frame came out, or until a limit.
func (r *run) loop(ctx context.Context) error {
	if err := r.start(ctx); err != nil {
		return err
	}
	if r.cfg.Started != nil {
		pids := map[string]int{}
		for _, n := range r.nodes {
			if n.spec.Remote == "" {
				pids[n.name] = n.m.Pid()
			}
		}
		r.cfg.Started(pids)
	}
	lookahead := r.cfg.MaxWindow
	for _, l := range r.links {
		lookahead = min(lookahead, l.latency)
	}
	for _, ps := range r.pausers {
		for _, p := range ps {
			lookahead = min(lookahead, p.latency) // a pause must not reach back into a window already run
		}
	}
	for _, x := range r.rdmas {
		lookahead = min(lookahead, x.hostLatency) // nor a host's reaction to a completion
	}
	progress := newProgress(r.cfg.Progress)
	// Pipelining needs windows whose sources do not hear back from the
	// models: no live taps, no PFC pausers, no RDMA hosts.
	r.pipe = !r.cfg.NoPipeline && r.cfg.Live == nil && len(r.taps) == 0 && len(r.pausers) == 0 && len(r.rdmas) == 0
	// Live windows are pipelined too (liveAhead), with the same limits.
	r.livePipe = !r.cfg.NoPipeline && r.cfg.Live != nil && len(r.pausers) == 0 && len(r.rdmas) == 0
	// woke: the run was quiet and a live frame just came; nothing ran
	// since, so it still is, and asking the checker again would only
	// delay the frame.
	woke := false
	// Once every source is done, what is left is the models emptying
	// their queues: windows grow from drainWindow, so that the run stops
	// soon after the last frame instead of up to a lookahead later.
	drain := uint64(drainWindow)
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("run interrupted at cycle %d: %w", r.cycle, err)
		}
		if err := r.sourceErr(); err != nil {
			return err
		}
		quiet := woke || r.quiet()
		woke = false
		if quiet {
			// Nothing in flight and nothing expected: no stall, however
			// long a live session's idle windows (keep-warm) ran.
			r.lastProgress = r.cycle
		}
		nextSrc, more := r.nextSource()
		waiting := r.cfg.Live != nil && r.cfg.Live.Ready()
		if quiet && !more && !waiting {
			woken := false
			if r.cfg.Live != nil {
				t := time.Now()
				woken = r.cfg.Live.Wait(ctx)
				r.waitHosts += time.Since(t)
			}
			if !woken {
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("run interrupted at cycle %d: %w", r.cycle, err)
				}
				return r.sourceErr() // drained, unless a source broke off
			}
			woke = true
			continue // a live frame came: take it in the next window
		}
		if r.cycle >= r.sc.Cycles {
			return fmt.Errorf("stopped at the scenario's limit of %d cycles with work left (raise cycles)", r.sc.Cycles)
		}
		if r.cycle > r.lastProgress+r.sc.DrainCap {
			return fmt.Errorf("stalled: no frame accepted or emitted for %d cycles (since cycle %d) with work left: the DUT holds frames, or the golden model expects frames that never came (raise drain to wait longer)", r.sc.DrainCap, r.lastProgress)
		}
		end := r.cycle + lookahead
		limit := end
		if r.cfg.Live != nil {
			end, limit = r.liveWindow(lookahead)
		}
		if quiet && nextSrc > r.cycle && !waiting {
			// Nothing in flight and every DUT idle: nothing can leave a
			// model before the next source frame arrives.
			end = nextSrc + lookahead
		}
		if r.cfg.Live == nil {
			end = r.clampDrain(r.cycle, r.capFrames(end))
			if !more {
				end, drain = min(end, r.cycle+drain), min(2*drain, lookahead)
			}
		}
		limit = max(limit, end)
		end, limit = min(end, r.sc.Cycles), min(limit, r.sc.Cycles)
		if !r.pipe && !r.livePipe {
			if err := r.step(ctx, end, limit); err != nil {
				return err
			}
			progress.update(r)
			r.status()
			continue
		}
		// Open loop, or live: while the models run a window, the next one
		// is on its way whenever its shape cannot depend on the replies,
		// and the replies are routed while the models run it. Live runs
		// keep up to liveDepth windows in flight, open loop openDepth.
		w, err := r.send(ctx, end, limit)
		if err != nil {
			return err
		}
		depth := openDepth
		if r.livePipe {
			depth = liveDepth
		}
		flight := []*window{w} // oldest first
		for len(flight) > 0 {
			for len(flight) < depth {
				last := flight[len(flight)-1]
				var e, l uint64
				var ok bool
				if r.pipe {
					e, ok = r.ahead(ctx, flight[0], last, lookahead)
					l = e
				} else {
					e, l, ok = r.liveAhead(ctx, flight[0], last, lookahead)
				}
				if !ok {
					break
				}
				next, err := r.send(ctx, e, l)
				if err != nil {
					return err
				}
				sentAhead.Add(1)
				if len(flight) > 1 {
					sentDeep.Add(1)
				}
				flight = append(flight, next)
			}
			if err := r.recv(ctx, flight[0]); err != nil {
				return err
			}
			flight = flight[1:]
			progress.update(r)
			r.status()
		}
	}
}

// sourceErr reports a source whose stream broke off (a capture that turns
// out damaged past its start) as the scenario's fault, like one that
// cannot be opened at all.
func (r *run) sourceErr() error {
	for i, s := range r.sources {
		if s.err != nil {
			return &ScenarioError{fmt.Errorf("%s: traffic[%d]: %w", r.sc.File, i, s.err)}
		}
	}
	return nil
}

// drainWindow is how far a window goes past the last source frame, in
// cycles; the windows after it double up to the lookahead.
const drainWindow = 1024

// clampDrain ends a window that starts at start and takes the last frame
// of every source at most drainWindow cycles after that frame. Only open
// loop sources count: a paused, tap or RDMA source may send later.
func (r *run) clampDrain(start, end uint64) uint64 {
	if len(r.taps) > 0 || len(r.rdmas) > 0 {
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

// quiet reports whether nothing is in flight: no frame on a link, no input
// queued in a model, no model busy, no expected frame outstanding.
func (r *run) quiet() bool {
	for _, l := range r.links {
		if l.pending() > 0 {
			return false
		}
	}
	for _, x := range r.rdmas {
		if x.outstanding() > 0 {
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

func (r *run) nextSource() (uint64, bool) {
	next, more := r.nextTap()
	for _, s := range r.sources {
		if c, ok := s.nextCycle(); ok && (!more || c < next) {
			next, more = c, true
		}
	}
	for _, x := range r.rdmas {
		if c, ok := x.nextPost(); ok && (!more || c < next) {
			next, more = c, true
		}
	}
	return next, more
}

// sentAhead counts the windows sent before the replies to the one before
// them were in, sentDeep those sent while two or more were in flight,
// over every run of the process (for tests).
var sentAhead, sentDeep atomic.Uint64

// openDepth is how many windows an open-loop run keeps in flight. With
// four instead of two, BenchmarkHarnessVsRaw/switch4_512 checked 9 to 12 %
// more frames a second (three alternating pairs, each faster at 64 and at
// 1500 bytes): the model less often waits for the next window while Go
// checks the last.
const openDepth = 4

// liveDepth is how many windows a live run keeps in flight while host
// frames wait. With two, the model process idled whenever the run loop
// was late with the next window (a TAP write, the scheduler); with three
// it has one more in hand. make tap-demo on 2 CPUs, 16 alternating
// pairs: 11 faster, mean 1115 Mbit/s against 1014. Five, once the model
// stream went through shared memory (which freed CPU that then went
// idle): 7 comparisons with three, 6 faster and one equal, mean 1284
// Mbit/s against 1156; four, six and eight did no better than five.
const liveDepth = 5

// window is one window of the run: sent to every model, then its replies
// routed.
type window struct {
	start, end uint64
	// more: a source had frames left after this window's (for the stall
	// check, as of when the window was built).
	more bool
}

// step runs one window [r.cycle, end) on every model in lock step; a live
// run may stretch it up to limit to let the tap frames it takes get
// through.
func (r *run) step(ctx context.Context, end, limit uint64) error {
	w := r.build(end, limit)
	err := r.timedParallel(func(n *node) error {
		return n.m.StepInto(ctx, n.window, &n.reply)
	})
	if err != nil {
		return err
	}
	r.record()
	return r.routeReplies(w)
}

// send builds the next window and sends it to every model without waiting
// for the replies (recv reads them).
func (r *run) send(ctx context.Context, end, limit uint64) (*window, error) {
	w := r.build(end, limit)
	err := r.timedParallel(func(n *node) error {
		return n.m.Send(ctx, n.window)
	})
	if err != nil {
		return nil, err
	}
	r.record()
	return w, nil
}

// recv reads every model's reply to w, the oldest window in flight, and
// routes them.
func (r *run) recv(ctx context.Context, w *window) error {
	err := r.timedParallel(func(n *node) error {
		return n.m.Recv(ctx, &n.reply)
	})
	if err != nil {
		return err
	}
	return r.routeReplies(w)
}

// ahead decides whether the window after w, the last window in flight,
// can be sent before the replies to the windows in flight (oldest to w)
// are in, and where it ends. It can when its shape is already certain: in
// lock step the loop would not stop, not fail and not skip ahead after w,
// and nothing the models emit in the windows in flight can arrive in it.
//   - Sources are open loop (r.pipe) and have frames left.
//   - A frame emitted in oldest or later arrives a link latency after its
//     last beat, at oldest.start + latency or later: after the next
//     window's end.
//   - The loop skips ahead only when the run is quiet; it is not when a
//     link still carries a frame, or when a frame sent up to w cannot
//     have been taken by w's end (a port takes one beat a cycle), or
//     when the next source frame is due at w's end anyway.
//
// The windows are then the same as in lock step, and so is every result.
func (r *run) ahead(ctx context.Context, oldest, w *window, lookahead uint64) (uint64, bool) {
	if !w.more || w.end >= r.sc.Cycles || ctx.Err() != nil {
		return 0, false
	}
	end := min(r.clampDrain(w.end, r.capFrames(w.end+lookahead)), r.sc.Cycles)
	for _, l := range r.links {
		if l.latency < end-oldest.start {
			return 0, false
		}
	}
	if next, _ := r.nextSource(); next > w.end && !r.busyAfter(w) {
		return 0, false
	}
	return end, true
}

// liveAhead decides whether a live run sends its next window before the
// replies to the windows in flight (oldest to last) are in, and where it
// ends and how far it may stretch. It does while host frames wait: the
// window then starts where last ends and takes what waits, as it would
// after the replies (in lock step the loop takes the next window at once
// when a frame waits), and its shape depends only on the frames it takes
// (takeTaps), never on the replies. Nothing the models emit in a window
// in flight may arrive in it over a link, so no link may be shorter than
// the span from oldest's start to its limit; PFC pausers and RDMA hosts,
// which react to the replies, rule it out (run.livePipe).
func (r *run) liveAhead(ctx context.Context, oldest, last *window, lookahead uint64) (end, limit uint64, ok bool) {
	if last.end >= r.sc.Cycles || ctx.Err() != nil || !r.cfg.Live.Ready() {
		return 0, 0, false
	}
	end, limit = r.liveWindow(lookahead)
	end, limit = min(end, r.sc.Cycles), min(limit, r.sc.Cycles)
	for _, l := range r.links {
		if l.latency < limit-oldest.start {
			return 0, 0, false
		}
	}
	return end, limit, true
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

// busyAfter reports whether something is certainly still in flight when w
// ends, whatever its replies say: a frame on a link, or a frame sent to a
// model that it cannot have taken in full by then.
func (r *run) busyAfter(w *window) bool {
	for _, l := range r.links {
		if l.pending() > 0 {
			return true
		}
	}
	for _, n := range r.nodes {
		for p := range n.sent {
			q := n.sent[p].Items()
			if len(q) == 0 {
				continue
			}
			b := beats(len(q[len(q)-1].Data), n.width)
			if q[len(q)-1].Cycle+b-1 >= w.end {
				return true
			}
			// None of them was taken in full before w.start. Frame j's
			// last beat is at t_j or later: after its arrival's beats,
			// and after the frame before it.
			var t uint64
			for j, f := range q {
				b := beats(len(f.Data), n.width)
				if j == 0 {
					t = max(f.Cycle+b-1, w.start)
				} else {
					t = max(f.Cycle+b-1, t+b)
				}
				if t >= w.end {
					return true
				}
			}
		}
	}
	return false
}

// build fills every model's next window, [r.front, end), with its source,
// link and host frames; a live run may stretch it up to limit.
func (r *run) build(end, limit uint64) *window {
	start := r.front
	for _, n := range r.nodes {
		// The last window's frames are in n.sent by now: reuse the slice.
		n.window = cosim.Window{Frames: n.window.Frames[:0]}
		if r.sentWindows == 0 {
			n.window.CSRWrites = n.config
			n.window.MemWrites = n.memInit
		} else {
			n.window.MemWrites = nil
		}
	}
	batch := r.batch
	if batch == nil {
		batch = r.check.batch()
	}
	batch, end = r.takeTaps(end, limit, batch)
	for _, n := range r.nodes {
		n.window.Target = end
	}
	for _, s := range r.sources {
		n := r.byName[s.model]
		pcap := uint16(r.srcPcap[s])
		for _, f := range s.due(end) {
			n.window.Frames = append(n.window.Frames, cosim.Frame{Port: uint16(s.port), Cycle: max(f.cycle, start), Data: f.data, Bad: f.bad})
			batch = r.check.flush(append(batch, job{kind: jobRecord, pcap: pcap, cycle: f.cycle, data: f.data}))
		}
	}
	for _, l := range r.links {
		n := r.byName[l.to.model]
		n.window.Frames = l.deliver(end, n.window.Frames)
	}
	for _, n := range r.nodes {
		if n.rdma != nil {
			n.window.Frames = n.rdma.due(n.side, end, n.window.Frames)
		}
	}
	for _, n := range r.nodes {
		// Frames from several sources may share a port: keep arrival
		// order. With one source per port they usually come in order.
		if !slices.IsSortedFunc(n.window.Frames, byPortCycle) {
			slices.SortStableFunc(n.window.Frames, byPortCycle)
		}
	}
	r.batch = batch
	r.front = end
	_, more := r.nextSource()
	return &window{start: start, end: end, more: more}
}

// record notes what each model was given (Step and Send numbered the
// frames).
func (r *run) record() {
	r.sentWindows++
	for _, n := range r.nodes {
		for _, f := range n.window.Frames {
			n.sent[f.Port].Push(f)
			r.in++
		}
	}
}

// routeReplies routes every model's reply to w and hands the checker its
// jobs. The jobs of a window sent since (its source frames' records) may
// come first in the batch: they only go to the sources' own pcapng files,
// so what every file and the scoreboard see comes in the order of lock
// step.
func (r *run) routeReplies(w *window) error {
	r.windows++
	batch := r.batch
	for _, n := range r.nodes {
		if len(n.reply.Accepts) > 0 || len(n.reply.Frames) > 0 {
			r.lastProgress = w.end
		}
		var err error
		if batch, err = r.route(n, w.end, batch); err != nil {
			r.batch = batch
			return err
		}
	}
	r.check.submit(batch)
	r.batch = nil
	more := w.more
	if r.front == w.end {
		_, more = r.nextSource() // nothing sent since: ask now, as lock step always did
	}
	if more {
		r.lastProgress = w.end
	}
	r.cycle = w.end
	return nil
}

// byPortCycle orders a window's frames by port, then arrival.
func byPortCycle(a, b cosim.Frame) int {
	if a.Port != b.Port {
		return cmp.Compare(a.Port, b.Port)
	}
	return cmp.Compare(a.Cycle, b.Cycle)
}

// route takes a model's reply: it matches accepts to the frames sent, puts
// outputs on their links and queues everything for the checker.
func (r *run) route(n *node, end uint64, batch []job) ([]job, error) {
	rep := &n.reply
	n.busy, n.queued = rep.Done.Busy, rep.Done.FramesQueued
	n.stalls = Stalls{Source: rep.Done.SrcStalls, Sink: rep.Done.SinkStalls}
	for _, a := range rep.Accepts {
		q := &n.sent[a.Port]
		if q.Len() == 0 || q.Items()[0].Seq != a.Seq {
			return batch, fmt.Errorf("model %s accepted %s #%d, which is not the next frame sent there", n.name, portRef{n.name, int(a.Port)}.in(), a.Seq)
		}
		f := q.Pop()
		batch = r.check.flush(append(batch, job{kind: jobAccept, n: n, port: a.Port, seq: a.Seq, cycle: a.Cycle,
			last: a.LastCycle, data: f.Data, bad: f.Bad}))
	}
	batch = append(batch, job{kind: jobAdvance, n: n, cycle: end})
	for _, f := range rep.Frames {
		if ps := r.pausers[portRef{n.name, int(f.Port)}]; ps != nil {
			if enable, times, ok := pfcFrame(f.Data); ok {
				for _, p := range ps {
					p.s.pause(enable, times, f.LastCycle+p.latency)
				}
			}
		}
		if n.rdma != nil && f.Port == nic.PortCompletion {
			n.rdma.completion(n.side, f.Data, f.LastCycle) // the host reads it
		}
		batch = append(batch, job{kind: jobObserve, n: n, port: f.Port, cycle: f.Cycle, data: f.Data, bad: f.Bad})
		rec := job{kind: jobRecord, cycle: f.Cycle, data: f.Data}
		if l := n.links[int(f.Port)]; l != nil {
			fault, out := l.send(f.LastCycle, f.Data)
			rec.pcap = uint16(l.pcap)
			if fault&faultLost != 0 {
				r.drops["link_loss"]++
				rec.note = noteLost
			}
			if fault&faultCorrupted != 0 {
				r.faults["link_corrupt"]++
				rec.note, rec.data = noteCorrupted, out
			}
			if fault&faultDuplicated != 0 {
				r.faults["link_duplicate"]++
				rec.note = max(rec.note, noteDuplicated)
			}
			if fault&faultReordered != 0 {
				r.faults["link_reorder"]++
				rec.note = max(rec.note, noteReordered)
			}
			if fault&faultCorrupted != 0 && fault&(faultDuplicated|faultReordered) != 0 {
				rec.note = noteCorruptedDuplicated
				if fault&faultReordered != 0 {
					rec.note = noteCorruptedReordered
				}
			}
		} else {
			rec.pcap = uint16(n.sinks[int(f.Port)])
			if t, ok := n.taps[int(f.Port)]; ok {
				t.end.Deliver(f.Cycle, f.Data) // at once: a host is waiting for it
			}
		}
		batch = r.check.flush(append(batch, rec))
	}
	return batch, nil
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

func (r *run) closeModels() {
	for _, n := range r.nodes {
		if n.m != nil {
			n.m.Close()
		}
		for i := range n.sent {
			r.stuck += n.sent[i].Len()
		}
	}
}

func (r *run) summary(wall time.Duration, runErr error) *Summary {
	c := r.sb.Counts()
	s := &Summary{
		Scenario: r.sc.Name, Seed: r.cfg.Seed, Cycles: r.cycle, WallSeconds: wall.Seconds(),
		Windows: r.windows, FramesIn: r.in, FramesOut: c.Observed, Matched: c.Matched,
		Mismatched: c.Mismatched, Missing: c.Missing, Unexpected: c.Unexpected,
		Drops: r.drops, Faults: r.faults, Counters: r.ctrs, Stuck: r.stuck,
		Stalls: map[string]Stalls{},
	}
	for _, n := range r.nodes {
		s.Stalls[n.name] = n.stalls
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
	s.Workload = append(s.Workload, r.memFails...)
	for _, x := range r.rdmas {
		s.Workload = append(s.Workload, x.fails...)
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
	var errs []error
	for _, w := range r.pcaps {
		errs = append(errs, w.Close())
	}
	errs = append(errs, writeSummary(r.cfg.OutDir, s))
	errs = append(errs, r.sb.Errors()...)
	return errors.Join(errs...)
}
