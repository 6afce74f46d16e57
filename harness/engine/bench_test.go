package engine_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/modeltest"
	"github.com/rocesim/cosim/harness/pcapio"
	"github.com/rocesim/cosim/harness/scenario"
	"github.com/rocesim/cosim/harness/scenario/generator"
)

// BenchmarkHarnessVsRaw runs the same RTL with the same stimulus twice: raw
// (the model binary's own loop, `--raw N --size S`) and through the whole
// harness (socket protocol, sources, golden model, scoreboard, pcapng) in
// open loop, and reports both speeds and their ratio. b.N is the number of
// frames per input port; every input port gets N frames of exactly S bytes
// in both runs, as fast as the DUT takes them, with no backpressure. The
// two runs alternate for COSIM_BENCH_ROUNDS rounds (default 3) and every
// figure is a median, since one raw run of a second or two moves by 20 %
// with the machine's load. ns/op is the harness's wall time per frame and
// port.
//
//	go test -run '^$' -bench HarnessVsRaw ./harness/engine
//
// COSIM_BENCH_MAX_WINDOW=C sets engine.Config.MaxWindow (default 65536
// cycles), COSIM_BENCH_MAX_FRAMES=F engine.Config.MaxWindowFrames
// (default 1024) and COSIM_BENCH_MAX_BYTES=B MaxWindowBytes (default
// 4 MiB), to study how the window length trades round trips against the
// model's cache footprint and the overlap of checking with simulation;
// COSIM_BENCH_LOCKSTEP=1 turns pipelined windows off, and
// COSIM_BENCH_NO_PCAP=1 writes no pcapng per link (cosim run --no-pcap).
func BenchmarkHarnessVsRaw(b *testing.B) {
	for _, top := range []string{"axis_fifo", "nic_icrc", "switch4"} {
		for _, width := range []int{64, 512} {
			if width == 512 && top != "switch4" {
				continue
			}
			for _, size := range []int{64, 1500} {
				b.Run(fmt.Sprintf("%s_%d/%dB", top, width, size), func(b *testing.B) { benchHarnessVsRaw(b, top, width, size) })
			}
		}
	}
}

// rawRE picks the speeds out of the raw mode's report (sim/raw.cpp).
var (
	rawCyclesRE = regexp.MustCompile(`(?m)^\s+(\d+) cycles, (\d+) frames in, (\d+) out`)
	rawWallRE   = regexp.MustCompile(`wall ([0-9.]+) s: ([0-9.]+) M cycles/s, ([0-9.]+) M frames/s`)
)

