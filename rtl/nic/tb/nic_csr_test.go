//go:build unix

package tb_test

// The NIC's register block (rtl/nic/nic_csr.sv) through its test top
// sim/tops/nic_csr_top.sv: every register's reset value and read-back
// mask, the read-only and unmapped addresses, the cycle a write reaches
// the outputs, the qp_load pulse, the STATE read-back, counter increments,
// write-wins and wrap, and random sequences, all against golden/nic's CSR
// mirror cycle by cycle.
//
// The rig records everything it does and sees (writes, reads, input
// frames with their accept cycles, load reports, snapshots) and replays it
// into nic.CSR in nic_csr's order within a cycle (its header): the states
// that change in a cycle first (qp_state is read as driven), then the
// reads and snapshots of the cycle, then its increments and its write (the
// write wins).

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
)

// Record kinds of nic_csr_top's in0.
const (
	ncNodeInc = 1
	ncQPInc   = 2
	ncState   = 3
	ncSnap    = 4
)

// ncIncMax is the most a counter gets in one cycle: INC_WIDTH 8.
const ncIncMax = 255

// ncRec is one 8-byte record of in0.
type ncRec struct {
	kind, n, q uint8
	val        uint32
}

func ncEncode(recs []ncRec) []byte {
	b := make([]byte, 0, 8*len(recs))
	for _, r := range recs {
		b = append(b, r.kind, r.n, r.q, 0)
		b = binary.LittleEndian.AppendUint32(b, r.val)
	}
	return b
}

// ncFrame is an input frame: arrival (in) and last beat (from its ACCEPT);
// its records act in cycle last+1.
type ncFrame struct {
	recs          []ncRec
	arrival, last uint64
	accepted      bool
}

type ncAccess struct {
	cycle      uint64
	addr, data uint32 // data: written, or read back
}

// ncWindow is one step: writes from the window's first cycle, one a cycle,
// then reads every other cycle (each answered the next cycle), then idle
// cycles; frames arrive at offsets from the window's first cycle.
type ncWindow struct {
	writes []cosim.CSR
	reads  []uint32
	idle   uint64
	frames []ncIn
}

type ncIn struct {
	at   uint64
	recs []ncRec
}

type ncRig struct {
	t      *testing.T
	ctx    context.Context
	m      *cosim.Model
	shape  nic.CSRShape
	rep    cosim.Reply
	writes []ncAccess
	reads  []ncAccess
	frames []ncFrame
	loads  []cosim.Frame // out0
	snaps  []cosim.Frame // out1
}

func ncStart(t *testing.T) *ncRig {
	const name = "nic_csr_64"
	path := filepath.Join(modeltest.Dir(modeltest.DirEnv), name, "Vnic_csr_top")
	modeltest.NeedBinary(t, path)
	ctx := context.Background()
	m, err := cosim.Start(ctx, cosim.Config{Name: name, Path: path,
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 30 * time.Second, Close: 5 * time.Second}})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	h, err := m.Handshake(ctx, cosim.HelloAck{Seed: 1})
	require.NoError(t, err)
	p := h.Params()
	param := func(k string) int {
		v, err := strconv.Atoi(p[k])
		require.NoError(t, err, "HELLO param %s", k)
		return v
	}
	shape := nic.CSRShape{QPS: param("QPS"), MRS: param("MRS"), DataWidth: param("DATA_WIDTH"),
		MaxReads: param("MAX_READS")}
	require.NoError(t, shape.Validate())
	require.Equal(t, 8, param("INC_WIDTH"), "ncIncMax")
	return &ncRig{t: t, ctx: ctx, m: m, shape: shape}
}

