package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/oracle"
	"github.com/rocesim/cosim/harness/mutation"
	"github.com/rocesim/cosim/harness/report"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// fstTimes returns the first and last time stamps (ps) of an FST, and its
// top-level signal names, read with GTKWave's fst2vcd.
func fstTimes(t *testing.T, path string) (first, last uint64, names []string) {
	t.Helper()
	bin := oracle.Require(t, "fst2vcd", "-h")
	out, err := exec.Command(bin, path).Output()
	require.NoError(t, err)
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	seen, depth := false, 0
	for sc.Scan() {
		line := sc.Text()
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[0] == "$scope":
			depth++
		case len(f) > 0 && f[0] == "$upscope":
			depth--
		case depth == 1 && len(f) >= 5 && f[0] == "$var":
			names = append(names, f[4])
		case strings.HasPrefix(line, "#"):
			v, err := strconv.ParseUint(line[1:], 10, 64)
			require.NoError(t, err)
			if !seen {
				first, seen = v, true
			}
			last = v
		}
	}
	return first, last, names
}

// TestWaveformAtFirstProblem: the switch with a planted bug fails; the run
// reruns itself with tracing on only around the first problem, and leaves
// mismatch-001.fst (those cycles only), a GTKWave save file on its ports,
// the summary's and the report's entry, and the viewer command.
func TestWaveformAtFirstProblem(t *testing.T) {
	bad := mutation.Build(t, mutation.Campaign{Device: "switch", Model: "switch4_64"}, "flood_includes_ingress")
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.toml")
	require.NoError(t, os.WriteFile(scen, []byte(generator.SwitchTraffic("switch4", 4, 64, 100, generator.SwitchConfigs[64])), 0o644))
	out := filepath.Join(dir, "out")
	code, stdout, stderr := cosim(t, "run", scen, "--seed", "7", "--out", out, "--models", bad, "--trace-before", "10", "--trace-after", "200")
	require.Equal(t, 1, code, stderr)
	assert.Contains(t, stdout, "rerunning to trace the cycles around the first problem")
	assert.NotContains(t, stdout, "not deterministic")

	sum := summaryOf(t, out)
	waves, _ := sum["waveforms"].([]any)
	require.Len(t, waves, 1, "summary.json names the waveform")
	w := waves[0].(map[string]any)
	cycle := uint64(w["cycle"].(float64))
	first := sum["problems"].([]any)[0].(map[string]any)
	assert.Equal(t, first["cycle"], w["cycle"], "the first problem's cycle")
	assert.Equal(t, true, w["reproduced"], "the rerun met the same problem at the same cycle")
	from, to := uint64(w["from"].(float64)), uint64(w["to"].(float64))
	require.Greater(t, cycle, uint64(10), "the problem comes after a few frames")
	assert.Equal(t, cycle-10, from)
	assert.Equal(t, cycle+200, to)
	assert.Contains(t, stdout, fmt.Sprintf("traced cycles %d..%d", from, to))
	files := w["files"].(map[string]any)
	require.Contains(t, files, "sw")
	fst := filepath.Join(out, files["sw"].(string))
	assert.Equal(t, "mismatch-001.fst", files["sw"])
	assert.Contains(t, w["view"], "gtkwave "+fst+" "+filepath.Join(out, "mismatch-001.gtkw"))

	// Only the window is in the trace: cycle c starts at (c+8) ns, and
	// neither reset nor the cycles before the window are there.
	t0, t1, names := fstTimes(t, fst)
	assert.Equal(t, (from+8)*1000, t0)
	assert.LessOrEqual(t, t1, (to+8)*1000)
	assert.Contains(t, names, "m_axis_tdata")

	gtkw, err := os.ReadFile(filepath.Join(out, "mismatch-001.gtkw"))
	require.NoError(t, err)
	assert.Contains(t, string(gtkw), `[dumpfile] "mismatch-001.fst"`)
	assert.Contains(t, string(gtkw), "TOP.m_axis_tdata[255:0]", "vectors with their ranges, as the FST names them")
	assert.Contains(t, string(gtkw), " "+strconv.FormatUint((cycle+8)*1000, 10)+" ", "the marker at the problem")

	html, err := os.ReadFile(filepath.Join(out, report.File))
	require.NoError(t, err)
	assert.Contains(t, string(html), `<a href="mismatch-001.fst">mismatch-001.fst</a> (sw)`)
	assert.Contains(t, string(html), `<a href="mismatch-001.gtkw">`)

	// --no-rerun: no waveform.
	out2 := filepath.Join(dir, "out2")
	code, stdout, _ = cosim(t, "run", scen, "--seed", "7", "--out", out2, "--models", bad, "--no-rerun")
	require.Equal(t, 1, code)
	assert.NotContains(t, stdout, "rerunning")
	assert.NoFileExists(t, filepath.Join(out2, "mismatch-001.fst"))
	assert.NotContains(t, summaryOf(t, out2), "waveforms")
}
