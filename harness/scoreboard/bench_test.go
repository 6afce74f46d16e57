package scoreboard_test

import (
	"testing"

	"github.com/rocesim/cosim/harness/scoreboard"
)

// BenchmarkExpectObserve is the scoreboard's share of a run's work per
// frame: a frame expected and observed on one of four streams in turn
// (the switch's output ports), matched.
func BenchmarkExpectObserve(b *testing.B) {
	f := make([]byte, 64)
	for i := range f {
		f[i] = byte(i)
	}
	streams := make([]scoreboard.Stream, 4)
	for i := range streams {
		streams[i] = scoreboard.Stream{Model: "dut", Port: i}
	}
	sb := scoreboard.New(scoreboard.Config{})
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		st := streams[i%len(streams)]
		sb.Expect(st, scoreboard.Expected{Data: f, CauseSeq: uint32(i), HasCauseSeq: true})
		sb.Observe(st, scoreboard.Frame{Cycle: uint64(i), Data: f})
	}
	if c := sb.Counts(); !c.Pass() {
		b.Fatal(c)
	}
}