func benchHarnessVsRaw(b *testing.B, topName string, width, size int) {
	dir := modeltest.NeedModels(b, fmt.Sprintf("%s_%d", topName, width))
	top, err := engine.LookupTop(topName)
	require.NoError(b, err)
	n := b.N
	// The switch floods the raw mode's frames (their addresses are byte
	// counters) and drops what its egress cannot hold.
	flooding := topName == "switch4"

	// The harness's stimulus: a pcap of N frames of exactly size bytes per
	// input port. nic_icrc port 0 (insert) takes frames that end before
	// the ICRC, port 1 (check) frames with it.
	tmp := b.TempDir()
	toml := fmt.Sprintf("name = \"bench-%s-%d\"\ncycles = 1_000_000_000_000\n[[model]]\nname = \"dut\"\ntop = %q\ndata_width = %d\n",
		topName, size, topName, width)
	for port := 0; port < top.In; port++ {
		withICRC := topName != "nic_icrc" || port == 1
		path := filepath.Join(tmp, fmt.Sprintf("in%d.pcap", port))
		frames := exactFrames(b, n, size, withICRC, uint64(port))
		if flooding {
			frames = rawFrames(n, size, port)
		}
		require.NoError(b, pcapio.WritePcap(path, frames))
		toml += fmt.Sprintf("[[traffic]]\nkind = \"pcap\"\nto = \"dut.in%d\"\nfile = %q\n", port, path)
	}
	// The stimulus reaches the disk now, not while the first round writes
	// its captures: at 1500 bytes it is over a gigabyte.
	syscall.Sync()
	sc := modeltest.Scenario(b, toml)
	cfg := engine.Config{Scenario: sc, Seed: 1, ModelDir: dir}
	if w := os.Getenv("COSIM_BENCH_MAX_WINDOW"); w != "" { // for studies: the harness's window bound
		cfg.MaxWindow, err = strconv.ParseUint(w, 10, 64)
		require.NoError(b, err)
	}
	if f := os.Getenv("COSIM_BENCH_MAX_FRAMES"); f != "" { // and its bound on frames a window
		cfg.MaxWindowFrames, err = strconv.Atoi(f)
		require.NoError(b, err)
	}
	if f := os.Getenv("COSIM_BENCH_MAX_BYTES"); f != "" { // and on bytes
		cfg.MaxWindowBytes, err = strconv.Atoi(f)
		require.NoError(b, err)
	}
	cfg.NoPipeline = os.Getenv("COSIM_BENCH_LOCKSTEP") != "" // to compare with lock step
	cfg.NoLinkPcaps = os.Getenv("COSIM_BENCH_NO_PCAP") != "" // checking without the captures
	rounds := 3
	if r := os.Getenv("COSIM_BENCH_ROUNDS"); r != "" {
		rounds, err = strconv.Atoi(r)
		require.NoError(b, err)
		require.Positive(b, rounds, "COSIM_BENCH_ROUNDS")
	}
	if n < 1000 { // the framework's first probes: one round says how long N takes
		rounds = 1
	}

	// Raw and harness runs alternate, so that both see the same share of
	// whatever else the machine is doing; every figure is the median over
	// the rounds, the ratio the median of each round's own ratio.
	var raw, harness []runSpeed
	var ratios, frameRatios, ceilings, modelBounds []float64
	for round := range rounds {
		b.StopTimer()
		r := rawRun(b, engine.ModelPath(dir, top, width), n, size)
		if !flooding {
			require.Equal(b, n*top.In, r.frames, "raw: every frame out")
		}
		cfg.OutDir = filepath.Join(tmp, fmt.Sprintf("out%d", round))
		b.StartTimer()
		h := harnessRun(b, cfg)
		b.StopTimer()
		if flooding {
			require.Equal(b, r.frames, h.frames, "harness: the frames out of the raw run")
		} else {
			require.Equal(b, n*top.In, h.frames, "harness: every frame out")
		}
		raw, harness = append(raw, r), append(harness, h)
		ratios = append(ratios, h.cyclesPerSec()/r.cyclesPerSec())
		frameRatios = append(frameRatios, h.framesPerSec()/r.framesPerSec())
		ceilings = append(ceilings, ratioCeiling(r, h, runtime.NumCPU()))
		modelBounds = append(modelBounds, ratioCeiling(r, h, math.MaxInt32))
		b.Logf("N=%d round %d: raw %d cycles in %.3fs; harness %d cycles in %.3fs, %d windows; CPU go %.3fs model %.3fs; waited for models %.3fs, checking %.3fs, stimulus %.3fs",
			n, round, r.cycles, r.wall, h.cycles, h.wall, h.windows, h.goCPU, h.modelCPU,
			h.waited.Models, h.waited.Checking, h.waited.Stimulus)
	}
	med := func(f func(runSpeed) float64, runs []runSpeed) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		return median(v)
	}
	b.ReportMetric(med(runSpeed.cyclesPerSec, harness), "harness_cycles/s")
	b.ReportMetric(med(runSpeed.framesPerSec, harness), "harness_frames/s")
	b.ReportMetric(med(runSpeed.cyclesPerSec, raw), "raw_cycles/s")
	b.ReportMetric(med(runSpeed.framesPerSec, raw), "raw_frames/s")
	b.ReportMetric(median(ratios), "ratio")
	b.ReportMetric(median(frameRatios), "frames_ratio")
	b.ReportMetric(median(ceilings), "ratio_ceiling")
	// The same with as many CPUs as the Go side could use: bound by the
	// model's own CPU alone, its RTL and its end of the protocol.
	b.ReportMetric(median(modelBounds), "ratio_model_bound")
	b.ReportMetric(med(func(r runSpeed) float64 { return float64(r.windows) / r.wall }, harness), "windows/s")
	// Where the harness's wall time goes: CPU of the Go side (this
	// process: sources, golden, scoreboard, pcapng, protocol) and of the
	// model process (RTL and its end of the protocol).
	b.ReportMetric(med(func(r runSpeed) float64 { return r.goCPU / r.wall }, harness), "go_cpu/wall")
	b.ReportMetric(med(func(r runSpeed) float64 { return r.modelCPU / r.wall }, harness), "model_cpu/wall")
	b.ReportMetric(med(func(r runSpeed) float64 { return r.goRunDelay / r.wall }, harness), "go_runq/wall")
	b.ReportMetric(med(func(r runSpeed) float64 { return r.modelRunDelay / r.wall }, harness), "model_runq/wall")
	// The same per frame out, in microseconds: unlike the ratio, these do
	// not move with the raw run's speed, which on this machine changes by
	// up to 2x from one model instance to the next.
	b.ReportMetric(med(func(r runSpeed) float64 { return r.goCPU / float64(r.frames) * 1e6 }, harness), "go_us/frame")
	b.ReportMetric(med(func(r runSpeed) float64 { return r.modelCPU / float64(r.frames) * 1e6 }, harness), "model_us/frame")
	b.ReportMetric(med(func(r runSpeed) float64 { return r.modelCPU / float64(r.frames) * 1e6 }, raw), "raw_us/frame")
	b.ReportMetric(med(func(r runSpeed) float64 { return float64(r.goFaults) / float64(r.frames) }, harness), "go_faults/frame")
	b.ReportMetric(med(func(r runSpeed) float64 { return float64(r.modelFaults) / float64(r.frames) }, harness), "model_faults/frame")
	b.ReportMetric(med(func(r runSpeed) float64 { return float64(r.modelFaults) / float64(r.frames) }, raw), "raw_faults/frame")
	// On a shared machine the raw run may wait for a CPU too: below 1,
	// its speed (and so the ratio) says more about the load than the code.
	b.ReportMetric(med(func(r runSpeed) float64 { return r.modelCPU / r.wall }, raw), "raw_cpu/wall")
	// ns/op: the median harness run's wall time per frame and port.
	b.ReportMetric(med(func(r runSpeed) float64 { return r.wall }, harness)*1e9/float64(n), "ns/op")
}

