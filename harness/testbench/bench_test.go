package testbench_test

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	cmodeltest "github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/pcapio"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// recorder is a T whose Fatalf and Errorf are recorded instead of failing
// the test, so that a test can look at what the bench said; everything
// else is the real test's.
type recorder struct {
	*testing.T
	mu     sync.Mutex
	fatals []string
	errs   []string
}

func (r *recorder) Fatalf(f string, a ...any) {
	r.mu.Lock()
	r.fatals = append(r.fatals, fmt.Sprintf(f, a...))
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Errorf(f string, a ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(f, a...))
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.fatals) > 0 || len(r.errs) > 0 || r.T.Failed()
}

// fatal runs f as a test body would and returns what it stopped with
// (Fatalf), "" when it returned.
func (r *recorder) fatal(f func()) string {
	r.mu.Lock()
	n := len(r.fatals)
	r.mu.Unlock()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	<-done
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.fatals) > n {
		return r.fatals[n]
	}
	return ""
}

// eth64 is a 64-byte frame to the broadcast address from a host whose
// address ends in k, its payload counting from k.
func eth64(k byte) []byte {
	f := make([]byte, 64)
	copy(f, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0, 0, 0, 0, k, 0x88, 0xb5})
	for i := 14; i < len(f); i++ {
		f[i] = k + byte(i)
	}
	return f
}

// Every way of using the bench wrongly is an error that names the call
// and says what is wrong.
func TestBadUse(t *testing.T) {
	r := &recorder{T: t}
	var fifo, sw *tb.Bench
	require.Empty(t, r.fatal(func() { fifo = tb.Model(r, "axis_fifo_64") }))
	require.Empty(t, r.fatal(func() { sw = tb.Model(r, "switch4_64", tb.Name("sw")) }))
	require.Empty(t, r.fatal(func() { fifo.Run(100) }))
	ipless := eth64(1)
	for _, c := range []struct {
		name string
		f    func()
		want string
	}{
		{"unknown port", func() { fifo.Send("dut.in7", eth64(1)) }, `testbench: Send("dut.in7"): dut.in7: top axis_fifo has 1 input ports (dut.in0..dut.in0)`},
		{"not a port", func() { fifo.Send("dutin0", eth64(1)) }, `testbench: Send("dutin0"): "dutin0" is no port: ports are named model.inN or model.outN`},
		{"unknown model", func() { fifo.Send("x.in0", eth64(1)) }, `testbench: Send("x.in0"): x.in0: no model "x" (the models: dut)`},
		{"frame on an output", func() { fifo.Send("dut.out0", eth64(1)) }, `testbench: Send("dut.out0"): dut.out0 is an output port: frames are sent on input ports (dut.in0..dut.in0)`},
		{"expect on an input", func() { fifo.Expect("dut.in0", tb.Any()) }, `testbench: Expect("dut.in0", any frame): dut.in0 is an input port`},
		{"no match", func() { fifo.Expect("dut.out0", nil) }, `testbench: Expect("dut.out0", <nil>): no Match given`},
		{"deadline in the past", func() { fifo.Expect("dut.out0", tb.Any(), tb.By(50)) }, `testbench: Expect("dut.out0", any frame): By(50): the deadline is in the past (the bench is at cycle 100)`},
		{"both deadlines", func() { fifo.Expect("dut.out0", tb.Any(), tb.By(500), tb.Within(5)) }, `By and Within both set a deadline`},
		{"send in the past", func() { fifo.Send("dut.in0", eth64(1), tb.At(10)) }, `testbench: Send("dut.in0"): At(10) is in the past: the bench is at cycle 100`},
		{"run to the past", func() { fifo.RunTo(10) }, `testbench: RunTo(10): cycle 10 is in the past: the bench is at cycle 100`},
		{"empty frame", func() { fifo.Send("dut.in0", nil) }, `testbench: Send("dut.in0"): an empty frame`},
		{"field the frame lacks", func() { fifo.Expect("dut.out0", tb.Ignoring(ipless, tb.IPv4TTL)) }, `Ignore(IPv4.TTL): the frame has no IPv4 layer`},
		{"mask of another length", func() { fifo.Expect("dut.out0", tb.Masked(ipless, []byte{0})) }, `Masked: the mask has 1 bytes, the frame 64`},
		{"no such register", func() { sw.WriteCSR("sw.NOPE", 1) }, `testbench: WriteCSR("sw.NOPE"): top switch4 has no register or counter "NOPE" (registers: AGE_CYCLES CTRL`},
		{"no such counter", func() { sw.ReadCSR("sw.port9.rx_frames") }, `testbench: ReadCSR("sw.port9.rx_frames"): top switch4 has no register or counter "port9.rx_frames"`},
		{"read-only register", func() { sw.WriteCSR("sw.ID", 1) }, `testbench: WriteCSR("sw.ID"): sw.ID is read-only`},
		{"register of no model", func() { sw.ReadCSR("nic.CTRL") }, `testbench: ReadCSR("nic.CTRL"): no model "nic"`},
		{"register without a model", func() { sw.ReadCSR("CTRL") }, `testbench: ReadCSR("CTRL"): "CTRL" names no register`},
		{"registers of two models", func() { sw.ReadCSRs("sw.ID", "dut.ID") }, `no model "dut"`},
		{"not taken yet", func() { _ = fifo.Send("dut.in0", eth64(2), tb.At(5000)).Last() }, `testbench: Sent.Last: the frame sent on dut.in0 from cycle 5000 is not taken yet`},
		{"model not top_width", func() { tb.Model(r, "switch4") }, `testbench.Model("switch4"): a model is named top_width`},
		{"unknown top", func() { tb.Model(r, "nosuch_64") }, `unknown RTL top "nosuch"`},
		{"single-model option on a scenario", func() {
			tb.FromTOML(r, "name = \"x\"\ncycles = 100\n[[model]]\nname = \"f\"\ntop = \"axis_fifo\"\ndata_width = 64\n", tb.Backpressure(5, 5))
		}, `testbench.FromTOML: Backpressure is an option of a single-model bench`},
		{"golden off on a port that is not there", func() { tb.Model(r, "axis_fifo_64", tb.NoGolden("dut.out3")) }, `testbench.Model: unchecked port: dut.out3: top axis_fifo has 1 output ports`},
	} {
		got := r.fatal(c.f)
		assert.Contains(t, got, c.want, c.name)
	}
	require.Empty(t, r.fatal(func() { fifo.Finish() }))
	assert.Contains(t, r.fatal(func() { fifo.Send("dut.in0", eth64(1)) }), `testbench: Send("dut.in0"): the bench has finished (Finish)`)
	assert.Contains(t, r.fatal(func() { fifo.Finish() }), `testbench: Finish after Finish`)
	assert.Empty(t, r.errs, "the golden check passed")
}

