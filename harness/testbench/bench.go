package testbench

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/rocesim/cosim/cosim"
	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"

	_ "github.com/rocesim/cosim/harness/builtin" // the project's tops and workloads
)

// T is what a bench needs of its test: *testing.T, *testing.B and
// *testing.F have it, and so has Standalone's (examples, programs).
type T interface {
	Helper()
	Name() string
	Cleanup(func())
	TempDir() string
	Logf(format string, args ...any)
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
	Skipf(format string, args ...any)
	Failed() bool
}

// Environment variables a bench reads.
const (
	// SeedEnv sets the seed of every bench whose test gives none (Seed):
	// a failure prints it in its rerun command.
	SeedEnv = "COSIM_TB_SEED"
	// OutEnv keeps the benches' outputs (captures, summary.json, the
	// pcapng of a failed expectation) in $COSIM_TB_OUT/<test name>
	// instead of the test's temporary directory, which goes with the test.
	OutEnv = "COSIM_TB_OUT"
)

// Bench is a running test bench: a scenario's models, stepped from the
// test. Its methods fail the test (Fatalf) on bad use, naming the call.
type Bench struct {
	t        T
	s        *engine.Session
	ctx      context.Context
	seed     uint64
	seedEnv  bool // the seed came from SeedEnv: the rerun command sets it
	dir      string
	report   bytes.Buffer // the scoreboard's problems, written by the engine's checker
	out      map[portKey]*portLog
	pending  map[portKey][]*Sent // frames sent and not yet taken, per input port
	within   uint64
	grain    uint64
	failures int // failed expectations so far, numbering their files
	summary  *engine.Summary
}

type portKey struct {
	model string
	port  int
}

// portLog is every frame out of one port, and how far expectations have
// claimed them.
type portLog struct {
	name    string
	frames  []Received
	claimed []bool
	next    int // the first frame no expectation claimed
}

// Option configures a bench.
type Option func(*options)

type options struct {
	seed       *uint64
	modelDir   string
	name       string
	srcGap     int
	sinkStall  int
	unchecked  []string
	within     uint64
	grain      uint64
	trace      bool
	singleOnly []string // options that only a single-model bench takes
}

// Seed sets the run's seed (backpressure draws, link faults, generated
// traffic); without it the bench takes $COSIM_TB_SEED, else the
// scenario's seed, else 1.
func Seed(seed uint64) Option { return func(o *options) { o.seed = &seed } }

// ModelDir says where the built models are: <dir>/<top>_<width>/V<module>
// as sim/build.mk and cosim model build put them. Several directories are
// searched in order (a user's own models first, say, then this project's
// build/models for its switch). By default $COSIM_MODELS_DIR (which may
// list several, joined with ':'), else build/models at the root of the
// module the test runs in.
func ModelDir(dirs ...string) Option {
	return func(o *options) { o.modelDir = strings.Join(dirs, string(filepath.ListSeparator)) }
}

// Name names the model of a single-model bench (Model): "dut" by default.
func Name(name string) Option {
	return func(o *options) { o.name = name; o.singleOnly = append(o.singleOnly, "Name") }
}

// Backpressure gives a single-model bench random idle cycles between input
// beats (srcGapPct) and random cycles its outputs hold tready low
// (sinkStallPct), drawn from the seed; the golden model sees the same.
func Backpressure(srcGapPct, sinkStallPct int) Option {
	return func(o *options) {
		o.srcGap, o.sinkStall = srcGapPct, sinkStallPct
		o.singleOnly = append(o.singleOnly, "Backpressure")
	}
}

// NoGolden turns the golden model's check off for output ports ("sw.out2"):
// neither its predictions there nor the DUT's frames go to the
// scoreboard; the test's expectations are all that checks them.
func NoGolden(ports ...string) Option {
	return func(o *options) { o.unchecked = append(o.unchecked, ports...) }
}

// Deadline is how many cycles an expectation given no deadline of its own
// waits (10,000 by default).
func Deadline(cycles uint64) Option { return func(o *options) { o.within = cycles } }

// Trace writes an FST waveform of every model into the output directory.
func Trace() Option { return func(o *options) { o.trace = true } }

// Model starts a bench of one model with its ports free: model is the
// name make build gives it, "top_width" ("switch4_64", "axis_fifo_64").
// Its ports are "dut.in0", "dut.out0" and so on (Name changes "dut").
func Model(t T, model string, opts ...Option) *Bench {
	t.Helper()
	o := apply(opts)
	i := strings.LastIndexByte(model, '_')
	width, err := strconv.Atoi(model[i+1:])
	if i <= 0 || err != nil {
		t.Fatalf("testbench.Model(%q): a model is named top_width, such as switch4_64", model)
	}
	name := cmp.Or(o.name, "dut")
	text := fmt.Sprintf("name = %q\ncycles = %d\n[[model]]\nname = %q\ntop = %q\ndata_width = %d\nsrc_gap_pct = %d\nsink_stall_pct = %d\n",
		t.Name(), uint64(1)<<62, name, model[:i], width, o.srcGap, o.sinkStall)
	sc, err := scenario.Parse(t.Name()+".toml", []byte(text))
	if err != nil {
		t.Fatalf("testbench.Model(%q): %v", model, err)
	}
	return start(t, "Model", sc, o)
}

