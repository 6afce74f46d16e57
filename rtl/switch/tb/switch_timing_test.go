package tb_test

// Cycle-exact checks of the RTL switch (rtl/switch, run as its Verilated
// model build/models/switch<P>_<W>) against its golden model
// (golden/ethswitch), written with the public test bench
// (harness/testbench). Each case is one hand-made stimulus:
//
//   - every input is sent from its arrival cycle (so that its last beat
//     is taken at the cycle the case names; the ACCEPT stamps are checked
//     against it), and every CSR write is on the bus at its cycle, the
//     golden model hearing it with that cycle (sim/csr.h, sim/README.md
//     "CSR bus");
//   - under the bench, the golden model gets every frame with the
//     last-beat cycle of its ACCEPT and, for output backpressure, the same
//     tready as the model's sinks (cosim.SinkReady), and every frame out
//     must agree with it exactly: port, order, bytes, the cycle its first
//     beat left; so must every counter at the end.
//
// The case runs until the switch is idle; then every register and counter
// is read over the CSR bus, the registers held to what the writes leave.
//
// Most directed cases also state what rtl/switch/README.md says must come
// out, written by hand from the README's rules (see each case's comment),
// and check it on the RTL with the bench's expectations: if the RTL and
// the golden model disagree, the README check tells which one is wrong.
//
// The models come from make build; a missing one skips the test, or fails
// it under COSIM_REQUIRE_MODELS=1.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/ethswitch"
	"github.com/rocesim/cosim/harness/device/switchdev"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/framegen"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// ---- Cases: stimulus and the README's expectations.

// swtIn is one input frame of a case.
type swtIn struct {
	port  int
	frame []byte
	bad   bool   // tuser[0] on the last beat
	at    uint64 // arrival: the first beat is offered from this cycle
	// last is the cycle the case wants the last beat taken in (directed
	// cases, which derive at from it); 0 when at is given (random case).
	last uint64
}

// swtWrite is a CSR write on the bus at cycle (in force from cycle+1).
type swtWrite struct {
	cycle      uint64
	addr, data uint32
}

// swtWant is a frame the README says leaves port: input in (or, with in
// -1, the frame the switch makes itself, a PFC frame), marked CE or not,
// with its first and last beats taken at first and last.
type swtWant struct {
	port        int
	in          int
	frame       []byte // when in is -1
	mark        bool
	first, last uint64
}

// swtCase is one run of the switch and the golden model on one stimulus.
type swtCase struct {
	name       string
	model      string // "switch4_64": top switch4 at 64 bits
	seed       uint64 // backpressure seed of the handshake
	gap, stall uint16 // src_gap_pct and sink_stall_pct of the handshake
	csr        []swtWrite
	in         []swtIn
	window     uint64 // window length in cycles (512 when 0)

	// want is every frame the README says comes out (nil: the case has
	// no full list, and check does its README part). count holds the
	// README counter values that are not derived from in and want: by
	// default rx_frames and rx_bytes count every input on its port,
	// tx_frames and tx_bytes every wanted frame on its port (tx_pfc the
	// PFC ones), and every other counter is 0.
	want  []swtWant
	count map[string]uint64
	// check runs README checks of its own on one side's results.
	check func(t *testing.T, side string, r *swtResult, v *swtView)
}

// swtBuilder writes a directed case: inputs by the cycle of their last
// beat, wanted outputs by the cycle of their first beat (tready is always
// high in directed cases, so the last beat follows from the length).
type swtBuilder struct {
	c       swtCase
	bw      int // bytes per beat
	rng     *rand.Rand
	setupAt uint64
}

func swtNew(name, model string) *swtBuilder {
	_, width := swtShape(model)
	return &swtBuilder{
		c:   swtCase{name: name, model: model, count: map[string]uint64{}},
		bw:  width / 8,
		rng: rand.New(rand.NewPCG(uint64(len(name)), swtHash(name))),
	}
}

func (b *swtBuilder) done() swtCase { return b.c }

// setup puts a write on the bus at the next setup cycle (0, 1, 2, ...).
func (b *swtBuilder) setup(addr, data uint32) {
	b.c.csr = append(b.c.csr, swtWrite{b.setupAt, addr, data})
	b.setupAt++
}

// write puts a write on the bus at cycle (after the setup writes).
func (b *swtBuilder) write(cycle uint64, addr, data uint32) {
	b.c.csr = append(b.c.csr, swtWrite{cycle, addr, data})
}

func (b *swtBuilder) beats(n int) uint64 { return uint64((n + b.bw - 1) / b.bw) }

// add is an input frame on port whose last beat is taken at last; it
// returns the input's index.
func (b *swtBuilder) add(port int, f []byte, last uint64) int {
	b.c.in = append(b.c.in, swtIn{port: port, frame: f, last: last})
	return len(b.c.in) - 1
}

// addBad is add with tuser[0] on the last beat.
func (b *swtBuilder) addBad(port int, f []byte, last uint64) int {
	k := b.add(port, f, last)
	b.c.in[k].bad = true
	return k
}

// addAt is add by arrival cycle: the frame's beats are taken from at on.
func (b *swtBuilder) addAt(port int, f []byte, at uint64) int {
	return b.add(port, f, at+b.beats(len(f))-1)
}

// out wants input in out of port, first beat at first; it returns the
// cycle of the last beat.
func (b *swtBuilder) out(port, in int, first uint64) uint64 {
	last := first + b.beats(len(b.c.in[in].frame)) - 1
	b.c.want = append(b.c.want, swtWant{port: port, in: in, first: first, last: last})
	return last
}

// outMarked is out for a copy marked CE.
func (b *swtBuilder) outMarked(port, in int, first uint64) uint64 {
	last := b.out(port, in, first)
	b.c.want[len(b.c.want)-1].mark = true
	return last
}

// train wants the inputs out of port back to back, the first one's first
// beat at first; negative indexes are marked copies of input -k-1. It
// returns the last beat of the train.
func (b *swtBuilder) train(port int, first uint64, ins ...int) uint64 {
	var last uint64
	for _, in := range ins {
		if in < 0 {
			last = b.outMarked(port, -in-1, first)
		} else {
			last = b.out(port, in, first)
		}
		first = last + 1
	}
	return last
}

// swtMarked names a marked copy in train.
func swtMarked(in int) int { return -in - 1 }

// flood wants input in out of every port but its ingress, first beats at
// first.
func (b *swtBuilder) flood(in int, first uint64) uint64 {
	_, ports := swtPorts(b.c.model)
	var last uint64
	for p := range ports {
		if p != b.c.in[in].port {
			last = b.out(p, in, first)
		}
	}
	return last
}

// Frames. Payloads come from the case's generator, so every frame of a
// case is distinct.
func (b *swtBuilder) plain(dst, src ethswitch.MAC, n int) []byte {
	return framegen.BuildL2(b.rng, framegen.L2Spec{Dst: dst, Src: src, Len: n})
}

func (b *swtBuilder) tagged(dst, src ethswitch.MAC, pcp, n int) []byte {
	return framegen.BuildL2(b.rng, framegen.L2Spec{Dst: dst, Src: src, VLAN: true, PCP: uint8(pcp), VID: 42, Len: n})
}

func (b *swtBuilder) ip(dst, src ethswitch.MAC, dscp, ecn uint8, n int) []byte {
	return framegen.BuildL2(b.rng, framegen.L2Spec{Dst: dst, Src: src, IPv4: true, DSCP: dscp, ECN: ecn, Len: n})
}

func (b *swtBuilder) ipTagged(dst, src ethswitch.MAC, pcp int, dscp, ecn uint8, n int) []byte {
	return framegen.BuildL2(b.rng, framegen.L2Spec{Dst: dst, Src: src, VLAN: true, PCP: uint8(pcp), VID: 42, IPv4: true, DSCP: dscp, ECN: ecn, Len: n})
}

// ECN codepoints (RFC 3168).
const (
	swtNotECT = 0
	swtECT1   = 1
	swtECT0   = 2
	swtCE     = 3
)

// Hosts: A behind port 0, B port 1, C port 2, D port 3 once learned; E, F,
// G only ever send MAC Control or bad frames. Their MAC table entries
// (64 entries) are all different.
var (
	swtA       = swtHost(0x0A)
	swtB       = swtHost(0x0B)
	swtC       = swtHost(0x0C)
	swtD       = swtHost(0x0D)
	swtE       = swtHost(0x0E)
	swtF       = swtHost(0x0F)
	swtG       = swtHost(0x10)
	swtUnknown = swtHost(0x77)
	swtBcast   = ethswitch.Broadcast
	swtMcast   = ethswitch.MAC{0x01, 0x00, 0x5E, 0x00, 0x00, 0x01}
	// The switch's own address in the PFC cases.
	swtSwitchMAC = ethswitch.MAC{0x02, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE}
)

func swtHost(k int) ethswitch.MAC { return ethswitch.MAC{0x02, 0, 0, 0, byte(k >> 8), byte(k)} }

// swtShape splits a model name, "switch4_64", into its top and width.
func swtShape(model string) (top string, width int) {
	i := strings.LastIndexByte(model, '_')
	w, err := strconv.Atoi(model[i+1:])
	if i <= 0 || err != nil {
		panic("model name " + model + " is not top_width")
	}
	return model[:i], w
}

// swtPorts returns the top of a model and its port count.
func swtPorts(model string) (engine.Top, int) {
	name, _ := swtShape(model)
	top, err := engine.LookupTop(name)
	if err != nil {
		panic(err)
	}
	return top, top.In
}

func swtHash(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return h
}

// ---- Running a case.

// swtFrame is a frame that left the switch.
type swtFrame struct {
	port        int
	first, last uint64
	data        []byte
	bad         bool
}

// swtView is what the RTL produced: the frames out of every port in
// order, and the registers and counters read at the end.
type swtView struct {
	out [][]swtFrame
	csr map[uint32]uint32
}

// counter returns counter c of port as read at the end.
func (v *swtView) counter(port int, c ethswitch.Counter) uint64 {
	return uint64(v.csr[ethswitch.CounterAddr(port, c)])
}

// find returns the copy of input in (marked or not) out of port, if any.
func (v *swtView) find(r *swtResult, port, in int) (swtFrame, bool) {
	for _, f := range v.out[port] {
		if k, ok := r.index[string(f.data)]; ok && k == in {
			return f, true
		}
	}
	return swtFrame{}, false
}