// A failed expectation reports as the scoreboard does: the call, port,
// frame number and cycle, the fields that differ, both frames in hex, a
// pcapng of the port's last frames with the one that came and the one
// wanted, the seed and the rerun command; and the test stops.
func TestFailedExpectationReport(t *testing.T) {
	r := &recorder{T: t}
	var b *tb.Bench
	require.Empty(t, r.fatal(func() { b = tb.Model(r, "axis_fifo_64", tb.Seed(42)) }))
	ip := ipv4Frame(64)
	wrong := bytes.Clone(ip)
	wrong[22] = 63 // TTL
	var first tb.Received
	msg := r.fatal(func() {
		b.Send("dut.in0", eth64(1))
		first = b.Expect("dut.out0", tb.Exact(eth64(1)))
		b.Send("dut.in0", wrong)
		b.Expect("dut.out0", tb.Exact(ip))
		t.Error("the expectation did not stop the test")
	})
	t.Log(msg)
	lines := strings.Split(msg, "\n")
	assert.Regexp(t, `^testbench: Expect\("dut.out0", exact 64 B\) failed: port dut.out0 frame #2, cycle \d+ \(last beat \d+\): not the frame wanted$`, lines[0])
	assert.Contains(t, msg, "\n  IPv4.TTL want 0x40 got 0x3f\n")
	assert.Contains(t, msg, "\n  want (64 bytes):\n    00000010  ")
	assert.Contains(t, msg, "\n  got  (64 bytes, bad=false):\n    00000010  ")
	assert.Regexp(t, `\n  seed 42; rerun: go test ./harness/testbench -run '\^TestFailedExpectationReport\$' -count=1$`, msg)

	m := regexp.MustCompile(`neighbourhood: (\S+)`).FindStringSubmatch(msg)
	require.NotNil(t, m, "the report names its pcapng")
	assert.Equal(t, b.Dir(), filepath.Dir(m[1]))
	p, err := pcapio.Open(m[1])
	require.NoError(t, err)
	defer p.Close()
	var frames [][]byte
	for {
		pkt, err := p.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		frames = append(frames, pkt.Data)
	}
	assert.Equal(t, [][]byte{first.Data, wrong, ip}, frames, "the earlier frame, the one that came, the one wanted")

	// Nothing by the deadline; another cycle than wanted; a frame where
	// none should come.
	msg = r.fatal(func() { b.Expect("dut.out0", tb.Exact(ip), tb.Within(100)) })
	assert.Regexp(t, `^testbench: Expect\("dut.out0", exact 64 B\) failed: nothing by cycle \d+\n  dut.out0: no frame since #2\n  want \(64 bytes\):\n`, msg)
	msg = r.fatal(func() {
		s := b.Send("dut.in0", ip)
		b.RunUntil(s.Taken, 100)
		b.Expect("dut.out0", tb.Exact(ip), tb.LeavesAt(s.Last()))
	})
	assert.Contains(t, msg, "but its first beat left at cycle")
	assert.Regexp(t, `\n  cycle want \d+ got \d+\n`, msg)
	msg = r.fatal(func() {
		b.Send("dut.in0", ip)
		b.ExpectNone("dut.out0", tb.Exact(ip), 100)
	})
	assert.Contains(t, msg, `testbench: ExpectNone("dut.out0", exact 64 B, 100) failed: port dut.out0 frame #4`)
	assert.Contains(t, msg, "a frame came where none should")
}

