package engine

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/internal/fifo"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// run is one run of a scenario: its topology, resolved once from the
// scenario, its checking, its clock and its tallies.
type run struct {
	cfg Config
	sc  *scenario.Scenario
	topology

	sb      *scoreboard.Scoreboard
	check   *checker             // owns sb, the golden models and pcaps while the loop runs
	pcaps   []*pcapio.LinkWriter // one per source, link and unlinked output
	srcPcap map[*source]int

	clock
	tally

	// window is the lookahead, pol how windows go to the models and
	// progress the status line (begin sets them).
	window   uint64
	pol      policy
	progress *progress
	// session: the run is a Session's, which sends frames and accesses
	// from outside.
	session bool
}

// topology is what the scenario resolved into: models, the links between
// their ports, and what feeds them. Everything points at its models, so
// no path looks a model up by name.
type topology struct {
	nodes     []*node
	byName    map[string]*node
	links     []*link
	sources   []*source
	taps      []*tapPort
	workloads []Workload
}

// clock is where the run loop stands.
type clock struct {
	cycle   uint64 // the end of the last window whose replies are routed
	windows int
	// front is the end of the last window sent, where the next one
	// starts (cycle, unless a window is in flight); sentWindows counts
	// the windows sent; batch holds the checker jobs not submitted yet.
	front       uint64
	sentWindows int
	batch       []job
	// lastProgress is the end of the last window in which a model accepted
	// or emitted a frame, or a source still had frames to give, or the
	// cycle at which the run was last quiet.
	lastProgress uint64
	backlog      bool // live frames were still waiting after the last window took its share
}

// tally is what the run counts for its summary.
type tally struct {
	in        int
	stuck     int
	drops     map[string]int
	faults    map[string]int
	ctrMu     sync.Mutex // guards ctrs, which models fill in parallel
	ctrs      map[string]map[string]CounterPair
	workFails []string // what the workloads found wrong
	// waitModels and waitHosts: the loop's waits for the models and for
	// live hosts (Summary.Waited).
	waitModels, waitHosts time.Duration
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
	// config holds the scenario's CSR settings and the workloads', written
	// in the first window (one per cycle from cycle 0).
	config  []cosim.CSR
	memInit []cosim.Mem // host memory's first contents, written in the first window
	taps    map[int]tapOut
	// pausers: the sources that honour the PFC frames leaving an output
	// port, and how late those frames reach them.
	pausers   map[int][]pauser
	workloads []Workload // the workloads that drive this model
	// unchecked marks the output ports whose frames the scoreboard does
	// not check (Config.Unchecked): neither the DUT's nor golden's.
	unchecked []bool
	// Session only: frames sent from outside, by arrival cycle, not yet
	// in a window, and the pcapng of each input port that records them;
	// the host accesses of the next window.
	inject     []cosim.Frame
	injectPcap []int
	access     *Access
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
	r := &run{cfg: cfg, sc: sc, srcPcap: map[*source]int{}}
	r.byName = map[string]*node{}
	r.drops, r.faults, r.ctrs = map[string]int{}, map[string]int{}, map[string]map[string]CounterPair{}
	r.sb = scoreboard.New(scoreboard.Config{Run: sc.Name, Seed: cfg.Seed, Dir: cfg.OutDir, Report: cfg.Report})
	if err := r.addModels(); err != nil {
		return nil, err
	}
	for _, l := range sc.Links {
		lk := newLink(l, sc, cfg.Seed)
		if err := r.checkPort(lk.from, false, fmt.Sprintf("link.%d.from", len(r.links))); err != nil {
			return nil, err
		}
		if err := r.checkPort(lk.to, true, fmt.Sprintf("link.%d.to", len(r.links))); err != nil {
			return nil, err
		}
		from := r.byName[lk.from.model]
		if from.links[lk.from.port] != nil {
			return nil, &ScenarioError{fmt.Errorf("%s: %s feeds two links", sc.File, lk.from.out())}
		}
		from.links[lk.from.port] = lk
		lk.toNode = r.byName[lk.to.model]
		r.links = append(r.links, lk)
	}
	if err := r.checkLoops(); err != nil {
		return nil, err
	}
	for _, ref := range cfg.Unchecked {
		n, p, err := r.outPort(ref)
		if err != nil {
			return nil, fmt.Errorf("unchecked port: %w", err)
		}
		n.unchecked[p] = true
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
		if err := r.checkPort(portRef{model, port}, true, fmt.Sprintf("traffic.%d.to", i)); err != nil {
			return nil, err
		}
		s, err := srcs[i], srcErrs[i]
		if err != nil {
			return nil, &ScenarioError{fmt.Errorf("%s: traffic[%d]: %w", sc.File, i, err)}
		}
		s.node = r.byName[model]
		r.sources = append(r.sources, s)
		if t.PauseFrom != "" {
			pm, pp := sc.Port(t.PauseFrom)
			if err := r.checkPort(portRef{pm, pp}, false, fmt.Sprintf("traffic.%d.pause_from", i)); err != nil {
				return nil, err
			}
			n := r.byName[pm]
			if n.pausers == nil {
				n.pausers = map[int][]pauser{}
			}
			n.pausers[pp] = append(n.pausers[pp], pauser{s, t.PauseLatency})
		}
	}
	if err := r.addTaps(); err != nil {
		return nil, err
	}
	if err := r.addWorkloads(); err != nil {
		return nil, err
	}
	return r, nil
}

