//go:build unix

package cosim_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
)

// bound is how fast every fault must be reported.
const bound = 2 * time.Second

func gone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

func contains(lines []string, sub string) bool {
	return slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, sub) })
}

// steps runs n empty windows of 10 cycles.
func steps(t *testing.T, m *cosim.Model, n int) {
	t.Helper()
	for range n {
		_, err := m.Step(context.Background(), cosim.Window{Target: m.Cycle() + 10})
		require.NoError(t, err)
	}
}

// The fake model echoes every frame out of the same port a fixed latency
// after the DUT took its first beat. Over hundreds of windows of random
// traffic, every frame comes back intact, in order, with the right
// stamps, and the window's input buffer can be reused at once.
func TestEchoManyWindows(t *testing.T) {
	const (
		ports     = 4
		latency   = 13
		windowLen = 40
		windows   = 300
		start     = 100
	)
	m, h := startFake(t, fakeConfig(t, "echo0", "--ports", "4", "--width", "64", "--latency", "13", "--start", "100", "-v"))
	assert.EqualValues(t, ports, h.InPorts)
	assert.EqualValues(t, ports, h.OutPorts)
	assert.EqualValues(t, 64, h.DataWidth)
	name, _ := h.Value("name")
	assert.Equal(t, "echo0", name)
	assert.Equal(t, "13", h.Params()["LATENCY"])
	assert.EqualValues(t, start, m.Cycle(), "the first window starts at HELLO's stamp")

	type sent struct {
		data    []byte
		bad     bool
		arrival uint64
		accept  *cosim.Accept
	}
	var (
		in      [ports][]sent
		out     [ports][]cosim.Frame
		rng     = rand.New(rand.NewPCG(1, 2))
		scratch = make([]byte, 4096) // every window's frame data, reused
		cycle   = uint64(start)
		busy    = true
	)
	for i := 0; i < windows || busy; i++ {
		require.Less(t, i, windows+100, "the model drains")
		w := cosim.Window{Target: cycle + windowLen}
		if i < windows {
			n := rng.IntN(6)
			arrivals := make([]uint64, n)
			for k := range arrivals {
				arrivals[k] = cycle + rng.Uint64N(windowLen)
			}
			slices.Sort(arrivals)
			off := 0
			for _, a := range arrivals {
				size := 1 + rng.IntN(300)
				data := scratch[off : off+size]
				off += size
				for j := range data {
					data[j] = byte(rng.Uint32())
				}
				w.Frames = append(w.Frames, cosim.Frame{Port: uint16(rng.IntN(ports)), Cycle: a, Bad: rng.IntN(8) == 0, Data: data})
			}
		}
		r, err := m.Step(context.Background(), w)
		require.NoError(t, err, "window %d", i)
		for _, f := range w.Frames {
			require.EqualValues(t, len(in[f.Port]), f.Seq, "Step numbers the frames per port")
			in[f.Port] = append(in[f.Port], sent{data: bytes.Clone(f.Data), bad: f.Bad, arrival: f.Cycle})
		}
		for j := range scratch {
			scratch[j] = 0xee // Step must not have kept it
		}
		for _, a := range r.Accepts {
			in[a.Port][a.Seq].accept = &a
		}
		for _, f := range r.Frames {
			out[f.Port] = append(out[f.Port], f)
		}
		assert.Equal(t, w.Target, r.Done.Cycle)
		assert.EqualValues(t, len(r.Frames), r.Done.FramesOut)
		busy = r.Done.Busy
		cycle = w.Target
	}
	total := 0
	for p := range ports {
		require.Len(t, out[p], len(in[p]), "port %d: every frame comes back", p)
		for s, o := range out[p] {
			i := in[p][s]
			require.NotNil(t, i.accept, "port %d seq %d accepted", p, s)
			beats := uint64(len(i.data)*8+63) / 64
			assert.EqualValues(t, s, o.Seq)
			assert.Equal(t, i.data, o.Data, "port %d seq %d data", p, s)
			assert.Equal(t, i.bad, o.Bad, "port %d seq %d bad", p, s)
			assert.GreaterOrEqual(t, i.accept.Cycle, i.arrival)
			assert.Equal(t, i.accept.Cycle+beats-1, i.accept.LastCycle)
			assert.Equal(t, i.accept.Cycle+latency, o.Cycle, "port %d seq %d: fixed latency", p, s)
		}
		total += len(out[p])
	}
	assert.Greater(t, total, windows, "enough traffic to mean something")
	require.NoError(t, m.Close())
}

