package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/rocesim/cosim/harness/selftest"
)

func runSelftest(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("selftest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	seed := fs.Uint64("seed", 1, "seed of the sample generator")
	out := fs.String("out", "", "write samples.pcap and corrupted.pcap into this directory")
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return fail(exitBadInput, "selftest: %v", err)
	}
	if fs.NArg() != 0 {
		return fail(exitBadInput, "selftest: unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintf(stdout, "selftest seed=%d (rerun with --seed %d)\n", *seed, *seed)
	res, err := selftest.Run(*seed, *out, stdout)
	if err != nil {
		// The samples could not be built or written: an I/O problem, not a
		// failed check.
		return fail(exitBadInput, "selftest: %v", err)
	}
	for _, f := range res.Failures {
		fmt.Fprintln(stdout, "FAIL", f)
	}
	fmt.Fprintf(stdout, "golden codecs: %d/%d sample frames valid, %d/%d corrupted frames caught\n",
		res.SamplesOK, res.Samples, res.CorruptedSeen, res.Corrupted)
	if !res.Pass() {
		return fail(exitFailed, "selftest: %d failures", len(res.Failures))
	}
	fmt.Fprintln(stdout, "PASS")
	return nil
}