// addModels makes a node of every model: its registered top, its golden
// model, and its scenario CSR settings, which the golden model hears too.
func (r *run) addModels() error {
	sc, cfg := r.sc, r.cfg
	for _, m := range sc.Models {
		top, err := LookupTop(m.Top)
		if err != nil {
			return &ScenarioError{fmt.Errorf("%s: model %s: %w", sc.File, m.Name, err)}
		}
		if path := ModelPath(cfg.ModelDir, top, m.DataWidth); m.Remote == "" {
			if _, err := os.Stat(path); err != nil {
				where := path
				if dirs := filepath.SplitList(cfg.ModelDir); len(dirs) > 1 {
					where = fmt.Sprintf("%s/V%s in none of %s", ModelName(top, m.DataWidth), top.Module, strings.Join(dirs, ", "))
				}
				return fmt.Errorf("model %s: no binary for top %s at %d bits (%s): build the models first (make build)", m.Name, top.Name, m.DataWidth, where)
			}
		}
		env := GoldenEnv{Seed: backpressureSeed(cfg.Seed, m.Name), SinkStallPct: uint32(m.SinkStallPct),
			DataWidth: m.DataWidth, Params: m.Params, ClockHz: clockHz(sc)}
		n := &node{name: m.Name, spec: m, top: top, width: m.DataWidth, golden: top.Golden(env),
			sent: make([]fifo.Queue[cosim.Frame], top.In), sinks: map[int]int{}, links: map[int]*link{}}
		for p := range top.In {
			n.inNames = append(n.inNames, portRef{m.Name, p}.in())
		}
		n.goldenCause = "golden " + m.Name
		n.unchecked = make([]bool, top.Out)
		if n.config, err = configWrites(sc.File, m, top); err != nil {
			return err
		}
		if g, ok := n.golden.(CSRGolden); ok {
			for i, w := range n.config {
				g.CSRWrite(w.Addr, w.Data, uint64(i))
			}
		}
		r.nodes = append(r.nodes, n)
		r.byName[m.Name] = n
	}
	return nil
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
		if r.checkPort(portRef{model, port}, true, "") != nil {
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

// pfcFrame decodes an IEEE 802.1Qbb PFC frame (MAC control opcode 0x0101
// to 01-80-C2-00-00-01): the priorities it names and their pause times.
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

// checkPort reports a port its model's top lacks, as the scenario's error
// at key (the port's key in the scenario, dotted as KeyError takes it).
func (r *run) checkPort(p portRef, in bool, key string) error {
	n := r.byName[p.model]
	limit, dir, name := n.top.Out, "out", p.out()
	if in {
		limit, dir, name = n.top.In, "in", p.in()
	}
	if p.port >= limit {
		return &ScenarioError{r.sc.KeyError(key, "%s: top %s has %d %sput ports", name, n.top.Name, limit, dir)}
	}
	return nil
}

// outPort resolves an output port named as scenarios name it, "sw.out2".
func (r *run) outPort(ref string) (*node, int, error) {
	n, p, in, err := r.port(ref)
	if err == nil && in {
		err = fmt.Errorf("%s is an input port", ref)
	}
	return n, p, err
}

// port resolves a port named as scenarios name it: "sw.in0" or "sw.out2".
func (r *run) port(ref string) (n *node, port int, in bool, err error) {
	model, rest, ok := strings.Cut(ref, ".")
	var num string
	switch {
	case !ok:
	case strings.HasPrefix(rest, "in"):
		in, num = true, rest[2:]
	case strings.HasPrefix(rest, "out"):
		num = rest[3:]
	}
	p, perr := strconv.Atoi(num)
	if num == "" || perr != nil || p < 0 || strconv.Itoa(p) != num {
		return nil, 0, false, fmt.Errorf("%q is no port: ports are named model.inN or model.outN", ref)
	}
	n = r.byName[model]
	if n == nil {
		names := make([]string, 0, len(r.nodes))
		for _, m := range r.nodes {
			names = append(names, m.name)
		}
		return nil, 0, false, fmt.Errorf("%s: no model %q (the models: %s)", ref, model, strings.Join(names, ", "))
	}
	limit, dir := n.top.Out, "out"
	if in {
		limit, dir = n.top.In, "in"
	}
	if p >= limit {
		return nil, 0, false, fmt.Errorf("%s: top %s has %d %sput ports (%s.%s0..%s.%s%d)", ref, n.top.Name, limit, dir, model, dir, model, dir, limit-1)
	}
	return n, p, in, nil
}

// PcapName is the file a link's frames go to: "icrc.out0->icrc.in1" is
// written to icrc.out0--icrc.in1.pcapng.
func PcapName(link string) string { return strings.ReplaceAll(link, "->", "--") + ".pcapng" }

// ModelName is sim/build.mk's name for the model of a top at a data width.
func ModelName(top Top, width int) string { return fmt.Sprintf("%s_%d", top.Name, width) }

// ModelNames names the models a scenario runs here, as sim/build.mk does
// ("switch4_64"), each once; a remote model is started elsewhere.
func ModelNames(sc *scenario.Scenario) ([]string, error) {
	var names []string
	for i, m := range sc.Models {
		if m.Remote != "" {
			continue
		}
		top, err := LookupTop(m.Top)
		if err != nil {
			return nil, sc.KeyError(fmt.Sprintf("model.%d.top", i), "%v", err)
		}
		if n := ModelName(top, m.DataWidth); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return names, nil
}

// ModelPath is where the binary of a top at a data width is, as sim/build.mk
// (or cosim model build) puts it: <dir>/<top>_<width>/V<module>. dir may
// list several directories joined as PATH is (filepath.ListSeparator, ':'),
// searched in order, so that a user's own models and the project's run in
// one scenario; when none has the binary, the path is the first one's.
func ModelPath(dir string, top Top, width int) string {
	dirs := filepath.SplitList(dir)
	for _, d := range dirs {
		p := filepath.Join(d, ModelName(top, width), "V"+top.Module)
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if len(dirs) == 0 {
		dirs = []string{dir}
	}
	return filepath.Join(dirs[0], ModelName(top, width), "V"+top.Module)
}

// backpressureSeed is the seed of a model's source gaps and sink stalls:
// the run seed mixed with the model's name.
func backpressureSeed(seed uint64, name string) uint64 { return seed ^ hashName(name) }

// hashName is FNV-1a, 64 bits.
func hashName(s string) uint64 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// checkLoops refuses a loop of cables through a model that floods. A cable
// is a model port pair joined both ways (a.outN to b.inM and b.outM to
// a.inN) or one way. Cables are added to a forest one by one; a cable
// whose ends the forest already connects closes a loop: the forest's path
// between them and the cable itself.
func (r *run) checkLoops() error {
	type end struct {
		model string
		port  int
	}
	tree := map[string][]string{} // the forest's cables, both ways
	seen := map[[2]end]bool{}
	for i, lk := range r.links {
		a, b := end{lk.from.model, lk.from.port}, end{lk.to.model, lk.to.port}
		if a.model > b.model || (a.model == b.model && a.port > b.port) {
			a, b = b, a
		}
		if seen[[2]end{a, b}] { // the other direction of a cable already counted
			continue
		}
		seen[[2]end{a, b}] = true
		loop := treePath(tree, a.model, b.model)
		if loop == nil {
			tree[a.model] = append(tree[a.model], b.model)
			tree[b.model] = append(tree[b.model], a.model)
			continue
		}
		for _, m := range loop {
			if n := r.byName[m]; n.top.Floods {
				return &ScenarioError{r.sc.KeyError(fmt.Sprintf("link.%d.to", i),
					"this link closes a loop (%s) through %s (top %s), which floods frames out of every port and has no spanning tree: the copies would circle for ever",
					strings.Join(append(loop, loop[0]), " - "), n.name, n.top.Name)}
			}
		}
	}
	return nil
}

// treePath returns the models on the forest's path from a to b, both
// included, or nil when the forest does not connect them.
func treePath(tree map[string][]string, a, b string) []string {
	if a == b {
		return []string{a}
	}
	prev := map[string]string{a: ""}
	queue := []string{a}
	for len(queue) > 0 {
		m := queue[0]
		queue = queue[1:]
		for _, n := range tree[m] {
			if _, ok := prev[n]; ok {
				continue
			}
			prev[n] = m
			if n == b {
				path := []string{b}
				for p := m; p != ""; p = prev[p] {
					path = append(path, p)
				}
				return path
			}
			queue = append(queue, n)
		}
	}
	return nil
}
