package main

// Tests of RTL coverage (cosim run --coverage, cosim campaign run
// --coverage and the merge) with the real coverage models (make
// models-coverage; make test builds the ones these need), the real
// verilator_coverage and genhtml: a missing model fails under
// COSIM_REQUIRE_MODELS=1, a missing tool under COSIM_REQUIRE_ORACLES=1 (both
// set by make test), and skips otherwise.

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	cosimproto "github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/golden/oracle"
	"github.com/rocesim/cosim/harness/campaign"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/modeltest"
)

// rtlCoverageScenario drives the switch's drops, ECN marks and PFC
// (testdata/rtl_coverage.toml); these of its cover points must be hit.
var (
	rtlCoverageScenario = filepath.Join("testdata", "rtl_coverage.toml")
	rtlCoverageHit      = []string{
		"switch_decide.cov_drop_runt", "switch_decide.cov_drop_oversize", "switch_decide.cov_drop_bad",
		"switch_decide.cov_drop_no_slot", "switch_decide.cov_drop_tail", "switch_decide.cov_ecn_mark",
		"switch_decide.cov_pfc_received", "switch_pfc_ctl.cov_pfc_xoff_prio0", "switch_pfc_ctl.cov_pfc_xon_prio0",
	}
)

// coverPoints reads a coverage file's cover points as "module.label" to
// the cycles they held.
func coverPoints(t *testing.T, path string) map[string]uint64 {
	t.Helper()
	kinds, points, err := campaign.ReadCoverageData(path)
	require.NoError(t, err)
	for _, k := range []string{"line", "toggle", "user"} {
		assert.Positive(t, kinds[k].Total, "%s: no %s points: not a --coverage build?", path, k)
	}
	m := map[string]uint64{}
	for _, p := range points {
		m[p.Module+"."+p.Name] = p.Hits
	}
	return m
}

// TestRTLCoverageRun: cosim run --coverage has the switch write its
// coverage to OUT/coverage/sw.dat, listed in summary.json, with the
// scenario's cover points hit; the same run on models built without
// coverage is refused before it starts (exit 2), saying how to build them.
func TestRTLCoverageRun(t *testing.T) {
	models := modeltest.NeedCoverage(t, "switch4_64")
	out := filepath.Join(t.TempDir(), "out")
	code, stdout, stderr := cosim(t, "run", rtlCoverageScenario, "--coverage", "--models", models, "--out", out, "--no-pcap")
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Equal(t, []any{"coverage/sw.dat"}, summaryOf(t, out)["rtl_coverage"])
	hits := coverPoints(t, filepath.Join(out, engine.CoverageDir, "sw.dat"))
	for _, p := range rtlCoverageHit {
		assert.Positive(t, hits[p], "cover point %s not hit", p)
	}
	assert.Contains(t, hits, "switch_pfc_ctl.cov_pfc_xon_prio7", "every cover point is in the file, hit or not")

	plain := needModels(t, "switch4_64")
	out2 := filepath.Join(t.TempDir(), "out")
	code, _, stderr = cosim(t, "run", rtlCoverageScenario, "--coverage", "--models", plain, "--out", out2)
	assert.Equal(t, 2, code, stderr)
	assert.Contains(t, stderr, "built without coverage: make models-coverage")
	assert.NoFileExists(t, filepath.Join(out2, engine.CoverageDir, "sw.dat"))
}