// runSpeed is one run of a benchmark: simulated cycles and frames out in
// wall seconds, and the CPU seconds of the Go side and the model process.
type runSpeed struct {
	cycles, frames, windows int
	wall, goCPU, modelCPU   float64
	// Page faults of either side: on a virtual machine each costs as much
	// as hundreds of frames' worth of copying, and a fresh page of heap
	// or of a read buffer faults when first touched.
	goFaults, modelFaults int64
	waited                engine.Waits // the harness run's loop
	// Seconds the side's threads were runnable but had no CPU (harness
	// runs only): where the two sides crowd each other out.
	goRunDelay, modelRunDelay float64
}

func (r runSpeed) cyclesPerSec() float64 { return float64(r.cycles) / r.wall }
func (r runSpeed) framesPerSec() float64 { return float64(r.frames) / r.wall }

// ratioCeiling is the best ratio the CPU the harness run spent allows on
// cpus CPUs, however well its parts overlap: its wall time is at least the
// model's CPU time, and at least both sides' CPU time shared out over the
// CPUs. Near the ratio, the run is bound by the machine, not by waiting.
func ratioCeiling(raw, h runSpeed, cpus int) float64 {
	wall := max(h.modelCPU, (h.goCPU+h.modelCPU)/float64(cpus))
	return (float64(h.cycles) / wall) / raw.cyclesPerSec()
}

// rawRun runs the model's own loop (sim/raw.cpp) on n frames of size bytes
// per input port.
func rawRun(b *testing.B, model string, n, size int) runSpeed {
	var k0, k1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &k0)
	out, err := exec.Command(model, "--raw", strconv.Itoa(n), "--size", strconv.Itoa(size)).CombinedOutput()
	require.NoError(b, err, "%s", out)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &k1)
	c, w := rawCyclesRE.FindSubmatch(out), rawWallRE.FindSubmatch(out)
	require.NotNil(b, c, "raw output: %s", out)
	require.NotNil(b, w, "raw output: %s", out)
	var r runSpeed
	r.cycles, _ = strconv.Atoi(string(c[1]))
	r.frames, _ = strconv.Atoi(string(c[3]))
	r.wall, _ = strconv.ParseFloat(string(w[1]), 64)
	r.modelCPU = cpuSeconds(k1) - cpuSeconds(k0)
	r.modelFaults = k1.Minflt - k0.Minflt
	return r
}