// step runs one window and returns its first cycle and the data read.
func (r *ncRig) step(w ncWindow) (uint64, []uint32) {
	t := r.t
	t.Helper()
	start := r.m.Cycle()
	nw, nr := uint64(len(w.writes)), uint64(len(w.reads))
	target := start + nw + 2*nr + w.idle
	win := cosim.Window{Target: target, CSRWrites: w.writes, CSRReads: w.reads}
	for _, f := range w.frames {
		require.Less(t, start+f.at, target, "frame inside the window")
		win.Frames = append(win.Frames, cosim.Frame{Port: 0, Cycle: start + f.at, Data: ncEncode(f.recs)})
		r.frames = append(r.frames, ncFrame{recs: f.recs, arrival: start + f.at})
	}
	require.NoError(t, r.m.StepInto(r.ctx, win, &r.rep))
	for _, a := range r.rep.Accepts {
		f := &r.frames[a.Seq]
		f.last, f.accepted = a.LastCycle, true
	}
	for _, f := range r.rep.Frames {
		if f.Port == 0 {
			r.loads = append(r.loads, f)
		} else {
			r.snaps = append(r.snaps, f)
		}
	}
	for i, c := range w.writes {
		r.writes = append(r.writes, ncAccess{start + uint64(i), c.Addr, c.Data})
	}
	// The window ends as the last read is answered: with a read latency
	// over 1 the model could not answer them all (StepInto fails), so read
	// j was issued at start + writes + 2j.
	got := make([]uint32, len(r.rep.CSRData))
	for j, d := range r.rep.CSRData {
		r.reads = append(r.reads, ncAccess{start + nw + 2*uint64(j), d.Addr, d.Data})
		got[j] = d.Data
	}
	return start, got
}

func (r *ncRig) write(addr, data uint32) uint64 {
	c, _ := r.step(ncWindow{writes: []cosim.CSR{{Addr: addr, Data: data}}})
	return c
}

func (r *ncRig) read(addr uint32) uint32 {
	_, got := r.step(ncWindow{reads: []uint32{addr}})
	return got[0]
}

// drain runs until every frame is in and out.
func (r *ncRig) drain() {
	for {
		r.step(ncWindow{idle: 300})
		if !r.rep.Done.Busy {
			return
		}
	}
}

// ncSnapAddrs lists the registers a snapshot carries after its cycle, in
// nic_csr_top's order.
func ncSnapAddrs(s nic.CSRShape) []uint32 {
	a := []uint32{nic.AddrCtrl, nic.AddrMACLo, nic.AddrMACHi, nic.AddrIP, nic.AddrDSCP, nic.AddrCNPInterval}
	for x := uint32(nic.AddrLineRate); x <= nic.AddrHyperStep; x += 4 {
		a = append(a, x)
	}
	for k := range uint32(32) {
		a = append(a, nic.AddrRNRCycles+4*k)
	}
	for m := range s.MRS {
		for off := uint32(nic.MRBaseLo); off <= nic.MRValid; off += 4 {
			a = append(a, nic.MRAddr(m, off))
		}
	}
	for q := range s.QPS {
		for off := uint32(nic.QPQPN); off <= nic.QPMaxReads; off += 4 {
			a = append(a, nic.QPAddr(q, off))
		}
	}
	return a
}

// Order of a cycle's events in the replay (nic_csr.sv header).
const (
	evState = iota
	evRead
	evSnap
	evInc
	evWrite
)

type ncEvent struct {
	cycle uint64
	kind  int
	idx   int // into writes, reads or frames
}

