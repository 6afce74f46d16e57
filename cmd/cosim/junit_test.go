package main

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/junit/junittest"
	"github.com/rocesim/cosim/harness/mutation"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// junitCases reads a --junit file: each test case's class/name and its
// failure message, "" when it passed.
func junitCases(t *testing.T, path string) map[string]string {
	t.Helper()
	junittest.Validate(t, path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var doc struct {
		Suites []struct {
			Cases []struct {
				Name    string `xml:"name,attr"`
				Class   string `xml:"classname,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
					Text    string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	require.Len(t, doc.Suites, 1)
	out := map[string]string{}
	for _, c := range doc.Suites[0].Cases {
		out[c.Class+"/"+c.Name] = ""
		if c.Failure != nil {
			out[c.Class+"/"+c.Name] = c.Failure.Message + "\n" + c.Failure.Text
		}
	}
	return out
}

// TestJUnitOfRealRuns: --junit on the real switch passes every case; on
// the switch with a planted bug (a flood that includes the ingress port)
// the links it broke fail with their problems and the rerun command, and
// the file is valid for Jenkins either way.
func TestJUnitOfRealRuns(t *testing.T) {
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.toml")
	require.NoError(t, os.WriteFile(scen, []byte(generator.SwitchTraffic("switch4", 4, 64, 100, generator.SwitchConfigs[64])), 0o644))
	good, err := filepath.Abs(needModels(t, "switch4_64"))
	require.NoError(t, err)

	path := filepath.Join(dir, "pass.xml")
	code, _, stderr := cosim(t, "run", scen, "--seed", "7", "--out", filepath.Join(dir, "pass"), "--models", good, "--junit", path)
	require.Equal(t, 0, code, stderr)
	cases := junitCases(t, path)
	assert.Contains(t, cases, "cosim.switch-random.links/sw.out0")
	assert.Contains(t, cases, "cosim.switch-random.counters/sw")
	for name, f := range cases {
		assert.Empty(t, f, name)
	}

	bad := mutation.Build(t, mutation.Campaign{Device: "switch", Model: "switch4_64"}, "flood_includes_ingress")
	path = filepath.Join(dir, "fail.xml")
	code, _, stderr = cosim(t, "run", scen, "--seed", "7", "--out", filepath.Join(dir, "fail"), "--models", bad, "--junit", path)
	require.Equal(t, 1, code, stderr)
	cases = junitCases(t, path)
	failed := 0
	for name, f := range cases {
		if f == "" {
			continue
		}
		failed++
		assert.Contains(t, f, "rerun with: cosim run "+scen+" --seed 7", name)
		if strings.Contains(name, ".links/") {
			assert.Regexp(t, `(UNEXPECTED|MISMATCH|MISSING) cycle=\d+`, f, name)
		}
	}
	assert.Positive(t, failed, "the mutant's run fails some case: %v", cases)
}

// A --junit path that cannot be written is bad usage, found before the
// run; a run that cannot start leaves no file.
func TestJUnitUnwritable(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := cosim(t, "run", "--out", filepath.Join(dir, "o"), "--junit", filepath.Join(dir, "no", "such", "j.xml"))
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "cosim: run: --junit: open ")
	assert.NoDirExists(t, filepath.Join(dir, "o"))
}
