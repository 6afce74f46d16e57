// Command cosim is the command-line tool of the RoCEv2 co-simulation
// harness. See `cosim help`.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	_ "github.com/rocesim/cosim/harness/builtin" // the devices and workloads scenarios name
)

const usage = `usage: cosim <command> [arguments]

commands:
  run [SCENARIO] [--seed N] [--out DIR] [--trace] [--models DIR] [--step-timeout D]
                                    co-simulate a scenario, a file or a built-in name (the built-in
                                    default when none is given), every frame checked against the
                                    golden models
                                    --no-pcap writes no pcapng per link (long campaigns)
                                    --replay RECORDING re-runs a bridge session without any TAP
  bridge [SCENARIO.toml] [--seed N] [--out DIR] [--models DIR] [--no-pcap]
                                    run the models in real time against TAP devices (the scenario's
                                    [[tap]] tables; by default the switch on TAPs cs0..cs3), checking
                                    every frame, until SIGINT or SIGTERM; records the session
  tap-demo [--width BITS] [--seconds S] [--out DIR]
                                    four hosts in network namespaces on the RTL switch: ping and
                                    iperf3 through it, RTT, throughput and the check (needs root)
  scenarios [--show NAME] [--models SCENARIO]
                                    list the built-in scenarios, print one, or name the models a
                                    scenario runs
  check [--json] FILE.pcap[ng]...   decode every packet with the golden codecs and check it
  selftest [--out DIR] [--seed N]   build sample packets of every opcode with the golden codecs,
                                    check them and corrupted copies of them
  campaign run FILE [--jobs N] [--out DIR] [--resume]
                                    a campaign file's scenarios times its seeds, over parallel runs,
                                    then merged: campaign.json, junit.xml, index.html
  campaign merge DIR                merge a campaign directory again
  model build --top NAME --src DIR [--param K=V]... [--width N] [--out DIR]
                                    build a SystemVerilog top of one's own that follows the port
                                    convention into a model program (DIR/<name>_<width>/V<top>)
  version, --version                the module version and commit of this build, the summary.json
                                    format and the socket protocol version
  help                              this text

exit status: 0 all good, 1 a check failed, 2 bad usage or unreadable input
`

// exitError carries an exit status out of run.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// Exit statuses shared by all commands.
const (
	exitFailed   = 1 // a check failed
	exitBadInput = 2 // bad usage or input that cannot be read
	// exitInterrupted: stopped by SIGINT or SIGTERM before the end, as a
	// shell reports a command killed by SIGINT (128 + 2).
	exitInterrupted = 130
)

func fail(code int, format string, args ...any) error {
	return &exitError{code: code, err: fmt.Errorf(format, args...)}
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode prints err, if any, and maps it to the exit status.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return 0
	}
	fmt.Fprintln(stderr, "cosim:", err)
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return exitFailed
}

// run is the whole command; tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return fail(exitBadInput, "no command given")
	}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "run":
		return runRun(ctx, rest, stdout, stderr)
	case "bridge":
		return runBridge(ctx, rest, stdout, stderr)
	case "tap-demo":
		return runTapDemo(ctx, rest, stdout, stderr)
	case "check":
		return runCheck(ctx, rest, stdout, stderr)
	case "scenarios":
		return runScenarios(ctx, rest, stdout, stderr)
	case "selftest":
		return runSelftest(ctx, rest, stdout, stderr)
	case "campaign":
		return runCampaign(ctx, rest, stdout, stderr)
	case "model":
		return runModelCmd(ctx, rest, stdout, stderr)
	case "version", "--version":
		return runVersion(rest, stdout)
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fail(exitBadInput, "unknown command %q", cmd)
	}
}