// swtResult is the run of one case.
type swtResult struct {
	c            *swtCase
	b            *tb.Bench
	ports, width int
	rtl          swtView
	last         []uint64       // the last-beat cycle of every input (ACCEPT)
	index        map[string]int // input index by bytes (CE-marked copies too)
	end          uint64         // the cycle the registers were read at
}

// beats is the number of beats of an n-byte frame.
func (r *swtResult) beats(n int) uint64 { bw := r.width / 8; return uint64((n + bw - 1) / bw) }

// swtRegisters are the configuration registers read back at the end.
func swtRegisters() []uint32 {
	regs := []uint32{ethswitch.AddrID, ethswitch.AddrShape, ethswitch.AddrCtrl, ethswitch.AddrMTU,
		ethswitch.AddrAgeCycles, ethswitch.AddrDefaultPrio, ethswitch.AddrPFCXoff, ethswitch.AddrPFCXon,
		ethswitch.AddrPFCQuanta, ethswitch.AddrPFCRefresh, ethswitch.AddrSwitchMACLo, ethswitch.AddrSwitchMACHi,
		ethswitch.AddrREDLFSR}
	for k := range 8 {
		regs = append(regs, ethswitch.AddrDSCPMap+uint32(4*k), ethswitch.AddrECNK+uint32(4*k), ethswitch.AddrQuantum+uint32(4*k),
			ethswitch.AddrECNKMax+uint32(4*k), ethswitch.AddrECNPMax+uint32(4*k))
	}
	return regs
}

// swtAddrName names a register or counter address.
func swtAddrName(addr uint32) string {
	if addr >= ethswitch.AddrCounters {
		off := addr - ethswitch.AddrCounters
		return ethswitch.CounterName(int(off/0x100), ethswitch.Counter(off%0x100/4))
	}
	names := map[uint32]string{ethswitch.AddrID: "ID", ethswitch.AddrShape: "SHAPE", ethswitch.AddrCtrl: "CTRL",
		ethswitch.AddrMTU: "MTU", ethswitch.AddrAgeCycles: "AGE_CYCLES", ethswitch.AddrDefaultPrio: "DEFAULT_PRIO",
		ethswitch.AddrPFCXoff: "PFC_XOFF", ethswitch.AddrPFCXon: "PFC_XON", ethswitch.AddrPFCQuanta: "PFC_QUANTA",
		ethswitch.AddrPFCRefresh: "PFC_REFRESH", ethswitch.AddrSwitchMACLo: "SWITCH_MAC_LO", ethswitch.AddrSwitchMACHi: "SWITCH_MAC_HI",
		ethswitch.AddrREDLFSR: "RED_LFSR"}
	if n, ok := names[addr]; ok {
		return n
	}
	k := addr % 0x40 / 4
	switch addr &^ 0x3F {
	case ethswitch.AddrDSCPMap:
		return fmt.Sprintf("DSCP_MAP[%d]", k)
	case ethswitch.AddrECNK:
		return fmt.Sprintf("ECN_K[%d]", k)
	case ethswitch.AddrQuantum:
		return fmt.Sprintf("QUANTUM[%d]", k)
	case ethswitch.AddrECNKMax:
		return fmt.Sprintf("ECN_KMAX[%d]", k)
	case ethswitch.AddrECNPMax:
		return fmt.Sprintf("ECN_PMAX[%d]", k)
	}
	return fmt.Sprintf("%#x", addr)
}

// swtNames names every register and counter address of a top as the
// bench takes them ("sw.CTRL", "sw.port1.tx_frames").
func swtNames(top engine.Top) map[uint32]string {
	names := map[uint32]string{}
	for _, m := range []map[string]uint32{top.Registers, top.ReadOnly, top.Counters} {
		for n, a := range m {
			names[a] = "sw." + n
		}
	}
	return names
}

// swtRun runs case c on the RTL switch through the public test bench
// (harness/testbench), which checks every frame it sends against
// golden/ethswitch, bytes and cycles, and every counter at the end. Each
// input is offered from its arrival cycle; each CSR write is on the bus
// at its cycle, the golden model hearing it there. It runs until the
// switch is idle and every frame the golden model expects came out, then
// reads every register and counter, and holds the registers to what the
// writes leave in a golden model that hears only them.
func swtRun(t *testing.T, c *swtCase) *swtResult {
	t.Helper()
	top, ports := swtPorts(c.model)
	_, width := swtShape(c.model)
	b := tb.Model(t, c.model, tb.Name("sw"), tb.Seed(c.seed), tb.Backpressure(int(c.gap), int(c.stall)))
	require.Zero(t, b.Now(), "the first window starts at cycle 0, the first cycle after reset")
	names := swtNames(top)

	r := &swtResult{c: c, b: b, ports: ports, width: width, last: make([]uint64, len(c.in)), index: map[string]int{}}
	r.rtl = swtView{out: make([][]swtFrame, ports), csr: map[uint32]uint32{}}
	for k, x := range c.in {
		r.index[string(x.frame)] = k
		if mk, ok := ethswitch.MarkCE(x.frame); ok {
			r.index[string(mk)] = k
		}
	}

	// Arrival cycles: a directed input is offered so that its last beat
	// is taken at its last (s_axis_tready is always 1, no source gaps).
	sent := make([]*tb.Sent, len(c.in))
	var stimEnd uint64
	for k := range c.in {
		x := &c.in[k]
		if x.last != 0 {
			n := r.beats(len(x.frame))
			require.GreaterOrEqual(t, x.last+1, n, "input %d: last beat %d is too early for %d beats", k, x.last, n)
			x.at = x.last + 1 - n
		}
		opts := []tb.SendOption{tb.At(x.at)}
		if x.bad {
			opts = append(opts, tb.Bad())
		}
		sent[k] = b.Send(swIn(x.port), x.frame, opts...)
		stimEnd = max(stimEnd, x.at+1)
	}
	for k, w := range c.csr {
		require.True(t, k == 0 || w.cycle > c.csr[k-1].cycle, "CSR writes must be on the bus in increasing cycles (write %d)", k)
		b.RunTo(w.cycle)
		b.WriteCSR(names[w.addr], w.data)
		stimEnd = max(stimEnd, w.cycle+1)
	}
	r.end = b.RunUntilIdle(stimEnd + 2_000_000 - min(b.Now(), stimEnd))

	for k, s := range sent {
		x := c.in[k]
		if x.last != 0 && c.gap == 0 && (s.First() != x.at || s.Last() != x.last) {
			t.Fatalf("stimulus: input %d (port %d, %d B) taken at %d..%d, the case wants %d..%d (frames on one port overlap?)",
				k, x.port, len(x.frame), s.First(), s.Last(), x.at, x.last)
		}
		r.last[k] = s.Last()
	}
	out := 0
	for p := range ports {
		for _, f := range b.Out(swOut(p)) {
			r.rtl.out[p] = append(r.rtl.out[p], swtFrame{port: p, first: f.Cycle, last: f.LastCycle, data: f.Data, bad: f.Bad})
			out++
		}
	}

	// Every register and counter, read one after the other; the switch is
	// idle, so nothing changes while they are read.
	addrs := swtRegisters()
	for p := range ports {
		for _, n := range ethswitch.AllCounters() {
			addrs = append(addrs, ethswitch.CounterAddr(p, n))
		}
	}
	regs := make([]string, len(addrs))
	for i, a := range addrs {
		regs[i] = names[a]
	}
	for i, v := range b.ReadCSRs(regs...) {
		r.rtl.csr[addrs[i]] = v
	}
	after := 0
	for p := range ports {
		after += len(b.Out(swOut(p)))
	}
	require.Equal(t, out, after, "frames out after idle")

	// The registers hold what the writes leave (masks, the ID and shape):
	// a golden model that hears only the writes says what. RED_LFSR steps
	// with the traffic; the RED case checks it.
	cfg := ethswitch.DefaultConfig()
	cfg.Ports, cfg.DataWidth = ports, width
	shadow, err := ethswitch.New(cfg)
	require.NoError(t, err)
	for _, w := range c.csr {
		require.NoError(t, shadow.CSRWrite(w.addr, w.data, w.cycle))
	}
	shadow.Run(r.end)
	for _, a := range swtRegisters() {
		if want := shadow.CSRRead(a); a != ethswitch.AddrREDLFSR && r.rtl.csr[a] != want {
			t.Errorf("%s (%#x) at the end: golden %d (%#x), RTL %d (%#x)", swtAddrName(a), a, want, want, r.rtl.csr[a], r.rtl.csr[a])
		}
	}
	return r
}

// ---- Reports.

// describe names a frame by its bytes: the input it is (or a CE-marked
// copy of), a PFC frame with its fields, or neither.
func (r *swtResult) describe(data []byte) string {
	if k, ok := r.index[string(data)]; ok {
		x := r.c.in[k]
		s := fmt.Sprintf("in#%d (from port %d, %d B", k, x.port, len(data))
		if !bytes.Equal(data, x.frame) {
			s += ", CE-marked"
		}
		return s + ")"
	}
	if len(data) >= 34 && ethswitch.MAC(data[0:6]) == ethswitch.PFCDstMAC && binary.BigEndian.Uint16(data[12:]) == ethswitch.EtherTypeMACControl {
		var times []string
		for p := range 8 {
			if data[17]&(1<<p) != 0 {
				times = append(times, fmt.Sprintf("time[%d]=%#x", p, binary.BigEndian.Uint16(data[18+2*p:])))
			}
		}
		return fmt.Sprintf("PFC opcode %#04x from %v %s (%d B)", binary.BigEndian.Uint16(data[14:]), ethswitch.MAC(data[6:12]), strings.Join(times, " "), len(data))
	}
	return fmt.Sprintf("a frame matching no input (%d B)", len(data))
}

func (r *swtResult) frameString(f *swtFrame) string {
	return fmt.Sprintf("%s first %d last %d", r.describe(f.data), f.first, f.last)
}

// byteDiff says where two frames differ first.
func byteDiff(want, got []byte) string {
	if bytes.Equal(want, got) {
		return "bytes equal"
	}
	n := min(len(want), len(got))
	for i := range n {
		if want[i] != got[i] {
			return fmt.Sprintf("first differing byte %d: want %#02x got %#02x (lengths %d, %d)", i, want[i], got[i], len(want), len(got))
		}
	}
	return fmt.Sprintf("lengths differ: want %d got %d (equal up to byte %d)", len(want), len(got), n)
}

// readme runs the case's README checks on the RTL's results (the golden
// model's are held to the RTL's by the bench, frame by frame).
func (r *swtResult) readme(t *testing.T) {
	t.Helper()
	if r.c.want != nil {
		r.checkWant(t, "RTL", &r.rtl)
	}
	if r.c.check != nil {
		r.c.check(t, "RTL", r, &r.rtl)
	}
}

