package engine_test

import (
	"context"
	"encoding/binary"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/modeltest"
)

// queuedHosts is a live side whose hosts queued all their frames before
// the run: what each window takes depends only on the window, so lock step
// and pipelined live windows must give the same run.
type queuedHosts struct {
	mu    sync.Mutex
	hosts map[string]*queuedHost
}

type queuedHost struct {
	l     *queuedHosts
	queue [][]byte
	got   [][]byte
	st    engine.TapStats
}

func (l *queuedHosts) Ready() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, h := range l.hosts {
		if len(h.queue) > 0 {
			return true
		}
	}
	return false
}

// Wait: nothing more will come once the queues are empty.
func (l *queuedHosts) Wait(ctx context.Context) bool { return l.Ready() && ctx.Err() == nil }
func (l *queuedHosts) Err() error                    { return nil }

// Take gives what waits, stamped start, up to budget bytes (the frame that
// crosses it still goes), as a live bridge port does.
func (h *queuedHost) Take(start, _ uint64, budget int) []engine.TapFrame {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	var out []engine.TapFrame
	for used := 0; len(h.queue) > 0 && used < budget; {
		out = append(out, engine.TapFrame{Cycle: start, Data: h.queue[0]})
		used += len(h.queue[0])
		h.queue = h.queue[1:]
	}
	h.st.FramesIn += len(out)
	return out
}

func (h *queuedHost) Next() (uint64, bool) { return 0, false }

func (h *queuedHost) Deliver(_ uint64, data []byte) {
	h.l.mu.Lock()
	defer h.l.mu.Unlock()
	h.got = append(h.got, data)
	h.st.FramesOut++
}

func (h *queuedHost) Stats() engine.TapStats { return h.st }

// liveTwoHosts is a 512-bit switch with hosts h1 and h2 on ports 0 and 1.
const liveTwoHosts = `name = "live-pipe"
cycles = 1_000_000_000_000
[[model]]
name = "sw"
top = "switch4"
data_width = 512
[[tap]]
name = "h1"
in = "sw.in0"
out = "sw.out0"
[[tap]]
name = "h2"
in = "sw.in1"
out = "sw.out1"
`

// queuedPair is h1 and h2 of liveTwoHosts with 300 frames of 60 to 1514
// bytes queued each, addressed to each other, and the bytes queued per
// host.
func queuedPair() (*queuedHosts, int) {
	l := &queuedHosts{hosts: map[string]*queuedHost{}}
	bytes := 0
	for i, name := range []string{"h1", "h2"} {
		h := &queuedHost{l: l}
		bytes = 0
		for seq := range 300 {
			f := make([]byte, 60+(seq*97)%1455)
			copy(f, []byte{0x02, 0, 0, 0, 0, byte(2 - i), 0x02, 0, 0, 0, 0, byte(1 + i)})
			binary.BigEndian.PutUint16(f[12:], 0x88b5) // local experimental
			for k := 14; k < len(f); k++ {
				f[k] = byte(seq + k)
			}
			h.queue = append(h.queue, f)
			bytes += len(f)
		}
		l.hosts[name] = h
	}
	return l, bytes
}

// Live windows go out before the replies to the ones in flight (up to
// three in flight) while host frames wait, and change nothing: the same windows, summary.json and
// pcapng files as lock step, and every host gets the same frames.
func TestLivePipelinedSameAsLockStep(t *testing.T) {
	var dirs []string
	var sums []*engine.Summary
	var hosts []*queuedHosts
	for _, lockStep := range []bool{true, false} {
		l, _ := queuedPair()
		cfg := modeltest.Config(t, modeltest.Scenario(t, liveTwoHosts), 1)
		cfg.Live, cfg.NoPipeline = l, lockStep
		cfg.LiveMaxWindow = 48 // many windows
		cfg.Taps = map[string]engine.TapEnd{"h1": l.hosts["h1"], "h2": l.hosts["h2"]}
		deep := engine.SentDeep()
		s := runCountingAhead(t, cfg)
		assert.Equal(t, 600, s.FramesIn)
		if !lockStep {
			assert.Positive(t, engine.SentDeep()-deep, "windows went out with two in flight")
		}
		dirs, sums, hosts = append(dirs, cfg.OutDir), append(sums, s), append(hosts, l)
	}
	assertSameRuns(t, dirs, sums)
	for _, name := range []string{"h1", "h2"} {
		a, b := hosts[0].hosts[name].got, hosts[1].hosts[name].got
		assert.NotEmpty(t, a, name)
		assert.Equal(t, a, b, "%s gets the same frames", name)
	}
}

// While frames queue up, a live window takes up to LiveMaxWindow cycles'
// worth of them and ends once they are out: a backlog smaller than the
// limit must not be followed by idle cycles up to it. Here the whole
// backlog fits one limit, so the run lasts about as long as the frames
// take on the line, not a limit a window.
func TestLiveBacklogWindowEndsWhenDrained(t *testing.T) {
	l, bytes := queuedPair()
	cfg := modeltest.Config(t, modeltest.Scenario(t, liveTwoHosts), 1)
	cfg.Live = l
	cfg.LiveMaxWindow = 1 << 20
	cfg.Taps = map[string]engine.TapEnd{"h1": l.hosts["h1"], "h2": l.hosts["h2"]}
	s := runCountingAhead(t, cfg)
	assert.Equal(t, 600, s.FramesIn)
	assert.Equal(t, 0, s.Mismatched+s.Missing+s.Unexpected)
	line := uint64(bytes/64 + 300) // 64 bytes a beat, and a part beat a frame
	assert.Less(t, s.Cycles, 2*line, "cycles simulated for %d beats of frames, in %d windows", line, s.Windows)
	assert.Less(t, s.Cycles, uint64(cfg.LiveMaxWindow))
}
