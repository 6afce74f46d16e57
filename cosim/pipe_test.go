//go:build unix

package cosim_test

import (
	"bytes"
	"context"
	"errors"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
)

// pipeWindow is window k of a pipelined run on ports ports: perPort frames
// of size bytes a port, back to back from the window's start.
func pipeWindow(start, length uint64, ports, perPort, size, width int, k int) cosim.Window {
	w := cosim.Window{Target: start + length}
	beats := uint64((size*8 + width - 1) / width)
	for p := range ports {
		for i := range perPort {
			d := make([]byte, size)
			for j := range d {
				d[j] = byte(k*31 + p*7 + i*3 + j)
			}
			w.Frames = append(w.Frames, cosim.Frame{Port: uint16(p), Cycle: start + uint64(i)*beats, Data: d})
		}
	}
	return w
}

// Windows and replies far larger than the socket buffers, both ways, with
// the next window sent before the reply to the last one is read: the model
// writes its reply while the next window is still going out. Nothing
// deadlocks, every frame comes back intact and in order, and Cycle
// follows the replies.
func TestPipelinedLargeWindows(t *testing.T) {
	const ports, width, size, perPort, windows = 2, 512, 1500, 1500, 6 // 4.5 MB a window each way
	m, _ := startFake(t, fakeConfig(t, "pipe0", "--ports", "2", "--width", "512", "--latency", "3"))
	ctx := context.Background()
	beats := uint64((size*8 + width - 1) / width)
	length := beats*perPort + 100
	var want [ports][][]byte
	var got [ports][][]byte
	start := m.Cycle()
	send := func(k int, frames bool) {
		t.Helper()
		w := cosim.Window{Target: start + length}
		if frames {
			w = pipeWindow(start, length, ports, perPort, size, width, k)
			for _, f := range w.Frames {
				want[f.Port] = append(want[f.Port], f.Data)
			}
		}
		require.NoError(t, m.Send(ctx, w))
		start += length
	}
	var r cosim.Reply
	recv := func() {
		t.Helper()
		before := m.Cycle()
		require.NoError(t, m.Recv(ctx, &r))
		assert.Equal(t, before+length, m.Cycle(), "Cycle is the end of the window received")
		for _, f := range r.Frames {
			got[f.Port] = append(got[f.Port], f.Data)
		}
	}
	send(0, true)
	send(1, true) // two windows ahead of the replies
	for k := 2; k < windows; k++ {
		assert.Equal(t, 2, m.InFlight())
		recv()
		send(k, true)
	}
	send(windows, false) // the last frames drain
	for m.InFlight() > 0 {
		recv()
	}
	assert.False(t, r.Done.Busy)
	for p := range ports {
		require.Len(t, got[p], len(want[p]), "port %d: every frame comes back", p)
		for i := range want[p] {
			if !bytes.Equal(want[p][i], got[p][i]) {
				t.Fatalf("port %d frame %d differs", p, i)
			}
		}
	}
	// Lock step works again once nothing is in flight.
	_, err := m.Step(ctx, cosim.Window{Target: m.Cycle() + 10})
	require.NoError(t, err)
	require.NoError(t, m.Close())
}

// Step and StepInto refuse to run while pipelined windows are in flight,
// and Recv with nothing sent is the caller's error; the Model stays
// usable.
func TestPipelinedMisuse(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "pipe1"))
	ctx := context.Background()
	var r cosim.Reply
	err := m.Recv(ctx, &r)
	require.ErrorContains(t, err, "no window sent")
	require.NoError(t, m.Send(ctx, cosim.Window{Target: m.Cycle() + 10}))
	_, err = m.Step(ctx, cosim.Window{Target: 20})
	require.ErrorContains(t, err, "Recv them first")
	err = m.Send(ctx, cosim.Window{Target: 5})
	require.ErrorContains(t, err, "before the model's cycle 10", "the next window starts where the last one sent ended")
	require.NoError(t, m.Recv(ctx, &r))
	assert.Equal(t, uint64(10), r.Done.Cycle)
	require.NoError(t, m.Close())
}

// Closing a model with windows in flight lets them through, reads their
// replies and ends with GOODBYE: the model exits cleanly.
func TestPipelinedCloseInFlight(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "pipe2", "--ports", "2", "--width", "512"))
	ctx := context.Background()
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle(), 40000, 2, 1500, 1500, 512, 0)))
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle()+40000, 40000, 2, 1500, 1500, 512, 1)))
	require.NoError(t, m.Close())
	assert.True(t, gone(m.Pid()))
}