// ipv4Frame is an Ethernet frame of n bytes holding an IPv4 header (TTL
// 64, right checksum) and a UDP header.
func ipv4Frame(n int) []byte {
	f := make([]byte, n)
	copy(f, []byte{0x02, 0, 0, 0, 0, 2, 0x02, 0, 0, 0, 0, 1, 0x08, 0x00,
		0x45, 0, 0, byte(n - 14), 0, 1, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0, 0, 2,
		0x04, 0x00, 0x00, 0x09, 0, byte(n - 34), 0, 0})
	fixIPv4(f)
	return f
}

// Masks and fields: what is left out may differ, what is not may not; a
// checksum left out must still be right.
func TestMasks(t *testing.T) {
	r := &recorder{T: t}
	var b *tb.Bench
	require.Empty(t, r.fatal(func() { b = tb.Model(r, "axis_fifo_64") }))
	ip := ipv4Frame(64)
	routed := bytes.Clone(ip)
	routed[22] = 63
	fixIPv4(routed)
	for _, c := range []struct {
		name string
		send []byte
		want tb.Match
		fail string // "" when it matches
	}{
		{"TTL and checksum left out", routed, tb.Ignoring(ip, tb.IPv4TTL, tb.IPv4Checksum), ""},
		{"TTL left out, checksum not", routed, tb.Ignoring(ip, tb.IPv4TTL), "IPv4.Checksum want"},
		{"checksum left out but wrong", withByte(routed, 24, 0), tb.Ignoring(ip, tb.IPv4TTL, tb.IPv4Checksum), "IPv4.Checksum want right for the frame that came got 0x00"},
		{"a byte mask", withByte(ip, 63, 0xEE), tb.Masked(ip, append(bytes.Repeat([]byte{0xFF}, 63), 0)), ""},
		{"a byte mask, another byte", withByte(ip, 62, 0xEE), tb.Masked(ip, append(bytes.Repeat([]byte{0xFF}, 63), 0)), "Payload[20] want 0x00 got 0xee"},
		{"bits left out", withByte(ip, 63, ip[63]^0x0F), tb.NewMask(ip).IgnoreBits(8*63+4, 4), ""},
		{"other bits", withByte(ip, 63, ip[63]^0xF0), tb.NewMask(ip).IgnoreBits(8*63+4, 4), "Payload[21] want 0x00 got 0xf0"},
		{"one of two", routed, tb.OneOf(tb.Exact(ip), tb.Exact(routed)), ""},
		{"neither of two", withByte(routed, 40, 0x55), tb.OneOf(tb.Exact(ip), tb.Exact(routed)), "alternative 2: "},
		{"a predicate", ip, tb.Where("TTL 64", func(f []byte) bool { return f[22] == 64 }), ""},
		{"a false predicate", routed, tb.Where("TTL 64", func(f []byte) bool { return f[22] == 64 }), "predicate want TTL 64 got false"},
	} {
		msg := r.fatal(func() {
			b.Send("dut.in0", c.send)
			b.Expect("dut.out0", c.want)
		})
		if c.fail == "" {
			assert.Empty(t, msg, c.name)
			continue
		}
		assert.Contains(t, msg, c.fail, c.name)
	}
}

