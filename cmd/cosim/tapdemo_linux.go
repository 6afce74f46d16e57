//go:build linux

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/pprof"
	"runtime/trace"
	"strings"
	"time"

	cosimproto "github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/harness/bridge"
	"github.com/rocesim/cosim/harness/hostnet"
	"github.com/rocesim/cosim/harness/scenario"
)

const tapDemoUsage = "usage: cosim tap-demo [--width BITS] [--seconds S] [--pings N] [--window C] [--max-window C] [--keep-warm D] [--congestion ALG] [--no-pcap] [--no-boost] [--no-offload] [--out DIR] [--models DIR]"

// runTapDemo is `make tap-demo`: four hosts in network namespaces, each on
// a TAP on a port of the RTL switch, ping and an iperf3 TCP stream
// between two of them, every frame checked. It removes its namespaces and
// TAPs on the way out, after an error or SIGINT too.
func runTapDemo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tap-demo", flag.ContinueOnError)
	fs.SetOutput(stderr)
	width := fs.Int("width", 512, "the switch's DATA_WIDTH: 512 (80 Gbit/s at 156.25 MHz) or 64")
	seconds := fs.Float64("seconds", 5, "length of the iperf3 TCP stream (0: no stream, ping only)")
	pings := fs.Int("pings", 200, "echo requests for the RTT figures")
	window := fs.Uint64("window", 0, "live window in cycles (0: the bridge's default)")
	maxWindow := fs.Uint64("max-window", 0, "longest live window in cycles, while frames queue up (0: the bridge's default)")
	keepWarm := fs.Duration("keep-warm", bridge.DefaultKeepWarm, "while hosts are active, step an empty window this often to keep the model in the CPU caches (0: off)")
	noPcap := fs.Bool("no-pcap", false, noPcapHelp)
	noBoost := fs.Bool("no-boost", false, noBoostHelp)
	congestion := fs.String("congestion", "cubic", "the iperf3 sender's TCP congestion control (iperf3 -C); \"\": the machine's default")
	noOffload := fs.Bool("no-offload", false, "open the hosts' TAPs without segmentation offload: the hosts' kernels then cut and check every segment themselves")
	out := fs.String("out", "out/tap-demo", "directory for summary.json, a pcapng per link and recording.pcapng")
	models := fs.String("models", "build/models", "directory of the Verilator-built models")
	fs.Usage = func() {
		fmt.Fprintln(stderr, tapDemoUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return nil
	} else if err != nil {
		return fail(exitBadInput, "tap-demo: %v", err)
	}
	if fs.NArg() != 0 {
		return fail(exitBadInput, "tap-demo: unexpected argument %q", fs.Arg(0))
	}
	if *seconds < 0 || *pings < 1 {
		return fail(exitBadInput, "tap-demo: --seconds must be 0 or more and --pings 1 or more")
	}
	if os.Geteuid() != 0 {
		return fail(exitFailed, "tap-demo: needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network namespaces and TAP devices: run it as root, e.g. sudo make tap-demo")
	}
	for _, tool := range []string{"ping", "iperf3"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fail(exitFailed, "tap-demo: %s is missing: run make deps (as root it installs iputils-ping and iperf3)", tool)
		}
	}
	d := &tapDemo{stdout: stdout, stderr: stderr, width: *width, window: *window, maxWindow: *maxWindow, keepWarm: *keepWarm, noPcap: *noPcap, boost: !*noBoost, offload: !*noOffload, congestion: *congestion, out: *out, models: *models}
	err := d.run(ctx, time.Duration(*seconds*float64(time.Second)), *pings)
	if err != nil && ctx.Err() != nil && d.cleanupErr == nil {
		// The commands died of the signal; say what happened instead.
		return fail(exitFailed, "tap-demo: interrupted; its namespaces and TAPs are removed")
	}
	return err
}

type tapDemo struct {
	stdout, stderr io.Writer
	width          int
	window         uint64
	maxWindow      uint64
	keepWarm       time.Duration
	noPcap         bool   // --no-pcap
	boost          bool   // not --no-boost
	offload        bool   // not --no-offload
	congestion     string // --congestion
	out, models    string
	net            *hostnet.Net
	session        *bridge.Session
	cleanupErr     error
}