// TestRTLCoverageOnSignal: a coverage model killed with SIGTERM in the
// middle of a session writes its coverage before it dies of the signal;
// one that ends normally writes it too; a model built without coverage
// refuses --coverage-file at once.
func TestRTLCoverageOnSignal(t *testing.T) {
	top, width, err := modeltest.Parse("switch4_64")
	require.NoError(t, err)
	bin := engine.ModelPath(modeltest.NeedCoverage(t, "switch4_64"), top, width)
	dir := t.TempDir()
	ctx := context.Background()
	for _, kill := range []bool{true, false} {
		path := filepath.Join(dir, "sw.dat")
		os.Remove(path)
		m, err := cosimproto.Start(ctx, cosimproto.Config{Name: "sw", Path: bin, Args: []string{"--coverage-file", path}})
		require.NoError(t, err)
		_, err = m.Handshake(ctx, cosimproto.HelloAck{Seed: 1})
		require.NoError(t, err)
		_, err = m.Step(ctx, cosimproto.Window{Target: 1000})
		require.NoError(t, err)
		if kill {
			require.NoError(t, syscall.Kill(m.Pid(), syscall.SIGTERM))
			deadline := time.Now().Add(10 * time.Second)
			for !fileExists(path) && time.Now().Before(deadline) {
				time.Sleep(10 * time.Millisecond)
			}
		}
		err = m.Close()
		if kill {
			assert.ErrorContains(t, err, "terminated", "it dies of the signal, as without coverage")
		} else {
			assert.NoError(t, err)
		}
		hits := coverPoints(t, path)
		assert.Contains(t, hits, "switch_decide.cov_drop_runt")
		assert.NoFileExists(t, path+".tmp")
	}

	plain := engine.ModelPath(needModels(t, "switch4_64"), top, width)
	_, err = cosimproto.Start(ctx, cosimproto.Config{Name: "sw", Path: plain, Args: []string{"--coverage-file", filepath.Join(dir, "x.dat")}})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "built without coverage: make models-coverage")
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestRTLCoverageCampaign: a campaign of three runs with --coverage; the
// merge adds their coverage files up with verilator_coverage, exports lcov
// and genhtml's HTML, and campaign.json and index.html give the totals,
// link the report and list the cover points.
func TestRTLCoverageCampaign(t *testing.T) {
	models, err := filepath.Abs(modeltest.NeedCoverage(t, "switch4_64"))
	require.NoError(t, err)
	oracle.Require(t, "verilator_coverage", "--version")
	oracle.Require(t, "genhtml", "--version")
	t.Setenv("COSIM_TEST_MAIN", "1") // the runs are this test binary as cosim
	dir := t.TempDir()
	scen, err := filepath.Abs(rtlCoverageScenario)
	require.NoError(t, err)
	file := filepath.Join(dir, "c.toml")
	require.NoError(t, os.WriteFile(file, []byte("name = \"cov\"\nseeds = { from = 1, count = 3 }\n[[scenario]]\nfile = \""+scen+"\"\n"), 0o644))
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cosim(t, "campaign", "run", file, "--coverage", "--jobs", "2", "--out", out, "--models", models)
	require.Equal(t, 0, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
	assert.Regexp(t, `RTL coverage: [1-9]\d* of [1-9]\d* lines, \d+ of \d+ cover points hit, from 3 coverage files`, stdout)

	var m campaign.Merged
	require.NoError(t, json.Unmarshal(mustRead(t, filepath.Join(out, campaign.MergedFile)), &m))
	c := m.RTLCoverage
	require.NotNil(t, c, "campaign.json has rtl_coverage")
	assert.Equal(t, 3, c.Files)
	assert.Positive(t, c.Lines.Total)
	assert.Positive(t, c.Lines.Hit)
	assert.LessOrEqual(t, c.Lines.Hit, c.Lines.Total)
	for _, f := range []string{campaign.RTLMergedFile, campaign.RTLInfoFile, campaign.RTLHTMLIndex} {
		assert.FileExists(t, filepath.Join(out, f))
	}
	info := string(mustRead(t, filepath.Join(out, campaign.RTLInfoFile)))
	assert.Regexp(t, `(?m)^SF:/.*/rtl/switch/switch_decide\.sv$`, info, "absolute source paths: genhtml finds them from anywhere")
	hits := map[string]uint64{}
	for _, p := range c.Covers {
		hits[p.Module+"."+p.Name] = p.Hits
	}
	for _, p := range rtlCoverageHit {
		assert.Positive(t, hits[p], "cover point %s not hit", p)
		assert.NotContains(t, c.NeverHit, p)
	}
	assert.Contains(t, c.NeverHit, "switch_pfc_ctl.cov_pfc_xon_prio7", "priority 7 never pauses here")
	// the merge sums the runs: three runs hit a point more than one did
	one := coverPoints(t, filepath.Join(out, "runs", "0000", engine.CoverageDir, "sw.dat"))
	assert.Greater(t, hits["switch_decide.cov_drop_tail"], one["switch_decide.cov_drop_tail"])

	html := string(mustRead(t, filepath.Join(out, campaign.IndexFile)))
	assert.Contains(t, html, `href="`+campaign.RTLHTMLIndex+`"`)
	assert.Regexp(t, regexp.MustCompile(`<td>switch_decide</td><td>cov_drop_tail</td><td>[1-9]`), html)
	genhtml := string(mustRead(t, filepath.Join(out, campaign.RTLHTMLIndex)))
	assert.Contains(t, genhtml, `>rtl/switch</a>`, "paths shown from the repository root")
}
