package bridge_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/bridge/bridgetest"
)

// BenchmarkLive measures the live loop without a kernel: hosts in memory
// on the switch at 512 bits, default windows. "latency" sends one frame
// from h1 to h2 and waits for it: ns/op is the one-way time through the
// simulation, checking included. "stream" keeps 64 frames of 1514 bytes
// queued at h1 for h2 and reports the rate delivered: the ceiling the
// simulation puts on a TCP stream.
//
//	go test -run '^$' -bench Live ./harness/bridge
func BenchmarkLive(b *testing.B) {
	b.Run("latency/98B", func(b *testing.B) { benchLive(b, 98, 1) })
	b.Run("latency/1514B", func(b *testing.B) { benchLive(b, 1514, 1) })
	b.Run("stream/1514B", func(b *testing.B) { benchLive(b, 1514, 64) })
}

func benchLive(b *testing.B, size, inflight int) {
	sc, text := switchScenario(b, 512, 2, "")
	h1, h2 := bridgetest.New("h1"), bridgetest.New("h2")
	s, err := bridge.Start(config(b, sc, text, map[string]bridge.Device{"h1": h1, "h2": h2}))
	require.NoError(b, err)
	defer func() {
		s.Stop()
		sum, err := s.Wait()
		require.NoError(b, err)
		require.True(b, sum.Pass, "%+v", sum)
	}()
	// Both hosts speak first, so the switch learns them and stops flooding.
	h2.Send(frame(mac(1), mac(2), 0x0800, 60, 0))
	<-h1.Out()
	h1.Send(frame(mac(2), mac(1), 0x0800, 60, 0))
	<-h2.Out()
	b.ResetTimer()
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
	b.ReportMetric(float64(b.N)*float64(size)*8/time.Since(start).Seconds()/1e6, "Mbit/s")
}