func (d *tapDemo) run(ctx context.Context, stream time.Duration, pings int) (err error) {
	fmt.Fprintf(d.stdout, "tap-demo: RTL switch switch4 at DATA_WIDTH=%d (%d Gbit/s line rate at 156.25 MHz), hosts h1..h4 in network namespaces\n",
		d.width, d.width*15625/100000)
	d.net, err = hostnet.New(hostnet.Config{Hosts: 4, Prefix: "td", Offload: d.offload})
	if err != nil {
		return fail(exitFailed, "tap-demo: %v", err)
	}
	defer func() {
		// The bridge first (it writes to the TAPs), then TAPs and namespaces.
		if d.session != nil {
			d.session.Stop()
			if _, serr := d.session.Wait(); serr != nil && err == nil {
				err = fail(exitFailed, "tap-demo: %v", serr)
			}
		}
		if d.cleanupErr = d.net.Close(); d.cleanupErr != nil {
			err = errors.Join(err, fail(exitFailed, "tap-demo: cleanup: %v", d.cleanupErr))
		}
	}()
	for _, h := range d.net.Hosts {
		fmt.Fprintf(d.stdout, "  %s: %v on TAP %s in namespace %s\n", h.Label, h.Addr, h.TAP.Name(), h.NS.Name())
	}
	if err := d.start(); err != nil {
		return err
	}
	h := d.net.Hosts
	// ARP and MAC learning first, so the figures measure forwarding. The
	// model may still be starting (a second or more on a busy machine):
	// the first exchange gets a few tries.
	for _, to := range h[1:] {
		for try := 1; ; try++ {
			_, err := h[0].Ping(ctx, to.Addr, 2, 100*time.Millisecond)
			if err == nil {
				break
			}
			if try == 3 || ctx.Err() != nil {
				return fail(exitFailed, "tap-demo: warm-up: %v", err)
			}
		}
	}
	fmt.Fprintf(d.stdout, "warm-up: h1 reaches h2, h3, h4\n")
	stopProf := profile("ping")
	p, err := h[0].Ping(ctx, h[1].Addr, pings, 10*time.Millisecond)
	stopProf()
	if err != nil {
		return fail(exitFailed, "tap-demo: %v", err)
	}
	fmt.Fprintf(d.stdout, "ping h1 -> h2: %d sent, %d lost; RTT median %s, p99 %s (min %s, max %s)\n",
		p.Sent, p.Lost(), ms(p.Quantile(0.5)), ms(p.Quantile(0.99)), ms(p.Quantile(0)), ms(p.Quantile(1)))
	if stream == 0 {
		return d.finish()
	}
	stopProf = profile("iperf")
	c0, t0 := d.session.Cycle(), time.Now()
	ip, err := hostnet.IPerf(ctx, h[0], h[1], stream, d.congestion)
	c1, t1 := d.session.Cycle(), time.Now()
	stopProf()
	if err != nil {
		return fail(exitFailed, "tap-demo: %v", err)
	}
	fmt.Fprintf(d.stdout, "iperf3 TCP (%s) h1 -> h2, %.1f s: %.1f Mbit/s received (%.1f Mbit/s sent, %d retransmits, sender max RTT %.1f ms)\n",
		ip.Congestion, ip.Seconds, ip.ReceivedBits/1e6, ip.SentBits/1e6, ip.Retransmits, float64(ip.SenderMaxRTTUs)/1000)
	fmt.Fprintln(d.stdout, paceLine(c1-c0, t1.Sub(t0), d.width))
	return d.finish()
}

// paceLine says how fast the model simulated during the stream and what
// that pace lets one port carry: a beat of width bits a cycle at most. A
// stream that keeps h1's port busy runs at the simulation's pace, so this
// is the ceiling the iperf3 figure meets (that figure counts TCP payload,
// this one every byte on the wire).
func paceLine(cycles uint64, wall time.Duration, width int) string {
	rate := float64(cycles) / max(wall.Seconds(), 1e-9)
	return fmt.Sprintf("simulation during the stream: %.2f Mcycles/s; at that pace a %d-bit port carries at most %.0f Mbit/s",
		rate/1e6, width, rate*float64(width)/1e6)
}

// start builds the scenario around the hosts' TAPs and starts the bridge.
func (d *tapDemo) start() error {
	text := d.scenario()
	sc, err := scenario.Parse("tap-demo scenario", []byte(text))
	if err != nil {
		return fail(exitFailed, "tap-demo: %v", err)
	}
	devs := map[string]bridge.Device{}
	for _, h := range d.net.Hosts {
		devs[h.Label] = h.TAP
	}
	boost := liveProcs(len(sc.Models), d.boost)
	d.session, err = bridge.Start(bridge.Config{
		Scenario: sc, Text: []byte(text), Seed: 1, OutDir: d.out, ModelDir: d.models, Report: d.stdout,
		Status: d.stderr, StatusTTY: isTerminal(d.stderr), Devices: devs, KeepWarm: d.keepWarm, NoLinkPcaps: d.noPcap, Boost: boost,
		Timeouts: cosimproto.Timeouts{Step: cosimproto.DefaultStepTimeout},
	})
	if err != nil {
		return fail(exitFailed, "tap-demo: %v", err)
	}
	return nil
}

