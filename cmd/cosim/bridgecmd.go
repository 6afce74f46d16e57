package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	cosimproto "github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/inputfile"
	"github.com/rocesim/cosim/harness/scenario"
	"github.com/rocesim/cosim/harness/tap"
)

const bridgeUsage = "usage: cosim bridge [SCENARIO.toml] [--seed N] [--out DIR] [--models DIR] [--step-timeout D] [--keep-warm D] [--no-pcap] [--no-boost] [--junit FILE]"

// runBridge is `cosim bridge`: the scenario's models against its TAP
// devices, in real time, until SIGINT or SIGTERM (ctx).
func runBridge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bridge", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 0, "seed of every random choice (default: the scenario's, else 1)")
	out := fs.String("out", "out/bridge", "directory for summary.json, a pcapng per link and recording.pcapng")
	models := fs.String("models", "build/models", "directory of the Verilator-built models, or several joined with ':' (searched in order)")
	stepTimeout := fs.Duration("step-timeout", cosimproto.DefaultStepTimeout, "a model that does not finish a window within this is reported as hung")
	keepWarm := fs.Duration("keep-warm", bridge.DefaultKeepWarm, "while hosts are active, step an empty window this often to keep the model in the CPU caches (0: off)")
	noPcap := fs.Bool("no-pcap", false, noPcapHelp)
	noBoost := fs.Bool("no-boost", false, noBoostHelp)
	junitPath := fs.String("junit", "", junitHelp)
	fs.Usage = func() {
		fmt.Fprintln(stderr, bridgeUsage)
		fs.PrintDefaults()
	}
	rest, err := parseInterleaved(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return fail(exitBadInput, "bridge: %v", err)
	}
	sc, text, err := bridgeScenario(rest)
	if err != nil {
		return fail(exitBadInput, "bridge: %v", err)
	}
	s := uint64(1)
	if sc.Seed != nil {
		s = *sc.Seed
	}
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "seed" {
			s = *seed
		}
	})
	ju, err := createJUnit(*junitPath)
	if err != nil {
		return fail(exitBadInput, "bridge: --junit: %v", err)
	}
	if err := usableOut(*out); err != nil {
		ju.write(nil, "")
		return fail(exitBadInput, "bridge: --out %s: %v", *out, err)
	}
	fmt.Fprintf(stdout, "bridge %s (%s) seed=%d out=%s\n", sc.Name, sc.File, s, *out)
	for _, t := range sc.Taps {
		fmt.Fprintf(stdout, "  tap %s: device %s, in %s, out %s\n", t.Name, t.Device, orNone(t.In), orNone(t.Out))
	}
	boost := liveProcs(len(sc.Models), !*noBoost)
	session, err := bridge.Start(bridge.Config{
		Scenario: sc, Text: text, Seed: s, OutDir: *out, ModelDir: *models, Report: stdout,
		Status: stderr, StatusTTY: isTerminal(stderr), Timeouts: cosimproto.Timeouts{Step: *stepTimeout}, KeepWarm: *keepWarm,
		NoLinkPcaps: *noPcap, Boost: boost,
	})
	if err != nil {
		ju.write(nil, "") // nothing ran: no results
		if badDevice(err) {
			return fail(exitBadInput, "bridge: %v", err)
		}
		return fail(exitFailed, "bridge: %v%s", err, permissionHint(err))
	}
	fmt.Fprintln(stdout, "bridging; SIGINT (Ctrl-C) or SIGTERM ends it with the summary written")
	select {
	case <-ctx.Done():
		session.Stop()
	case <-session.Done(): // the run ended by itself: a model failed
	}
	sum, err := session.Wait()
	rec := filepath.Join(*out, bridge.RecordingFile)
	replay := fmt.Sprintf("cosim run --replay %s --out %s-replay", rec, strings.TrimSuffix(*out, "/"))
	if sum != nil {
		printSummary(stdout, sum)
		fmt.Fprintf(stdout, "recording %s; replay it with: %s\n", rec, replay)
	}
	err = results(err, *out, sum, ju, replay)
	var bad *engine.ScenarioError
	switch {
	case errors.As(err, &bad):
		return fail(exitBadInput, "bridge: %v", err)
	case err != nil:
		return fail(exitFailed, "bridge: %v", err)
	case !sum.Pass:
		return fail(exitFailed, "bridge: FAIL (seed %d); details above and in %s", s, *out)
	}
	fmt.Fprintln(stdout, "PASS")
	return nil
}

// badDevice reports a [[tap]] whose device cannot be used as the scenario
// says (not a TAP, missing, or unlike its settings): bad input, exit 2.
// Missing rights or a TAP busy elsewhere are the machine's state: exit 1.
func badDevice(err error) bool {
	for _, e := range []error{tap.ErrNotTAP, tap.ErrNotFound, tap.ErrExists, tap.ErrIncompatible, tap.ErrInvalidConfig} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// noBoostHelp is --no-boost of the live commands.
const noBoostHelp = "while hosts stream, keep Go on the CPUs the models leave and the models at their priority (see harness/bridge/README.md)"

// noPcapHelp is --no-pcap of the live commands.
const noPcapHelp = "write no pcapng per link, only the recording (its replay writes them): a long session would write every frame three times"

// bridgeScenario loads the scenario and keeps its text for the recording;
// with no file it is the built-in bridge scenario.
func bridgeScenario(rest []string) (*scenario.Scenario, []byte, error) {
	switch len(rest) {
	case 0:
		return bridge.Default()
	case 1:
		text, err := inputfile.ReadFile(rest[0])
		if err != nil {
			return nil, nil, err
		}
		sc, err := scenario.Open(rest[0])
		return sc, text, err
	}
	return nil, nil, fmt.Errorf("one scenario at a time, got %d", len(rest))
}

// permissionHint says, in scenario terms, how to bridge without root.
func permissionHint(err error) string {
	if !errors.Is(err, tap.ErrPermission) {
		return ""
	}
	return "\n(without root: set up a persistent TAP once as root, with create = true, persist = true and owner = your uid in its [[tap]]; later runs as that user attach to it: harness/bridge/README.md, Bridging without root)"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// liveProcs leaves a CPU to each model process of a live session, unless
// GOMAXPROCS is set: in real time the models simulate while the harness
// works, and Go threads woken for every goroutine hand-off (a frame
// crosses several) would take the CPU a model needs. With boost, it
// returns the session's bridge.Boost: every CPU for Go while hosts stream,
// with the models at nice -19 so that Go never takes their CPU.
// Invariant: faster than Go on every CPU, measured by BenchmarkLive and
// make tap-demo (harness/PERFORMANCE.md).
func liveProcs(models int, boost bool) bridge.Boost {
	var b bridge.Boost
	if os.Getenv("GOMAXPROCS") == "" {
		b.IdleProcs = max(1, runtime.NumCPU()-models)
		b.BusyProcs = runtime.NumCPU()
		runtime.GOMAXPROCS(b.IdleProcs)
	}
	if !boost {
		return bridge.Boost{}
	}
	b.Nice = -19
	return b
}
