package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocesim/cosim/harness/modeltest"
)

// A frame on a long link is neither accepted nor emitted anywhere while it
// travels: a link longer than the default stall bound must not make the
// run look stalled.
func TestLongLinkIsNotAStall(t *testing.T) {
	sc := modeltest.Scenario(t, modeltest.FIFOPair("long-link", 10_000_000, "latency = 400_000\nreorder_pct = 20",
		"[[traffic]]\nkind = \"roce\"\nto = \"a.in0\"\nframes = 20\n"))
	s, err := modeltest.Run(t, modeltest.Config(t, sc, 1))
	modeltest.RequirePass(t, s, err)
	assert.Equal(t, 40, s.Matched, "every frame out of both FIFOs")
	assert.Greater(t, s.Cycles, uint64(2_000_000), "the held frames took latency + reorder_cycles")
}