// tapDemoQueue is each tap's queue in the demo: 4096 frames, 5.9 MB of
// TCP payload, more than the 4 MB a Linux sender keeps unacknowledged at
// most (tcp_wmem), so that CUBIC, which fills a queue until it overflows,
// finds no end to it. Invariant: no queue_full drop in a stream, measured
// by make tap-demo (harness/PERFORMANCE.md).
const tapDemoQueue = 4096

// scenario is the demo's: the switch, its ports on h1..h4.
func (d *tapDemo) scenario() string {
	var b strings.Builder
	fmt.Fprintf(&b, "name = \"tap-demo\"\ncycles = 9_000_000_000_000_000_000\n\n[[model]]\nname = \"sw\"\ntop = \"switch4\"\ndata_width = %d\n", d.width)
	if d.window > 0 || d.maxWindow > 0 {
		b.WriteString("\n[bridge]\n")
	}
	if d.window > 0 {
		fmt.Fprintf(&b, "window = %d\n", d.window)
	}
	if d.maxWindow > 0 {
		fmt.Fprintf(&b, "max_window = %d\n", d.maxWindow)
	}
	for i, h := range d.net.Hosts {
		fmt.Fprintf(&b, "\n[[tap]]\nname = %q\ndevice = %q\nin = \"sw.in%d\"\nout = \"sw.out%d\"\nqueue = %d\n",
			h.Label, h.TAP.Name(), i, i, tapDemoQueue)
	}
	return b.String()
}

// finish stops the bridge and prints the check.
func (d *tapDemo) finish() error {
	d.session.Stop()
	sum, err := d.session.Wait()
	d.session = nil
	if sum != nil {
		printSummary(d.stdout, sum)
		rec := filepath.Join(d.out, bridge.RecordingFile)
		fmt.Fprintf(d.stdout, "recording %s; replay it with: cosim run --replay %s --out %s-replay\n", rec, rec, d.out)
	}
	if err != nil {
		return fail(exitFailed, "tap-demo: %v", err)
	}
	if d.offload {
		d.printOffload()
	}
	fmt.Fprintf(d.stdout, "check: %d frames from hosts, %d to hosts; %d matched, %d mismatched, %d missing, %d unexpected, %d counter mismatches\n",
		sum.FramesIn, sum.FramesOut, sum.Matched, sum.Mismatched, sum.Missing, sum.Unexpected, sum.CounterFails)
	if !sum.Pass {
		return fail(exitFailed, "tap-demo: FAIL; details above and in %s", d.out)
	}
	fmt.Fprintln(d.stdout, "PASS")
	return nil
}

// printOffload says how much of the hosts' per-segment work the TAPs'
// offload took over.
func (d *tapDemo) printOffload() {
	for _, h := range d.net.Hosts {
		o := h.TAP.Stats().Offload
		if o.Split+o.Joined+o.Malformed == 0 {
			continue
		}
		fmt.Fprintf(d.stdout, "  offload %s: %d super-packets from the host split into %d frames; %d frames to the host joined into %d writes",
			h.Label, o.Split, o.Segments, o.JoinedFrames, o.Joined)
		if o.Malformed > 0 {
			fmt.Fprintf(d.stdout, "; %d malformed (dropped as runts)", o.Malformed)
		}
		fmt.Fprintln(d.stdout)
	}
}

// profile starts a CPU profile and an execution trace of one phase of the
// demo when COSIM_PROFILE_DIR names a directory (for performance work:
// DIR/cpu-PHASE.pprof, DIR/trace-PHASE.out); the returned func stops them.
func profile(phase string) (stop func()) {
	dir := os.Getenv("COSIM_PROFILE_DIR")
	if dir == "" {
		return func() {}
	}
	var files []*os.File
	create := func(name string) *os.File {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			fmt.Fprintf(os.Stderr, "tap-demo: profile: %v\n", err)
			return nil
		}
		files = append(files, f)
		return f
	}
	cpu, tr := create("cpu-"+phase+".pprof"), create("trace-"+phase+".out")
	if cpu != nil && pprof.StartCPUProfile(cpu) != nil {
		cpu = nil
	}
	if tr != nil && os.Getenv("COSIM_PROFILE_TRACE") != "" && trace.Start(tr) != nil {
		tr = nil
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
		}
		if tr != nil && os.Getenv("COSIM_PROFILE_TRACE") != "" {
			trace.Stop()
		}
		for _, f := range files {
			f.Close()
		}
	}
}

func ms(t time.Duration) string { return fmt.Sprintf("%.3f ms", float64(t)/float64(time.Millisecond)) }