// harnessRun runs cfg through the whole harness and requires it to pass.
func harnessRun(b *testing.B, cfg engine.Config) runSpeed {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var self0, kids0, self1, kids1 syscall.Rusage
	// The model's threads' wait for a CPU, sampled while it runs (its
	// figures go with it when Run reaps it).
	var modelDelay atomic.Int64
	stop := make(chan struct{})
	var polled sync.WaitGroup
	cfg.Started = func(pids map[string]int) {
		polled.Go(func() {
			for {
				if d, ok := runDelay(strconv.Itoa(pids["dut"])); ok {
					modelDelay.Store(int64(d))
				}
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
			}
		})
	}
	goDelay0, _ := runDelay("self")
	syscall.Getrusage(syscall.RUSAGE_SELF, &self0)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids0)
	s, err := engine.Run(ctx, cfg)
	syscall.Getrusage(syscall.RUSAGE_SELF, &self1)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids1) // the model, reaped by Run
	goDelay1, _ := runDelay("self")
	close(stop)
	polled.Wait()
	modeltest.RequirePass(b, s, err)
	return runSpeed{
		cycles: int(s.Cycles), frames: s.FramesOut, windows: s.Windows, wall: s.WallSeconds,
		goCPU: cpuSeconds(self1) - cpuSeconds(self0), modelCPU: cpuSeconds(kids1) - cpuSeconds(kids0),
		goFaults: self1.Minflt - self0.Minflt, modelFaults: kids1.Minflt - kids0.Minflt,
		waited:     s.Waited,
		goRunDelay: (goDelay1 - goDelay0).Seconds(), modelRunDelay: time.Duration(modelDelay.Load()).Seconds(),
	}
}

// runDelay sums how long the threads of a process ("self" or a pid) have
// waited, runnable, for a CPU (the second field of each thread's
// /proc/.../schedstat); false when the kernel keeps no such figures.
func runDelay(pid string) (time.Duration, bool) {
	files, _ := filepath.Glob(filepath.Join("/proc", pid, "task", "*", "schedstat"))
	var sum time.Duration
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		fields := strings.Fields(string(b))
		if len(fields) < 2 {
			return 0, false
		}
		ns, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return 0, false
		}
		sum += time.Duration(ns)
	}
	return sum, len(files) > 0
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// rawFrames are the frames the model's raw mode sends into port
// (sim/raw.cpp Payloads): frame seq is a byte ramp starting at the low byte
// of SplitMix64(seq*1315423911 + port)'s first draw.
func rawFrames(n, size, port int) [][]byte {
	frames := make([][]byte, n)
	for seq := range frames {
		z := uint64(seq)*1315423911 + uint64(port) + 0x9E3779B97F4A7C15
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
		z = (z ^ (z >> 27)) * 0x94D049BB133111EB
		start := byte(z ^ (z >> 31))
		f := make([]byte, size)
		for i := range f {
			f[i] = start + byte(i)
		}
		frames[seq] = f
	}
	return frames
}

func cpuSeconds(r syscall.Rusage) float64 {
	return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
}

// exactFrames returns n frames of exactly size bytes, each a valid RoCEv2
// frame (RC SEND_ONLY over IPv4) followed by a 2-byte Ethernet trailer:
// with its ICRC, or ending before it (the IP and UDP lengths count it, as
// an ICRC inserter takes them). A RoCEv2 frame alone cannot be 64 or 1500
// bytes long: its headers, ICRC and padded payload always add up to 2
// modulo 4. A handful of distinct frames repeat.
func exactFrames(tb testing.TB, n, size int, withICRC bool, seed uint64) [][]byte {
	tb.Helper()
	const distinct, trailer = 64, 2
	const headers = 14 + 20 + 8 + roce.BTHLen + roce.ICRCLen
	payload := size - trailer - headers
	if !withICRC {
		payload += roce.ICRCLen
	}
	require.True(tb, payload >= 0 && payload%4 == 0, "no RoCEv2 frame fits %d bytes", size)
	rng := rand.New(rand.NewPCG(seed, 7))
	var set [][]byte
	for range min(n, distinct) {
		f, err := framegen.Build(rng, framegen.Spec{OpCode: roce.RCSendOnly, Encap: framegen.IPv4, PayloadLen: payload})
		require.NoError(tb, err)
		require.NoError(tb, roce.FixICRC(f))
		if !withICRC {
			f = f[:len(f)-roce.ICRCLen]
		}
		f = append(f, make([]byte, trailer)...)
		require.Len(tb, f, size)
		set = append(set, f)
	}
	frames := make([][]byte, n)
	for i := range frames {
		frames[i] = set[i%len(set)]
	}
	return frames
}

