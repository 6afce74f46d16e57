//go:build unix

package cosim_test

// Tests of the DMA port of sim/dma.h through the real model program of the
// test top sim/test/dma_copy_top.sv (copy commands in, echoes out). The
// test models are built by `make models-test`, which then runs these tests
// with COSIM_REQUIRE_TEST_MODELS=1 and COSIM_TEST_MODELS_DIR set; elsewhere
// they look in build/models and a missing model skips them.

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
)

var dmaSeed = flag.Uint64("dma.seed", 1, "seed of the DMA model tests' commands and memory contents")

const (
	// requireTestModelsEnv=1 makes a missing test model a failure, not a skip.
	requireTestModelsEnv = "COSIM_REQUIRE_TEST_MODELS"
	// testModelsDirEnv names the directory of the built models; the
	// default is build/models seen from this package.
	testModelsDirEnv = "COSIM_TEST_MODELS_DIR"
)

// Timing constants of sim/dma.h and sim/test/dma_copy_top.sv.
const (
	dmaMaxLen      = 4096 // kDmaMaxLen
	dmaMaxReads    = 16   // kDmaMaxReads
	dmaReadLatency = 64   // kDmaReadLatency, the default L
	cmdLen         = 24   // bytes of a dma_copy_top command
)

var dmaWidths = []int{64, 512}

// dmaModel returns the path of the dma_copy model of width bits, skipping
// (or failing under COSIM_REQUIRE_TEST_MODELS=1) when it is not built.
func dmaModel(t *testing.T, width int) string {
	t.Helper()
	dir := os.Getenv(testModelsDirEnv)
	if dir == "" {
		dir = filepath.Join("..", "build", "models")
	}
	path := filepath.Join(dir, fmt.Sprintf("dma_copy_%d", width), "Vdma_copy_top")
	if _, err := os.Stat(path); err != nil {
		msg := fmt.Sprintf("test model %s is missing: run make models-test", path)
		if os.Getenv(requireTestModelsEnv) == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (set " + requireTestModelsEnv + "=1 to fail instead)")
	}
	return path
}

// startDMA starts the dma_copy model of width bits with extra args and
// does the handshake with ack.
func startDMA(t *testing.T, width int, ack cosim.HelloAck, args ...string) *cosim.Model {
	t.Helper()
	m, err := cosim.Start(context.Background(), cosim.Config{
		Name:     fmt.Sprintf("dma%d", width),
		Path:     dmaModel(t, width),
		Args:     args,
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 20 * time.Second, Close: 5 * time.Second},
	})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	h, err := m.Handshake(context.Background(), ack)
	require.NoError(t, err)
	dma, _ := h.Value("dma")
	require.Equal(t, "1", dma, "HELLO says the top has a DMA port")
	return m
}

// command is a dma_copy_top command frame.
func command(src, dst uint64, length uint16, flags byte) []byte {
	b := make([]byte, cmdLen)
	binary.LittleEndian.PutUint64(b[0:], src)
	binary.LittleEndian.PutUint64(b[8:], dst)
	binary.LittleEndian.PutUint16(b[16:], length)
	b[18] = flags
	return b
}

// copyRun is the state of one run of copy commands.
type copyRun struct {
	t       *testing.T
	m       *cosim.Model
	width   int
	latency uint64
	cmds    [][]byte
	accepts []cosim.Accept
	echoes  []cosim.Frame
}

// step runs one window with frames, collecting accepts and echoes.
func (r *copyRun) step(w cosim.Window) cosim.Reply {
	r.t.Helper()
	rep, err := r.m.Step(context.Background(), w)
	require.NoError(r.t, err)
	for _, f := range w.Frames {
		require.EqualValues(r.t, len(r.cmds), f.Seq)
		r.cmds = append(r.cmds, bytes.Clone(f.Data))
	}
	r.accepts = append(r.accepts, rep.Accepts...)
	r.echoes = append(r.echoes, rep.Frames...)
	return rep
}

// drain runs windows of n cycles until the model is idle.
func (r *copyRun) drain(n uint64) {
	r.t.Helper()
	for i := 0; ; i++ {
		require.Less(r.t, i, 10000, "the model drains")
		if rep := r.step(cosim.Window{Target: r.m.Cycle() + n}); !rep.Done.Busy {
			return
		}
	}
}

