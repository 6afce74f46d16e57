package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	cosimproto "github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
	"github.com/rocesim/cosim/harness/waveform"
)

func runRun(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 0, "seed of every random choice (default: the scenario's, else 1)")
	out := fs.String("out", "out/run", "directory for summary.json, a pcapng per link, mismatch files and traces")
	trace := fs.Bool("trace", false, "write an FST waveform of every model into the out directory (slow)")
	models := fs.String("models", "build/models", "directory of the Verilator-built models, or several joined with ':' (searched in order)")
	stepTimeout := fs.Duration("step-timeout", cosimproto.DefaultStepTimeout, "a model that does not finish a window within this is reported as hung")
	noPcap := fs.Bool("no-pcap", false, "write no pcapng per link (mismatch files still are): for long campaigns, whose captures take gigabytes and much of the CPU")
	junitPath := fs.String("junit", "", junitHelp)
	noRerun := fs.Bool("no-rerun", false, "after a failure, do not rerun to trace the first problem's window of cycles")
	before := fs.Uint64("trace-before", waveform.DefaultBefore, "cycles the waveform of the first problem starts before it")
	after := fs.Uint64("trace-after", waveform.DefaultAfter, "cycles the waveform of the first problem goes on after it")
	replay := fs.String("replay", "", "re-run a cosim bridge session from its `RECORDING` (recording.pcapng in its out directory) without any TAP; the scenario defaults to the recorded one")
	rtlCov := fs.Bool("coverage", false, "every model writes its Verilator coverage (line, toggle, cover points) to OUT/coverage/<model>.dat; needs the models of make models-coverage, the default --models then being "+coverageModels)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cosim run [SCENARIO] [--seed N] [--out DIR] [--trace] [--models DIR] [--step-timeout D] [--no-pcap] [--replay RECORDING] [--junit FILE] [--no-rerun] [--trace-before N] [--trace-after N] [--coverage]")
		fs.PrintDefaults()
	}
	rest, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fail(exitBadInput, "run: %v", err)
	}
	var sc *scenario.Scenario
	var rp *replaying
	switch {
	case len(rest) > 1:
		return fail(exitBadInput, "run: one scenario at a time, got %d", len(rest))
	case *replay != "":
		rp, err = loadReplay(*replay, rest)
		if rp != nil {
			sc = rp.sc
		}
	case len(rest) == 0:
		sc, err = scenario.Default()
	default:
		sc, err = scenario.Open(rest[0])
	}
	if err != nil {
		return fail(exitBadInput, "run: %v", err)
	}
	s := uint64(1)
	if sc.Seed != nil {
		s = *sc.Seed
	}
	if rp != nil {
		s = rp.rec.Seed // the session's, which --seed may have set
	}
	seedSet := false
	fs.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "seed" })
	if seedSet {
		s = *seed
	}
	if *rtlCov && !flagSet(fs, "models") {
		*models = coverageModels
	}
	ju, err := createJUnit(*junitPath)
	if err != nil {
		return fail(exitBadInput, "run: --junit: %v", err)
	}
	if err := usableOut(*out); err != nil {
		ju.write(nil, "")
		return fail(exitBadInput, "run: --out %s: %v", *out, err)
	}
	again := scenarioArg(rest)
	if rp != nil {
		again += " --replay " + *replay
	}
	rerun := fmt.Sprintf("cosim run%s --seed %d", again, s)
	fmt.Fprintf(stdout, "run %s (%s) seed=%d out=%s\n", sc.Name, sc.File, s, *out)
	cfg := engine.Config{Scenario: sc, Seed: s, OutDir: *out, ModelDir: *models, Trace: *trace, Report: stdout,
		Timeouts: cosimproto.Timeouts{Step: *stepTimeout}, NoLinkPcaps: *noPcap, RTLCoverage: *rtlCov}
	if isTerminal(stderr) {
		cfg.Progress = stderr
	}
	if rp != nil {
		cfg.Taps = rp.ends()
	}
	sum, err := engine.Run(ctx, cfg)
	if sum != nil {
		printSummary(stdout, sum)
	}
	if sum != nil && len(sum.Problems) > 0 && !*noRerun && !*trace && ctx.Err() == nil {
		again := cfg
		again.RTLCoverage = false // the rerun is a second look, not more coverage
		if rp != nil {
			again.Taps = rp.ends() // a recording's ends are read once: fresh ones
		}
		err = errors.Join(err, traceFirstProblem(ctx, stdout, again, sum, waveform.Options{Before: *before, After: *after}))
	}
	err = results(err, *out, sum, ju, rerun)
	var bad *engine.ScenarioError
	if errors.As(err, &bad) || errors.Is(err, engine.ErrNoCoverageBuild) {
		// Bad input, like the parser's errors: exit 2. Found before
		// anything ran, or a capture damaged past its start.
		return fail(exitBadInput, "run: %v", err)
	}
	if errors.Is(err, engine.ErrInterrupted) {
		return fail(exitInterrupted, "run: %v; what ran is in %s", err, *out)
	}
	if err != nil {
		return fail(exitFailed, "run: %v\nrerun with: %s", err, rerun)
	}
	if !sum.Pass {
		return fail(exitFailed, "run: FAIL (seed %d); details above and in %s", s, *out)
	}
	fmt.Fprintln(stdout, "PASS")
	return nil
}

// traceFirstProblem reruns the run to trace the window around its first
// problem (harness/waveform) and adds it to summary.json.
func traceFirstProblem(ctx context.Context, stdout io.Writer, cfg engine.Config, sum *engine.Summary, opt waveform.Options) error {
	fmt.Fprintln(stdout, "rerunning to trace the cycles around the first problem (--no-rerun to skip)")
	if err := waveform.Rerun(ctx, cfg, sum, opt); err != nil {
		return err
	}
	w := sum.Waveforms[len(sum.Waveforms)-1]
	fmt.Fprintf(stdout, "traced cycles %d..%d\n", w.From, w.To)
	if !w.Reproduced {
		fmt.Fprintf(stdout, "WARNING: the rerun did not meet the first problem at cycle %d: the run is not deterministic\n", w.Cycle)
	}
	fmt.Fprintf(stdout, "waveform of problem %d (cycle %d): %s\n", w.Problem, w.Cycle, w.View)
	return engine.WriteSummary(cfg.OutDir, sum)
}

// coverageModels is where make models-coverage puts the coverage models:
// the default --models of a run with --coverage.
const coverageModels = "build/models-coverage"

// flagSet reports whether the command line set flag name.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func scenarioArg(rest []string) string {
	if len(rest) == 0 {
		return ""
	}
	return " " + rest[0]
}

// isTerminal reports whether w is a character device, where progress
// lines belong; pipes and files stay quiet.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