// wantBytes is the frame w names.
func (r *swtResult) wantBytes(w *swtWant) []byte {
	if w.in < 0 {
		return w.frame
	}
	f := r.c.in[w.in].frame
	if w.mark {
		mk, ok := ethswitch.MarkCE(f)
		if !ok {
			panic(fmt.Sprintf("case %s: input %d cannot be marked", r.c.name, w.in))
		}
		return mk
	}
	return f
}

func (r *swtResult) wantString(w *swtWant) string {
	return fmt.Sprintf("%s first %d last %d", r.describe(r.wantBytes(w)), w.first, w.last)
}

// checkWant checks the frames against the case's full README list, with
// the bench's expectations: each port's frames in order, each at its
// cycles, and nothing else; then the counters.
func (r *swtResult) checkWant(t *testing.T, side string, v *swtView) {
	t.Helper()
	byPort := make([][]swtWant, r.ports)
	for _, w := range r.c.want {
		byPort[w.port] = append(byPort[w.port], w)
	}
	for p := range r.ports {
		want := byPort[p]
		sort.SliceStable(want, func(i, j int) bool { return want[i].first < want[j].first })
		for k := range want {
			w := &want[k]
			got := r.b.Expect(swOut(p), tb.Exact(r.wantBytes(w)), tb.LeavesAt(w.first))
			if got.LastCycle != w.last {
				t.Errorf("README vs %s: port %d frame #%d: last beat %d, want %d\n\tREADME %s", side, p, k, got.LastCycle, w.last, r.wantString(w))
			}
		}
		r.b.ExpectNone(swOut(p), tb.Any(), 0) // nothing the README does not list
	}
	want := map[string]uint64{}
	for _, x := range r.c.in {
		want[ethswitch.CounterName(x.port, ethswitch.RxFrames)]++
		want[ethswitch.CounterName(x.port, ethswitch.RxBytes)] += uint64(len(x.frame))
	}
	for _, w := range r.c.want {
		want[ethswitch.CounterName(w.port, ethswitch.TxFrames)]++
		want[ethswitch.CounterName(w.port, ethswitch.TxBytes)] += uint64(len(r.wantBytes(&w)))
		if w.in < 0 {
			want[ethswitch.CounterName(w.port, ethswitch.TxPFC)]++
		}
	}
	for name, n := range r.c.count {
		want[name] = n
	}
	r.checkCounters(t, side, v, want)
}

// checkCounters checks every counter of one side: those in want, and 0
// for the others.
func (r *swtResult) checkCounters(t *testing.T, side string, v *swtView, want map[string]uint64) {
	t.Helper()
	addrs := ethswitch.CounterAddrs(r.ports)
	names := make([]string, 0, len(addrs))
	for name := range addrs {
		names = append(names, name)
	}
	sort.Strings(names)
	for name := range want {
		if _, ok := addrs[name]; !ok {
			t.Errorf("case %s: no counter %s", r.c.name, name)
		}
	}
	for _, name := range names {
		if got := uint64(v.csr[addrs[name]]); got != want[name]&0xFFFFFFFF {
			t.Errorf("README vs %s: counter %s = %d, want %d", side, name, got, want[name])
		}
	}
}

// swtCheckRun runs a case and every check on it.
func swtCheckRun(t *testing.T, c swtCase) *swtResult {
	t.Helper()
	start := time.Now()
	r := swtRun(t, &c)
	n := 0
	for _, o := range r.rtl.out {
		n += len(o)
	}
	r.readme(t)
	s := r.b.Finish() // golden: every frame, every counter
	t.Logf("%s on %s: %d frames in, %d out, %d cycles, %d sink stall cycles, %.2fs",
		c.name, c.model, len(c.in), n, r.end, s.Stalls["sw"].Sink, time.Since(start).Seconds())
	return r
}

// ---- Directed cases, one per rule of rtl/switch/README.md. Cycle numbers
// in the comments: L last beat in, D = L+1 decision, pick D+1, first beat
// out D+2 = L+3 at an idle egress (LATENCY); a 64-byte frame is 8 beats at
// 64 bits, 1 at 512.

// learnB makes the switch learn B on port 1: a 64-byte broadcast with its
// last beat at 12, out of ports 0, 2, 3 from 15.
func (b *swtBuilder) learnB() int {
	k := b.add(1, b.plain(swtBcast, swtB, 64), 12)
	b.flood(k, 15)
	return k
}

// Learning, then unicast: a miss floods and learns the source; the answer
// goes only where the source was learned (README "Learning", step 2.5).
func swtLearnUnicast() swtCase {
	b := swtNew("learn_then_unicast", "switch4_64")
	i0 := b.add(0, b.plain(swtB, swtA, 64), 20) // B unknown: floods; A on 0
	b.flood(i0, 23)
	i1 := b.add(2, b.plain(swtA, swtC, 64), 40) // A live on 0; C on 2
	b.out(0, i1, 43)
	i2 := b.add(0, b.plain(swtC, swtA, 64), 60) // C live on 2
	b.out(2, i2, 63)
	return b.done()
}

// Same-cycle precedence: ports 0 and 2 both learn C at D=21; the learns
// apply in ascending port order, so port 2's wins. Port 3's lookup of C
// at 21 sees the table before those learns: a miss, it floods. Queues
// fill in decision order (ports 0, 2, 3).
func swtSameCycleLearn() swtCase {
	b := swtNew("same_cycle_learn_precedence", "switch4_64")
	i0 := b.add(0, b.plain(swtBcast, swtC, 64), 20)
	i1 := b.add(2, b.plain(swtBcast, swtC, 64), 20)
	i2 := b.add(3, b.plain(swtC, swtD, 64), 20)
	i3 := b.add(1, b.plain(swtC, swtB, 64), 50) // C is on port 2
	b.train(0, 23, i1, i2)
	b.train(1, 23, i0, i1, i2)
	b.train(2, 23, i0, i2)
	b.train(3, 23, i0, i1)
	b.out(2, i3, 53)
	return b.done()
}

// Flooding: broadcast, multicast and an unknown unicast go to every port
// but the ingress; a group source is not learned (G's twin has A's table
// entry and would evict A).
func swtFlood() swtCase {
	b := swtNew("flood", "switch4_64")
	twin := swtA
	twin[0] ^= 1 // group bit ...
	twin[2] ^= 1 // ... and a bit that cancels it in the hash
	if ethswitch.MACIndex(twin, 64) != ethswitch.MACIndex(swtA, 64) {
		panic("twin has another index")
	}
	b.flood(b.add(0, b.plain(swtBcast, swtA, 64), 20), 23)
	b.flood(b.add(1, b.plain(swtMcast, swtB, 64), 40), 43)
	b.flood(b.add(2, b.plain(swtUnknown, swtC, 64), 60), 63)
	b.flood(b.add(3, b.plain(swtBcast, twin, 64), 80), 83)
	b.out(0, b.add(2, b.plain(swtA, swtC, 64), 100), 103) // A is still on 0
	return b.done()
}

// Filtering: a unicast to a live entry of the ingress port is dropped
// (drop_filtered), after its source is learned (step 4 before step 5).
func swtFilter() swtCase {
	b := swtNew("filter", "switch4_64")
	b.flood(b.add(0, b.plain(swtBcast, swtA, 64), 20), 23)
	b.add(0, b.plain(swtA, swtC, 64), 40) // A lives on port 0: filtered; C learned on 0
	b.out(0, b.add(1, b.plain(swtC, swtB, 64), 60), 63)
	b.c.count["port0.drop_filtered"] = 1
	return b.done()
}

// Aging: AGE_CYCLES = age, A learned at D=21. Live at 20+age (age-1 old):
// unicast; dead at 21+age (exactly AGE_CYCLES old): a miss floods. With
// age 100, and 70,000, which needs more than 16 of the register's bits.
func swtAging(name string, age uint64) swtCase {
	b := swtNew(name, "switch4_64")
	b.setup(ethswitch.AddrAgeCycles, uint32(age))
	b.flood(b.add(0, b.plain(swtBcast, swtA, 64), 20), 23)
	i1 := b.add(1, b.plain(swtA, swtB, 64), 19+age) // D=20+age: port 0 only, picked a cycle later
	b.out(0, i1, 22+age)
	i2 := b.add(2, b.plain(swtA, swtC, 64), 20+age) // D=21+age: floods
	b.out(0, i2, 30+age)                            // after i1's last beat
	b.out(1, i2, 23+age)
	b.out(3, i2, 23+age)
	return b.done()
}

// blocker sends a 512-byte frame from A to B: out of port 1 from 83 to 146
// (64 bits), so that frames decided by 145 queue behind it and the picks
// from 146 on show their queues.
func (b *swtBuilder) blocker(f []byte) int {
	k := b.add(0, f, 80)
	b.out(1, k, 83)
	return k
}

// VLAN PCP: a tagged frame's priority is its PCP (a tagged IPv4 frame's
// too, not its DSCP; PCP 0 is not DEFAULT_PRIO). Strict priority shows it.
func swtPCP() swtCase {
	b := swtNew("priority_pcp", "switch4_64")
	b.setup(ethswitch.AddrDefaultPrio, 3)
	b.setup(ethswitch.AddrDSCPMap+4*5, 7<<24) // DSCP 46 -> 7
	b.learnB()
	b.blocker(b.plain(swtB, swtA, 512))
	p1 := b.add(2, b.tagged(swtB, swtC, 1, 64), 90)
	p6 := b.add(3, b.tagged(swtB, swtD, 6, 64), 92)
	p4 := b.add(2, b.ipTagged(swtB, swtC, 4, 46, 0, 64), 100)
	p0 := b.add(3, b.tagged(swtB, swtD, 0, 64), 102)
	p7 := b.add(2, b.tagged(swtB, swtC, 7, 80), 112)
	b.train(1, 147, p7, p6, p4, p1, p0)
	return b.done()
}

