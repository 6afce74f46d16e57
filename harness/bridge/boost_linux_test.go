//go:build linux

package bridge

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// The governor boosts a real process while frames stream, every thread of
// it, and gives it its niceness back (and Go its threads) once they stop;
// it tells the session when the stream begins and ends. Without
// CAP_SYS_NICE it says why it does not boost and changes nothing, but
// still tells the stream.
func TestGovernorBoostsWhileHostsStream(t *testing.T) {
	child := exec.Command("sleep", "60")
	require.NoError(t, child.Start())
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	procs := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(procs) })
	nice := func() int {
		p, err := unix.Getpriority(unix.PRIO_PROCESS, child.Process.Pid)
		require.NoError(t, err)
		return 20 - p
	}
	base := nice()

	var frames atomic.Int64
	var streaming atomic.Bool
	var log bytes.Buffer
	g := newGovernor(Boost{IdleProcs: 1, BusyProcs: 2, Nice: base - 5}, frames.Load, streaming.Store, &log)
	g.start(map[string]int{"dut": child.Process.Pid})
	defer g.end()
	feeding := make(chan struct{})
	go func() {
		for {
			select {
			case <-feeding:
				return
			case <-time.After(time.Millisecond):
				frames.Add(boostFrames)
			}
		}
	}()
	if os.Geteuid() != 0 {
		require.Eventually(t, streaming.Load, 5*time.Second, boostTick, "a stream is told without the boost too")
		close(feeding)
		g.end()
		assert.Contains(t, log.String(), "not boosting the model")
		assert.Equal(t, base, nice())
		assert.Equal(t, procs, runtime.GOMAXPROCS(0))
		return
	}
	require.Eventually(t, func() bool { return nice() == base-5 && runtime.GOMAXPROCS(0) == 2 }, 5*time.Second, boostTick,
		"boosted while streaming")
	assert.True(t, streaming.Load())
	close(feeding)
	require.Eventually(t, func() bool { return nice() == base && runtime.GOMAXPROCS(0) == 1 }, 5*time.Second, boostTick,
		"niceness and threads back once quiet")
	assert.False(t, streaming.Load())
	assert.Empty(t, log.String())
}