func withByte(f []byte, i int, v byte) []byte {
	g := bytes.Clone(f)
	g[i] = v
	return g
}

// fixIPv4 rewrites the IPv4 header checksum of a frame built by ipv4Frame.
func fixIPv4(f []byte) {
	f[24], f[25] = 0, 0
	var s uint32
	for i := 14; i < 34; i += 2 {
		s += uint32(f[i])<<8 | uint32(f[i+1])
	}
	for s>>16 != 0 {
		s = s&0xFFFF + s>>16
	}
	f[24], f[25] = byte(^s>>8), byte(^s)
}

// The golden model checks every frame the DUT sends, whatever the test
// expects: a switch whose flood also goes back out of its ingress port (a
// mutant of make mutants) fails a test that expects nothing at all. With
// the golden check off for that port, the frame passes unchecked but the
// counter the golden model keeps still disagrees.
func TestGoldenChecksUnderneath(t *testing.T) {
	dir := filepath.Join(cmodeltest.Root(), "build", "mutants", "switch", "flood_includes_ingress", "models")
	if _, err := os.Stat(filepath.Join(dir, "switch4_64")); err != nil {
		t.Skip("the mutant flood_includes_ingress is not built (make mutants builds it)")
	}
	r := &recorder{T: t}
	var b *tb.Bench
	require.Empty(t, r.fatal(func() { b = tb.Model(r, "switch4_64", tb.ModelDir(dir), tb.Name("sw")) }))
	require.Empty(t, r.fatal(func() {
		b.Send("sw.in0", eth64(1))
		b.Finish()
	}))
	require.Len(t, r.errs, 1)
	assert.Contains(t, r.errs[0], "testbench: the golden check failed (seed 1): 0 mismatched, 0 missing, 1 unexpected, 2 counters differ")
	assert.Contains(t, r.errs[0], "UNEXPECTED run=TestGoldenChecksUnderneath seed=1 link=sw.out0")
	assert.Contains(t, r.errs[0], "COUNTER MISMATCH run=TestGoldenChecksUnderneath seed=1 counter=sw.port0.tx_frames want 0 got 1")
	assert.Regexp(t, `neighbourhood: \S+mismatch-001.pcapng`, r.errs[0])

	r2 := &recorder{T: t}
	require.Empty(t, r2.fatal(func() { b = tb.Model(r2, "switch4_64", tb.ModelDir(dir), tb.Name("sw"), tb.NoGolden("sw.out0")) }))
	require.Empty(t, r2.fatal(func() {
		b.Send("sw.in0", eth64(1))
		b.Expect("sw.out0", tb.Exact(eth64(1))) // the test's own check, where golden is off
		s := b.Finish()
		assert.Equal(t, 3, s.Matched, "the three other ports checked")
		assert.Zero(t, s.Unexpected)
	}))
	require.Len(t, r2.errs, 1)
	assert.Contains(t, r2.errs[0], "0 unexpected, 2 counters differ")
}