// DSCP: an untagged IPv4 frame's priority is DSCP_MAP[DSCP] (DSCP 8k+j in
// bits 4j+2..4j of DSCP_MAP[k]).
func swtDSCP() swtCase {
	b := swtNew("priority_dscp", "switch4_64")
	b.setup(ethswitch.AddrDefaultPrio, 3)
	b.setup(ethswitch.AddrDSCPMap+4*0, 1)       // DSCP 0 -> 1
	b.setup(ethswitch.AddrDSCPMap+4*3, 5<<8)    // DSCP 26 -> 5
	b.setup(ethswitch.AddrDSCPMap+4*5, 2|7<<24) // DSCP 40 -> 2, 46 -> 7
	b.learnB()                                  // DSCP 8 -> DSCP_MAP[1] bits 2..0 = 0
	b.blocker(b.plain(swtB, swtA, 512))
	d0 := b.add(2, b.ip(swtB, swtC, 0, 0, 64), 90)
	d40 := b.add(3, b.ip(swtB, swtD, 40, 0, 64), 92)
	d26 := b.add(2, b.ip(swtB, swtC, 26, 0, 64), 100)
	d46 := b.add(3, b.ip(swtB, swtD, 46, 0, 64), 102)
	d8 := b.add(2, b.ip(swtB, swtC, 8, 0, 80), 112)
	b.train(1, 147, d46, d26, d40, d0, d8)
	return b.done()
}

// Default priority: untagged frames that are not IPv4 as the switch takes
// it (other EtherType, IHL 4, version 6 under EtherType 0x0800) get
// DEFAULT_PRIO, however their DSCP would map.
func swtDefaultPrio() swtCase {
	b := swtNew("priority_default", "switch4_64")
	b.setup(ethswitch.AddrDefaultPrio, 4)
	b.setup(ethswitch.AddrDSCPMap+4*0, 6)     // DSCP 0 -> 6
	b.setup(ethswitch.AddrDSCPMap+4*5, 7<<24) // DSCP 46 -> 7
	b.learnB()
	b.blocker(b.plain(swtB, swtA, 512))
	a := b.add(2, b.plain(swtB, swtC, 64), 90)
	ihl4 := b.ip(swtB, swtD, 46, 0, 64)
	ihl4[14] = 0x44
	bb := b.add(3, ihl4, 92)
	v6 := b.ip(swtB, swtC, 46, 0, 64)
	v6[14] = 0x65
	c := b.add(2, v6, 100)
	d := b.add(3, b.ip(swtB, swtD, 0, 0, 64), 102) // a real IPv4: DSCP 0 -> 6
	e := b.add(2, b.tagged(swtB, swtC, 2, 80), 112)
	b.train(1, 147, d, a, bb, c, e)
	return b.done()
}

// Strict priority with a backlog in queues 1, 3 and 6: highest first, FIFO
// within a queue. A copy is visible from D+1: the queue-6 frame decided at
// 145 is picked at 146, the queue-7 one decided at 146 only at 154.
func swtStrict() swtCase {
	b := swtNew("strict_priority", "switch4_64")
	b.learnB()
	b.blocker(b.plain(swtB, swtA, 512))
	q1a := b.add(2, b.tagged(swtB, swtC, 1, 64), 90)
	q3a := b.add(3, b.tagged(swtB, swtD, 3, 64), 92)
	q1b := b.add(2, b.tagged(swtB, swtC, 1, 64), 100)
	q3b := b.add(3, b.tagged(swtB, swtD, 3, 80), 102)
	q6 := b.add(2, b.tagged(swtB, swtC, 6, 64), 144)
	q7 := b.add(3, b.tagged(swtB, swtD, 7, 64), 145)
	b.train(1, 147, q6, q7, q3a, q3b, q1a, q1b)
	return b.done()
}

// DRR, QUANTUM 100/100/150/300 for queues 0/1/2/5 (7 keeps MTU_MAX =
// 4224). The blocker is picked from queue 7 at 82 (rr 0 -> 7, deficit
// 4224-512). Picks on port 1, by the README's steps:
//
//	146 q7 empty -> 0; q0 +100, 64: pick (36)      -> a1 147-154
//	154 q0 36 < 64; q1 empty; q2 +150, 120: pick (30) -> c1 155-169
//	169 q2 30 < 120; q3, q4 empty; q5 +300, 200 (100) -> d1 170-194
//	194 q5 100 >= 64 (36)                          -> d2 195-202
//	202 q5 empty -> 0; q6, q7; q0 36+100, 64 (72)  -> a2 203-210
//	210 q0 72 >= 64 (8)                            -> a3 211-218
//	218 q0 empty -> 0; q1; q2 30+150, 120 (60)     -> c2 219-233
//
// Then three 100-byte queue-1 frames decided together at 311 (rr 2): 312
// picks the first in the 8th step (deficit 0 after it); 325 runs out of
// steps (q1 0 < 100, then q2..q7, q0) and picks nothing; 326 adds the
// quantum and picks: a one-cycle gap between the frames.
func swtDRR() swtCase {
	b := swtNew("drr", "switch4_64")
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlSched)
	b.setup(ethswitch.AddrQuantum+4*0, 100)
	b.setup(ethswitch.AddrQuantum+4*1, 100)
	b.setup(ethswitch.AddrQuantum+4*2, 150)
	b.setup(ethswitch.AddrQuantum+4*5, 300)
	b.learnB()
	b.blocker(b.tagged(swtB, swtA, 7, 512))
	a1 := b.add(0, b.plain(swtB, swtA, 64), 90)
	a2 := b.add(0, b.plain(swtB, swtA, 64), 98)
	a3 := b.add(0, b.plain(swtB, swtA, 64), 106)
	c1 := b.add(2, b.tagged(swtB, swtC, 2, 120), 100)
	c2 := b.add(2, b.tagged(swtB, swtC, 2, 120), 115)
	d1 := b.add(3, b.tagged(swtB, swtD, 5, 200), 110)
	d2 := b.add(3, b.tagged(swtB, swtD, 5, 64), 118)
	b.train(1, 147, a1, c1, d1, d2, a2, a3, c2)
	e0 := b.add(0, b.tagged(swtB, swtA, 1, 100), 310)
	e2 := b.add(2, b.tagged(swtB, swtC, 1, 100), 310)
	e3 := b.add(3, b.tagged(swtB, swtD, 1, 100), 310)
	b.out(1, e0, 313) // 13 beats: 313-325
	b.out(1, e2, 327)
	b.out(1, e3, 341)
	return b.done()
}

// ECN at the threshold, ECN_K[0] = 1200 with CTRL.ecn: behind a 1000-byte
// blocker on queue 0 of port 1, 100-byte IPv4 frames see qocc(1,0) = 1000,
// 1100, 1200, 1300, 1400, 1500 before their add; marked when it exceeds
// 1200 and the frame is ECT: f4 (ECT(1)) and f6 (tagged ECT(0)), not f2
// (already CE), f3 (exactly 1200) or f5 (Not-ECT). f7, on queue 2 with
// ECN_K[2] = 0, sees qocc(1,2) = 0: not above, not marked; it leaves first
// (strict priority).
func swtECN(model string) swtCase {
	b := swtNew("ecn_threshold", model)
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlECN)
	b.setup(ethswitch.AddrECNK+4*0, 1200)
	b.setup(ethswitch.AddrECNK+4*2, 0)
	b.learnB()
	blk := b.add(0, b.plain(swtB, swtA, 1000), 140)
	end := b.out(1, blk, 143)
	n := b.beats(100)
	f1 := b.add(2, b.ip(swtB, swtC, 0, swtECT0, 100), 145)
	f2 := b.add(3, b.ip(swtB, swtD, 0, swtCE, 100), 146)
	f3 := b.add(2, b.ip(swtB, swtC, 0, swtECT0, 100), 145+n)
	f4 := b.add(3, b.ip(swtB, swtD, 0, swtECT1, 100), 146+n)
	f5 := b.add(2, b.ip(swtB, swtC, 0, swtNotECT, 100), 145+2*n)
	f6 := b.add(3, b.ipTagged(swtB, swtD, 0, 0, swtECT0, 100), 146+2*n)
	f7 := b.add(3, b.ipTagged(swtB, swtD, 2, 0, swtECT0, 100), 146+3*n)
	if 147+3*n >= end {
		panic("ecn case: the backlog is not decided before the blocker leaves")
	}
	b.train(1, end+1, f7, f1, f2, f3, swtMarked(f4), f5, swtMarked(f6))
	b.c.count["port1.ecn_marked[0]"] = 2
	return b.done()
}

// RED (CTRL.ecn and CTRL.red), ECN_K[0] = 1500, ECN_KMAX[0] = 2300,
// ECN_PMAX[0] = 200: the swtECN backlog, longer. Behind a 1400-byte
// blocker, 100-byte frames to port 1 see qocc(1,0) = 1400, 1500, ...,
// 2500 before their add. Up to 1500 nothing is marked; 1600..2300 are RED
// candidates, each stepping the LFSR once (seeded 0xACE1) and marked when
// lfsr * 800 < (q - 1500) * 200 * 256; above 2300 every ECT frame is
// marked. The Not-ECT frame at 1700 is no candidate: it steps nothing.
// The case computes the marks and the LFSR left at the end on its own.
func swtRED(model string) swtCase {
	const blocker, k, kmax, pmax, seed = 1400, 1500, 2300, 200, 0xACE1
	b := swtNew("ecn_red", model)
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlECN|ethswitch.CtrlRED)
	b.setup(ethswitch.AddrECNK, k)
	b.setup(ethswitch.AddrECNKMax, kmax)
	b.setup(ethswitch.AddrECNPMax, pmax)
	b.setup(ethswitch.AddrREDLFSR, seed)
	b.learnB()
	blk := b.add(0, b.plain(swtB, swtA, blocker), 190)
	end := b.out(1, blk, 193)
	n := b.beats(100)
	lfsr, marks, candMarked, candClear := uint16(seed), uint64(0), 0, 0
	var train []int
	for j := range 12 {
		port, codepoint := 2+j%2, uint8(swtECT0)
		if j == 3 {
			codepoint = swtNotECT
		}
		q := uint64(blocker + 100*j)
		f := b.add(port, b.ip(swtB, swtHost(0x20+port), 0, codepoint, 100), 195+uint64(j%2)+uint64(j/2)*n)
		mark := false
		if codepoint != swtNotECT && q > k {
			mark = q > kmax
			if !mark {
				// one Galois step, taps 0xB400 (README "ECN")
				lfsr = lfsr>>1 ^ 0xB400*(lfsr&1)
				mark = uint64(lfsr)*(kmax-k) < (q-k)*pmax*256
				if mark {
					candMarked++
				} else {
					candClear++
				}
			}
		}
		if mark {
			f = swtMarked(f)
			marks++
		}
		train = append(train, f)
	}
	if 196+6*n >= end {
		panic("red case: the backlog is not decided before the blocker leaves")
	}
	b.train(1, end+1, train...)
	b.c.count["port1.ecn_marked[0]"] = marks
	b.c.check = func(t *testing.T, side string, r *swtResult, v *swtView) {
		if got := v.csr[ethswitch.AddrREDLFSR]; got != uint32(lfsr) {
			t.Errorf("README vs %s: RED_LFSR = %#04x at the end, want %#04x", side, got, lfsr)
		}
		if candMarked == 0 || candClear == 0 {
			t.Errorf("the case has %d marked and %d unmarked RED candidates: not the mix it is about", candMarked, candClear)
		}
	}
	return b.done()
}

