package ethswitch

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// load drives a 4-port switch at line rate on every input: frames from a
// fixed set (64 to 1500 bytes, unicast between four learned hosts, some
// broadcast), each port's next frame ending as soon as its beats can have
// come in. It feeds the model one window at a time, as a harness does.
type load struct {
	m      *Model
	frames [][]byte
	next   []uint64 // per port: last beat of its next frame
	k      []int
	beat   int
	outs   []Out
	in     uint64 // frames given
}

func newLoad(tb testing.TB, width int, ready func(int, uint64) bool, sizes []int) *load {
	cfg := DefaultConfig()
	cfg.DataWidth = width
	cfg.MTUMax = 1518
	cfg.Ready = ready
	m, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	m.CSRWrite(AddrCtrl, CtrlSched|CtrlECN|CtrlPFCTx, 0)
	l := &load{m: m, next: make([]uint64, 4), k: make([]int, 4), beat: width / 8}
	rng := rand.New(rand.NewPCG(7, 7))
	for k := range 64 {
		src := hostMAC(k % 4)
		dst := hostMAC(rng.IntN(4))
		if k%16 == 0 {
			dst = Broadcast
		}
		n := sizes[k%len(sizes)]
		l.frames = append(l.frames, buildIPv4(dst, src, n, byte(rng.IntN(256)), k%3 == 0, rng.IntN(8)))
	}
	for p := range 4 {
		l.next[p] = uint64(p)
	}
	return l
}

// window gives the frames ending before until and runs the model to it.
func (l *load) window(until uint64) {
	for p := range l.next {
		for l.next[p] < until {
			// port p sends frames whose source is host p (index k%4 == p)
			f := l.frames[(l.k[p]*4+p)%len(l.frames)]
			l.k[p]++
			if err := l.m.Input(p, f, false, l.next[p]); err != nil {
				panic(err)
			}
			l.in++
			l.next[p] += uint64((len(f) + l.beat - 1) / l.beat)
		}
	}
	l.m.Run(until)
	l.outs = l.m.AppendOutputs(l.outs[:0])
}

// BenchmarkRun reports simulated cycles and input frames per second of CPU
// for 4 ports at 64 and 512 bits, with tready always high (the fast path)
// and with a sink that stalls 1 cycle in 8.
func BenchmarkRun(b *testing.B) {
	stall := func(port int, c uint64) bool { return (c+uint64(port))%8 != 0 }
	for _, width := range []int{64, 512} {
		for _, bp := range []struct {
			name  string
			ready func(int, uint64) bool
		}{{"ready", nil}, {"stall", stall}} {
			for _, mix := range []struct {
				name  string
				sizes []int
			}{{"64B", []int{64}}, {"mix", []int{64, 128, 576, 1500}}} {
				b.Run(fmt.Sprintf("%d/%s/%s", width, bp.name, mix.name), func(b *testing.B) {
					l := newLoad(b, width, bp.ready, mix.sizes)
					const win = 1000
					l.window(10 * win) // warm up the rings
					start, in0 := l.m.Now(), l.in
					b.ReportAllocs()
					b.ResetTimer()
					for range b.N {
						l.window(l.m.Now() + win)
					}
					sec := b.Elapsed().Seconds()
					b.ReportMetric(float64(l.m.Now()-start)/sec, "cycles/s")
					b.ReportMetric(float64(l.in-in0)/sec, "frames/s")
				})
			}
		}
	}
}

// TestZeroAllocs: once warm, a window of traffic (inputs, decisions,
// picks, beats under backpressure, outputs) allocates nothing; ECN marks
// and PFC frames, which are new slices, are off here.
func TestZeroAllocs(t *testing.T) {
	stall := func(port int, c uint64) bool { return (c+uint64(port))%8 != 0 }
	for _, ready := range []func(int, uint64) bool{nil, stall} {
		for _, width := range []int{64, 512} {
			l := newLoad(t, width, ready, []int{64, 128, 576, 1500})
			l.m.CSRWrite(AddrCtrl, CtrlSched, l.m.Now())
			l.window(20000)
			allocs := testing.AllocsPerRun(50, func() { l.window(l.m.Now() + 500) })
			if allocs != 0 {
				t.Errorf("width %d, ready %v: %.1f allocations per window", width, ready != nil, allocs)
			}
		}
	}
}
