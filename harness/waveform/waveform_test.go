package waveform

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

func TestStreamModel(t *testing.T) {
	for in, want := range map[string]struct {
		model string
		port  int
	}{"sw.out2": {"sw", 2}, "nic0.out1[qp 0x000101]": {"nic0", 1}, "junk": {"", 0}} {
		m, p := streamModel(in)
		assert.Equal(t, want.model, m, in)
		assert.Equal(t, want.port, p, in)
	}
}

func TestConsumerOf(t *testing.T) {
	cfg := engine.Config{Scenario: &scenario.Scenario{Links: []scenario.Link{{From: "nic0.out0", To: "sw.in0"}, {From: "sw.out0", To: "nic0.in0"}}}}
	assert.Equal(t, "sw", consumerOf(cfg, "nic0", 0))
	assert.Equal(t, "nic0", consumerOf(cfg, "sw", 0))
	assert.Equal(t, "", consumerOf(cfg, "sw", 2), "an unlinked port goes to a sink")
}

// The save file opens the producer's trace at the window, marks the
// problem's cycle in the trace's picoseconds, and names vectors as the
// FST does.
func TestSaveFile(t *testing.T) {
	w := engine.Waveform{Cycle: 1000, From: 500, To: 1300, Files: map[string]string{"sw": "mismatch-001.fst"}}
	got := string(saveFile(w, "sw", map[string]string{"m_axis_tdata": "TOP.m_axis_tdata[255:0]"}))
	for _, want := range []string{
		`[dumpfile] "mismatch-001.fst"`, "[timestart] 508000", "*-12.000000 1008000 ",
		"TOP.clk", "TOP.m_axis_tdata[255:0]", "TOP.m_axis_tvalid", "TOP.s_axis_tdata",
	} {
		assert.Contains(t, got, want)
	}
	assert.Less(t, strings.Index(got, "-m_axis"), strings.Index(got, "-s_axis"), "outputs first")
}
