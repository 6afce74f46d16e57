//go:build linux

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memoryScenario sends frames generated RoCEv2 frames through one FIFO.
func memoryScenario(frames int) string {
	return fmt.Sprintf(`name = "memory"
cycles = 10_000_000_000

[[model]]
name = "fifo"
top = "axis_fifo"

[[traffic]]
kind = "roce"
to = "fifo.in0"
frames = %d
min_size = 60
max_size = 128
`, frames)
}

// peakRSS runs `cosim run` on memoryScenario(frames) with no captures and
// returns the peak resident memory of the command, in MiB, and how long
// the run took. The peak is the process's VmHWM, read while it runs:
// wait4's ru_maxrss would report the test process's own size, since Go
// starts children with vfork and the kernel counts the parent's memory at
// the child's exec.
func peakRSS(tb testing.TB, models string, frames int) (float64, time.Duration) {
	tb.Helper()
	dir := tb.TempDir()
	scen := filepath.Join(dir, "memory.toml")
	require.NoError(tb, os.WriteFile(scen, []byte(memoryScenario(frames)), 0o644))
	cmd := self(tb, "run", scen, "--no-pcap", "--out", filepath.Join(dir, "out"), "--models", models)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	require.NoError(tb, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	var peakKiB uint64
	for {
		select {
		case err := <-done:
			require.NoError(tb, err, "%s", out.String())
			require.Positive(tb, peakKiB, "VmHWM never read")
			return float64(peakKiB) / 1024, time.Since(start)
		case <-time.After(5 * time.Millisecond):
			if v, ok := vmHWM(status); ok {
				peakKiB = max(peakKiB, v)
			}
		}
	}
}

// vmHWM reads the peak resident set size, in KiB, from a /proc status
// file (proc(5)).
func vmHWM(path string) (uint64, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n, err == nil
		}
	}
	return 0, false
}

// A run's memory does not grow with its length: traffic is drawn a window
// ahead and let go once sent. Four times the frames may take no more than
// a few MiB more (the noise of the peak), and stay far under 100 MiB (harness/PERFORMANCE.md
// measures four million frames with BenchmarkPeakRSS).
func TestMemoryDoesNotGrowWithLength(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "axis_fifo_64"))
	require.NoError(t, err)
	// The least of two runs each: one peak is the garbage collector's
	// pacing as much as the run's (it varies by 10 MiB run to run, more
	// with other work on the machine), a leak shows in both. The first
	// 200,000 frames settle the heap (50,000 peak about 10 MiB lower), so
	// the comparison starts there.
	least := func(frames int) (float64, time.Duration) {
		rss, took := peakRSS(t, models, frames)
		r, _ := peakRSS(t, models, frames)
		return min(rss, r), took
	}
	short, _ := least(200_000)
	long, took := least(800_000)
	t.Logf("least peak RSS of two runs: %.1f MiB for 200,000 frames, %.1f MiB for 800,000 (%v a run)", short, long, took)
	assert.Less(t, long, 100.0)
	// 16 MiB over 600,000 frames is 28 bytes a frame: a leak of anything
	// a frame holds shows.
	assert.Less(t, long-short, 16.0, "memory grows with the run's length")
}

// BenchmarkPeakRSS reports the peak resident memory of runs of growing
// length (make bench): the figure behind "four million generated frames
// run in under 100 MB".
func BenchmarkPeakRSS(b *testing.B) {
	models, err := filepath.Abs(needModels(b, "axis_fifo_64"))
	require.NoError(b, err)
	for _, frames := range []int{250_000, 1_000_000, 4_000_000} {
		b.Run(fmt.Sprintf("frames=%d", frames), func(b *testing.B) {
			var mib float64
			var took time.Duration
			for range b.N {
				mib, took = peakRSS(b, models, frames)
			}
			b.ReportMetric(mib, "peak-MiB")
			b.ReportMetric(float64(frames)/took.Seconds(), "frames/s")
		})
	}
}