// Slot pool exhausted (README step 2.6): queue 0 of port 1 is paused for
// good by a PFC frame (time 0xFFFF), so the SLOTS+6 frames port 0 sends to
// B stay queued: the first SLOTS (96) take the pool slots, the last 6 find
// none and count drop_no_slot on port 0 (their landing slot is kept). A
// PFC frame with time 0, last beat at 2000, resumes the queue at the picks
// of 2002 on: the queued frames leave back to back from 2003 (first beat
// D+2).
func swtNoSlot(model string) swtCase {
	slots := ethswitch.DefaultConfig().Slots // SLOTS of sim/build.mk
	b := swtNew("no_slot", model)
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlPFCRx)
	b.learnB()
	b.add(1, ethswitch.PFCFrame(swtB, 0, 0xFFFF), 20)
	n := b.beats(64)
	var queued []int
	for k := range slots + 6 {
		f := b.add(0, b.plain(swtB, swtA, 64), 30+uint64(k)*n)
		if k < slots {
			queued = append(queued, f)
		}
	}
	b.add(1, ethswitch.PFCFrame(swtB, 0, 0), 2000)
	b.train(1, 2003, queued...)
	b.c.count["port0.drop_no_slot"] = 6
	b.c.count["port1.rx_pfc"] = 2
	return b.done()
}

// PFC received (CTRL.pfc_rx): a PFC frame into port 1 decided at D pauses
// queue p of egress 1 at the picks of D+1..D+N, N = time*512/DATA_WIDTH.
// Phase 1: time 4 at D=21; the priority-3 copy for port 1 is picked at
// D+N+1 (first beat 23+N); priority 2 and the other ports are not held.
// Phase 2: X is leaving port 1 when a pause of 100 quanta comes: it
// finishes; Y waits until a pause of time 0, decided at Lz+1, resumes it
// at once (picked Lz+2).
func swtPFCRx(model string) swtCase {
	b := swtNew("pfc_rx_pause", model)
	_, width := swtShape(model)
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlPFCRx)
	n1 := ethswitch.PauseCycles(4, width)
	b.add(1, ethswitch.PFCFrame(swtB, 3, 4), 20)
	a3 := b.add(0, b.tagged(swtBcast, swtA, 3, 64), 20)
	a2 := b.add(2, b.tagged(swtBcast, swtC, 2, 64), 20)
	if b.beats(64) > n1 {
		panic("pfc_rx case: the pause is shorter than a frame")
	}
	b.out(0, a2, 23)
	b.out(1, a2, 23)
	b.out(1, a3, 23+n1)
	b.out(2, a3, 23)
	b.train(3, 23, a3, a2)

	x := b.add(0, b.tagged(swtBcast, swtA, 3, 512), 200)
	b.add(1, ethswitch.PFCFrame(swtB, 3, 100), 202) // D=203, X leaving since 203
	y := b.add(0, b.tagged(swtBcast, swtA, 3, 64), 200+b.beats(64))
	var xl uint64
	for p := 1; p < 4; p++ {
		xl = b.out(p, x, 203)
	}
	lz := xl + 14
	b.add(1, ethswitch.PFCFrame(swtB, 3, 0), lz)
	b.out(1, y, lz+3)
	b.out(2, y, xl+1)
	b.out(3, y, xl+1)
	b.c.count["port1.rx_pfc"] = 3
	return b.done()
}

// Jumbo frames (README "Parameters": MTU_MAX 4224 takes path MTU 4096).
// At the reset MTU (= MTU_MAX) a frame of MTU_MAX bytes, a tagged IPv4
// frame of 4178 bytes (the longest RoCEv2 packet of path MTU 4096, IBTA
// annex A17, with a VLAN tag) and one of 2049 (above the old 2048 limit)
// leave whole, back to back; one byte above MTU_MAX is oversize. With MTU
// = 1518 written mid-run a 2049-byte frame is oversize and 1518 passes;
// MTU = 9000 acts as MTU_MAX.
func swtJumbo(model string) swtCase {
	const max = ethswitch.DefaultMTUMax
	b := swtNew("jumbo", model)
	b.learnB()
	n := b.beats(max)
	t := 20 + n
	i0 := b.add(0, b.plain(swtB, swtA, max), t)
	i1 := b.add(2, b.ipTagged(swtB, swtC, 0, 0, swtECT0, 4178), t+10)
	b.add(3, b.plain(swtB, swtD, max+1), t+20) // oversize
	i2 := b.add(2, b.plain(swtB, swtC, 2049), t+20+b.beats(2049))
	end := b.train(1, t+3, i0, i1, i2)
	w := end + 20
	b.write(w, ethswitch.AddrMTU, 1518)
	b.add(0, b.plain(swtB, swtA, 2049), w+1+b.beats(2049)) // oversize at 1518
	i3 := b.add(0, b.plain(swtB, swtA, 1518), w+10+2*b.beats(2049))
	end = b.out(1, i3, w+13+2*b.beats(2049))
	w = end + 20
	b.write(w, ethswitch.AddrMTU, 9000)
	i4 := b.add(2, b.plain(swtB, swtC, max), w+1+n)
	b.add(3, b.plain(swtB, swtD, max+1), w+1+n) // oversize: 9000 acts as MTU_MAX
	b.out(1, i4, w+4+n)
	b.c.count["port0.drop_oversize"] = 1
	b.c.count["port3.drop_oversize"] = 2
	return b.done()
}

// Runt, oversize and bad frames (MTU = 100): the first matching reason
// counts, on the ingress port; none is forwarded or learned.
func swtValidity() swtCase {
	const mx = ethswitch.DefaultMTUMax
	b := swtNew("runt_oversize_bad", "switch4_64")
	b.setup(ethswitch.AddrMTU, 100)
	b.add(0, b.plain(swtBcast, swtA, 59), 20)               // runt
	b.flood(b.add(0, b.plain(swtBcast, swtA, 60), 30), 33)  // shortest accepted
	b.add(0, b.plain(swtBcast, swtA, 101), 50)              // oversize
	b.flood(b.add(0, b.plain(swtBcast, swtA, 100), 70), 73) // exactly MTU
	b.addBad(0, b.plain(swtBcast, swtA, 64), 90)            // bad
	b.addBad(1, b.plain(swtBcast, swtB, 59), 90)            // runt before bad
	b.addBad(2, b.plain(swtBcast, swtC, 101), 90)           // oversize before bad
	b.add(3, []byte{0x42}, 100)                             // a 1-byte runt
	b.addBad(3, b.plain(swtBcast, swtD, 17), 110)           // runt
	b.add(2, b.plain(swtBcast, swtC, 14), 120)              // a bare header: runt
	b.add(1, b.plain(swtBcast, swtB, mx), 1000)             // MTU_MAX, above MTU
	b.add(2, b.plain(swtBcast, swtC, mx+1), 1600)           // above MTU_MAX
	b.addBad(3, b.plain(swtBcast, swtE, 64), 130)           // bad: E not learned
	b.flood(b.add(0, b.plain(swtE, swtA, 64), 150), 153)    // so this floods
	for name, n := range map[string]uint64{
		"port0.drop_runt": 1, "port0.drop_oversize": 1, "port0.drop_bad": 1,
		"port1.drop_runt": 1, "port1.drop_oversize": 1,
		"port2.drop_oversize": 2, "port2.drop_runt": 1,
		"port3.drop_runt": 2, "port3.drop_bad": 1,
	} {
		b.c.count[name] = n
	}
	return b.done()
}

// MAC Control with another opcode (CTRL.pfc_rx set): PAUSE, the PFC
// opcode to another destination and opcode 0x0102 count rx_mac_control,
// are consumed, pause nothing and are not learned. Were queue 3 of egress
// 2 or 3 paused, i3 would leave before i4 there.
func swtMACControl() swtCase {
	b := swtNew("mac_control_other", "switch4_64")
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlPFCRx)
	pause := make([]byte, 60)
	copy(pause, ethswitch.PFCDstMAC[:])
	copy(pause[6:], swtE[:])
	binary.BigEndian.PutUint16(pause[12:], ethswitch.EtherTypeMACControl)
	binary.BigEndian.PutUint16(pause[14:], 0x0001)
	binary.BigEndian.PutUint16(pause[16:], 0xFFFF)
	b.add(0, pause, 20)
	otherDst := ethswitch.PFCFrame(swtF, 3, 100)
	otherDst[5] = 0x02 // 01:80:C2:00:00:02
	b.add(2, otherDst, 20)
	otherOp := ethswitch.PFCFrame(swtG, 3, 100)
	binary.BigEndian.PutUint16(otherOp[14:], 0x0102)
	b.add(3, otherOp, 20)
	i3 := b.add(1, b.plain(swtE, swtB, 64), 40)     // E not learned: floods
	i4 := b.add(0, b.tagged(swtF, swtA, 3, 64), 40) // F neither
	b.out(0, i3, 43)
	b.out(1, i4, 43)
	b.train(2, 43, i4, i3)
	b.train(3, 43, i4, i3)
	b.flood(b.add(2, b.plain(swtG, swtC, 64), 60), 63) // G neither
	b.c.count["port0.rx_mac_control"] = 1
	b.c.count["port2.rx_mac_control"] = 1
	b.c.count["port3.rx_mac_control"] = 1
	return b.done()
}