// check replays everything into the mirror and compares; it returns the
// mirror as it is at the end.
func (r *ncRig) check() *nic.CSR {
	t := r.t
	t.Helper()
	r.drain()
	csr, err := nic.NewCSR(r.shape)
	require.NoError(t, err)
	var ev []ncEvent
	for i, w := range r.writes {
		ev = append(ev, ncEvent{w.cycle, evWrite, i})
	}
	for i, rd := range r.reads {
		ev = append(ev, ncEvent{rd.cycle, evRead, i})
	}
	for i, f := range r.frames {
		require.True(t, f.accepted, "frame %d accepted", i)
		require.Equal(t, f.arrival+uint64(len(f.recs))-1, f.last, "frame %d: one beat a cycle from its arrival", i)
		ev = append(ev, ncEvent{f.last + 1, evState, i}, ncEvent{f.last + 1, evInc, i})
		if slices.ContainsFunc(f.recs, func(x ncRec) bool { return x.kind == ncSnap }) {
			ev = append(ev, ncEvent{f.last + 1, evSnap, i})
		}
	}
	slices.SortStableFunc(ev, func(a, b ncEvent) int {
		if a.cycle != b.cycle {
			return cmpU64(a.cycle, b.cycle)
		}
		return a.kind - b.kind
	})

	snapAddrs := ncSnapAddrs(r.shape)
	var wantLoads []uint64 // P<<16 | mask
	nsnap, bad := 0, 0
	fail := func(ok bool) {
		if !ok {
			if bad++; bad >= 10 {
				t.FailNow()
			}
		}
	}
	for _, e := range ev {
		switch e.kind {
		case evState:
			for _, x := range r.frames[e.idx].recs {
				if x.kind == ncState {
					csr.SetState(int(x.q), nic.QPState(x.val&3))
				}
			}
		case evRead:
			rd := r.reads[e.idx]
			fail(assert.Equal(t, fmt.Sprintf("%#x", csr.Read(rd.addr)), fmt.Sprintf("%#x", rd.data),
				"read of %#x in cycle %d", rd.addr, rd.cycle))
		case evSnap:
			if !assert.Less(t, nsnap, len(r.snaps), "snapshot of cycle %d", e.cycle) {
				t.FailNow()
			}
			s := r.snaps[nsnap]
			nsnap++
			require.Len(t, s.Data, 4*(2+len(snapAddrs)), "snapshot of cycle %d", e.cycle)
			fail(assert.Equal(t, e.cycle, binary.LittleEndian.Uint64(s.Data), "snapshot cycle"))
			fail(assert.Equal(t, e.cycle+1, s.Cycle, "snapshot of cycle %d: first beat", e.cycle))
			for i, a := range snapAddrs {
				fail(assert.Equal(t, fmt.Sprintf("%#x", csr.Read(a)),
					fmt.Sprintf("%#x", binary.LittleEndian.Uint32(s.Data[8+4*i:])),
					"output of register %#x in cycle %d", a, e.cycle))
			}
		case evInc:
			node := map[uint8]uint32{}
			qp := map[[2]uint8]uint32{}
			for _, x := range r.frames[e.idx].recs {
				switch x.kind {
				case ncNodeInc:
					node[x.n] += x.val
				case ncQPInc:
					qp[[2]uint8{x.q, x.n}] += x.val
				}
			}
			for n, v := range node {
				require.LessOrEqual(t, v, uint32(ncIncMax), "the test keeps a cycle's events within INC_WIDTH")
				csr.AddNode(nic.NodeCounter(n), v)
			}
			for k, v := range qp {
				require.LessOrEqual(t, v, uint32(ncIncMax), "the test keeps a cycle's events within INC_WIDTH")
				csr.AddQP(int(k[0]), rc.Counter(k[1]), v)
			}
		case evWrite:
			w := r.writes[e.idx]
			if q := csr.Write(w.addr, w.data); q >= 0 {
				wantLoads = append(wantLoads, (w.cycle+1)<<16|1<<q)
			}
		}
	}
	assert.Equal(t, nsnap, len(r.snaps), "snapshots")
	var gotLoads []uint64
	for _, f := range r.loads {
		require.Len(t, f.Data, 8)
		v := binary.LittleEndian.Uint64(f.Data)
		fail(assert.Equal(t, v>>16+1, f.Cycle, "load report of cycle %d: first beat", v>>16))
		gotLoads = append(gotLoads, v)
	}
	assert.Equal(t, ncLoadStrings(wantLoads), ncLoadStrings(gotLoads), "qp_load pulses")
	return csr
}