// checkEchoes checks that every command came back, unchanged, in order, and
// no earlier than the port's latency allows.
func (r *copyRun) checkEchoes() {
	r.t.Helper()
	require.Len(r.t, r.accepts, len(r.cmds), "every command taken")
	require.Len(r.t, r.echoes, len(r.cmds), "every command echoed")
	for i, e := range r.echoes {
		require.EqualValues(r.t, i, e.Seq)
		modeltest.SameBytes(r.t, r.cmds[i], e.Data, "echo %d", i)
		require.False(r.t, e.Bad, "echo %d", i)
		n := int(binary.LittleEndian.Uint16(r.cmds[i][16:]))
		earliest := r.accepts[i].LastCycle + r.latency + 1 + modeltest.Beats(n, r.width)
		require.GreaterOrEqual(r.t, e.Cycle, earliest, "echo %d: the read latency and one beat per cycle are minimums", i)
	}
}

// Hundreds of copies with random unaligned addresses and lengths 1..4096,
// with and without backpressure: every echo comes back, every destination
// holds its source's bytes and nothing around it, and the counters add up.
func TestDMACopyMany(t *testing.T) {
	const (
		commands = 300
		srcBase  = uint64(0x1_0000_0000) - 1000 // straddles a 4 GiB boundary
		srcSize  = 64 << 10
		dstBase  = uint64(0x7_0000_0000)
		dstSlot  = 2 * dmaMaxLen // one per command: no two copies overlap
	)
	for _, width := range dmaWidths {
		for _, bp := range []struct {
			name       string
			gap, stall uint16
		}{{"plain", 0, 0}, {"backpressure", 30, 30}} {
			t.Run(fmt.Sprintf("%d/%s", width, bp.name), func(t *testing.T) {
				seed := *dmaSeed
				t.Logf("seed %d (rerun with -args -dma.seed=%d)", seed, seed)
				rng := rand.New(rand.NewPCG(seed, uint64(width)))
				m := startDMA(t, width, cosim.HelloAck{Seed: seed, SrcGapPct: bp.gap, SinkStallPct: bp.stall})
				r := &copyRun{t: t, m: m, width: width, latency: dmaReadLatency}
				// Commands arrive faster than they are copied at either
				// width (3.5 per window on average), so the top fills up
				// and reads are outstanding.
				window := uint64(32000 / width)

				src := make([]byte, srcSize)
				for i := range src {
					src[i] = byte(rng.Uint32())
				}
				r.step(cosim.Window{Target: m.Cycle(), MemWrites: []cosim.Mem{{Addr: srcBase, Data: src}}})

				// Edge lengths first, then random ones.
				lane := width / 8
				lengths := []int{1, 2, lane - 1, lane, lane + 1, 2*lane - 1, 2 * lane, dmaMaxLen - 1, dmaMaxLen}
				type copyCmd struct {
					src, dst uint64
					n        int
				}
				var cmds []copyCmd
				for k := range commands {
					n := 1 + rng.IntN(dmaMaxLen)
					if k < len(lengths) {
						n = lengths[k]
					}
					off := rng.IntN(srcSize - n + 1)
					cmds = append(cmds, copyCmd{
						src: srcBase + uint64(off),
						dst: dstBase + uint64(k)*dstSlot + uint64(rng.IntN(dmaMaxLen)),
						n:   n,
					})
				}

				for next := 0; next < len(cmds); {
					start := m.Cycle()
					w := cosim.Window{Target: start + window}
					for range rng.IntN(8) {
						if next == len(cmds) {
							break
						}
						c := cmds[next]
						next++
						w.Frames = append(w.Frames, cosim.Frame{Cycle: start, Data: command(c.src, c.dst, uint16(c.n), 0)})
					}
					r.step(w)
				}
				r.drain(window)
				r.checkEchoes()
				t.Logf("%d copies done by cycle %d", len(cmds), m.Cycle())

				// Each destination with a guard byte on either side.
				reads := cosim.Window{Target: m.Cycle()}
				for _, c := range cmds {
					reads.MemReads = append(reads.MemReads, cosim.Mem{Addr: c.dst - 1, Length: uint32(c.n + 2)})
				}
				rep := r.step(reads)
				var total uint64
				for k, c := range cmds {
					got := rep.MemData[k].Data
					want := src[c.src-srcBase : c.src-srcBase+uint64(c.n)]
					modeltest.SameBytes(t, want, got[1:1+c.n], "copy %d: %d bytes from %#x to %#x", k, c.n, c.src, c.dst)
					require.Zero(t, got[0], "copy %d: the byte before the destination", k)
					require.Zero(t, got[1+c.n], "copy %d: the byte after the destination", k)
					total += uint64(c.n)
				}

				require.NoError(t, m.Close())
				assert.Equal(t, [4]uint64{commands, total, commands, total}, modeltest.DMACounters(t, m.LastOutput()),
					"reads, bytes read, writes, bytes written")
			})
		}
	}
}