// CSR writes in mid-run, each in force from the cycle after it is on the
// bus:
//   - DEFAULT_PRIO = 5 at 60: i0 decided at 60 keeps priority 0, i1
//     decided at 61 gets 5 and leaves first;
//   - tx_frames of port 1 written 0 at 200 (nothing counts then);
//   - ECN_K[0] = 0 at 270: e2 decided at 270 sees the old 100000, e3
//     decided at 271 (qocc 64 > 0) is marked;
//   - CTRL = ecn|sched at 459: the pick at 452 is strict (q6a), the one at
//     460 DRR (rr 0: q0 empty, q1 +4224 -> q1a, then q1b, then q6b).
func swtCSRMidRun() swtCase {
	b := swtNew("csr_mid_run", "switch4_64")
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlECN)
	b.setup(ethswitch.AddrECNK+4*0, 100000)
	b.write(60, ethswitch.AddrDefaultPrio, 5)
	b.write(200, ethswitch.CounterAddr(1, ethswitch.TxFrames), 0)
	b.write(270, ethswitch.AddrECNK+4*0, 0)
	b.write(459, ethswitch.AddrCtrl, ethswitch.CtrlECN|ethswitch.CtrlSched)
	b.learnB()
	b1 := b.add(0, b.plain(swtB, swtA, 400), 55)
	b.out(1, b1, 58) // 50 beats: 58-107
	i0 := b.add(2, b.plain(swtB, swtC, 64), 59)
	i1 := b.add(3, b.plain(swtB, swtD, 64), 60)
	b.train(1, 108, i1, i0)
	b2 := b.add(0, b.plain(swtB, swtA, 400), 250)
	b.out(1, b2, 253) // 253-302
	e2 := b.add(2, b.ip(swtB, swtC, 0, swtECT0, 64), 269)
	e3 := b.add(3, b.ip(swtB, swtD, 0, swtECT0, 64), 270)
	b.train(1, 303, e2, swtMarked(e3))
	b3 := b.add(0, b.plain(swtB, swtA, 400), 400)
	b.out(1, b3, 403) // 403-452
	q1a := b.add(2, b.tagged(swtB, swtC, 1, 64), 410)
	q6a := b.add(3, b.tagged(swtB, swtD, 6, 64), 412)
	q1b := b.add(2, b.tagged(swtB, swtC, 1, 64), 418)
	q6b := b.add(3, b.tagged(swtB, swtD, 6, 64), 420)
	b.train(1, 453, q6a, q1a, q1b, q6b)
	b.c.count["port1.tx_frames"] = 8 // those whose last beat is after 200
	b.c.count["port1.ecn_marked[0]"] = 1
	// Counters nothing here counts take any value written, one of each
	// register kind.
	for i, c := range []struct {
		port    int
		counter ethswitch.Counter
	}{{2, ethswitch.DropRunt}, {2, ethswitch.DropTail(5)}, {3, ethswitch.ECNMarked(4)}, {3, ethswitch.TxPFC}} {
		b.write(500+uint64(i), ethswitch.CounterAddr(c.port, c.counter), uint32(77+i))
		b.c.count[ethswitch.CounterName(c.port, c.counter)] = uint64(77 + i)
	}
	return b.done()
}

// Tail drop with the build's BUF_BYTES = 32768: ports 1, 2 and 3 send 20
// frames each, back to back, to A on port 0, which drains one port's worth:
// the egress overflows. The README check replays admission (step 2.7) on
// the side's own departures: a copy decided at D is admitted iff occ(0) +
// len <= BUF_BYTES, where occ(0) counts the admitted copies decided before
// it (earlier cycle, or lower port in the same cycle) whose last beat z is
// at or after D (they count until z, not from z+1).
func swtTailDrop(model string) swtCase {
	return swtTailDropOf("tail_drop", model, 20, []int{1500, 1024, 1518, 700, 1400, 900})
}

// Tail drop of jumbo frames: 6 each of up to MTU_MAX bytes, so BUF_BYTES
// holds 7 of them (README "Parameters"), and the byte count, not the
// frame count, decides.
func swtTailDropJumbo(model string) swtCase {
	return swtTailDropOf("tail_drop_jumbo", model, 6, []int{ethswitch.DefaultMTUMax, 4178, 2100, 3000})
}

// Tail drop on the 8-port build, whose BUF_BYTES is 131072: 16 jumbo
// frames from each of 3 ports, more than the egress holds, fewer than the
// pool's slots.
func swtTailDropSwitch8() swtCase {
	return swtTailDropOf("tail_drop_jumbo", "switch8_64", 16, []int{ethswitch.DefaultMTUMax, 4178, 3900, 4000})
}

// swtBufBytes is the BUF_BYTES sim/build.mk builds model with.
func swtBufBytes(model string) int {
	if strings.HasPrefix(model, "switch8_") {
		return switchdev.Switch8BufBytes
	}
	return ethswitch.DefaultConfig().BufBytes
}

// swtTailDropOf is the tail drop case with each frames of these sizes per
// sending port.
func swtTailDropOf(name, model string, each int, sizes []int) swtCase {
	b := swtNew(name, model)
	b.add(0, b.plain(swtBcast, swtA, 64), 12)
	var ins []int
	prio := map[int]int{}
	for i, src := range []ethswitch.MAC{swtB, swtC, swtD} {
		p := 1 + i
		at := uint64(30)
		for k := range each {
			f := b.tagged(swtA, src, 2*i+1, sizes[(k+i)%len(sizes)])
			in := b.addAt(p, f, at)
			at += b.beats(len(f))
			ins = append(ins, in)
			prio[in] = 2*i + 1
		}
	}
	c := b.done()
	c.want = nil
	c.check = func(t *testing.T, side string, r *swtResult, v *swtView) {
		t.Helper()
		bufBytes := uint64(swtBufBytes(model)) // BUF_BYTES of sim/build.mk
		sort.SliceStable(ins, func(i, j int) bool {
			a, b := r.c.in[ins[i]], r.c.in[ins[j]]
			return r.last[ins[i]] < r.last[ins[j]] || r.last[ins[i]] == r.last[ins[j]] && a.port < b.port
		})
		type copyOut struct {
			n int
			z uint64
		}
		var admitted []copyOut
		var drops [8]uint64
		for _, k := range ins {
			d := r.last[k] + 1
			var occ uint64
			for _, a := range admitted {
				if a.z >= d {
					occ += uint64(a.n)
				}
			}
			n := len(r.c.in[k].frame)
			f, got := v.find(r, 0, k)
			want := occ+uint64(n) <= bufBytes
			if want != got {
				t.Errorf("README vs %s: in#%d (port %d, %d B) decided at %d sees occ(0) = %d: README says %s, %s %s",
					side, k, r.c.in[k].port, n, d, occ, map[bool]string{true: "admitted", false: "tail drop"}[want],
					side, map[bool]string{true: "sent it", false: "did not send it"}[got])
				return
			}
			if got {
				admitted = append(admitted, copyOut{n, f.last})
			} else {
				drops[prio[k]]++
			}
		}
		for p := range 8 {
			if got := v.counter(0, ethswitch.DropTail(p)); got != drops[p] {
				t.Errorf("README vs %s: port0.drop_tail[%d] = %d, want %d", side, p, got, drops[p])
			}
		}
		if len(v.out[0]) != len(admitted) {
			t.Errorf("README vs %s: %d frames out of port 0, %d admitted", side, len(v.out[0]), len(admitted))
		}
		for p := range r.ports {
			if n := v.counter(p, ethswitch.DropNoSlot); n != 0 {
				t.Errorf("README vs %s: port%d.drop_no_slot = %d, want 0 (%d frames, %d slots)", side, p, n, len(ins), ethswitch.DefaultConfig().Slots)
			}
		}
		if len(admitted) == len(ins) || len(admitted) == 0 {
			t.Errorf("%s: %d of %d admitted: the case does not exercise tail drop", side, len(admitted), len(ins))
		}
	}
	return c
}

// PFC generation (CTRL.pfc_tx, PFC_XOFF 2000, PFC_XON 1000, PFC_REFRESH
// 200, PFC_QUANTA 0x0123): ports 0, 2 and 3 send 12 400-byte frames each,
// of priorities 0, 3 and 6, back to back to B on port 1 (14400 bytes, no
// tail drop). swtPFCReplay checks every PFC frame.
func swtPFCTx(model string) swtCase {
	b := swtNew("pfc_tx", model)
	pr := swtPFCParams{xoff: 2000, xon: 1000, refresh: 200, quanta: 0x0123}
	b.pfcSetup(pr)
	lb := b.learnB()
	pr.idleFrom = b.c.want[len(b.c.want)-1].last
	pr.prio = map[int]int{lb: 0}
	for _, s := range []struct {
		port, pcp int
		src       ethswitch.MAC
	}{{0, 0, swtA}, {2, 3, swtC}, {3, 6, swtD}} {
		at := uint64(30)
		for range 12 {
			var f []byte
			if s.pcp == 0 {
				f = b.plain(swtB, s.src, 400)
			} else {
				f = b.tagged(swtB, s.src, s.pcp, 400)
			}
			pr.prio[b.addAt(s.port, f, at)] = s.pcp
			at += b.beats(400)
		}
	}
	c := b.done()
	c.want = nil
	c.check = swtPFCReplay(pr)
	return c
}

// anyWaiting reports whether a PFC frame still waits on some port.
func anyWaiting(order [][]int) bool {
	for _, o := range order {
		if len(o) > 0 {
			return true
		}
	}
	return false
}

// PFC frames of several priorities refreshing at once (PFC_XOFF 100,
// PFC_XON 50, PFC_REFRESH 32, all README-legal): port 0 sends one
// 128-byte frame of each priority to B, behind four 2048-byte priority-7
// frames from ports 2 and 3, so all eight (0,p) stay ON for about 1000
// cycles and refresh every 32 cycles: 8 PFC frames per 32 cycles for port
// 0, which sends one per 8 cycles at 64 bits. So frames of a priority
// that still has one waiting replace it in place (README "PFC",
// swtPFCReplay): nothing is lost and the latest state goes out. (An RTL
// that queued every frame in a 32-deep FIFO lost frames here.)
func swtPFCTxBurst(model string) swtCase {
	b := swtNew("pfc_tx_many_priorities", model)
	pr := swtPFCParams{xoff: 100, xon: 50, refresh: 32, quanta: 0x0040}
	b.pfcSetup(pr)
	lb := b.learnB()
	pr.idleFrom = b.c.want[len(b.c.want)-1].last
	pr.prio = map[int]int{lb: 0}
	for k := range 2 {
		for _, p := range []int{2, 3} {
			f := b.tagged(swtB, map[int]ethswitch.MAC{2: swtC, 3: swtD}[p], 7, 2048)
			pr.prio[b.addAt(p, f, 20+uint64(k)*b.beats(2048))] = 7
		}
	}
	at := uint64(300)
	for p := range 8 {
		f := b.tagged(swtB, swtA, p, 128)
		pr.prio[b.addAt(0, f, at)] = p
		at += b.beats(128)
	}
	c := b.done()
	c.want = nil
	c.check = swtPFCReplay(pr)
	return c
}

