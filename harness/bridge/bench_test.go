package bridge_test

import (
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/bridge/bridgetest"
	"github.com/rocesim/cosim/harness/engine"
)

// BenchmarkLive measures the live loop without a kernel: hosts in memory
// on the switch at 512 bits, default windows. "latency" sends one frame
// from h1 to h2 and waits for it: ns/op is the one-way time through the
// simulation, checking included. "stream" keeps 64 frames of 1514 bytes
// queued at h1 for h2 and reports the rate delivered: the ceiling the
// simulation puts on a TCP stream. Each also reports CPU per frame of this
// process and of the model process, which say more than the wall time on
// a machine shared with other work, and windows per frame.
// COSIM_BENCH_EXTRA adds TOML to the scenario, for studies (e.g.
// "[bridge]\nmax_window = 1024").
//
//	go test -run '^$' -bench Live ./harness/bridge
func BenchmarkLive(b *testing.B) {
	b.Run("latency/98B", func(b *testing.B) { benchLive(b, 98, 1) })
	b.Run("latency/1514B", func(b *testing.B) { benchLive(b, 1514, 1) })
	b.Run("stream/1514B", func(b *testing.B) { benchLive(b, 1514, 64) })
}

func benchLive(b *testing.B, size, inflight int) {
	sc, text := switchScenario(b, 512, 2, os.Getenv("COSIM_BENCH_EXTRA"))
	h1, h2 := bridgetest.New("h1"), bridgetest.New("h2")
	var self0, kids0, self1, kids1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids0)
	s, err := bridge.Start(config(b, sc, text, map[string]bridge.Device{"h1": h1, "h2": h2}))
	require.NoError(b, err)
	stopped := false
	stop := func() *engine.Summary {
		stopped = true
		s.Stop()
		sum, err := s.Wait()
		require.NoError(b, err)
		require.True(b, sum.Pass, "%+v", sum)
		return sum
	}
	defer func() {
		if !stopped {
			stop()
		}
	}()
	// Both hosts speak first, so the switch learns them and stops flooding.
	h2.Send(frame(mac(1), mac(2), 0x0800, 60, 0))
	<-h1.Out()
	h1.Send(frame(mac(2), mac(1), 0x0800, 60, 0))
	<-h2.Out()
	b.ResetTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	start := time.Now()
	sent := 0
	for ; sent < min(inflight, b.N); sent++ {
		h1.Send(frame(mac(2), mac(1), 0x0800, size, sent))
	}
	for got := 0; got < b.N; got++ {
		<-h2.Out()
		if sent < b.N {
			h1.Send(frame(mac(2), mac(1), 0x0800, size, sent))
			sent++
		}
	}
	wall := time.Since(start)
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	sum := stop()
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids1) // the model, reaped by then
	b.ReportMetric(float64(b.N)*float64(size)*8/wall.Seconds()/1e6, "Mbit/s")
	// Where the time goes, per frame: CPU of this process (bridge, engine,
	// checking, recording) and of the model process (the RTL and its end
	// of the protocol; its whole life, so a short run overstates it), and
	// the windows it took.
	b.ReportMetric((cpuMicros(self1)-cpuMicros(self0))/float64(b.N), "go_cpu_us/frame")
	b.ReportMetric((cpuMicros(kids1)-cpuMicros(kids0))/float64(b.N), "model_cpu_us/frame")
	b.ReportMetric(float64(sum.Windows)/float64(b.N), "windows/frame")
}

func cpuMicros(r syscall.Rusage) float64 {
	return float64(r.Utime.Sec+r.Stime.Sec)*1e6 + float64(r.Utime.Usec+r.Stime.Usec)
}