func ncLoadStrings(v []uint64) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("cycle %d qp_load %#04x", x>>16, x&0xFFFF)
	}
	return s
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// ncAllAddrs is every aligned address of the 16-bit space.
func ncAllAddrs() []uint32 {
	a := make([]uint32, 0x4000)
	for i := range a {
		a[i] = uint32(4 * i)
	}
	return a
}

// The whole address space after reset, then written with all ones and
// with random data and read back: reset values, masks, ID and SHAPE read
// only, unmapped addresses 0.
func TestNICCSRMap(t *testing.T) {
	t.Parallel()
	r := ncStart(t)
	all := ncAllAddrs()
	readAll := func() map[uint32]uint32 {
		got := map[uint32]uint32{}
		for i := 0; i < len(all); i += 1024 {
			_, d := r.step(ncWindow{reads: all[i : i+1024]})
			for j, v := range d {
				got[all[i+j]] = v
			}
		}
		return got
	}
	writeAll := func(data func(a uint32) uint32) {
		for i := 0; i < len(all); i += 2048 {
			w := make([]cosim.CSR, 2048)
			for j := range w {
				w[j] = cosim.CSR{Addr: all[i+j], Data: data(all[i+j])}
			}
			r.step(ncWindow{writes: w})
		}
	}
	reset := readAll()
	assert.EqualValues(t, 0x4E430001, reset[nic.AddrID], "ID")
	assert.EqualValues(t, 0x04081010, reset[nic.AddrShape], "SHAPE: QPS 16, MRS 16, 8 bytes a beat, MAX_READS 4")
	for a, v := range reset {
		if a != nic.AddrID && a != nic.AddrShape && v != 0 {
			t.Errorf("%#x reads %#x after reset, want 0", a, v)
		}
	}
	writeAll(func(uint32) uint32 { return 0xFFFFFFFF })
	ones := readAll()
	assert.EqualValues(t, 0x4E430001, ones[nic.AddrID], "ID is read only")
	assert.EqualValues(t, 0x04081010, ones[nic.AddrShape], "SHAPE is read only")
	assert.EqualValues(t, 0x3F3F, ones[nic.AddrDSCP])
	assert.EqualValues(t, 0x1F77, ones[nic.QPAddr(15, nic.QPRetry)])
	assert.EqualValues(t, 0, ones[nic.QPAddr(16, nic.QPQPN)], "no QP 16")
	mapped := 0
	for _, v := range ones {
		if v != 0 {
			mapped++
		}
	}
	// 2 RO + 7 + 9 DCQCN + 32 RNR + 7 per MR + 17 per QP + 31 node counters + 33 per QP
	assert.Equal(t, 2+7+9+32+7*16+17*16+31+33*16, mapped, "registers that keep a bit")

	rng := rand.New(rand.NewPCG(7, 7))
	writeAll(func(uint32) uint32 { return rng.Uint32() })
	readAll()
	r.check()
}

