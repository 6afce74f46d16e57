package main

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/mutation"
	"github.com/rocesim/cosim/harness/report"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// TestReportInChromium: the report of a real run (the switch under an
// incast with PFC) loads in headless Chromium with no console message,
// its script runs, the totals it shows are summary.json's, and a
// screenshot shows the plots.
func TestReportInChromium(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "switch4_64"))
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "run")
	code, _, stderr := cosim(t, "run", "testdata/pinned/switch_incast_pfc.toml", "--seed", "4", "--out", out, "--models", models)
	require.Equal(t, 0, code, stderr)
	page := filepath.Join(out, report.File)
	st, err := os.Stat(page)
	require.NoError(t, err)
	assert.Less(t, st.Size(), int64(5<<20), "a few MB at most")
	sum := summaryOf(t, out)

	br := startBrowser(t)
	br.open("file://" + page)
	assert.Empty(t, br.Console, "the page writes nothing to the console: no error, no warning")
	assert.Equal(t, "1", br.eval(`document.body.dataset.ready`), "the page's script ran to its end")
	assert.Equal(t, "PASS", br.eval(`document.getElementById("verdict").textContent`))
	shown := br.eval(`Object.fromEntries([...document.querySelectorAll("[data-total]")].map(e => [e.dataset.total, Number(e.textContent)]))`).(map[string]any)
	require.Len(t, shown, 9)
	for k, v := range shown {
		want := sum[k]
		if k == "workload_failures" {
			want = float64(0) // absent from summary.json when there are none
		}
		assert.Equal(t, want, v, "total %s", k)
	}
	assert.GreaterOrEqual(t, br.eval(`document.querySelectorAll("figure svg").length`), float64(4), "throughput, ECN marks, PFC pauses, queue depth")
	assert.Contains(t, br.eval(`document.body.textContent`), "Queue depth per switch egress port and priority")
	// Each plot is drawn: its SVG has lines with some length.
	assert.Equal(t, true, br.eval(`[...document.querySelectorAll("figure svg")].every(s => s.getBBox().width > 100 && s.querySelectorAll("path").length > 10)`))

	img, err := png.Decode(bytes.NewReader(br.screenshot()))
	require.NoError(t, err)
	// The plots are the only coloured things beside the verdict badge: lines
	// and bars in gonum's palette.
	coloured := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl)>>8, min(r, g, bl)>>8
			if hi-lo > 80 {
				coloured++
			}
		}
	}
	assert.Greater(t, coloured, 2000, "the screenshot shows coloured plot lines (%d coloured samples)", coloured)
}

// TestReportOfFailedRun: a run of the switch with a planted bug reports
// every problem with its link, cycle, fields and a neighbourhood file that
// is there, and the command that reruns it.
func TestReportOfFailedRun(t *testing.T) {
	bad := mutation.Build(t, mutation.Campaign{Device: "switch", Model: "switch4_64"}, "flood_includes_ingress")
	dir := t.TempDir()
	scen := filepath.Join(dir, "s.toml")
	require.NoError(t, os.WriteFile(scen, []byte(generator.SwitchTraffic("switch4", 4, 64, 100, generator.SwitchConfigs[64])), 0o644))
	out := filepath.Join(dir, "out")
	code, _, stderr := cosim(t, "run", scen, "--seed", "7", "--out", out, "--models", bad)
	require.Equal(t, 1, code, stderr)
	html, err := os.ReadFile(filepath.Join(out, report.File))
	require.NoError(t, err)
	text := string(html)
	assert.Contains(t, text, `class="verdict fail">FAIL<`)
	assert.Contains(t, text, fmt.Sprintf(`<code id="rerun">cosim run %s --seed 7</code>`, scen))
	files := regexp.MustCompile(`<a href="(mismatch-\d{3}\.pcapng)">`).FindAllStringSubmatch(text, -1)
	require.NotEmpty(t, files, "the problems link their neighbourhood files")
	for _, m := range files {
		assert.FileExists(t, filepath.Join(out, m[1]))
	}
	sum := summaryOf(t, out)
	assert.Equal(t, len(sum["problems"].([]any)), strings.Count(text, `<tr class="bad"><td class="n">`), "one row per problem in summary.json")
}
