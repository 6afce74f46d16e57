//go:build unix

package cosim_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
)

// SinkReady must name exactly the cycles in which a real model's sink
// holds tready high. The axis_fifo model, flooded with back-to-back frames,
// offers a beat in every cycle once it is full, so each output frame's
// first-to-last span is its beats plus the sink's not-ready cycles in it.
func TestSinkReadyMatchesModel(t *testing.T) {
	path := filepath.Join("..", "build", "models", "axis_fifo_64", "Vaxis_fifo_top")
	modeltest.NeedBinary(t, path)
	m, err := cosim.Start(context.Background(), cosim.Config{Name: "fifo", Path: path,
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 20 * time.Second, Close: 5 * time.Second}})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	const seed, pct = 0xC0FFEE, 45
	_, err = m.Handshake(context.Background(), cosim.HelloAck{Seed: seed, SinkStallPct: pct})
	require.NoError(t, err)

	const frames, size = 200, 64 // 8 beats each
	var w cosim.Window
	for i := range frames {
		data := make([]byte, size)
		data[0] = byte(i)
		w.Frames = append(w.Frames, cosim.Frame{Port: 0, Cycle: 0, Data: data})
	}
	w.Target = 10_000
	r, err := m.Step(context.Background(), w)
	require.NoError(t, err)
	require.Len(t, r.Frames, frames)
	checked := 0
	for i, f := range r.Frames[10:] { // once the FIFO is full
		require.True(t, cosim.SinkReady(seed, pct, 0, f.Cycle), "frame %d: first beat taken in a not-ready cycle %d", i+10, f.Cycle)
		require.True(t, cosim.SinkReady(seed, pct, 0, f.LastCycle), "frame %d: last beat", i+10)
		ready := 0
		for c := f.Cycle; c <= f.LastCycle; c++ {
			if cosim.SinkReady(seed, pct, 0, c) {
				ready++
			}
		}
		require.Equal(t, size/8, ready, "frame %d spans %d..%d", i+10, f.Cycle, f.LastCycle)
		checked++
	}
	require.Greater(t, checked, 100)
	require.False(t, cosim.SinkReady(seed, 100, 0, 5))
	require.True(t, cosim.SinkReady(seed, 0, 3, 5))
}
