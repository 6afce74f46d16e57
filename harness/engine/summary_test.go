package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocesim/cosim/harness/engine"
)

// CounterLines sums per-port, per-priority and per-QP counters under one
// name, leaves out zero sums, marks a sum holding any counter unlike the
// golden one (zero or not) and orders models and names.
func TestCounterLines(t *testing.T) {
	s := &engine.Summary{Counters: map[string]map[string]engine.CounterPair{
		"sw": {
			"port0.drop_tail[1]": {DUT: 2, Golden: 2},
			"port3.drop_tail[7]": {DUT: 5, Golden: 5},
			"rx_frames":          {DUT: 9, Golden: 9},
			"drop_runt":          {DUT: 0, Golden: 0},
			"port1.tx_pfc":       {DUT: 0, Golden: 1},
		},
		"nic0": {
			"qp0.tx_packets": {DUT: 3, Golden: 3},
			"qp7.tx_packets": {DUT: 4, Golden: 5},
			"rx_bad_icrc":    {DUT: 1, Golden: 1},
			"qp2.rx_ce":      {DUT: 0, Golden: 0},
		},
		"fifo": {},
	}}
	assert.Equal(t, []string{
		"fifo:",
		"nic0: rx_bad_icrc 1 tx_packets 7!",
		"sw: drop_tail 7 rx_frames 9 tx_pfc 0!",
	}, s.CounterLines())
}
