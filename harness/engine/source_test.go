package engine

import (
	"errors"
	"io"
	"math"
	"testing"
	"time"

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

// The prefetcher hands over exactly the frames the stream's function
// gives, in order, up to the limit, and then the error that ended the
// stream; stop waits for its goroutine before it releases what that
// goroutine reads from, also when it stops mid-stream.
func TestPrefetchKeepsTheStream(t *testing.T) {
	counter := func(failAt int) (func() ([]byte, bool, error), *int) {
		calls := new(int)
		return func() ([]byte, bool, error) {
			*calls++
			if *calls == failAt {
				return nil, false, errBroken
			}
			return []byte{byte(*calls), byte(*calls >> 8)}, *calls%3 == 0, nil
		}, calls
	}
	drain := func(next func() ([]byte, bool, error)) (int, error) {
		n := 0
		for {
			data, bad, err := next()
			if err != nil {
				return n, err
			}
			n++
			require.Equal(t, []byte{byte(n), byte(n >> 8)}, data, "frame %d", n)
			require.Equal(t, n%3 == 0, bad, "frame %d", n)
		}
	}
	for _, limit := range []int{0, 1, prefetchBatch, 3*prefetchBatch + 7} {
		frame, calls := counter(-1)
		released := 0
		next, stop := prefetch(frame, limit, func() { released++ }, new(time.Duration))
		n, err := drain(next)
		assert.Equal(t, limit, n, "limit %d", limit)
		assert.ErrorIs(t, err, io.EOF, "limit %d", limit)
		stop()
		assert.Equal(t, limit, *calls, "frame called beyond the limit %d", limit)
		assert.Equal(t, 1, released)
	}

	frame, _ := counter(prefetchBatch + 5)
	next, stop := prefetch(frame, -1, nil, new(time.Duration))
	n, err := drain(next)
	assert.Equal(t, prefetchBatch+4, n)
	assert.ErrorIs(t, err, errBroken)
	stop()

	// Stopped while the goroutine waits to hand over a batch: the
	// release comes after the goroutine's last call.
	frame, calls := counter(-1)
	var atRelease int
	next, stop = prefetch(frame, -1, func() { atRelease = *calls }, new(time.Duration))
	_, _, err = next()
	require.NoError(t, err)
	stop()
	assert.Equal(t, *calls, atRelease, "frame called after release")
	assert.LessOrEqual(t, *calls, (prefetchDepth+2)*prefetchBatch, "runs only a few batches ahead")

	// Big frames: a batch is bounded by bytes too.
	big := 0
	next, stop = prefetch(func() ([]byte, bool, error) { big++; return make([]byte, 100<<10), false, nil }, -1, nil, new(time.Duration))
	_, _, err = next()
	require.NoError(t, err)
	stop()
	assert.LessOrEqual(t, big, (prefetchDepth+2)*(prefetchBytes/(100<<10)+1), "holds a few batches of bytes at most")
}

var errBroken = errors.New("broken stream")