// swtPFCParams are the PFC registers of a PFC generation case, the
// priority of every input, and the cycle from which egresses other than
// port 1 carry nothing but PFC frames (the last beat of the learning
// flood).
type swtPFCParams struct {
	xoff, xon, refresh uint64
	quanta             uint16
	prio               map[int]int
	idleFrom           uint64
}

// pfcSetup writes CTRL.pfc_tx, the thresholds, the refresh period, the
// quanta and SWITCH_MAC (swtSwitchMAC).
func (b *swtBuilder) pfcSetup(pr swtPFCParams) {
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlPFCTx)
	b.setup(ethswitch.AddrPFCXoff, uint32(pr.xoff))
	b.setup(ethswitch.AddrPFCXon, uint32(pr.xon))
	b.setup(ethswitch.AddrPFCRefresh, uint32(pr.refresh))
	b.setup(ethswitch.AddrPFCQuanta, uint32(pr.quanta))
	b.setup(ethswitch.AddrSwitchMACHi, uint32(swtSwitchMAC[0])<<8|uint32(swtSwitchMAC[1]))
	b.setup(ethswitch.AddrSwitchMACLo, binary.BigEndian.Uint32(swtSwitchMAC[2:]))
}

// swtPFCReplay checks a PFC generation case on one side: it replays the
// README's generation on the side's own departures and requires every PFC
// frame it predicts, and no other, at its cycles. ic(i,p) grows at D and
// shrinks at the last beat z of the frame's last copy (every input of
// these cases is queued); at the end of every cycle t, for i then p: OFF
// and ic > XOFF -> XOFF, refresh at t+PFC_REFRESH; ON and ic <= XON ->
// XON; ON at the refresh cycle -> XOFF again. A frame sent at t waits on
// egress i from t+1, oldest first; those egresses carry nothing else, so
// it is picked at t+1 or when the previous one's last beat is taken. The
// case must refresh an XOFF on some port.
func swtPFCReplay(pr swtPFCParams) func(t *testing.T, side string, r *swtResult, v *swtView) {
	return func(t *testing.T, side string, r *swtResult, v *swtView) {
		t.Helper()
		type event struct {
			i, p int
			n    int64
		}
		events := map[uint64][]event{}
		var end uint64
		for k, x := range r.c.in {
			var z uint64
			found := false
			for p := range r.ports {
				if f, ok := v.find(r, p, k); ok {
					z, found = max(z, f.last), true
				}
			}
			if !found {
				t.Errorf("README vs %s: in#%d never left (no drop in this case)", side, k)
				return
			}
			d := r.last[k] + 1
			events[d] = append(events[d], event{x.port, pr.prio[k], int64(len(x.frame))})
			events[z] = append(events[z], event{x.port, pr.prio[k], -int64(len(x.frame))})
			end = max(end, z)
		}
		ic := make([][8]int64, r.ports)
		on := make([][8]bool, r.ports)
		due := make([][8]uint64, r.ports)
		busy := make([]uint64, r.ports)
		for p := range busy {
			busy[p] = pr.idleFrom
		}
		// PFC frames waiting per port: at most one per priority, in the
		// order the priorities started waiting; a newer frame replaces a
		// waiting one in place (README "PFC"). Picks at cycle c see what
		// was sent up to c-1, once the transmitter is free.
		order := make([][]int, r.ports)
		waiting := make([][8][]byte, r.ports)
		var want []swtWant
		anyOn := false
		for t := uint64(0); t <= end || anyOn || anyWaiting(order); t++ {
			for i := range r.ports {
				if len(order[i]) > 0 && t >= busy[i] {
					p := order[i][0]
					order[i] = order[i][1:]
					w := swtWant{port: i, in: -1, frame: waiting[i][p], first: t + 1}
					waiting[i][p] = nil
					w.last = w.first + r.beats(ethswitch.PFCFrameLen) - 1
					busy[i] = w.last
					want = append(want, w)
				}
			}
			for _, e := range events[t] {
				ic[e.i][e.p] += e.n
			}
			anyOn = false
			for i := range r.ports {
				for p := range 8 {
					var q uint16
					switch {
					case !on[i][p] && ic[i][p] > int64(pr.xoff):
						on[i][p], due[i][p], q = true, t+pr.refresh, pr.quanta
					case on[i][p] && ic[i][p] <= int64(pr.xon):
						on[i][p] = false
					case on[i][p] && t == due[i][p]:
						due[i][p], q = t+pr.refresh, pr.quanta
					default:
						anyOn = anyOn || on[i][p]
						continue
					}
					anyOn = anyOn || on[i][p]
					if waiting[i][p] == nil {
						order[i] = append(order[i], p)
					}
					waiting[i][p] = ethswitch.PFCFrame(swtSwitchMAC, p, q)
				}
			}
		}
		refreshes := 0
		for i := range r.ports {
			var got []swtFrame
			for _, f := range v.out[i] {
				if _, ok := r.index[string(f.data)]; !ok {
					got = append(got, f)
				}
			}
			var exp []swtWant
			for _, w := range want {
				if w.port == i {
					exp = append(exp, w)
				}
			}
			for k := range max(len(exp), len(got)) {
				switch {
				case k >= len(got):
					t.Errorf("README vs %s: port %d PFC frame #%d: README %s, %s: nothing (it sent %d PFC frames, the README %d)",
						side, i, k, r.wantString(&exp[k]), side, len(got), len(exp))
				case k >= len(exp):
					t.Errorf("README vs %s: port %d PFC frame #%d: README: nothing, %s %s", side, i, k, side, r.frameString(&got[k]))
				case !bytes.Equal(exp[k].frame, got[k].data) || exp[k].first != got[k].first || exp[k].last != got[k].last:
					t.Errorf("README vs %s: port %d PFC frame #%d: %s\n\tREADME %s\n\t%-6s %s",
						side, i, k, byteDiff(exp[k].frame, got[k].data), r.wantString(&exp[k]), side, r.frameString(&got[k]))
				default:
					continue
				}
				break
			}
			if n := v.counter(i, ethswitch.TxPFC); n != uint64(len(exp)) {
				t.Errorf("README vs %s: port%d.tx_pfc = %d, want %d", side, i, n, len(exp))
			}
			if len(exp) > 2 {
				refreshes++
			}
		}
		if refreshes == 0 {
			t.Errorf("%s: no port refreshed its XOFF: the case does not exercise PFC_REFRESH", side)
		}
	}
}

// Output backpressure: the sinks hold tready low on 30% of the cycles
// (sink_stall_pct, seed 11) and the golden model is given the same tready
// (cosim.SinkReady). The README check: forwarding does not change (every
// frame leaves exactly the ports its destination says), beats hold while
// tready is low (a frame takes at least its beats, some take more), and
// frames on a port do not overlap.
func swtBackpressure() swtCase {
	b := swtNew("backpressure", "switch4_64")
	b.c.seed, b.c.stall = 11, 30
	b.setup(ethswitch.AddrCtrl, ethswitch.CtrlECN)
	b.setup(ethswitch.AddrECNK+4*0, 300)
	dst := map[int][]int{}
	all := func(in int) {
		for p := range 4 {
			if p != b.c.in[in].port {
				dst[in] = append(dst[in], p)
			}
		}
	}
	all(b.add(1, b.plain(swtBcast, swtB, 64), 12))
	all(b.add(0, b.plain(swtBcast, swtA, 100), 20))
	all(b.add(2, b.plain(swtBcast, swtC, 64), 20))
	all(b.add(3, b.plain(swtBcast, swtD, 150), 25))
	for k := range 6 {
		dst[b.addAt(0, b.ip(swtB, swtA, 0, swtECT0, 200), 60+uint64(k)*25)] = []int{1}
		dst[b.addAt(2, b.tagged(swtB, swtC, 3, 120), 60+uint64(k)*15)] = []int{1}
		dst[b.addAt(3, b.plain(swtA, swtD, 300), 60+uint64(k)*38)] = []int{0}
	}
	all(b.addAt(1, b.plain(swtBcast, swtB, 500), 300))
	all(b.addAt(2, b.plain(swtMcast, swtC, 77), 320))
	all(b.addAt(3, b.tagged(swtUnknown, swtD, 5, 1000), 330))
	dst[b.addAt(0, b.plain(swtD, swtA, 64), 340)] = []int{3}
	c := b.done()
	c.want = nil
	c.check = func(t *testing.T, side string, r *swtResult, v *swtView) {
		t.Helper()
		stretched := 0
		for p := range r.ports {
			var prev uint64
			for k, f := range v.out[p] {
				n := r.beats(len(f.data))
				if f.last+1 < f.first+n || k > 0 && f.first <= prev {
					t.Errorf("README vs %s: port %d frame #%d %s: %d beats in %d..%d after a frame ending at %d",
						side, p, k, r.describe(f.data), n, f.first, f.last, prev)
				}
				if f.last+1 > f.first+n {
					stretched++
				}
				prev = f.last
			}
		}
		if stretched == 0 {
			t.Errorf("%s: no frame was held by tready", side)
		}
		for k := range r.c.in {
			for p := range r.ports {
				_, got := v.find(r, p, k)
				want := false
				for _, q := range dst[k] {
					want = want || q == p
				}
				if got != want {
					t.Errorf("README vs %s: in#%d out of port %d: %v, want %v", side, k, p, got, want)
				}
			}
		}
	}
	return c
}

// ---- The random case.