// The same seed gives the same cycles, frame for frame, under random
// backpressure on both sides of the FIFO; another seed gives others.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) []uint64 {
		var cycles []uint64
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			b := tb.Model(t, "axis_fifo_64", tb.Seed(seed), tb.Backpressure(30, 30))
			var sent []*tb.Sent
			for k := range 20 {
				sent = append(sent, b.Send("dut.in0", eth64(byte(k))))
			}
			for _, s := range sent {
				got := b.Expect("dut.out0", tb.Exact(s.Data))
				cycles = append(cycles, s.First(), s.Last(), got.Cycle, got.LastCycle)
			}
			assert.True(t, b.Finish().Pass)
		})
		return cycles
	}
	a, again, other := run(7), run(7), run(8)
	require.Len(t, a, 80)
	assert.Equal(t, a, again, "the same seed, the same cycles")
	assert.NotEqual(t, a, other, "another seed, other backpressure")
}

// A scenario's own traffic runs beside what the test sends, and every
// frame of both is checked: ExpectAnyPort and Count on a switch fed by a
// generator.
func TestScenarioWithTraffic(t *testing.T) {
	b := tb.FromTOML(t, `
name = "bench-with-traffic"
cycles = 1_000_000
[[model]]
name = "sw"
top = "switch4"
data_width = 64
[[traffic]]
kind = "l2"
to = "sw.in1"
frames = 50
hosts = 2
to_port = 2
`, tb.Seed(3))
	b.Run(5000)
	// A frame to an unknown unicast address floods; whichever egress
	// sends it first, the bench finds it there.
	f := eth64(9)
	copy(f, []byte{0x02, 0, 0, 0, 0x99, 0x99})
	b.Send("sw.in0", f)
	got := b.ExpectAnyPort([]string{"sw.out0", "sw.out1", "sw.out3"}, tb.Exact(f), tb.Within(1000))
	assert.NotEqual(t, "sw.out0", got.Port, "never back out of its ingress")
	n := b.Count("sw.out2", tb.Where("from the generator's hosts behind port 1", func(f []byte) bool { return f[10] == 1 }), 50_000)
	assert.Positive(t, n)
	s := b.Finish()
	assert.True(t, s.Pass)
	assert.Equal(t, 51, s.FramesIn)
}

// RoCEv2 fields: a PSN left out may differ; the ICRC left out is not
// compared but recomputed, so a frame with a stale ICRC still fails. A
// pure check of the matchers: no model needed.
func TestRoCEFields(t *testing.T) {
	for _, encap := range []framegen.Encap{framegen.IPv4, framegen.VLANIPv6} {
		rng := rand.New(rand.NewPCG(1, uint64(encap)))
		f, err := framegen.Build(rng, framegen.Spec{OpCode: roce.RCSendOnly, Encap: encap, PayloadLen: 32})
		require.NoError(t, err)
		off := psnOffset(t, f)
		other := bytes.Clone(f)
		other[off+2] ^= 0x01 // another PSN
		stale := bytes.Clone(other)
		require.NoError(t, roce.FixICRC(other))

		ok, _ := tb.Ignoring(f, tb.BTHPSN, tb.ICRC).Match(other)
		assert.True(t, ok, "%v: PSN and ICRC left out, the ICRC right", encap)
		ok, diffs := tb.Ignoring(f, tb.BTHPSN, tb.ICRC).Match(stale)
		assert.False(t, ok, "%v: a stale ICRC", encap)
		assert.Contains(t, fmt.Sprint(diffs), "BTH.ICRC want right for the frame that came got", "%v", encap)
		ok, diffs = tb.Ignoring(f, tb.BTHPSN).Match(other)
		assert.False(t, ok, "%v: the ICRC compared", encap)
		assert.NotContains(t, fmt.Sprint(diffs), "PSN", "%v: the PSN left out", encap)
		ok, diffs = tb.Exact(f).Match(other)
		assert.False(t, ok)
		assert.Contains(t, fmt.Sprint(diffs), "BTH.PSN", "%v: an exact match names the PSN", encap)
	}
}

