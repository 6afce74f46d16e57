package junit_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/junit"
	"github.com/rocesim/cosim/harness/junit/junittest"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// parsed is what a reader of the XML sees.
type parsed struct {
	Tests    int `xml:"tests,attr"`
	Failures int `xml:"failures,attr"`
	Errors   int `xml:"errors,attr"`
	Suites   []struct {
		Name     string `xml:"name,attr"`
		Tests    int    `xml:"tests,attr"`
		Failures int    `xml:"failures,attr"`
		Errors   int    `xml:"errors,attr"`
		Props    []struct {
			Name  string `xml:"name,attr"`
			Value string `xml:"value,attr"`
		} `xml:"properties>property"`
		Cases []struct {
			Name    string `xml:"name,attr"`
			Class   string `xml:"classname,attr"`
			Failure *struct {
				Message string `xml:"message,attr"`
				Type    string `xml:"type,attr"`
				Text    string `xml:",chardata"`
			} `xml:"failure"`
			Error *struct {
				Message string `xml:"message,attr"`
			} `xml:"error"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func write(t *testing.T, runs ...junit.Run) (string, parsed) {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, junit.Write(&b, runs...))
	path := filepath.Join(t.TempDir(), "junit.xml")
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
	var p parsed
	require.NoError(t, xml.Unmarshal(b.Bytes(), &p))
	return path, p
}

// A summary as a failed run leaves it: one link with a mismatch, one
// counter off, one workload failure, a stuck input.
func failedSummary() *engine.Summary {
	return &engine.Summary{
		Scenario: "incast", Seed: 7, Cycles: 1000, WallSeconds: 1.25,
		Links: []scoreboard.StreamCounts{
			{Stream: "sw.out0", Counts: scoreboard.Counts{Expected: 10, Observed: 10, Matched: 9, Mismatched: 1}},
			{Stream: "sw.out1", Counts: scoreboard.Counts{Expected: 5, Observed: 5, Matched: 5}},
		},
		Problems: []scoreboard.Problem{{Kind: "MISMATCH", Stream: "sw.out0", Cycle: 420, Packet: 3, DUTFrame: 3,
			Cause: "sw.in1 #3", File: "mismatch-001.pcapng", Diffs: []scoreboard.FieldDiff{{Field: "BTH.PSN", Want: "0x5", Got: "0x6"}}}},
		Counters: map[string]map[string]engine.CounterPair{
			"sw":  {"rx_frames": {DUT: 15, Golden: 15}, "drop_tail": {DUT: 2, Golden: 1}},
			"nic": {"tx_packets": {DUT: 3, Golden: 3}},
		},
		Workloads: []string{"rdma0", "rdma1"},
		Workload:  []string{"rdma1: host memory at 0x40 is 0x01, golden has 0x02"},
		Stuck:     1,
	}
}

func TestFailedRun(t *testing.T) {
	path, p := write(t, junit.Run{Summary: failedSummary(), Rerun: "cosim run incast.toml --seed 7"})
	junittest.Validate(t, path)

	require.Len(t, p.Suites, 1)
	s := p.Suites[0]
	assert.Equal(t, "incast seed=7", s.Name)
	// run, 2 links, 2 counter sets, 2 workloads, inputs drained.
	assert.Equal(t, 8, s.Tests)
	assert.Equal(t, 4, s.Failures, "sw.out0, counters of sw, rdma1, stuck")
	assert.Equal(t, 0, s.Errors)
	assert.Equal(t, []int{8, 4, 0}, []int{p.Tests, p.Failures, p.Errors})

	byName := map[string]int{}
	for i, c := range s.Cases {
		byName[c.Class+"/"+c.Name] = i
	}
	link := s.Cases[byName["cosim.incast.links/sw.out0"]]
	require.NotNil(t, link.Failure)
	assert.Equal(t, "1 mismatched, 0 missing, 0 unexpected; 9 of 10 expected frames matched", link.Failure.Message)
	assert.Contains(t, link.Failure.Text, "MISMATCH cycle=420 packet=#3 dut_frame=#3 cause=sw.in1 #3 neighbourhood=mismatch-001.pcapng")
	assert.Contains(t, link.Failure.Text, "BTH.PSN want 0x5 got 0x6")
	assert.Contains(t, link.Failure.Text, "rerun with: cosim run incast.toml --seed 7")
	assert.Nil(t, s.Cases[byName["cosim.incast.links/sw.out1"]].Failure)

	ctr := s.Cases[byName["cosim.incast.counters/sw"]]
	require.NotNil(t, ctr.Failure)
	assert.Contains(t, ctr.Failure.Text, "drop_tail: DUT 2, golden 1")
	assert.NotContains(t, ctr.Failure.Text, "rx_frames")
	assert.Nil(t, s.Cases[byName["cosim.incast.counters/nic"]].Failure)

	assert.Nil(t, s.Cases[byName["cosim.incast.workloads/rdma0"]].Failure)
	wl := s.Cases[byName["cosim.incast.workloads/rdma1"]]
	require.NotNil(t, wl.Failure)
	assert.Contains(t, wl.Failure.Text, "host memory at 0x40")
	assert.NotNil(t, s.Cases[byName["cosim.incast.run/inputs drained"]].Failure)
	assert.Nil(t, s.Cases[byName["cosim.incast.run/run"]].Error)

	props := map[string]string{}
	for _, pr := range s.Props {
		props[pr.Name] = pr.Value
	}
	assert.Equal(t, map[string]string{"scenario": "incast", "seed": "7", "cycles": "1000", "rerun": "cosim run incast.toml --seed 7"}, props)
}

// A run broken off by an error is one error case; several runs are one
// suite each (a campaign).
func TestBrokenRunAndSeveralRuns(t *testing.T) {
	broken := &engine.Summary{Scenario: "pair", Seed: 2, Error: `model "nic1": exited with status 1` + "\nits last words"}
	ok := &engine.Summary{Scenario: "pair", Seed: 3, Links: []scoreboard.StreamCounts{{Stream: "nic0.out0", Counts: scoreboard.Counts{Expected: 4, Observed: 4, Matched: 4}}}}
	path, p := write(t, junit.Run{Summary: broken, Rerun: "cosim run --seed 2"}, junit.Run{Summary: ok, Name: "second", Rerun: "cosim run --seed 3"})
	junittest.Validate(t, path)
	require.Len(t, p.Suites, 2)
	assert.Equal(t, []int{1, 0, 1}, []int{p.Suites[0].Tests - 1, p.Suites[0].Failures, p.Suites[0].Errors})
	require.NotNil(t, p.Suites[0].Cases[0].Error)
	assert.Equal(t, `model "nic1": exited with status 1`, p.Suites[0].Cases[0].Error.Message)
	assert.Equal(t, "second", p.Suites[1].Name)
	assert.Equal(t, 0, p.Suites[1].Failures+p.Suites[1].Errors)
	assert.Equal(t, 1, p.Errors)
}

// The schema check is not a formality: a suite without its failures
// count is refused.
func TestSchemaRefusesIncompleteSuite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.xml")
	require.NoError(t, os.WriteFile(path, []byte(`<testsuites><testsuite name="x" tests="1" errors="0"><testcase name="a"/></testsuite></testsuites>`), 0o644))
	err := junittest.Check(t, path)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "failures"), "%v", err)
}
