//go:build unix

package cosim_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
)

// StepInto fills one Reply window after window, reusing its slices, while
// the frame data of every earlier reply stays intact: the data is the
// caller's, only the slices are reused. Enough data crosses to fill
// several of the blocks reply data is cut from.
func TestStepIntoReusesReply(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "into0", "--ports", "2", "--width", "512", "--latency", "3"))
	ctx := context.Background()
	var (
		r      cosim.Reply
		kept   [][]byte // every frame out, as Step handed it over
		want   [][]byte // what was sent, in the same order per port
		frames []cosim.Frame
		cycle  = m.Cycle()
	)
	payload := func(i int) []byte {
		b := make([]byte, 1000+i%500)
		for j := range b {
			b[j] = byte(i*7 + j)
		}
		return b
	}
	const windowLen, perWindow = 400, 8 // 8 frames of <= 1500 bytes take < 200 cycles per port
	sent := 0
	var accepts0 *cosim.Accept
	for w := 0; w < 400 || r.Done.Busy; w++ {
		require.Less(t, w, 500, "the model drains")
		frames = frames[:0]
		if w < 400 {
			for k := range perWindow {
				frames = append(frames, cosim.Frame{Port: 0, Cycle: cycle + uint64(k)*20, Data: payload(sent)})
				want = append(want, payload(sent))
				sent++
			}
		}
		require.NoError(t, m.StepInto(ctx, cosim.Window{Target: cycle + windowLen, Frames: frames}, &r))
		if len(r.Accepts) > 0 {
			if accepts0 != nil && cap(r.Accepts) >= perWindow {
				assert.Same(t, accepts0, &r.Accepts[:1][0], "window %d: the Accepts slice is reused", w)
			}
			accepts0 = &r.Accepts[:1][0]
		}
		for _, f := range r.Frames {
			kept = append(kept, f.Data)
		}
		cycle += windowLen
	}
	require.Len(t, kept, sent, "every frame comes back")
	for i := range kept {
		if !bytes.Equal(want[i], kept[i]) {
			t.Fatalf("frame %d was overwritten by a later window", i)
		}
	}
	require.NoError(t, m.Close())

	// After a failure the reply is empty.
	r.Frames = append(r.Frames, cosim.Frame{Data: []byte{1}})
	err := m.StepInto(ctx, cosim.Window{Target: cycle + 10}, &r)
	require.ErrorIs(t, err, cosim.ErrClosed)
	assert.Empty(t, r.Frames)
}
