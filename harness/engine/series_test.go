package engine

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A series keeps at most maxPoints points however long the run, each the
// lowest and highest sample of its cycles.
func TestSeriesDecimates(t *testing.T) {
	var s Series
	for c := uint64(0); c < 1_000_000; c += 10 {
		s.add(c, float64(c%1000))
	}
	assert.LessOrEqual(t, len(s.Points), maxPoints)
	assert.Greater(t, len(s.Points), maxPoints/2)
	for i, p := range s.Points[:len(s.Points)-1] { // the last one is partly filled
		assert.Equal(t, uint64(i)*s.Width, p.Cycle, "points are a width apart")
		assert.Equal(t, 0.0, p.Min)
		assert.Equal(t, 990.0, p.Max)
	}
	assert.True(t, s.any)
}

type sampler struct{ v float64 }

func (*sampler) Accept(int, uint64, uint64, []byte, bool) []Output { return nil }
func (*sampler) Advance(uint64) []Output                           { return nil }
func (*sampler) Counters() map[string]uint64                       { return nil }
func (s *sampler) Sample(add func(string, float64)) {
	add("busy", s.v)
	add("idle", 0)
}

// Only series with a non-zero sample reach the summary, named model.name.
func TestSeriesSet(t *testing.T) {
	var ss seriesSet
	g := &sampler{}
	for c := uint64(0); c < 1000; c += 100 {
		g.v = float64(c)
		ss.sample("sw", g, c)
	}
	got := ss.result()
	require.Len(t, got, 1)
	require.Contains(t, got, "sw.busy")
	assert.Equal(t, 900.0, got["sw.busy"].Points[len(got["sw.busy"].Points)-1].Max)
}
