package bridge

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/scenario"
)

// seedRecording writes a small recording with the package's own recorder:
// two taps, frames on both, so seeds cover interfaces and cycles. Frames
// are short: the fuzzer minimizes new inputs a file write per try.
func seedRecording(t testing.TB) []byte {
	text, err := os.ReadFile("default.toml")
	require.NoError(t, err)
	sc, err := scenario.Parse("default.toml", text)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(sc.Taps), 2)
	path := filepath.Join(t.TempDir(), RecordingFile)
	// The header carries the scenario's text, which LoadRecording only
	// returns: a short one keeps the seed small.
	r, err := newRecorder(path, sc, []byte("name = \"fuzz\"\n"), 7)
	require.NoError(t, err)
	frame := func(b byte, n int) []byte { return bytes.Repeat([]byte{b}, n) }
	r.write(0, 10, frame(0xaa, 60))
	r.write(1, 12, frame(0xbb, 60))
	r.write(0, 40, frame(0xcc, 64))
	require.NoError(t, r.close())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return data
}

// FuzzRecording feeds arbitrary files to LoadRecording: it must not panic
// and every error must name the file.
func FuzzRecording(f *testing.F) {
	rec := seedRecording(f)
	f.Add(rec)
	for _, n := range []int{0, 4, 12, 28, len(rec) / 3, len(rec) / 2, len(rec) - 1} {
		f.Add(rec[:n])
	}
	// A wrong magic line, a seed that is not a number, no seed, a frame
	// cycle that goes back in time, and a pcapng that is not a recording.
	for _, sub := range [][2]string{
		{"cosim recording 1", "cosim recording 9"},
		{"seed=7", "seed=x"},
		{"seed=7", "salt=7"},
		{"cycle=40", "cycle=01"},
		{"\n\n", "\n-"},
	} {
		f.Add(bytes.Replace(rec, []byte(sub[0]), []byte(sub[1]), 1))
	}

	// A hang is a failure too: a watchdog crashes the worker with every
	// goroutine's stack rather than leaving the fuzzer waiting.
	debug.SetTraceback("all")
	f.Fuzz(func(t *testing.T, data []byte) {
		defer time.AfterFunc(10*time.Second, func() { panic("FuzzRecording: no result after 10s") }).Stop()
		path := filepath.Join(t.TempDir(), RecordingFile)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rec, err := LoadRecording(path)
		if err != nil {
			if rec != nil {
				t.Fatalf("a recording as well as an error: %v", err)
			}
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for name, frames := range rec.Frames {
			for i := 1; i < len(frames); i++ {
				if frames[i].Cycle < frames[i-1].Cycle {
					t.Fatalf("tap %s: frame %d goes back in time", name, i)
				}
			}
		}
	})
}
