package main

// The outputs of fixed runs are pinned: the default scenario, switch
// scenarios in each of the engine's window policies, and the replay of a
// committed bridge recording must give byte-identical pcapng files and the
// same summary counters as when testdata/pinned.json was written. A change
// that is meant to keep behaviour (a refactor, a faster path) must leave
// them as they are; one that changes behaviour on purpose rewrites them
// with `go test ./cmd/cosim -run TestPinnedOutputs -update` and says why.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/report"
)

var update = flag.Bool("update", false, "rewrite testdata/pinned.json (and record testdata/pinned/bridge.pcapng if missing)")

// pinnedFile holds, per case, the SHA-256 of every output file but the
// summary, and the summary without its wall-clock fields.
const pinnedFile = "testdata/pinned.json"

// pinnedRecording is a bridge session recorded once by record().
const pinnedRecording = "testdata/pinned/bridge.pcapng"

type pinnedCase struct {
	name   string
	models []string
	args   []string
}

var pinnedCases = []pinnedCase{
	{"default", []string{"nic_64", "switch4_64"}, []string{"run", "--seed", "1"}},
	// Open loop: pipelined windows.
	{"switch-random", []string{"switch4_64"}, []string{"run", "testdata/pinned/switch_random.toml", "--seed", "3"}},
	// Sources that honour PFC frames: lock-step windows.
	{"switch-incast-pfc", []string{"switch4_64"}, []string{"run", "testdata/pinned/switch_incast_pfc.toml", "--seed", "4"}},
	{"bridge-replay", []string{"switch4_512"}, []string{"run", "--replay", pinnedRecording}},
}

// wallClock are the summary keys that measure the machine, not the run.
var wallClock = []string{"wall_seconds", "cycles_per_second", "waited"}

type pinned struct {
	Files   map[string]string `json:"files"`
	Summary map[string]any    `json:"summary"`
}

func TestPinnedOutputs(t *testing.T) {
	var models string
	for _, c := range pinnedCases {
		models = needModels(t, c.models...)
	}
	if _, err := os.Stat(pinnedRecording); os.IsNotExist(err) && *update {
		live := record(t, models)
		b, err := os.ReadFile(filepath.Join(live, bridge.RecordingFile))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(pinnedRecording, b, 0o644))
	}
	got := map[string]pinned{}
	for _, c := range pinnedCases {
		out := t.TempDir()
		args := append(append([]string{}, c.args...), "--out", out, "--models", models)
		code, stdout, stderr, _ := cli(context.Background(), args...)
		require.Equal(t, 0, code, "%s: %s\n%s", c.name, stdout, stderr)
		got[c.name] = outputsOf(t, out)
	}
	if *update {
		b, err := json.MarshalIndent(got, "", "  ")
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(pinnedFile, append(b, '\n'), 0o644))
		return
	}
	b, err := os.ReadFile(pinnedFile)
	require.NoError(t, err)
	var want map[string]pinned
	require.NoError(t, json.Unmarshal(b, &want))
	for _, c := range pinnedCases {
		assert.Equal(t, want[c.name].Summary, got[c.name].Summary, "%s: summary", c.name)
		assert.Equal(t, want[c.name].Files, got[c.name].Files, "%s: output files", c.name)
	}
}

// outputsOf hashes every file a run wrote to dir and reads its summary
// without the wall-clock fields.
func outputsOf(t *testing.T, dir string) pinned {
	t.Helper()
	p := pinned{Files: map[string]string{}}
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		require.NoError(t, err)
		if n == "summary.json" {
			require.NoError(t, json.Unmarshal(b, &p.Summary))
			for _, k := range wallClock {
				delete(p.Summary, k)
			}
			continue
		}
		if n == report.File {
			continue // shows the wall time; drawn from summary.json and the captures, pinned here
		}
		h := sha256.Sum256(b)
		p.Files[n] = hex.EncodeToString(h[:])
	}
	return p
}