// BenchmarkNICSystem runs issue 6's system, nic0 and nic1 at 64 bits
// through the 4-port switch with 1 us links (156 cycles), every frame,
// completion, counter and byte of memory checked, with b.N RDMA WRITEs of
// 8 KiB over 8 QP pairs in both directions. It reports the simulated
// WRITE goodput of both directions together (line rate 10 Gbit/s each way
// at 156.25 MHz), messages per wall-clock second, simulated cycles per
// second, and the ratio of those to the NIC model's own loop (`--raw`),
// the slowest of the three.
//
//	go test -run '^$' -bench NICSystem -benchtime 500x ./harness/engine
func BenchmarkNICSystem(b *testing.B) {
	dir := modeltest.NeedModels(b, "nic_64", "switch4_64")
	sc := modeltest.Scenario(b, fmt.Sprintf(`
name = "nic-system-bench"
cycles = 1_000_000_000
%s
[[rdma]]
nics = ["nic0", "nic1"]
qps = 8
messages = %d
send_pct = 0
write_pct = 100
read_pct = 0
imm_pct = 0
min_size = 8192
max_size = 8192
pmtu = 1024
`, generator.NICSwitchNIC(64, "", ""), b.N))
	top, err := engine.LookupTop("nic")
	require.NoError(b, err)
	rawMcps := rawRun(b, engine.ModelPath(dir, top, 64), 20000, 64).cyclesPerSec() / 1e6

	b.ResetTimer()
	s, err := engine.Run(context.Background(), engine.Config{Scenario: sc, Seed: 1, OutDir: b.TempDir(), ModelDir: dir})
	b.StopTimer()
	modeltest.RequirePass(b, s, err)
	simSeconds := float64(s.Cycles) / (sc.ClockMHz * 1e6)
	b.ReportMetric(float64(b.N)*8192*8/simSeconds/1e9, "sim_Gbit/s")
	b.ReportMetric(float64(b.N)/s.WallSeconds, "msgs/s")
	b.ReportMetric(s.CyclesPerSec/1e6, "Mcycles/s")
	b.ReportMetric(s.CyclesPerSec/1e6/rawMcps, "harness/raw_nic")
}

// BenchmarkFabric runs the built-in fabric scenario (8 NICs, two leaves
// and a spine, a 7:1 incast with PFC, ECN and DCQCN) once per iteration,
// every frame checked, and reports its simulated cycles per second, its
// wall-clock seconds and simulated milliseconds, and the NIC model's own
// loop (`--raw`) for comparison.
//
//	go test -run '^$' -bench Fabric -benchtime 1x ./harness/engine
func BenchmarkFabric(b *testing.B) {
	dir := modeltest.NeedModels(b, "nic_64", "switch8_64")
	sc, err := scenario.LoadBuiltin("fabric")
	require.NoError(b, err)
	top, err := engine.LookupTop("nic")
	require.NoError(b, err)
	rawMcps := rawRun(b, engine.ModelPath(dir, top, 64), 20000, 64).cyclesPerSec() / 1e6
	var s *engine.Summary
	b.ResetTimer()
	for range b.N {
		s, err = engine.Run(context.Background(), engine.Config{Scenario: sc, Seed: 1, OutDir: b.TempDir(), ModelDir: dir, NoLinkPcaps: true})
	}
	b.StopTimer()
	modeltest.RequirePass(b, s, err)
	b.ReportMetric(s.CyclesPerSec/1e6, "Mcycles/s")
	b.ReportMetric(s.WallSeconds, "wall_s")
	b.ReportMetric(float64(s.Cycles)/(sc.ClockMHz*1e3), "sim_ms")
	b.ReportMetric(rawMcps, "raw_nic_Mcycles/s")
}
