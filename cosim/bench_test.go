//go:build unix

package cosim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
)

// BenchmarkRoundTrip measures windows per second against the fake model,
// a separate process, over a Unix socket: one window is one write each
// way. "empty" is RUN and DONE alone; "16x64B" sends 16 frames of 64
// bytes per window (4 per port) and gets 16 ACCEPTs and 16 echoed frames
// back.
func BenchmarkRoundTrip(b *testing.B) {
	for _, bc := range []struct {
		name   string
		frames int
	}{{"empty", 0}, {"16x64B", 16}} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := fakeConfig(b, "bench0", "--ports", "4", "--width", "64", "--latency", "10")
			cfg.Step = 10 * time.Second
			m, _ := startFake(b, cfg)
			ctx := context.Background()
			const windowLen = 64
			data := make([]byte, 64)
			frames := make([]cosim.Frame, bc.frames)
			cycle := m.Cycle()
			var out, windows int
			b.ReportAllocs()
			b.ResetTimer()
			start := time.Now()
			for b.Loop() {
				for i := range frames {
					// 64 bytes are 8 beats: four frames back to back per port.
					frames[i] = cosim.Frame{Port: uint16(i % 4), Cycle: cycle + uint64(i/4)*8, Data: data}
				}
				r, err := m.Step(ctx, cosim.Window{Target: cycle + windowLen, Frames: frames})
				if err != nil {
					b.Fatal(err)
				}
				out += len(r.Frames)
				windows++
				cycle += windowLen
			}
			elapsed := time.Since(start)
			b.StopTimer()
			b.ReportMetric(float64(windows)/elapsed.Seconds(), "windows/s")
			if bc.frames > 0 {
				b.ReportMetric(float64(out)/elapsed.Seconds(), "frames/s")
			}
			require.NoError(b, m.Close())
		})
	}
}