// New starts a bench of a scenario built in code or parsed
// (scenario.Parse, scenario.Load).
func New(t T, sc *scenario.Scenario, opts ...Option) *Bench {
	t.Helper()
	return start(t, "New", sc, apply(opts))
}

// FromTOML starts a bench of a scenario written in the test, in the
// format of harness/scenario/README.md.
func FromTOML(t T, toml string, opts ...Option) *Bench {
	t.Helper()
	sc, err := scenario.Parse(t.Name()+".toml", []byte(toml))
	if err != nil {
		t.Fatalf("testbench.FromTOML: %v", err)
	}
	return start(t, "FromTOML", sc, apply(opts))
}

// FromFile starts a bench of a scenario file, or, when no file has that
// name, of the built-in scenario of that name ("fabric"; cosim scenarios
// lists them).
func FromFile(t T, path string, opts ...Option) *Bench {
	t.Helper()
	sc, err := scenario.Open(path)
	if err != nil {
		t.Fatalf("testbench.FromFile(%q): %v", path, err)
	}
	return start(t, "FromFile", sc, apply(opts))
}

// Default starts a bench of the built-in default scenario (make cosim's):
// two NICs through the switch with an RDMA workload.
func Default(t T, opts ...Option) *Bench {
	t.Helper()
	sc, err := scenario.Default()
	if err != nil {
		t.Fatalf("testbench.Default: %v", err)
	}
	return start(t, "Default", sc, apply(opts))
}

func apply(opts []Option) options {
	o := options{within: 10_000, grain: 64}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// start starts the session; the test's cleanup finishes it.
func start(t T, call string, sc *scenario.Scenario, o options) *Bench {
	t.Helper()
	if call != "Model" && len(o.singleOnly) > 0 {
		t.Fatalf("testbench.%s: %s is an option of a single-model bench (testbench.Model); a scenario sets it per model", call, o.singleOnly[0])
	}
	b := &Bench{t: t, ctx: context.Background(), out: map[portKey]*portLog{}, pending: map[portKey][]*Sent{},
		within: o.within, grain: o.grain}
	switch env := os.Getenv(SeedEnv); {
	case o.seed != nil:
		b.seed = *o.seed
	case env != "":
		s, err := strconv.ParseUint(env, 0, 64)
		if err != nil {
			t.Fatalf("testbench.%s: %s=%q is not a seed", call, SeedEnv, env)
		}
		b.seed, b.seedEnv = s, true
	case sc.Seed != nil:
		b.seed = *sc.Seed
	default:
		b.seed = 1
	}
	b.dir = t.TempDir()
	if keep := os.Getenv(OutEnv); keep != "" {
		b.dir = filepath.Join(keep, strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()))
	}
	dir := cmp.Or(o.modelDir, cmodeltest.Dir(cmodeltest.DirEnv))
	for _, m := range sc.Models {
		top, err := engine.LookupTop(m.Top)
		if err == nil && m.Remote == "" {
			needBinary(t, engine.ModelPath(dir, top, m.DataWidth))
		}
	}
	s, err := engine.Start(b.ctx, engine.Config{Scenario: sc, Seed: b.seed, OutDir: b.dir, ModelDir: dir,
		Report: &b.report, Unchecked: o.unchecked, Observer: observer{b}, Trace: o.trace})
	if err != nil {
		t.Fatalf("testbench.%s: %v", call, err)
	}
	b.s = s
	t.Cleanup(b.cleanup)
	return b
}

// needBinary skips the test when a model is not built, as the project's
// own tests do, or fails it under COSIM_REQUIRE_MODELS=1 (make test).
func needBinary(t T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err == nil {
		return
	}
	msg := "model binary " + path + " is missing: build it (make build)"
	if os.Getenv(cmodeltest.RequireEnv) == "1" {
		t.Fatalf("%s", msg)
	}
	t.Skipf("%s (set %s=1 to fail instead)", msg, cmodeltest.RequireEnv)
}

// Seed is the run's seed.
func (b *Bench) Seed() uint64 { return b.seed }

// Dir is where the bench writes: a pcapng per link and per input port
// (test->dut.in0), summary.json, the pcapng of each failed expectation.
func (b *Bench) Dir() string { return b.dir }

// Finish ends the run now, as the test's cleanup otherwise does: it runs
// until every frame sent is in and nothing is in flight, compares every
// counter with the golden model's, fails the test with the golden model's
// report if anything disagreed, and returns the summary. The bench takes
// no calls after it.
func (b *Bench) Finish() *engine.Summary {
	b.t.Helper()
	b.finish("Finish")
	return b.summary
}

