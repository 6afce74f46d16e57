package coverage

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
)

func run(ctrs map[string]map[string]uint64) map[string]uint64 {
	s := &engine.Summary{Counters: map[string]map[string]engine.CounterPair{},
		Models: map[string]engine.ModelInfo{"nic0": {Top: "nic"}, "nic1": {Top: "nic"}, "sw": {Top: "switch4"}}}
	for m, cs := range ctrs {
		s.Counters[m] = map[string]engine.CounterPair{}
		for n, v := range cs {
			s.Counters[m][n] = engine.CounterPair{DUT: v, Golden: v}
		}
	}
	return Bins(s)
}

func TestBins(t *testing.T) {
	got := run(map[string]map[string]uint64{
		"nic0": {"qp0.req_retry_timeout": 2, "qp1.req_retry_timeout": 1, "qp0.resp_rnr_nak": 0, "cq_overflow": 0},
		"nic1": {"qp0.req_retry_timeout": 4},
		"sw":   {"port2.drop_tail[3]": 5, "port2.drop_tail[4]": 0},
	})
	assert.Equal(t, map[string]uint64{
		"nic.req_retry_timeout": 7, "nic.resp_rnr_nak": 0, "nic.cq_overflow": 0,
		"switch4.port2.drop_tail.prio3": 5, "switch4.port2.drop_tail.prio4": 0,
	}, got, "QPs and NICs of one top summed; priorities as .prioN")
}

// A golden model's events are bins beside its counters, named by its top
// and summed over models of one top.
func TestEventBins(t *testing.T) {
	s := &engine.Summary{Models: map[string]engine.ModelInfo{"nic0": {Top: "nic"}, "nic1": {Top: "nic"}, "sw": {Top: "switch4"}},
		Events: map[string]map[string]uint64{
			"nic0": {"send.WRITE.SUCCESS": 3, "dcqcn.cut": 0},
			"nic1": {"send.WRITE.SUCCESS": 1, "dcqcn.cut": 2},
			"sw":   {"port1.pfc_xoff.prio3": 0},
		}}
	assert.Equal(t, map[string]uint64{"nic.send.WRITE.SUCCESS": 4, "nic.dcqcn.cut": 2, "switch4.port1.pfc_xoff.prio3": 0}, Bins(s))
}

func TestMergeAndGoals(t *testing.T) {
	m := Merge([]map[string]uint64{
		{"nic.req_retry_timeout": 2, "nic.resp_rnr_nak": 0, "switch4.port0.drop_tail.prio3": 0},
		{"nic.req_retry_timeout": 0, "nic.resp_rnr_nak": 0, "switch4.port0.drop_tail.prio3": 1},
	})
	assert.Equal(t, 2, m.Hit)
	assert.Equal(t, 3, m.Total)
	assert.Equal(t, []string{"nic.resp_rnr_nak"}, m.Holes)
	assert.Equal(t, Bin{Name: "nic.req_retry_timeout", Hits: 2, Runs: 1}, m.Bins[0])

	file := filepath.Join(t.TempDir(), "goals.toml")
	require.NoError(t, os.WriteFile(file, []byte(`must_hit = ["nic.req_retry_*", "switch4.port*.drop_tail.prio3", "nic.resp_rnr_nak", "nic.no_such"]`), 0o644))
	g, err := LoadGoals(file)
	require.NoError(t, err)
	assert.Equal(t, []string{"nic.resp_rnr_nak", "nic.no_such (no such bin)"}, g.Unmet(m))

	require.NoError(t, os.WriteFile(file, []byte(`must = ["x"]`), 0o644))
	_, err = LoadGoals(file)
	assert.ErrorContains(t, err, "unknown key must")
}