// The read latency, pinned: on an idle top, a copy of b beats whose command
// was taken by cycle t echoes from t + L + 1 + b exactly (the top adds one
// cycle before the request and one after the write; sim/test/dma_copy_top.sv).
// The latency is the default or --dma-read-latency's, and HELLO says which.
func TestDMAReadLatency(t *testing.T) {
	for _, width := range dmaWidths {
		for _, latency := range []uint64{dmaReadLatency, 1, 7, 300} {
			t.Run(fmt.Sprintf("%d/L%d", width, latency), func(t *testing.T) {
				var args []string
				if latency != dmaReadLatency {
					args = []string{"--dma-read-latency", strconv.FormatUint(latency, 10)}
				}
				m := startDMA(t, width, cosim.HelloAck{Seed: 1}, args...)
				h := m.Hello()
				l, _ := h.Value("dma_read_latency")
				require.Equal(t, strconv.FormatUint(latency, 10), l)
				r := &copyRun{t: t, m: m, width: width, latency: latency}

				lane := width / 8
				for i, n := range []int{1, lane, lane + 1, 3*lane - 5, dmaMaxLen} {
					src := uint64(0x4000_0003 + i*0x2000)
					dst := uint64(0x9000_0005 + i*0x2000)
					arrival := m.Cycle() + 5
					r.step(cosim.Window{Target: arrival + latency + 1000,
						Frames: []cosim.Frame{{Cycle: arrival, Data: command(src, dst, uint16(n), 0)}}})
					r.drain(100)
					a, e := r.accepts[i], r.echoes[i]
					assert.Equal(t, arrival, a.Cycle, "an idle top takes a command at once")
					assert.Equal(t, a.LastCycle+latency+1+modeltest.Beats(n, width), e.Cycle,
						"copy %d of %d bytes (%d beats)", i, n, modeltest.Beats(n, width))
				}
				r.checkEchoes()
			})
		}
	}
}

// A read sees memory as it is when its request is taken: a MEM_WRITE after
// that does not change what it returns, and a copy sent after another
// copy's echo reads the bytes that copy wrote.
func TestDMAReadOrdering(t *testing.T) {
	for _, width := range dmaWidths {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			m := startDMA(t, width, cosim.HelloAck{Seed: 1})
			r := &copyRun{t: t, m: m, width: width, latency: dmaReadLatency}
			const (
				a = uint64(0x1000_0007)
				b = uint64(0x2000_0009)
				c = uint64(0x3000_000b)
				n = 100
			)
			before := bytes.Repeat([]byte{0x5a}, n)
			after := bytes.Repeat([]byte{0xa5}, n)
			cmdBeats := modeltest.Beats(cmdLen, width)

			// The request of A->B is taken cycle cmdBeats after arrival;
			// the window ends just after it, long before its answer.
			arrival := m.Cycle()
			r.step(cosim.Window{Target: arrival + cmdBeats + 1,
				MemWrites: []cosim.Mem{{Addr: a, Data: before}},
				Frames:    []cosim.Frame{{Cycle: arrival, Data: command(a, b, n, 0)}}})
			require.Len(t, r.accepts, 1)
			r.step(cosim.Window{Target: m.Cycle() + 10, MemWrites: []cosim.Mem{{Addr: a, Data: after}}})
			r.drain(100)
			// B->C after A->B's echo.
			r.step(cosim.Window{Target: m.Cycle() + 10,
				Frames: []cosim.Frame{{Cycle: m.Cycle(), Data: command(b, c, n, 0)}}})
			r.drain(100)
			r.checkEchoes()
			rep := r.step(cosim.Window{Target: m.Cycle(), MemReads: []cosim.Mem{{Addr: b, Length: n}, {Addr: c, Length: n}}})
			modeltest.SameBytes(t, before, rep.MemData[0].Data, "A->B read A when its request was taken")
			modeltest.SameBytes(t, before, rep.MemData[1].Data, "B->C read what A->B wrote")
		})
	}
}