// The exact cycles: a write reaches the outputs the next cycle, qp_load
// pulses the cycle after a STATE write of 1, STATE reads the state driven
// in the cycle of the read, and counters take a cycle's increments at its
// end unless written in it.
func TestNICCSRTiming(t *testing.T) {
	t.Parallel()
	r := ncStart(t)
	snap := []ncRec{{kind: ncSnap}}
	macLoWord := 2 + 1 // snapshot word of MAC_LO

	// A snapshot in the cycle of the write sees the old value...
	r.step(ncWindow{idle: 5, frames: []ncIn{{4, snap}}}) // last beat in the window's last cycle: A = the write's cycle
	tw := r.write(nic.AddrMACLo, 0x11223344)
	r.step(ncWindow{idle: 300})
	// ...one the cycle after sees the new one.
	r.step(ncWindow{writes: []cosim.CSR{{Addr: nic.AddrMACLo, Data: 0x55667788}}, idle: 1,
		frames: []ncIn{{0, snap}}})
	r.step(ncWindow{idle: 300})
	require.Len(t, r.snaps, 2)
	s0, s1 := r.snaps[0].Data, r.snaps[1].Data
	assert.Equal(t, tw, binary.LittleEndian.Uint64(s0), "first snapshot in the write's cycle")
	assert.EqualValues(t, 0, binary.LittleEndian.Uint32(s0[4*macLoWord:]), "old value in the write's cycle")
	assert.EqualValues(t, 0x55667788, binary.LittleEndian.Uint32(s1[4*macLoWord:]), "new value the cycle after")

	// qp_load: only a write of exactly 1, only QPs that exist, the cycle
	// after the write, one per write.
	st := func(q int, v uint32) cosim.CSR { return cosim.CSR{Addr: nic.QPAddr(q, nic.QPStateReg), Data: v} }
	n0 := len(r.loads)
	ts, _ := r.step(ncWindow{writes: []cosim.CSR{st(0, 1), st(5, 1), st(15, 1), st(3, 0), st(3, 2),
		st(3, 0xFFFFFFFF), st(3, 0x101), st(16, 1), st(3, 1)}, idle: 3})
	r.step(ncWindow{idle: 3})
	require.Len(t, r.loads, n0+4)
	for i, want := range []struct {
		p    uint64
		mask uint16
	}{{ts + 1, 1 << 0}, {ts + 2, 1 << 5}, {ts + 3, 1 << 15}, {ts + 9, 1 << 3}} {
		v := binary.LittleEndian.Uint64(r.loads[n0+i].Data)
		assert.Equal(t, want.p, v>>16, "load %d: cycle", i)
		assert.Equal(t, want.mask, uint16(v), "load %d: qp_load", i)
	}

	// STATE reads qp_state as it is in the read's cycle: a state record
	// acts in A = its last beat + 1.
	state := nic.QPAddr(2, nic.QPStateReg)
	set := func(v uint32) []ncRec { return []ncRec{{kind: ncState, q: 2, val: v}} }
	r.step(ncWindow{idle: 2, frames: []ncIn{{0, set(1)}}}) // A = the window's second cycle
	assert.EqualValues(t, 1, r.read(state), "A the cycle before the read")
	r.step(ncWindow{idle: 2, frames: []ncIn{{1, set(2)}}}) // A = the next window's first cycle
	assert.EqualValues(t, 2, r.read(state), "A in the read's cycle")
	_, got := r.step(ncWindow{reads: []uint32{state}, frames: []ncIn{{0, set(3)}}}) // A = the read's cycle + 1
	assert.EqualValues(t, 2, got[0], "A the cycle after the read: the old state")
	assert.EqualValues(t, 3, r.read(nic.QPAddr(2, nic.QPStateReg)))

	// Counters: a cycle's increments show from the next cycle; a write in
	// the same cycle wins over them; a write the cycle before does not.
	cnt := nic.QPCounterAddr(1, rc.TxPackets)
	inc := func(v uint32) []ncRec { return []ncRec{{kind: ncQPInc, q: 1, n: uint8(rc.TxPackets), val: v}} }
	_, got = r.step(ncWindow{reads: []uint32{cnt, cnt}, frames: []ncIn{{0, inc(5)}}}) // A = read 0's cycle + 1
	assert.Equal(t, []uint32{0, 5}, got, "A between the reads")
	r.step(ncWindow{idle: 1, frames: []ncIn{{0, inc(7)}}}) // A = the next cycle: the write's
	r.write(cnt, 1000)
	assert.EqualValues(t, 1000, r.read(cnt), "the write wins over the increments of its cycle")
	r.step(ncWindow{writes: []cosim.CSR{{Addr: cnt, Data: 2000}}, frames: []ncIn{{0, inc(9)}}}) // A = write + 1
	_, got = r.step(ncWindow{reads: []uint32{cnt, cnt}})                                        // the first in A
	assert.Equal(t, []uint32{2000, 2009}, got, "increments the cycle after a write add to it")

	// Wrap at 2^32, several records and counters in one cycle, up to 255
	// events per counter, node counters, and the QP counters 0..5 that
	// nic_csr ignores.
	r.write(nic.NodeCounterAddr(nic.CntCQOverflow), 0xFFFFFFF0)
	r.write(nic.QPCounterAddr(15, rc.CompletionsError), 0xFFFFFFFF)
	many := []ncRec{{kind: ncNodeInc, n: uint8(nic.CntCQOverflow), val: 0x10},
		{kind: ncNodeInc, n: uint8(nic.CntCQOverflow), val: 0x10},
		{kind: ncQPInc, q: 15, n: uint8(rc.CompletionsError), val: 1},
		{kind: ncNodeInc, n: 0, val: 255}, {kind: ncNodeInc, n: 11, val: 3},
		{kind: ncQPInc, q: 0, n: uint8(rc.RxPackets), val: 255}, {kind: ncQPInc, q: 0, n: 0, val: 9},
		{kind: ncQPInc, q: 9, n: 5, val: 9}, {kind: ncQPInc, q: 9, n: 38, val: 4}}
	r.step(ncWindow{idle: uint64(len(many)) + 1, frames: []ncIn{{0, many}}})
	_, got = r.step(ncWindow{reads: []uint32{nic.NodeCounterAddr(nic.CntCQOverflow),
		nic.QPCounterAddr(15, rc.CompletionsError), nic.NodeCounterAddr(0), nic.NodeCounterAddr(11),
		nic.QPCounterAddr(0, rc.RxPackets), nic.QPCounterAddr(0, 0), nic.QPCounterAddr(9, 5),
		nic.QPCounterAddr(9, 38)}})
	assert.Equal(t, []uint32{0x10, 0, 255, 3, 255, 0, 0, 4}, got)
	r.check()
}

