package engine

import (
	"math"
	"math/bits"
	"slices"
)

// Latencies is a Workload that times its messages: each from the cycle
// its host posted it to the cycle its completion came back.
type Latencies interface {
	Latencies() []uint64
}

// LatencyStats sums up a workload's completion latencies, in cycles.
type LatencyStats struct {
	Count int    `json:"count"`
	Min   uint64 `json:"min"`
	P50   uint64 `json:"p50"`
	P90   uint64 `json:"p90"`
	P99   uint64 `json:"p99"`
	Max   uint64 `json:"max"`
	// Histogram counts latencies in buckets a quarter of a power of two
	// wide (so any spread fits in a few dozen), in increasing order;
	// empty buckets are left out.
	Histogram []LatencyBucket `json:"histogram"`
}

// LatencyBucket counts the latencies in [Lo, Hi).
type LatencyBucket struct {
	Lo    uint64 `json:"lo"`
	Hi    uint64 `json:"hi"`
	Count int    `json:"count"`
}

// latencyStats sums up ls (nil when there are none).
func latencyStats(ls []uint64) *LatencyStats {
	if len(ls) == 0 {
		return nil
	}
	s := slices.Clone(ls)
	slices.Sort(s)
	pct := func(p float64) uint64 { return s[min(len(s)-1, int(math.Ceil(p*float64(len(s))))-1)] }
	st := &LatencyStats{Count: len(s), Min: s[0], P50: pct(0.5), P90: pct(0.9), P99: pct(0.99), Max: s[len(s)-1]}
	for _, v := range s {
		lo, hi := latencyBucket(v)
		if n := len(st.Histogram); n > 0 && st.Histogram[n-1].Lo == lo {
			st.Histogram[n-1].Count++
			continue
		}
		st.Histogram = append(st.Histogram, LatencyBucket{Lo: lo, Hi: hi, Count: 1})
	}
	return st
}

// latencyBucket returns the quarter-octave bucket [lo, hi) that holds v:
// values below 8 get a bucket each.
func latencyBucket(v uint64) (lo, hi uint64) {
	if v < 8 {
		return v, v + 1
	}
	e := 63 - uint(bits.LeadingZeros64(v)) // 2^e <= v < 2^(e+1)
	step := uint64(1) << (e - 2)           // four buckets per octave
	lo = v &^ (step - 1)
	return lo, lo + step
}