func TestCSRAndMemory(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "csr0"))
	ctx := context.Background()
	w := cosim.Window{
		Target:    m.Cycle(), // a window of length 0: host accesses only
		CSRWrites: []cosim.CSR{{Addr: 0x10, Data: 5}, {Addr: 0x14, Data: 6}, {Addr: 0x10, Data: 7}},
		CSRReads:  []uint32{0x10, 0x14, 0x18},
		MemWrites: []cosim.Mem{{Addr: 0x1000, Data: []byte("hello world")}},
		MemReads:  []cosim.Mem{{Addr: 0x1000, Length: 5}, {Addr: 0x1006, Length: 5}, {Addr: 0x9000, Length: 0}},
	}
	r, err := m.Step(ctx, w)
	require.NoError(t, err)
	assert.Equal(t, []cosim.CSR{{Addr: 0x10, Data: 7}, {Addr: 0x14, Data: 6}, {Addr: 0x18, Data: 0}}, r.CSRData)
	require.Len(t, r.MemData, 3)
	assert.Equal(t, "hello", string(r.MemData[0].Data))
	assert.Equal(t, "world", string(r.MemData[1].Data))
	assert.Empty(t, r.MemData[2].Data)
	assert.False(t, r.Done.Busy)
	require.NoError(t, m.Close())
}

// The socket lives in a private directory (os.MkdirTemp makes it 0700)
// only until the model is connected: then it is removed, so a harness
// killed with SIGKILL leaves no directory behind.
func TestStartPrivateSocketDir(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "dir0"))
	dir := filepath.Dir(m.SocketPath())
	assert.Equal(t, "dir0.sock", filepath.Base(m.SocketPath()))
	assert.True(t, strings.HasPrefix(filepath.Base(dir), "cosim-"))
	_, err := os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "the socket directory is gone once the model is connected")
	steps(t, m, 2)
	pid := m.Pid()
	require.NoError(t, m.Close())
	assert.True(t, gone(pid))
	assert.NoError(t, m.Close(), "Close is idempotent")
	_, err = m.Step(context.Background(), cosim.Window{Target: 100})
	assert.ErrorIs(t, err, cosim.ErrClosed)
}

// --- faults: every one is reported within the bound ---

func TestFaultGarbageInsteadOfHello(t *testing.T) {
	m, err := cosim.Start(context.Background(), fakeConfig(t, "garbage0", "--mode", "garbage"))
	require.NoError(t, err)
	defer m.Close()
	t0 := time.Now()
	_, err = m.Handshake(context.Background(), cosim.HelloAck{})
	assert.Less(t, time.Since(t0), bound)
	var pe *cosim.ProtocolError
	require.ErrorAs(t, err, &pe)
	assert.Contains(t, pe.Reason, "unknown message type")
	assert.Equal(t, "garbage0", pe.Model)
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.Contains(t, me.Op, "waiting for HELLO")
	t.Log(err)
}

func TestFaultWrongVersion(t *testing.T) {
	m, err := cosim.Start(context.Background(), fakeConfig(t, "version0", "--mode", "version"))
	require.NoError(t, err)
	t0 := time.Now()
	_, err = m.Handshake(context.Background(), cosim.HelloAck{})
	assert.Less(t, time.Since(t0), bound)
	assert.ErrorIs(t, err, cosim.ErrVersion)
	var pe *cosim.ProtocolError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, cosim.MsgHello, pe.Msg)
	assert.Contains(t, err.Error(), "protocol version 3, this side speaks 2")
	assert.NoError(t, m.Close(), "a failed model closes quietly")
	// We told the model why, with an ERROR it printed before exiting.
	assert.True(t, contains(m.LastOutput(), "harness sent ERROR 2"), "%q", m.LastOutput())
}