// ncGen makes random windows: writes and reads biased to the registers
// that exist and to addresses next to them, counter and state records,
// snapshots far enough apart.
type ncGen struct {
	rng      *rand.Rand
	shape    nic.CSRShape
	regs     []uint32 // writable configuration registers
	counters []uint32
	odd      []uint32 // unmapped addresses next to mapped ones
	recent   []uint32 // addresses written lately
	lastSnap uint64
}

func newNCGen(seed uint64, s nic.CSRShape) *ncGen {
	g := &ncGen{rng: rand.New(rand.NewPCG(seed, 11)), shape: s}
	g.regs = ncSnapAddrs(s)
	for n := range nic.NumNodeCounters + 1 {
		g.counters = append(g.counters, nic.NodeCounterAddr(nic.NodeCounter(n)))
	}
	// four QPs' counters, so that reads, writes and increments meet
	for _, q := range []int{0, 1, 7, s.QPS - 1} {
		for n := range rc.NumCounters + 1 {
			g.counters = append(g.counters, nic.QPCounterAddr(q, rc.Counter(n)))
		}
	}
	g.odd = []uint32{0x0008, 0x000C, 0x0028, 0x003C, 0x0064, 0x007C, 0x0100, 0x01FC,
		nic.MRAddr(0, 0x1C), nic.MRAddr(s.MRS-1, 0x1C), nic.MRAddr(s.MRS, 0), nic.QPAddr(0, 0x38),
		nic.QPAddr(s.QPS-1, 0x78), nic.QPAddr(s.QPS, 0), nic.QPAddr(s.QPS, nic.QPStateReg),
		nic.NodeCounterAddr(nic.NodeCounter(nic.NumNodeCounters)), 0x4FFC, nic.QPCounterAddr(s.QPS, rc.RxPackets),
		0x3FFC, 0x6000, 0xFFFC}
	return g
}

func (g *ncGen) addr() uint32 {
	r := g.rng
	switch k := r.IntN(20); {
	case k < 8:
		return g.regs[r.IntN(len(g.regs))]
	case k < 13:
		return g.counters[r.IntN(len(g.counters))]
	case k < 15:
		return nic.QPAddr(r.IntN(g.shape.QPS+1), nic.QPStateReg)
	case k < 17:
		return g.odd[r.IntN(len(g.odd))]
	case k < 18:
		return 4 * r.Uint32N(0x4000)
	default:
		if len(g.recent) == 0 {
			return nic.AddrCtrl
		}
		return g.recent[r.IntN(len(g.recent))]
	}
}