// At most 16 reads are outstanding: with a long latency, the 17th request
// waits until the first read's last beat is taken, so its echo comes one
// latency later than the 16th's.
func TestDMAOutstandingLimit(t *testing.T) {
	const latency = 1000
	for _, width := range dmaWidths {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			m := startDMA(t, width, cosim.HelloAck{Seed: 1}, "--dma-read-latency", strconv.Itoa(latency))
			r := &copyRun{t: t, m: m, width: width, latency: latency}
			w := cosim.Window{Target: m.Cycle() + 100}
			for i := range dmaMaxReads + 1 {
				w.Frames = append(w.Frames, cosim.Frame{Cycle: m.Cycle(), Data: command(0x100+uint64(i), 0x8000+uint64(i)*64, 1, 0)})
			}
			r.step(w)
			r.drain(500)
			r.checkEchoes()
			t0 := r.accepts[0].LastCycle
			// Read 0 is taken in t0+1 and answered in t0+1+L; read 16 is
			// taken in the cycle after, t0+L+2, and answered at t0+2L+2.
			assert.Less(t, r.echoes[dmaMaxReads-1].Cycle, t0+2*latency, "read 15 did not wait")
			assert.Equal(t, t0+2*latency+3, r.echoes[dmaMaxReads].Cycle, "read 16 waited for read 0")
		})
	}
}

// The DMA port's timing does not depend on how the cycles are split into
// windows, backpressure included: the same commands give the same stamps
// with long windows and with short random ones.
func TestDMAWindowSplit(t *testing.T) {
	for _, width := range dmaWidths {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			seed := *dmaSeed
			t.Logf("seed %d (rerun with -args -dma.seed=%d)", seed, seed)
			rng := rand.New(rand.NewPCG(seed, 7))
			var frames []cosim.Frame
			for k := range 60 {
				cmd := command(0x3000+rng.Uint64N(1<<16), 0x10_0000+uint64(k)*dmaMaxLen, uint16(1+rng.IntN(600)), 0)
				frames = append(frames, cosim.Frame{Cycle: uint64(k) * 40, Data: cmd})
			}
			run := func(windowLen func() uint64) []uint64 {
				m := startDMA(t, width, cosim.HelloAck{Seed: seed, SrcGapPct: 25, SinkStallPct: 25})
				r := &copyRun{t: t, m: m, width: width, latency: dmaReadLatency}
				for next := 0; next < len(frames); {
					w := cosim.Window{Target: m.Cycle() + windowLen()}
					for ; next < len(frames) && frames[next].Cycle < w.Target; next++ {
						w.Frames = append(w.Frames, frames[next])
					}
					r.step(w)
				}
				r.drain(windowLen())
				r.checkEchoes()
				var stamps []uint64
				for i := range r.echoes {
					stamps = append(stamps, r.accepts[i].Cycle, r.accepts[i].LastCycle, r.echoes[i].Cycle, r.echoes[i].LastCycle)
				}
				require.NoError(t, m.Close())
				return stamps
			}
			long := run(func() uint64 { return 5000 })
			short := run(func() uint64 { return 1 + rng.Uint64N(100) })
			require.Equal(t, long, short)
		})
	}
}

// A top that breaks the DMA port ends the run with ERROR MODEL at the
// failing cycle, naming the channel and the rule.
func TestDMAMisuse(t *testing.T) {
	for _, width := range dmaWidths {
		cmdBeats := modeltest.Beats(cmdLen, width)
		for _, c := range []struct {
			name   string
			length uint16
			flags  byte
			cycle  uint64 // after the command's arrival
			want   string
		}{
			{"length0", 0, 0, cmdBeats, "dma_rd_req at cycle %d: length 0 at address 0x1234 (want 1..4096)"},
			{"length5000", 5000, 0, cmdBeats, "dma_rd_req at cycle %d: length 5000 at address 0x1234 (want 1..4096)"},
			{"keep", 3, 1, cmdBeats + dmaReadLatency, "dma_wr at cycle %d: keep 0x6 is not contiguous from lane 0"},
		} {
			t.Run(fmt.Sprintf("%d/%s", width, c.name), func(t *testing.T) {
				m := startDMA(t, width, cosim.HelloAck{Seed: 1})
				arrival := m.Cycle() + 10
				_, err := m.Step(context.Background(), cosim.Window{Target: arrival + 1000,
					Frames: []cosim.Frame{{Cycle: arrival, Data: command(0x1234, 0x5678, c.length, c.flags)}}})
				var re *cosim.RemoteError
				require.True(t, errors.As(err, &re), "want an ERROR from the model, got %v", err)
				t.Log(err)
				assert.EqualValues(t, cosim.ErrCodeModel, re.Code)
				assert.Equal(t, arrival+c.cycle, re.Cycle)
				want := fmt.Sprintf(c.want, arrival+c.cycle)
				assert.Contains(t, re.Text, want)
				assert.NoError(t, m.Close(), "a failed model closes quietly")
				assert.True(t, contains(m.LastOutput(), "error: "+want), "the model says why on stderr: %q", m.LastOutput())
			})
		}
	}
}