func TestFaultTruncatedMessage(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "trunc0", "--mode", "truncate", "--fail-at", "2"))
	steps(t, m, 2)
	t0 := time.Now()
	_, err := m.Step(context.Background(), cosim.Window{Target: m.Cycle() + 10})
	assert.Less(t, time.Since(t0), bound)
	var pe *cosim.ProtocolError
	require.ErrorAs(t, err, &pe)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
	assert.Equal(t, cosim.MsgFrame, pe.Msg)
	assert.Contains(t, pe.Reason, "truncated body: EOF after 40 of 80 bytes")
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.True(t, contains(me.LastOutput, "sending half a FRAME"), "%q", me.LastOutput)
	t.Log(err)
}

// A model killed with SIGKILL while the harness waits for DONE is
// reported at once, long before the 10 s step timeout.
func TestFaultKilledMidRun(t *testing.T) {
	cfg := fakeConfig(t, "kill0", "--mode", "stall", "--fail-at", "3", "-v")
	cfg.Step = 10 * time.Second
	m, _ := startFake(t, cfg)
	steps(t, m, 3)
	killed := make(chan time.Time, 1)
	go func() {
		time.Sleep(200 * time.Millisecond)
		killed <- time.Now()
		syscall.Kill(m.Pid(), syscall.SIGKILL)
	}()
	_, err := m.Step(context.Background(), cosim.Window{Target: m.Cycle() + 10})
	require.Error(t, err)
	elapsed := time.Since(<-killed)
	assert.Less(t, elapsed, bound, "reported %v after the kill", elapsed)
	var ee *cosim.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, syscall.SIGKILL, ee.State.Sys().(syscall.WaitStatus).Signal())
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "kill0", me.Model)
	assert.Contains(t, me.Op, "waiting for DONE")
	assert.True(t, contains(me.LastOutput, "window 3: stalling"), "%q", me.LastOutput)
	msg := err.Error()
	assert.Contains(t, msg, `model "kill0"`)
	assert.Contains(t, msg, "signal: killed")
	assert.Contains(t, msg, "last output")
	t.Logf("reported %v after SIGKILL:\n%v", elapsed, err)
	assert.NoError(t, m.Close())
}

func TestFaultKilledBetweenWindows(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "kill1"))
	steps(t, m, 2)
	require.NoError(t, syscall.Kill(m.Pid(), syscall.SIGKILL))
	time.Sleep(100 * time.Millisecond)
	t0 := time.Now()
	_, err := m.Step(context.Background(), cosim.Window{Target: m.Cycle() + 10})
	assert.Less(t, time.Since(t0), bound)
	var ee *cosim.ExitError
	require.ErrorAs(t, err, &ee)
	_, err2 := m.Step(context.Background(), cosim.Window{Target: m.Cycle() + 10})
	assert.Equal(t, err, err2, "a failed model stays failed")
}

// A stopped model (SIGSTOP) is a hang: the step times out, naming the
// model and what we waited for; Close then kills it at once.
func TestFaultStoppedModel(t *testing.T) {
	cfg := fakeConfig(t, "stop0")
	cfg.Step = 500 * time.Millisecond
	m, _ := startFake(t, cfg)
	steps(t, m, 2)
	pid := m.Pid()
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	if runtime.GOOS == "linux" {
		// The signal is queued, not yet taken: on a busy machine the model
		// could still answer one window.
		require.Eventually(t, func() bool { return cmodeltest.State(pid) == 'T' }, 5*time.Second, time.Millisecond)
	}
	t0 := time.Now()
	_, err := m.Step(context.Background(), cosim.Window{Target: m.Cycle() + 10})
	elapsed := time.Since(t0)
	assert.Less(t, elapsed, bound)
	assert.GreaterOrEqual(t, elapsed, 500*time.Millisecond)
	assert.ErrorIs(t, err, cosim.ErrTimeout)
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.Equal(t, "stop0", me.Model)
	assert.Contains(t, me.Op, "step to cycle 30: waiting for DONE")
	if runtime.GOOS == "linux" {
		assert.Contains(t, me.Status, "stopped")
	}
	t.Log(err)
	t0 = time.Now()
	assert.NoError(t, m.Close())
	assert.Less(t, time.Since(t0), bound)
	assert.True(t, gone(pid))
}

