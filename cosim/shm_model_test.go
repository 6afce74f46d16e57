//go:build linux

package cosim_test

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
)

// startFIFO512 starts the 512-bit axis_fifo model, through shared memory
// rings or through the socket alone.
func startFIFO512(t *testing.T, name string, rings bool, step time.Duration) *cosim.Model {
	t.Helper()
	path := filepath.Join("..", "build", "models", "axis_fifo_512", "Vaxis_fifo_top")
	modeltest.NeedBinary(t, path)
	m, err := cosim.Start(context.Background(), cosim.Config{Name: name, Path: path, SharedMemory: rings,
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: step, Close: 5 * time.Second}})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	_, err = m.Handshake(context.Background(), cosim.HelloAck{Seed: 7, SrcGapPct: 20, SinkStallPct: 30})
	require.NoError(t, err)
	return m
}

// bigWindow is n frames of 1500 bytes from cycle from on, numbered from
// first: about 1.5 MB per thousand frames.
func bigWindow(first, n int, from, target uint64) cosim.Window {
	w := cosim.Window{Target: target}
	for i := range n {
		data := make([]byte, 1500)
		for j := range data {
			data[j] = byte(first + i + j)
		}
		w.Frames = append(w.Frames, cosim.Frame{Port: 0, Cycle: from + uint64(i), Data: data})
	}
	return w
}

// Through the rings a model answers exactly as through the socket, also
// when one window is more than twice a ring's size each way (both writers
// wait for room, both rings wrap) and when windows are small.
func TestSharedMemoryAnswersAsTheSocket(t *testing.T) {
	windows := []cosim.Window{bigWindow(0, 7000, 0, 400_000)} // 10.5 MB in, 10.5 MB out
	at := uint64(400_000)
	for i := range 200 {
		windows = append(windows, bigWindow(7000+i, i%3, at, at+50))
		at += 50
	}
	var replies [2][]cosim.Reply
	for k, rings := range []bool{false, true} {
		m := startFIFO512(t, fmt.Sprintf("fifo%d", k), rings, 30*time.Second)
		for _, w := range windows {
			r, err := m.Step(context.Background(), w)
			require.NoError(t, err)
			replies[k] = append(replies[k], r)
		}
		require.NoError(t, m.Close())
	}
	require.Len(t, replies[1][0].Frames, 7000)
	for i := range windows {
		require.Equal(t, replies[0][i], replies[1][i], "window %d", i)
	}
	// The FIFO gives back what it took, byte for byte, so each way of
	// writing a reply is checked on its own too, not only against the other.
	var sent [][]byte
	for _, w := range windows {
		for _, f := range w.Frames {
			sent = append(sent, f.Data)
		}
	}
	for k, way := range []string{"the socket", "the rings"} {
		var got [][]byte
		for _, r := range replies[k] {
			for _, f := range r.Frames {
				got = append(got, f.Data)
			}
		}
		require.GreaterOrEqual(t, len(got), 7000, "frames out through %s", way)
		require.Equal(t, sent[:len(got)], got, "frames out through %s", way)
	}
}

// A model killed while the harness waits for room in the ring (the model
// was stopped first, so it read nothing) is reported at once, with its
// exit, long before the step timeout.
func TestSharedMemoryModelKilledWhileTheRingIsFull(t *testing.T) {
	m := startFIFO512(t, "fifo-kill", true, 20*time.Second)
	require.NoError(t, syscall.Kill(m.Pid(), syscall.SIGSTOP))
	killed := make(chan time.Time, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		killed <- time.Now()
		syscall.Kill(m.Pid(), syscall.SIGKILL)
	}()
	_, err := m.Step(context.Background(), bigWindow(0, 7000, 0, 400_000))
	require.Error(t, err)
	elapsed := time.Since(<-killed)
	assert.Less(t, elapsed, 3*time.Second, "reported %v after the kill", elapsed)
	var ee *cosim.ExitError
	require.ErrorAs(t, err, &ee, "%v", err)
	assert.Equal(t, syscall.SIGKILL, ee.State.Sys().(syscall.WaitStatus).Signal())
	t.Logf("reported %v after SIGKILL: %v", elapsed, err)
}

// A stopped model is a hang, whether the harness waits for room in the
// ring or for the reply: the step times out.
func TestSharedMemoryStoppedModelTimesOut(t *testing.T) {
	for _, n := range []int{7000, 2} {
		t.Run(fmt.Sprintf("%d frames", n), func(t *testing.T) {
			m := startFIFO512(t, "fifo-stop", true, 500*time.Millisecond)
			require.NoError(t, syscall.Kill(m.Pid(), syscall.SIGSTOP))
			t0 := time.Now()
			_, err := m.Step(context.Background(), bigWindow(0, n, 0, 400_000))
			require.ErrorIs(t, err, cosim.ErrTimeout)
			assert.Less(t, time.Since(t0), 5*time.Second)
			t0 = time.Now()
			m.Close() // kills a hung model at once
			assert.Less(t, time.Since(t0), 3*time.Second)
		})
	}
}

// A model program that does not map the memory it is offered (the fake
// model here) is talked to through the socket alone.
func TestSharedMemoryOfferedToAModelWithoutRings(t *testing.T) {
	cfg := fakeConfig(t, "plain")
	cfg.SharedMemory = true
	m, _ := startFake(t, cfg)
	steps(t, m, 5)
	require.NoError(t, m.Close())
}