func (g *ncGen) data(addr uint32) uint32 {
	r := g.rng
	if (addr-nic.AddrQP)%nic.QPStride == nic.QPStateReg && r.IntN(2) == 0 {
		return nic.StateLoad
	}
	switch r.IntN(6) {
	case 0:
		return 0xFFFFFFFF
	case 1:
		return 0xFFFFFFFF - r.Uint32N(300) // counters about to wrap
	case 2:
		return r.Uint32N(16)
	}
	return r.Uint32()
}

func (g *ncGen) records(start uint64) []ncRec {
	r := g.rng
	var recs []ncRec
	sum := map[[3]uint8]uint32{}
	for range 1 + r.IntN(8) {
		var x ncRec
		switch k := r.IntN(10); {
		case k < 3:
			x = ncRec{kind: ncNodeInc, n: uint8(r.IntN(nic.NumNodeCounters))}
		case k < 8:
			x = ncRec{kind: ncQPInc, q: []uint8{0, 1, 7, uint8(g.shape.QPS - 1)}[r.IntN(4)],
				n: uint8(r.IntN(rc.NumCounters))}
		case k < 9:
			x = ncRec{kind: ncState, q: uint8(r.IntN(g.shape.QPS)), val: r.Uint32()} // top uses bits 1:0
		default:
			if start < g.lastSnap+600 {
				continue
			}
			g.lastSnap = start
			recs = append(recs, ncRec{kind: ncSnap})
			continue
		}
		if x.kind != ncState {
			key := [3]uint8{x.kind, x.q, x.n}
			x.val = r.Uint32N(ncIncMax - sum[key] + 1)
			sum[key] += x.val
		}
		recs = append(recs, x)
	}
	return recs
}

func (g *ncGen) window(start uint64) ncWindow {
	r := g.rng
	var w ncWindow
	nw, nr := r.IntN(4), r.IntN(4)
	if r.IntN(50) == 0 {
		nw, nr = 30, 30
	}
	for range nw {
		a := g.addr()
		w.writes = append(w.writes, cosim.CSR{Addr: a, Data: g.data(a)})
		g.recent = append(g.recent, a)
		if len(g.recent) > 16 {
			g.recent = g.recent[1:]
		}
	}
	for range nr {
		w.reads = append(w.reads, g.addr())
	}
	w.idle = uint64(r.IntN(4))
	if r.IntN(3) == 0 {
		recs := g.records(start)
		if len(recs) == 0 {
			return w
		}
		// the frame ends inside the window, so that the next one never
		// waits behind it
		n := uint64(nw + 2*nr)
		if n+w.idle < uint64(len(recs)) {
			w.idle = uint64(len(recs)) - n
		}
		w.frames = []ncIn{{uint64(r.IntN(int(n+w.idle) - len(recs) + 1)), recs}}
	}
	return w
}

// Random windows of writes, reads and records against the mirror.
func TestNICCSRRandom(t *testing.T) {
	t.Parallel()
	r := ncStart(t)
	g := newNCGen(3, r.shape)
	for range 20000 {
		r.step(g.window(r.m.Cycle()))
	}
	csr := r.check()
	t.Logf("%d cycles: %d writes, %d reads, %d frames, %d loads, %d snapshots", r.m.Cycle(), len(r.writes),
		len(r.reads), len(r.frames), len(r.loads), len(r.snaps))
	assert.Greater(t, len(r.snaps), 20, "snapshots")
	assert.Greater(t, len(r.loads), 100, "loads")
	// the run must have left traces in the counters it hammered
	assert.NotZero(t, csr.Read(nic.QPCounterAddr(1, rc.RxPackets))|csr.Read(nic.QPCounterAddr(1, rc.TxPackets)))
}
