// Package engine runs a scenario: it starts the Verilated models, steps them
// in parallel in windows no longer than the smallest link latency, moves
// stamped frames between sources, links, taps, workloads and models, feeds
// every frame a DUT accepted to its golden model, and checks every frame a
// DUT emitted on the scoreboard. It writes a pcapng per link (sources and
// unlinked outputs count as links) and summary.json.
//
// The engine is the window scheduler and knows no device: RTL tops and
// their golden models register with Register (harness/device/...), closed
// loop hosts with RegisterWorkload (harness/workload/...); a program
// imports harness/builtin for all of them. harness/DESIGN.md explains the
// time model; the files here are:
//
//	engine.go    Config, Run
//	session.go   Session: a run stepped from outside (harness/testbench)
//	topology.go  the scenario resolved into models, links, sources and taps
//	models.go    starting, stepping and stopping the model processes
//	loop.go      the run loop: how long the next window is, when the run ends
//	policy.go    how windows are sent: lock step, open-loop or live pipelined
//	window.go    building a window and routing its replies
//	checker.go   golden models, scoreboard and captures, behind the loop
//	summary.go   counters and summary.json
//	device.go, workload.go, tap.go  what devices, workloads and taps provide
package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/scenario"
)

// TraceWindow traces some models over some cycles: From..To-1.
type TraceWindow struct {
	From, To uint64
	Files    map[string]string // model name -> the FST file it writes
}

// Config is one run.
type Config struct {
	Scenario *scenario.Scenario
	Seed     uint64
	OutDir   string // summary.json, a pcapng per link, mismatch files, traces
	// ModelDir is where sim/build.mk puts models: <ModelDir>/<top>_<width>/V<module>;
	// or several such directories joined with filepath.ListSeparator,
	// searched in order (ModelPath).
	ModelDir string
	Trace    bool // FST trace of every model into OutDir
	// TraceWindow, when set, traces only its models and cycles (the rerun
	// around a mismatch); Trace wins.
	TraceWindow *TraceWindow
	Report      io.Writer // mismatch reports and the summary
	Progress    io.Writer // live progress; nil for none (not a terminal)
	Timeouts    cosim.Timeouts
	// MaxWindow bounds a window when no link constrains it.
	MaxWindow uint64
	// MaxWindowFrames bounds the source frames a window takes in, over
	// all sources (default 1024): a window ends early, before the frame
	// that would exceed it. A model holds a window's frames queued at its
	// inputs, and simulates slower once they leave the CPU's caches
	// (BenchmarkHarnessVsRaw, harness/PERFORMANCE.md).
	MaxWindowFrames int
	// MaxWindowBytes bounds the bytes of those frames in the same way
	// (default 4 MiB, a quarter of 65536 cycles of full-size frames at
	// 512 bits).
	MaxWindowBytes int
	// NoLinkPcaps writes no pcapng per link, source and output, for long
	// campaigns (captures of millions of frames take gigabytes and much
	// of the Go side's CPU); mismatch files are still written.
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
	// same). See policy.go.
	NoPipeline bool
	// Unchecked names output ports ("sw.out2") whose frames the
	// scoreboard does not check: neither the golden model's predictions
	// there nor the DUT's frames (a test that checks them its own way).
	Unchecked []string
	// Observer, when set, hears every frame a model accepts and emits, on
	// the run loop (a Session's test bench).
	Observer Observer
	// RTLCoverage has every model the run starts write its Verilator
	// coverage to OutDir/coverage/<name>.dat (rtlcoverage.go); the models
	// must be built by make models-coverage.
	RTLCoverage bool
}

// Observer hears what the models do, on the run loop, as their replies
// are routed. Data is not changed and may be kept.
type Observer interface {
	// Accepted: the model took data on input port, its first and last
	// beats at those cycles.
	Accepted(model string, port int, first, last uint64, data []byte)
	// Emitted: the model sent f out of output port f.Port.
	Emitted(model string, f cosim.Frame)
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
	if err == nil && cfg.RTLCoverage {
		err = r.checkCoverageBuilds(ctx)
	}
	if err != nil {
		return notStarted(cfg, err)
	}
	start := time.Now()
	runErr := r.begin(ctx)
	if runErr == nil {
		runErr = r.loop(ctx)
	}
	return r.end(ctx, start, runErr)
}

// end judges a run whose loop has ended (runErr says how), stops its
// models and writes its results; a Session ends the same way.
func (r *run) end(ctx context.Context, start time.Time, runErr error) (*Summary, error) {
	if ctx.Err() != nil {
		// Whatever a model or the loop said of it, the run was stopped
		// from outside: that is the one thing to report.
		runErr = interrupted(ctx, r.cycle)
	}
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
		runErr = r.finishWorkloads(ctx)
	}
	if runErr == nil || errors.As(runErr, new(*WorkLeftError)) {
		// The run reached its end, or stopped with work left: what is
		// still expected is missing. A run that broke off (a model died,
		// an interruption) never saw its end, and reports only what it saw.
		r.sb.Drain(r.cycle)
	}
	if runErr == nil && r.cfg.Live != nil {
		runErr = r.cfg.Live.Err()
	}
	r.closeModels()
	for _, s := range r.sources {
		s.release()
	}
	s := r.summary(time.Since(start), runErr)
	if err := r.finish(s); err != nil {
		// Said even after a failure: results that could not be saved.
		runErr = errors.Join(runErr, err)
	}
	return s, runErr
}

// ErrInterrupted is why a run stopped from outside (its context done: a
// signal, a session's drain cut short) did not complete.
var ErrInterrupted = errors.New("interrupted")

func interrupted(ctx context.Context, cycle uint64) error {
	err := fmt.Errorf("%w at cycle %d", ErrInterrupted, cycle)
	if cause := context.Cause(ctx); cause != nil && cause != context.Canceled {
		err = fmt.Errorf("%w (%v)", err, cause)
	}
	return err
}

// WorkLeftError is a run that stopped with work left: at the scenario's
// cycle limit, or stalled. What was still expected is reported missing.
type WorkLeftError struct {
	Msg string
}

func (e *WorkLeftError) Error() string { return e.Msg }

// ScenarioError is a scenario that parsed but cannot run as written: it
// names an RTL top nobody registered or a port its top lacks, or its
// traffic cannot be built (a capture that cannot be read). It is a bad
// input, unlike a run that fails.
type ScenarioError struct {
	Err error
}

func (e *ScenarioError) Error() string { return e.Err.Error() }
func (e *ScenarioError) Unwrap() error { return e.Err }
