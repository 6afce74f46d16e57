//go:build linux

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullDisk mounts a tmpfs of size bytes at $D/full, for --out on a disk
// that fills up mid-run. Mounting needs root; without it the case skips.
func fullDisk(size string) func(*testing.T, string) {
	return func(t *testing.T, d string) {
		dir := filepath.Join(d, "full")
		require.NoError(t, os.Mkdir(dir, 0o755))
		if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
			t.Skipf("a full disk is a small tmpfs, and mounting one needs root: %v", err)
		}
		t.Cleanup(func() { assert.NoError(t, syscall.Unmount(dir, syscall.MNT_DETACH)) })
	}
}

// noPartialSummary: a summary.json that could not be written whole is not
// there at all, and stderr says so; one that is there parses.
func noPartialSummary(t *testing.T, out, stderr string) {
	assert.NoFileExists(t, filepath.Join(out, "summary.json.tmp"))
	b, err := os.ReadFile(filepath.Join(out, "summary.json"))
	if os.IsNotExist(err) {
		assert.Contains(t, stderr, "summary.json not written: ")
		return
	}
	require.NoError(t, err)
	var s map[string]any
	assert.NoError(t, json.Unmarshal(b, &s), "summary.json is whole")
}

// TestCatalogueFullDisk: a disk that fills up during a run ends it with
// exit status 1; every frame is still checked (the verdict is on stdout),
// and stderr says once which captures and whether the summary could not
// be written, then how to rerun.
func TestCatalogueFullDisk(t *testing.T) {
	models, err := filepath.Abs(needModels(t, "axis_fifo_64"))
	require.NoError(t, err)
	for _, c := range []catCase{
		{name: "disk full during captures", files: map[string][]byte{"s.toml": catEdit(map[int]string{20: `frames = 400`, 2: `cycles = 40000`})},
			setup: fullDisk("16k"), args: []string{"run", "$D/s.toml", "--out", "$D/full/out", "--models", "$M"},
			code: 1, first: `~^cosim: run: .*: no space left on device$`,
			check: func(t *testing.T, dir, stderr string) {
				assert.Contains(t, stderr, "captures not written in full; the first: ")
				noPartialSummary(t, filepath.Join(dir, "full", "out"), stderr)
				assert.Contains(t, stderr, "rerun with: cosim run")
			}},
	} {
		t.Run(c.name, func(t *testing.T) { runCatCase(t, models, c) })
	}
}
