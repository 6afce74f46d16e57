package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// Goodput is the bytes over the flow's span at the clock; the lines sum
// flows up per workload and pair, and figures per model.
func TestFlowAndFigureLines(t *testing.T) {
	flows := []Flow{
		{Workload: "rdma0", From: "n1", To: "n0", QPN: 1, Messages: 2, Bytes: 1000, FirstPost: 100, LastCompletion: 1100},
		{Workload: "rdma0", From: "n2", To: "n0", QPN: 2, Messages: 1, Bytes: 10, FirstPost: 100, LastCompletion: 100},
		{Workload: "rdma0", From: "n1", To: "n0", QPN: 3, Messages: 1, Bytes: 1000, FirstPost: 600, LastCompletion: 2100},
	}
	goodput(flows, 100e6)
	// 1000 bytes in 1000 cycles of 10 ns: 0.8 Gb/s; no span, no goodput.
	assert.InDelta(t, 0.8, flows[0].GoodputGbps, 1e-9)
	assert.Zero(t, flows[1].GoodputGbps)
	s := &Summary{ClockMHz: 100, Flows: flows, Figures: map[string]map[string]uint64{
		"sw":  {"max_queue_bytes.out0.prio3": 9000, "max_queue_bytes.out1.prio3": 12000, "pause_cycles.out2.prio3": 50, "pause_cycles.out0.prio3": 70},
		"sw2": {"max_queue_bytes.out0.prio0": 60},
		"sw3": {},
	}}
	assert.Equal(t, []string{
		"rdma0 n1 -> n0: 3 messages, 2000 bytes over 2 QPs, 0.800 Gb/s", // 2000 bytes in cycles 100..2100
		"rdma0 n2 -> n0: 1 messages, 10 bytes over 1 QPs, 0.000 Gb/s",
	}, s.FlowLines())
	assert.Equal(t, []string{
		"sw: deepest queue 12000 bytes (out1.prio3), most paused 70 cycles (out0.prio3)",
		"sw2: deepest queue 60 bytes (out0.prio0)",
	}, s.FigureLines())
}