// A model that dies while a large window is on its way and another is
// queued behind it is reported at once by Recv, as an exit, naming what
// we waited for; later calls return the same error.
func TestPipelinedModelKilled(t *testing.T) {
	cfg := fakeConfig(t, "pipe3", "--ports", "2", "--width", "512", "--mode", "stall", "--fail-at", "1", "-v")
	cfg.Step = 10 * time.Second
	m, _ := startFake(t, cfg)
	ctx := context.Background()
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle(), 40000, 2, 1500, 1500, 512, 0)))
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle()+40000, 40000, 2, 1500, 1500, 512, 1)))
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle()+80000, 40000, 2, 1500, 1500, 512, 2)))
	var r cosim.Reply
	require.NoError(t, m.Recv(ctx, &r), "window 0 is answered")
	killed := make(chan time.Time, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		killed <- time.Now()
		syscall.Kill(m.Pid(), syscall.SIGKILL)
	}()
	err := m.Recv(ctx, &r)
	require.Error(t, err)
	elapsed := time.Since(<-killed)
	assert.Less(t, elapsed, bound, "reported %v after the kill", elapsed)
	var ee *cosim.ExitError
	require.ErrorAs(t, err, &ee)
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, me.Op, "step to cycle 80000: waiting for DONE")
	assert.True(t, contains(me.LastOutput, "window 1: stalling"), "%q", me.LastOutput)
	assert.Equal(t, err, m.Recv(ctx, &r), "a failed model stays failed")
	assert.Equal(t, err, m.Send(ctx, cosim.Window{Target: 200000}))
	t0 := time.Now()
	assert.NoError(t, m.Close())
	assert.Less(t, time.Since(t0), bound)
}

// A model that stops answering with windows in flight is a hang: Recv
// times out after the Step timeout, and Close ends the writer still
// trying to hand it the next window.
func TestPipelinedStall(t *testing.T) {
	cfg := fakeConfig(t, "pipe4", "--ports", "2", "--width", "512", "--mode", "stall", "--fail-at", "1")
	cfg.Step = 500 * time.Millisecond
	m, _ := startFake(t, cfg)
	ctx := context.Background()
	var r cosim.Reply
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle(), 40000, 2, 1500, 1500, 512, 0)))
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle()+40000, 40000, 2, 1500, 1500, 512, 1)))
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle()+80000, 40000, 2, 1500, 1500, 512, 2)))
	require.NoError(t, m.Recv(ctx, &r))
	t0 := time.Now()
	err := m.Recv(ctx, &r)
	elapsed := time.Since(t0)
	assert.ErrorIs(t, err, cosim.ErrTimeout)
	assert.GreaterOrEqual(t, elapsed, 500*time.Millisecond)
	assert.Less(t, elapsed, bound)
	t0 = time.Now()
	m.Close()
	assert.Less(t, time.Since(t0), bound)
	assert.True(t, gone(m.Pid()))
}

// A model that dies in the middle of its reply (half a FRAME) while the
// next window is in flight: an error with the model's last words, at once.
// In lock step this is a truncated message (a protocol error); here the
// model may die with part of the next window unread, and then the kernel
// resets the connection instead of ending it: the model's exit.
func TestPipelinedTruncatedReply(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "pipe5", "--ports", "2", "--width", "512", "--mode", "truncate", "--fail-at", "1"))
	ctx := context.Background()
	var r cosim.Reply
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle(), 40000, 2, 1500, 1500, 512, 0)))
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle()+40000, 40000, 2, 1500, 1500, 512, 1)))
	require.NoError(t, m.Recv(ctx, &r))
	require.NoError(t, m.Send(ctx, pipeWindow(m.Cycle()+40000, 40000, 2, 1500, 1500, 512, 2)))
	t0 := time.Now()
	err := m.Recv(ctx, &r)
	assert.Less(t, time.Since(t0), bound)
	var pe *cosim.ProtocolError
	var ee *cosim.ExitError
	require.True(t, errors.As(err, &pe) || errors.As(err, &ee), "%v", err)
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.True(t, contains(me.LastOutput, "sending half a FRAME"), "%q", me.LastOutput)
	assert.NoError(t, m.Close())
}

// ctx ends while Recv waits: the error is ctx's.
func TestPipelinedContextCancel(t *testing.T) {
	cfg := fakeConfig(t, "pipe6", "--mode", "stall", "--fail-at", "0")
	m, _ := startFake(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	require.NoError(t, m.Send(ctx, cosim.Window{Target: m.Cycle() + 10}))
	var r cosim.Reply
	err := m.Recv(ctx, &r)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	m.Close()
}
