package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scenario"
)

// fabricRun runs the built-in fabric scenario, its text changed by the
// replacements (old, new, ...), and returns its summary.
func fabricRun(t *testing.T, seed string, replace ...string) (*engine.Summary, string) {
	t.Helper()
	text, ok := scenario.BuiltinTOML("fabric")
	require.True(t, ok)
	s := string(text)
	for i := 0; i+1 < len(replace); i += 2 {
		require.Contains(t, s, replace[i])
		s = strings.ReplaceAll(s, replace[i], replace[i+1])
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "fabric.toml")
	require.NoError(t, os.WriteFile(file, []byte(s), 0o644))
	models, err := filepath.Abs(needModels(t, "nic_64", "switch8_64"))
	require.NoError(t, err)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cosim(t, "run", file, "--seed", seed, "--out", out, "--models", models, "--no-pcap")
	t.Logf("%s%s", stdout, stderr)
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	require.NoError(t, err)
	var sum engine.Summary
	require.NoError(t, json.Unmarshal(b, &sum))
	require.Equal(t, 0, code, "the run passes: every frame and counter as golden predicts, every message completed, memory intact")
	return &sum, stdout
}

// counter sums a model's DUT counters whose name, without its port or QP
// prefix, starts with prefix; only ports in ports count when given.
func counter(sum *engine.Summary, model, prefix string, ports ...string) uint64 {
	var n uint64
	for name, p := range sum.Counters[model] {
		scope, key, ok := strings.Cut(name, ".")
		if !ok {
			scope, key = "", name
		}
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		if len(ports) > 0 && !slices.Contains(ports, scope) {
			continue
		}
		n += p.DUT
	}
	return n
}

var fabricSwitches = []string{"leaf0", "leaf1", "spine"}

// fabricLosses are the switch counters of frames lost: drop_filtered is
// not one (a flooded copy refused on the port its destination lives behind,
// rtl/switch/README.md step 2.5: the destination had its frame).
var fabricLosses = []string{"drop_tail", "drop_no_slot", "drop_bad", "drop_runt", "drop_oversize"}

func fabricDrops(sum *engine.Summary) uint64 {
	var n uint64
	for _, sw := range fabricSwitches {
		for _, l := range fabricLosses {
			n += counter(sum, sw, l)
		}
	}
	return n
}

// The built-in fabric at its default length (about 43 ms simulated):
// lossless with PFC, pause from n0's leaf back through the spine to the
// senders' leaf, CE marks and CNPs, no retransmission, every frame,
// counter, completion and byte of memory as golden predicts; and DCQCN
// shares n0's link fairly: over the middle of the incast each sender's
// rate is within 20 % of its fair share, the line rate over 7, and the
// seven keep the link busy.
func TestFabric(t *testing.T) {
	sum, stdout := fabricRun(t, "1")
	assert.Zero(t, fabricDrops(sum), "no switch loses a frame")
	assert.Empty(t, sum.Drops, "nothing dropped on a link or anywhere")
	assert.Zero(t, sum.Mismatched+sum.Missing+sum.Unexpected)
	// Pause propagates: leaf0 pauses the spine (its port 4), the spine
	// pauses leaf1 (its port 1), leaf1 pauses the senders behind it, which
	// count the pause.
	assert.Positive(t, counter(sum, "leaf0", "tx_pfc", "port4"), "leaf0 pauses the spine")
	assert.Positive(t, counter(sum, "spine", "tx_pfc", "port1"), "the spine pauses leaf1")
	assert.Positive(t, counter(sum, "leaf1", "tx_pfc", "port0", "port1", "port2", "port3"), "leaf1 pauses its NICs")
	assert.Positive(t, counter(sum, "n4", "paused_cycles_prio3"), "n4 held back by leaf1's pause")
	assert.Positive(t, sum.Figures["spine"]["pause_cycles.out0.prio3"], "the spine's port to leaf0 paused")
	assert.Positive(t, counter(sum, "leaf0", "ecn_marked", "port0"), "CE marks towards n0")
	assert.Positive(t, counter(sum, "n0", "tx_cnp"), "n0 sends CNPs")
	for n := 1; n < 8; n++ {
		nic := fmt.Sprintf("n%d", n)
		assert.Positive(t, counter(sum, nic, "rx_cnp"), "%s hears CNPs", nic)
		assert.Zero(t, counter(sum, nic, "tx_retransmits"), "%s retransmits nothing", nic)
	}
	assert.Contains(t, stdout, "rdma0 n1 -> n0:")
	assert.Contains(t, stdout, "leaf0: deepest queue")

	rates := incastRates(t, sum)
	require.Len(t, rates, 7)
	var total float64
	for _, r := range rates {
		total += r
	}
	const line = 8.0 // bytes per cycle at 64 bits
	t.Logf("DCQCN rates over the middle of the incast, bytes/cycle: %v; %.0f %% of the line rate in all", rates, 100*total/line)
	assert.Greater(t, total, 0.9*line, "the senders keep n0's link busy")
	for nic, r := range rates {
		assert.InEpsilon(t, line/7, r, 0.2, "%s's rate within 20 %% of its fair share", nic)
	}
}

// The same fabric with PFC off in every switch: the incast overflows
// leaf0's port to n0, and go-back-N recovers every loss, every frame as
// golden predicts. Shorter (60 messages), and with the ACK timeout a lossy
// fabric wants (1 ms, not 16.8): a lost last packet waits for it.
func TestFabricWithoutPFC(t *testing.T) {
	sum, _ := fabricRun(t, "1", "messages = 2000", "messages = 60", "messages = 280", "messages = 20",
		"CTRL = 30 ", "CTRL = 18 ", "timeout = 12 ", "timeout = 8 ")
	assert.Positive(t, fabricDrops(sum), "the switches drop frames")
	assert.Zero(t, counter(sum, "leaf0", "tx_pfc")+counter(sum, "leaf1", "tx_pfc")+counter(sum, "spine", "tx_pfc"), "no PFC frame")
	var retx uint64
	for n := 1; n < 8; n++ {
		retx += counter(sum, fmt.Sprintf("n%d", n), "tx_retransmits")
	}
	assert.Positive(t, retx, "the senders go back and send again")
	assert.Positive(t, counter(sum, "n0", "resp_nak_seq"), "n0 NAKs the gaps")
}

// incastRates is each incast sender's DCQCN rate (its QPs' summed, bytes
// per cycle) averaged from a third of the way into the incast to the end
// of its first QP to finish (while every QP has work), from the golden
// models' series.
func incastRates(t *testing.T, sum *engine.Summary) map[string]float64 {
	t.Helper()
	var first, end uint64
	qps := map[string][]string{}
	for _, f := range sum.Flows {
		if f.Workload != "rdma0" {
			continue
		}
		if first == 0 || f.FirstPost < first {
			first = f.FirstPost
		}
		if end == 0 || f.LastCompletion < end {
			end = f.LastCompletion
		}
		qps[f.From] = append(qps[f.From], fmt.Sprintf("%s.dcqcn_rate.qp%v", f.From, roce.QPN(f.QPN)))
	}
	from, to := first+(end-first)/3, end
	rates := map[string]float64{}
	for nic, names := range qps {
		for _, name := range names {
			s := sum.Series[name]
			require.NotNil(t, s, "series %s", name)
			var total float64
			n := 0
			for _, p := range s.Points {
				if p.Cycle >= from && p.Cycle+s.Width <= to {
					total += (p.Min + p.Max) / 2
					n++
				}
			}
			require.Positive(t, n, "series %s has points in %d..%d", name, from, to)
			rates[nic] += total / float64(n)
		}
	}
	return rates
}
