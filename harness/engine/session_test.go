package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/modeltest"
)

// Two FIFOs over a lossy, corrupting link, the second's output stalled:
// traffic, faults and backpressure all drawn from the seed.
const sessionTOML = `
name = "session"
cycles = 10_000_000
[[model]]
name = "a"
top = "axis_fifo"
data_width = 64
[[model]]
name = "b"
top = "axis_fifo"
data_width = 64
sink_stall_pct = 20
[[link]]
from = "a.out0"
to = "b.in0"
latency = 300
loss_pct = 5
corrupt_pct = 5
[[traffic]]
kind = "l2"
to = "a.in0"
frames = 300
gap_cycles = 7
`

// A Session that only finishes is Run, and one stepped to cycles of the
// test's choosing before it finishes gives the same results: the same
// frames, faults, backpressure and link captures, whatever the windows.
func TestSessionIsRun(t *testing.T) {
	dir := modeltest.NeedModels(t, "axis_fifo_64")
	run := func(drive func(*engine.Session)) (*engine.Summary, string) {
		sc := modeltest.Scenario(t, sessionTOML)
		cfg := engine.Config{Scenario: sc, Seed: 5, OutDir: t.TempDir(), ModelDir: dir}
		if drive == nil {
			s, err := engine.Run(context.Background(), cfg)
			require.NoError(t, err)
			return s, cfg.OutDir
		}
		ses, err := engine.Start(context.Background(), cfg)
		require.NoError(t, err)
		drive(ses)
		s, err := ses.Finish(context.Background())
		require.NoError(t, err)
		return s, cfg.OutDir
	}
	want, wantDir := run(nil)
	require.True(t, want.Pass, want.Error)
	require.Positive(t, want.Faults["link_corrupt"])
	for name, drive := range map[string]func(*engine.Session){
		"finish only": func(*engine.Session) {},
		"stepped": func(s *engine.Session) {
			for c := uint64(777); c < 20_000; c += 777 {
				require.NoError(t, s.RunTo(context.Background(), c))
				assert.Equal(t, c, s.Cycle())
			}
		},
	} {
		got, gotDir := run(drive)
		assert.True(t, got.Pass, "%s: %s", name, got.Error)
		if name == "finish only" {
			// Where a run stops is the end of its last window: the same
			// windows, the same cycle.
			assert.Equal(t, want.Cycles, got.Cycles, name)
		}
		assert.Equal(t, want.FramesIn, got.FramesIn, name)
		assert.Equal(t, want.FramesOut, got.FramesOut, name)
		assert.Equal(t, want.Matched, got.Matched, name)
		assert.Equal(t, want.Drops, got.Drops, name)
		assert.Equal(t, want.Faults, got.Faults, name)
		assert.Equal(t, want.Stalls, got.Stalls, name)
		for _, f := range []string{"traffic0--a.in0.pcapng", "a.out0--b.in0.pcapng", "b.out0--sink.pcapng"} {
			w, err := os.ReadFile(filepath.Join(wantDir, f))
			require.NoError(t, err)
			g, err := os.ReadFile(filepath.Join(gotDir, f))
			require.NoError(t, err)
			assert.Equal(t, w, g, "%s: %s", name, f)
		}
	}
}

// Frames a session sends go in at their cycles and are checked like the
// scenario's own; the golden model hears a CSR write with its cycle; an
// unchecked port's frames are left to the test; a session takes nothing
// after Finish.
func TestSessionSends(t *testing.T) {
	dir := modeltest.NeedModels(t, "axis_fifo_64")
	sc := modeltest.Scenario(t, "name = \"s\"\ncycles = 1_000_000\n[[model]]\nname = \"f\"\ntop = \"axis_fifo\"\ndata_width = 64\n")
	var seen []cosim.Frame
	obs := observer{emitted: func(f cosim.Frame) { seen = append(seen, f) }}
	ses, err := engine.Start(context.Background(), engine.Config{Scenario: sc, Seed: 1, OutDir: t.TempDir(), ModelDir: dir, Observer: obs})
	require.NoError(t, err)
	frame := make([]byte, 64)
	frame[0] = 0x42
	require.NoError(t, ses.Send("f", 0, 100, frame, false))
	require.ErrorContains(t, ses.Send("f", 1, 100, frame, false), "f.in1: top axis_fifo has 1 input ports")
	require.NoError(t, ses.RunTo(context.Background(), 1000))
	require.ErrorContains(t, ses.Send("f", 0, 999, frame, false), "f.in0: cycle 999 is in the past (the session is at cycle 1000)")
	require.Len(t, seen, 1)
	assert.Equal(t, frame, seen[0].Data)
	assert.GreaterOrEqual(t, seen[0].Cycle, uint64(100), "not before its arrival")
	assert.True(t, ses.Idle())
	s, err := ses.Finish(context.Background())
	require.NoError(t, err)
	assert.True(t, s.Pass)
	assert.Equal(t, 1, s.Matched)
	require.ErrorContains(t, ses.RunTo(context.Background(), 2000), "session already finished")
	_, err = ses.Finish(context.Background())
	require.ErrorContains(t, err, "session already finished")
}

// observer hears what a session's models emit.
type observer struct{ emitted func(cosim.Frame) }

func (o observer) Accepted(string, int, uint64, uint64, []byte) {}
func (o observer) Emitted(_ string, f cosim.Frame)              { o.emitted(f) }
