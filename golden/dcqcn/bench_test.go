package dcqcn_test

import (
	"strconv"
	"testing"

	"github.com/rocesim/cosim/golden/dcqcn"
)

// BenchmarkOnSent is the requester's per-packet cost while recovering: count
// the bytes, then compute the pacing gap, across packet sizes.
func BenchmarkOnSent(b *testing.B) {
	for _, size := range []int{64, 1024, 4096} {
		b.Run(strconv.Itoa(size), func(b *testing.B) {
			cfg := dcqcn.DefaultConfig(100_000_000_000, 250_000_000)
			cfg.ByteCounter = 64 * 1024 // an increase event every few packets
			var rp dcqcn.ReactionPoint
			rp.Reset(&cfg)
			now := uint64(0)
			b.ReportAllocs()
			b.SetBytes(int64(size)) // MB/s: modelled traffic per second of CPU
			for i := range b.N {
				if i%4096 == 0 {
					rp.OnCNP(now) // stay in recovery
				}
				rp.OnSent(size, now)
				now += rp.Rate().Cycles(size)
			}
		})
	}
}

func BenchmarkOnCNP(b *testing.B) {
	cfg := dcqcn.DefaultConfig(100_000_000_000, 250_000_000)
	var rp dcqcn.ReactionPoint
	rp.Reset(&cfg)
	b.ReportAllocs()
	for i := range b.N {
		rp.OnCNP(uint64(i) * 12500)
	}
}

// BenchmarkAdvance fires one timer expiry per call.
func BenchmarkAdvance(b *testing.B) {
	cfg := dcqcn.DefaultConfig(100_000_000_000, 250_000_000)
	var rp dcqcn.ReactionPoint
	rp.Reset(&cfg)
	b.ReportAllocs()
	for i := range b.N {
		next, ok := rp.NextEvent()
		if !ok {
			rp.OnCNP(uint64(i))
			continue
		}
		rp.Advance(next)
	}
}

func BenchmarkAllow(b *testing.B) {
	var np dcqcn.NotificationPoint
	b.ReportAllocs()
	for i := range b.N {
		np.Allow(uint64(i)*100, 12500)
	}
}
