package engine

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/harness/scenario"
)

// A source draws its stream as the windows take it and forgets what they
// took: consumed in windows, 100,000 frames never need more than a
// window's worth (512 here) plus the compaction slack held at once, and
// they are the frames, at the cycles, that drawing the whole stream at
// once gives.
func TestSourceHoldsAWindowNotTheStream(t *testing.T) {
	const frames, window = 100_000, 4096 // cycles; 64 B at 64 bits is 8 cycles a frame
	sc, err := scenario.Parse("stream.toml", []byte(`name = "stream"
cycles = 1_000_000_000
[[model]]
name = "dut"
top = "switch4"
data_width = 64
[[traffic]]
kind = "l2"
to = "dut.in1"
frames = 100000
min_size = 64
max_size = 64
`))
	require.NoError(t, err)
	whole, err := newSource(0, sc.Traffic[0], sc, 64, 4, 7)
	require.NoError(t, err)
	all := whole.due(math.MaxUint64)
	require.Len(t, all, frames)

	s, err := newSource(0, sc.Traffic[0], sc, 64, 4, 7)
	require.NoError(t, err)
	got, most := 0, 0
	for end := uint64(window); ; end += window {
		for _, f := range s.due(end) {
			require.Equal(t, all[got].cycle, f.cycle, "frame %d", got)
			require.Equal(t, all[got].data, f.data, "frame %d", got)
			got++
		}
		most = max(most, len(s.frames))
		if _, ok := s.nextCycle(); !ok {
			break
		}
	}
	assert.Equal(t, frames, got)
	assert.LessOrEqual(t, most, 2*(window/8+1)+1024, "frames held at once")
	assert.Nil(t, s.draw, "the stream has ended")
	assert.NoError(t, s.err)
}