// psnOffset finds the BTH's PSN in a frame by decoding it.
func psnOffset(t *testing.T, f []byte) int {
	p := gopacket.NewPacket(f, layers.LayerTypeEthernet, gopacket.NoCopy)
	off := 0
	for _, l := range p.Layers() {
		if l.LayerType() == roce.LayerTypeBTH {
			return off + 9
		}
		off += len(l.LayerContents())
	}
	t.Fatal("no BTH")
	return 0
}

// A scenario file, its models' csr tables written before anything the
// test does (and heard by the golden model), the output directory kept
// under $COSIM_TB_OUT.
func TestFromFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sw.toml")
	require.NoError(t, os.WriteFile(path, []byte("name = \"from-file\"\ncycles = 100_000\n[[model]]\nname = \"sw\"\ntop = \"switch4\"\ndata_width = 64\n[model.csr]\nMTU = 100\n"), 0o644))
	keep := t.TempDir()
	t.Setenv(tb.OutEnv, keep)
	b := tb.FromFile(t, path)
	assert.Equal(t, filepath.Join(keep, "TestFromFile"), b.Dir())
	assert.Equal(t, uint32(100), b.ReadCSR("sw.MTU"))
	b.Send("sw.in0", make([]byte, 101)) // above the MTU: dropped, counted
	b.RunUntilIdle(1000)
	assert.Equal(t, uint32(1), b.ReadCSR("sw.port0.drop_oversize"))
	assert.True(t, b.Finish().Pass)
	assert.FileExists(t, filepath.Join(keep, "TestFromFile", "summary.json"))
}

// Counter reads a counter's final value by name once the bench has
// finished (Finish compared it with golden's); before that, or for a name
// the top does not have, it is an error naming the call.
func TestCounter(t *testing.T) {
	r := &recorder{T: t}
	var sw *tb.Bench
	require.Empty(t, r.fatal(func() { sw = tb.Model(r, "switch4_64", tb.Name("sw")) }))
	sw.Send("sw.in0", eth64(1))
	sw.Send("sw.in0", eth64(2))
	assert.Contains(t, r.fatal(func() { sw.Counter("sw.port0.rx_frames") }),
		`testbench: Counter("sw.port0.rx_frames"): counters are compared when the bench finishes: call Finish first`)
	require.Empty(t, r.fatal(func() { sw.Finish() }))
	assert.Equal(t, uint64(2), sw.Counter("sw.port0.rx_frames"))
	assert.Equal(t, uint64(128), sw.Counter("sw.port0.rx_bytes"))
	for p := 1; p < 4; p++ {
		assert.Equal(t, uint64(2), sw.Counter(fmt.Sprintf("sw.port%d.tx_frames", p)), "flooded to port %d", p)
	}
	assert.Zero(t, sw.Counter("sw.port0.tx_frames"))
	for name, want := range map[string]string{
		"sw.NOPE":    `testbench: Counter("sw.NOPE"): top switch4 has no counter "NOPE"`,
		"sw.CTRL":    `testbench: Counter("sw.CTRL"): top switch4 has no counter "CTRL"`,
		"nic.rx_pfc": `testbench: Counter("nic.rx_pfc"): no model "nic"`,
		"rx_frames":  `testbench: Counter("rx_frames"): "rx_frames" names no counter`,
	} {
		assert.Contains(t, r.fatal(func() { sw.Counter(name) }), want, name)
	}
	assert.Empty(t, r.errs, "the golden check passed")
}

// Default runs the built-in default scenario (two NICs through the switch,
// the RDMA workload to its end); FromFile takes a built-in name where no
// file has it, and says what there is when neither does.
func TestDefaultAndBuiltinNames(t *testing.T) {
	b := tb.Default(t)
	s := b.Finish()
	assert.True(t, s.Pass)
	assert.Equal(t, "default", s.Scenario)
	assert.NotEmpty(t, s.Flows, "the workload's flows")
	assert.Positive(t, b.Counter("nic0.qp0.tx_packets"))

	r := &recorder{T: t}
	msg := r.fatal(func() { tb.FromFile(r, "no-such-scenario") })
	assert.Contains(t, msg, `testbench.FromFile("no-such-scenario"): no-such-scenario: no such file, nor a built-in scenario (built-in: default, fabric`)
}