// swtRandom is a few thousand random frames into every port of model,
// with random backpressure on both sides (src_gap_pct 5, sink_stall_pct
// 15), every CSR set at the start and random writes during the run: sizes
// from runts to above MTU_MAX, VLAN tags, IPv4 with DSCP and ECN, bad
// frames, PFC and other MAC Control frames from the hosts, broadcast,
// multicast, unknown, filtered and learned destinations.
func swtRandom(model string, frames int, seed uint64) swtCase {
	_, ports := swtPorts(model)
	_, width := swtShape(model)
	bw := width / 8
	rng := rand.New(rand.NewPCG(seed, 0x5717C4))
	c := swtCase{name: "random", model: model, seed: seed, gap: 5, stall: 15, window: 1024}
	host := func(p, h int) ethswitch.MAC { return ethswitch.MAC{0x02, 0, 0, 1, byte(p), byte(h)} }
	var cyc uint64
	w := func(addr, data uint32) {
		c.csr = append(c.csr, swtWrite{cyc, addr, data})
		cyc++
	}
	u32 := func(lo, n int) uint32 { return uint32(lo + rng.IntN(n)) }
	xoff, xon := uint32(2500), uint32(1200)
	w(ethswitch.AddrMTU, 1518)
	w(ethswitch.AddrAgeCycles, 4000)
	w(ethswitch.AddrDefaultPrio, u32(0, 8))
	for k := range 8 {
		w(ethswitch.AddrDSCPMap+uint32(4*k), rng.Uint32()&0x77777777)
		w(ethswitch.AddrECNK+uint32(4*k), u32(500, 5000))
		w(ethswitch.AddrQuantum+uint32(4*k), u32(200, 2800))
		w(ethswitch.AddrECNKMax+uint32(4*k), u32(1000, 6000))
		w(ethswitch.AddrECNPMax+uint32(4*k), u32(0, 256))
	}
	w(ethswitch.AddrREDLFSR, rng.Uint32())
	w(ethswitch.AddrPFCXoff, xoff)
	w(ethswitch.AddrPFCXon, xon)
	w(ethswitch.AddrPFCQuanta, u32(20, 100))
	w(ethswitch.AddrPFCRefresh, 1500)
	w(ethswitch.AddrSwitchMACLo, 0xBBCCDDEE)
	w(ethswitch.AddrSwitchMACHi, 0x02AA)
	w(ethswitch.AddrCtrl, ethswitch.CtrlECN|ethswitch.CtrlRED|ethswitch.CtrlPFCTx|ethswitch.CtrlPFCRx|u32(0, 2))

	// Time goes in epochs of swtEpoch cycles. In each, one egress is hot:
	// about half the other ports send to it at line rate, mostly at one
	// priority (an incast: tail drops, ECN marks, PFC); the rest send at
	// about a third of line rate anywhere.
	type epoch struct {
		hot, pcp int
		busy     []bool
	}
	var epochs []epoch
	epochAt := func(t uint64) epoch {
		for uint64(len(epochs)) <= t/swtEpoch {
			e := epoch{hot: rng.IntN(ports), pcp: rng.IntN(8), busy: make([]bool, ports)}
			for p := range ports {
				e.busy[p] = p != e.hot && rng.IntN(2) == 0
			}
			epochs = append(epochs, e)
		}
		return epochs[t/swtEpoch]
	}
	frame := func(p int, e epoch) ([]byte, bool) {
		src := host(p, rng.IntN(3))
		switch u := rng.IntN(1000); {
		case u < 12: // PFC from the host: pauses egress p
			return ethswitch.PFCFrame(src, rng.IntN(8), uint16(rng.IntN(60))), false
		case u < 18: // PAUSE: another opcode
			f := ethswitch.PFCFrame(src, 0, 0)
			binary.BigEndian.PutUint16(f[14:], 0x0001)
			binary.BigEndian.PutUint16(f[16:], uint16(rng.IntN(65536)))
			return f, false
		}
		s := framegen.L2Spec{Src: src}
		switch u := rng.IntN(100); {
		case u < 35:
			s.Len = 60 + rng.IntN(69)
		case u < 75:
			s.Len = 129 + rng.IntN(472)
		case u < 96:
			s.Len = 601 + rng.IntN(918)
		case u < 98:
			s.Len = 1 + rng.IntN(59) // runt
		case u < 99:
			s.Len = 1519 + rng.IntN(ethswitch.DefaultMTUMax-1518) // above MTU 1518, up to MTU_MAX (jumbo)
		default:
			s.Len = ethswitch.DefaultMTUMax + 1 + rng.IntN(100) // above MTU_MAX
		}
		switch u := rng.IntN(100); {
		case e.busy[p] && u < 85:
			s.Dst = host(e.hot, rng.IntN(3))
		case u < 4:
			s.Dst = swtBcast
		case u < 7:
			s.Dst = ethswitch.MAC{0x01, 0x00, 0x5E, 0, 0, byte(rng.IntN(4))}
		case u < 12:
			s.Dst = host(0x77, rng.IntN(4)) // never a source: unknown
		case u < 16:
			s.Dst = host(p, rng.IntN(3)) // behind the ingress: filtered once learned
		default:
			q := rng.IntN(ports - 1)
			if q >= p {
				q++
			}
			s.Dst = host(q, rng.IntN(3))
		}
		if e.busy[p] && rng.IntN(100) < 85 {
			s.VLAN, s.PCP, s.VID = true, uint8(e.pcp), uint16(rng.IntN(4096))
		} else if rng.IntN(100) < 30 {
			s.VLAN, s.PCP, s.VID = true, uint8(rng.IntN(8)), uint16(rng.IntN(4096))
		}
		if rng.IntN(100) < 55 {
			s.IPv4, s.DSCP = true, uint8(rng.IntN(64))
			if rng.IntN(100) < 75 {
				s.ECN = uint8(1 + rng.IntN(2))
			} else {
				s.ECN = uint8(3 * rng.IntN(2))
			}
		}
		bad := rng.IntN(100) == 0
		if s.Len < 18 { // shorter than BuildL2 builds: the addresses, cut
			f := make([]byte, s.Len)
			for i := range f {
				f[i] = byte(rng.Uint32())
			}
			copy(f, append(s.Dst[:], s.Src[:]...))
			return f, bad
		}
		return framegen.BuildL2(rng, s), bad
	}

	start := cyc + 10
	var end uint64
	for p := range ports {
		at := start + uint64(rng.IntN(64))
		for range frames / ports {
			e := epochAt(at - start)
			f, bad := frame(p, e)
			c.in = append(c.in, swtIn{port: p, frame: f, bad: bad, at: at})
			n := (len(f) + bw - 1) / bw
			at += uint64(n)
			if !e.busy[p] {
				at += uint64(rng.IntN(4*n + 1))
			}
		}
		end = max(end, at)
	}
	for t := start + 300 + uint64(rng.IntN(1000)); t < end; t += 300 + uint64(rng.IntN(2000)) {
		add := func(addr, data uint32) {
			c.csr = append(c.csr, swtWrite{t, addr, data})
			t++
		}
		switch rng.IntN(8) {
		case 0:
			add(ethswitch.AddrCtrl, u32(0, 16))
		case 1:
			add(ethswitch.AddrECNK+4*u32(0, 8), u32(0, 6000))
		case 2:
			add(ethswitch.AddrQuantum+4*u32(0, 8), u32(64, 3000))
		case 3:
			add(ethswitch.AddrDefaultPrio, u32(0, 8))
		case 4: // new thresholds, XON below XOFF after each write
			nxoff := u32(1000, 5000)
			nxon := nxoff/4 + u32(0, int(nxoff/2))
			if nxon < xon {
				add(ethswitch.AddrPFCXon, nxon)
				add(ethswitch.AddrPFCXoff, nxoff)
			} else {
				add(ethswitch.AddrPFCXoff, nxoff)
				add(ethswitch.AddrPFCXon, nxon)
			}
			xoff, xon = nxoff, nxon
		case 5:
			add(ethswitch.AddrAgeCycles, []uint32{0, 1000, 4000}[rng.IntN(3)])
		case 6:
			add(ethswitch.AddrMTU, []uint32{1518, 1518, 600, 2048, 3000, 4224, 9000}[rng.IntN(7)])
		case 7:
			add(ethswitch.AddrDSCPMap+4*u32(0, 8), rng.Uint32()&0x77777777)
		}
	}
	return c
}

// swtEpoch is the length of an epoch of the random case, in cycles.
const swtEpoch = 3000

// ---- Tests.

// TestSwitchTimingDirected runs one directed case per rule of
// rtl/switch/README.md through the RTL switch and golden/ethswitch, and
// requires the same frames at the same cycles, the same counters, and what
// the README says.
func TestSwitchTimingDirected(t *testing.T) {
	cases := []swtCase{
		swtLearnUnicast(),
		swtSameCycleLearn(),
		swtFlood(),
		swtFilter(),
		swtAging("aging_boundary", 100),
		swtAging("aging_boundary_long", 70_000),
		swtPCP(),
		swtDSCP(),
		swtDefaultPrio(),
		swtStrict(),
		swtDRR(),
		swtTailDrop("switch4_64"),
		swtTailDrop("switch4_512"),
		swtTailDropJumbo("switch4_64"),
		swtTailDropJumbo("switch4_512"),
		swtTailDropSwitch8(),
		swtJumbo("switch4_64"),
		swtJumbo("switch4_512"),
		swtECN("switch4_64"),
		swtECN("switch4_512"),
		swtRED("switch4_64"),
		swtRED("switch4_512"),
		swtPFCRx("switch4_64"),
		swtPFCRx("switch4_512"),
		swtNoSlot("switch4_64"),
		swtNoSlot("switch4_512"),
		swtPFCTx("switch4_64"),
		swtPFCTx("switch4_512"),
		swtPFCTxBurst("switch4_64"),
		swtValidity(),
		swtMACControl(),
		swtCSRMidRun(),
		swtBackpressure(),
	}
	for _, c := range cases {
		t.Run(c.name+"/"+c.model, func(t *testing.T) {
			t.Parallel()
			swtCheckRun(t, c)
		})
	}
}

// TestSwitchTimingRandom runs a few thousand random frames through the
// 4-port switch at 64 and 512 bits and the 8-port one at 64, with random
// backpressure and CSR writes, and requires the RTL and golden/ethswitch
// to agree on every frame's cycles and every counter. The run must have
// exercised the drop reasons, ECN and PFC.
func TestSwitchTimingRandom(t *testing.T) {
	for _, tc := range []struct {
		model  string
		frames int
		seed   uint64
	}{{"switch4_64", 4000, 1}, {"switch4_512", 4000, 2}, {"switch8_64", 4000, 3}} {
		t.Run(tc.model, func(t *testing.T) {
			t.Parallel()
			r := swtCheckRun(t, swtRandom(tc.model, tc.frames, tc.seed))
			sums := map[string]uint64{}
			for _, name := range []string{"drop_runt", "drop_oversize", "drop_bad", "drop_filtered", "rx_pfc",
				"rx_mac_control", "tx_pfc", "drop_tail", "ecn_marked", "drop_no_slot"} {
				for p := range r.ports {
					for _, c := range ethswitch.AllCounters() {
						if s := c.String(); s == name || strings.HasPrefix(s, name+"[") {
							sums[name] += r.rtl.counter(p, c)
						}
					}
				}
			}
			t.Logf("RTL counters summed over ports: %v", sums)
			for name := range sums {
				if name == "drop_tail" && tc.model == "switch8_64" {
					// Its 131,072 bytes per egress outlast the slots unless
					// frames average over 1,365 bytes; the directed
					// tail_drop_jumbo case drops at its tail.
					continue
				}
				if sums[name] == 0 {
					t.Errorf("the random run never counted %s", name)
				}
			}
		})
	}
}
