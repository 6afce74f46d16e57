package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLatencyStats(t *testing.T) {
	assert.Nil(t, latencyStats(nil))
	ls := []uint64{}
	for v := uint64(1); v <= 100; v++ {
		ls = append(ls, v)
	}
	st := latencyStats(ls)
	require.NotNil(t, st)
	assert.Equal(t, LatencyStats{Count: 100, Min: 1, P50: 50, P90: 90, P99: 99, Max: 100, Histogram: st.Histogram}, *st)
	total := 0
	for i, b := range st.Histogram {
		total += b.Count
		assert.Less(t, b.Lo, b.Hi)
		if i > 0 {
			assert.LessOrEqual(t, st.Histogram[i-1].Hi, b.Lo, "buckets increase")
		}
	}
	assert.Equal(t, 100, total)
	for _, c := range []struct{ v, lo, hi uint64 }{{0, 0, 1}, {7, 7, 8}, {8, 8, 10}, {9, 8, 10}, {15, 14, 16}, {16, 16, 20}, {1000, 896, 1024}} {
		lo, hi := latencyBucket(c.v)
		assert.Equal(t, [2]uint64{c.lo, c.hi}, [2]uint64{lo, hi}, "%d", c.v)
	}
}