// Counter is a counter's last value, named as registers are
// ("nic0.rx_pfc", "sw.port1.tx_frames"): once the bench has finished, the
// DUT's value, which Finish read over the CSR bus and found equal to the
// golden model's (a counter that differs fails the test there). Before
// Finish, ReadCSR reads a counter's value at Now.
func (b *Bench) Counter(name string) uint64 {
	b.t.Helper()
	call := fmt.Sprintf("Counter(%q)", name)
	if b.summary == nil {
		b.fatal(call, "counters are compared when the bench finishes: call Finish first (ReadCSR reads one now)")
	}
	model, ctr, ok := strings.Cut(name, ".")
	if !ok {
		b.fatal(call, "%q names no counter: counters are named model.NAME (nic0.rx_pfc, sw.port1.tx_frames)", name)
	}
	top, found := b.s.Top(model)
	if !found {
		b.fatal(call, "no model %q", model)
	}
	if _, ok := top.Counters[ctr]; !ok {
		b.fatal(call, "top %s has no counter %q (%s)", top.Name, ctr, known(top))
	}
	p, ok := b.summary.Counters[model][ctr]
	if !ok {
		b.fatal(call, "the run ended before the counters were read (%s)", b.summary.Error)
	}
	return p.DUT
}

func (b *Bench) cleanup() {
	if b.summary == nil {
		b.finish("cleanup")
	}
	if b.t.Failed() {
		b.t.Logf("testbench: seed %d; outputs in %s (%s=DIR keeps them); rerun: %s", b.seed, b.dir, OutEnv, b.Rerun())
	}
}

func (b *Bench) finish(call string) {
	b.t.Helper()
	if b.summary != nil {
		b.t.Fatalf("testbench: %s after Finish", call)
	}
	s, err := b.s.Finish(b.ctx)
	b.summary = s
	if s == nil {
		s = &engine.Summary{}
		b.summary = s
	}
	if err != nil || !s.Pass {
		msg := strings.TrimSpace(b.report.String())
		if err != nil {
			msg = strings.TrimSpace(msg + "\n" + err.Error())
		}
		b.t.Errorf("testbench: the golden check failed (seed %d): %d mismatched, %d missing, %d unexpected, %d counters differ\n%s",
			b.seed, s.Mismatched, s.Missing, s.Unexpected, s.CounterFails, msg)
	}
}

// Rerun is the command that runs the test again with the same seed, from
// the module's root.
func (b *Bench) Rerun() string {
	var parts []string
	for _, p := range strings.Split(b.t.Name(), "/") {
		parts = append(parts, "^"+regexp.QuoteMeta(p)+"$")
	}
	cmd := fmt.Sprintf("go test %s -run '%s' -count=1", packageDir(), strings.Join(parts, "/"))
	if b.seedEnv {
		cmd = fmt.Sprintf("%s=%d %s", SeedEnv, b.seed, cmd)
	}
	return cmd
}

// packageDir is the test's package directory, from the module's root.
func packageDir() string {
	wd, err := os.Getwd()
	if err != nil {
		return "."
	}
	root, err := filepath.Abs(cmodeltest.Root())
	if err != nil {
		return "."
	}
	rel, err := filepath.Rel(root, wd)
	if err != nil || rel == "." {
		return "."
	}
	return "./" + filepath.ToSlash(rel)
}

// fatal fails the test for a call used wrongly.
func (b *Bench) fatal(call string, format string, args ...any) {
	b.t.Helper()
	b.t.Fatalf("testbench: %s: %s", call, fmt.Sprintf(format, args...))
}

// usable refuses calls after Finish.
func (b *Bench) usable(call string) {
	b.t.Helper()
	if b.summary != nil {
		b.fatal(call, "the bench has finished (Finish)")
	}
}

// observer files what the models do, as the engine routes it.
type observer struct{ b *Bench }

func (o observer) Accepted(model string, port int, first, last uint64, data []byte) {
	k := portKey{model, port}
	q := o.b.pending[k]
	if len(q) == 0 || len(q[0].Data) != len(data) || &q[0].Data[0] != &data[0] {
		return // a frame of the scenario's own (a source, a link)
	}
	q[0].first, q[0].last, q[0].taken = first, last, true
	o.b.pending[k] = slices.Delete(q, 0, 1)
}

func (o observer) Emitted(model string, f cosim.Frame) {
	k := portKey{model, int(f.Port)}
	l := o.b.out[k]
	if l == nil {
		l = &portLog{name: fmt.Sprintf("%s.out%d", model, f.Port)}
		o.b.out[k] = l
	}
	l.claimed = append(l.claimed, false)
	l.frames = append(l.frames, Received{Port: l.name, Cycle: f.Cycle, LastCycle: f.LastCycle, Data: f.Data, Bad: f.Bad, N: len(l.frames) + 1})
}