func TestFaultErrorMessage(t *testing.T) {
	m, _ := startFake(t, fakeConfig(t, "err0", "--mode", "error", "--fail-at", "1"))
	steps(t, m, 1)
	t0 := time.Now()
	_, err := m.Step(context.Background(), cosim.Window{Target: m.Cycle() + 10})
	assert.Less(t, time.Since(t0), bound)
	var re *cosim.RemoteError
	require.ErrorAs(t, err, &re)
	assert.EqualValues(t, cosim.ErrCodeModel, re.Code)
	assert.Contains(t, re.Text, "fifo overflow")
	assert.EqualValues(t, 13, re.Cycle)
	assert.Contains(t, err.Error(), "model sent ERROR MODEL at cycle 13: assertion failed")
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.True(t, contains(me.LastOutput, "assertion failed"), "%q", me.LastOutput)
	t.Log(err)
}

func TestCloseKillsModelIgnoringGoodbye(t *testing.T) {
	cfg := fakeConfig(t, "deaf0", "--mode", "ignore-goodbye")
	cfg.Close = 300 * time.Millisecond
	m, _ := startFake(t, cfg)
	steps(t, m, 1)
	pid := m.Pid()
	t0 := time.Now()
	err := m.Close()
	assert.Less(t, time.Since(t0), bound)
	assert.ErrorIs(t, err, cosim.ErrTimeout)
	assert.Contains(t, err.Error(), "killed the process")
	assert.True(t, gone(pid))
	t.Log(err)
}

func TestStartModelExitsEarly(t *testing.T) {
	t0 := time.Now()
	_, err := cosim.Start(context.Background(), fakeConfig(t, "early0", "--mode", "exit-early"))
	assert.Less(t, time.Since(t0), bound)
	var ee *cosim.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 3, ee.State.ExitCode())
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.True(t, contains(me.LastOutput, "refusing to start"), "%q", me.LastOutput)
	t.Log(err)
}

func TestStartNoSocket(t *testing.T) {
	cfg := fakeConfig(t, "mute0", "--mode", "no-listen")
	cfg.Start = 300 * time.Millisecond
	t0 := time.Now()
	_, err := cosim.Start(context.Background(), cfg)
	assert.Less(t, time.Since(t0), bound)
	assert.ErrorIs(t, err, cosim.ErrTimeout)
	var me *cosim.ModelError
	require.ErrorAs(t, err, &me)
	assert.True(t, gone(me.Pid), "the process is killed")
	t.Log(err)
}

func TestStartMissingBinary(t *testing.T) {
	cfg := fakeConfig(t, "none0")
	cfg.Path = filepath.Join(t.TempDir(), "no-such-model")
	_, err := cosim.Start(context.Background(), cfg)
	assert.ErrorIs(t, err, os.ErrNotExist)
}

func TestStartBadName(t *testing.T) {
	for _, name := range []string{"", "a/b", "..", "sw 0"} {
		_, err := cosim.Start(context.Background(), cosim.Config{Name: name, Path: "x"})
		assert.Error(t, err, "%q", name)
	}
}

func stallConfig(t *testing.T, name string) cosim.Config {
	cfg := fakeConfig(t, name, "--mode", "stall", "--fail-at", "0")
	cfg.Close = 300 * time.Millisecond
	return cfg
}

func TestStepContextCancel(t *testing.T) {
	m, _ := startFake(t, stallConfig(t, "ctx0"))
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	t0 := time.Now()
	_, err := m.Step(ctx, cosim.Window{Target: 10})
	assert.Less(t, time.Since(t0), bound)
	assert.ErrorIs(t, err, context.Canceled)

	m2, _ := startFake(t, stallConfig(t, "ctx1"))
	ctx, cancel = context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = m2.Step(ctx, cosim.Window{Target: 10})
	assert.ErrorIs(t, err, context.DeadlineExceeded)
}

func TestCloseAbortsStep(t *testing.T) {
	m, _ := startFake(t, stallConfig(t, "abort0"))
	time.AfterFunc(100*time.Millisecond, func() { m.Close() })
	t0 := time.Now()
	_, err := m.Step(context.Background(), cosim.Window{Target: 10})
	assert.Less(t, time.Since(t0), bound)
	assert.ErrorIs(t, err, cosim.ErrClosed)
}
