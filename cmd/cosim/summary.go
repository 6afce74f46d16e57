package main

import (
	"fmt"
	"io"
	"sort"

	"github.com/rocesim/cosim/harness/engine"
)

// printSummary prints a run's totals and each model's counters; `cosim
// run` and `cosim bridge` share it.
func printSummary(w io.Writer, sum *engine.Summary) {
	fmt.Fprintf(w, "cycles %d in %.2fs (%.2f Mcycles/s, %d windows); frames in %d out %d: matched %d, mismatched %d, missing %d, unexpected %d; drops %v; counter mismatches %d; stuck inputs %d\n",
		sum.Cycles, sum.WallSeconds, sum.CyclesPerSec/1e6, sum.Windows, sum.FramesIn, sum.FramesOut,
		sum.Matched, sum.Mismatched, sum.Missing, sum.Unexpected, sum.Drops, sum.CounterFails, sum.Stuck)
	wt := sum.Waited
	fmt.Fprintf(w, "waited %.2fs for the models, %.2fs for checking and captures, %.2fs for the stimulus", wt.Models, wt.Checking, wt.Stimulus)
	if wt.Hosts > 0 {
		fmt.Fprintf(w, ", %.2fs for the hosts", wt.Hosts)
	}
	fmt.Fprintln(w)
	if len(sum.Faults) > 0 {
		fmt.Fprintf(w, "link faults injected %v\n", sum.Faults)
	}
	if len(sum.Workload) > 0 {
		fmt.Fprintf(w, "workload failures %d (listed above and in summary.json)\n", len(sum.Workload))
	}
	for _, l := range sum.CounterLines() {
		fmt.Fprintf(w, "  %s\n", l)
	}
	for _, l := range sum.FigureLines() {
		fmt.Fprintf(w, "  %s\n", l)
	}
	for _, l := range sum.FlowLines() {
		fmt.Fprintf(w, "  %s\n", l)
	}
	names := make([]string, 0, len(sum.Taps))
	for n := range sum.Taps {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := sum.Taps[n]
		fmt.Fprintf(w, "  tap %s: from host %d, to host %d, padded %d, unknown ethertype %d, drops %v\n",
			n, t.FramesIn, t.FramesOut, t.Padded, t.UnknownEtherType, t.Drops)
	}
}
