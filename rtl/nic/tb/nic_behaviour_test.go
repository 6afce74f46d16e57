//go:build unix

package tb_test

// TestNICBehaviour plays golden/rc's behaviour table (package behaviour:
// one scripted case per rule of rc's doc.go, the cases golden/rc's
// TestBehaviour plays against an rc.Node) against the NIC RTL, at 64 and
// 512 bits: a fresh model per case, configured over the CSR bus with the
// case's node, QP and memory regions, its peer frames on in0, its posts as
// command records on in1.
//
// Mapping. A case's cycle x runs at RTL cycle B + x + S: B is a base cycle
// after the configuration, S a shift that starts at 0 and only grows. A
// peer frame is given on in0 so that the NIC decides it (rc.Node.Receive)
// at B + x + S, a post so that it is posted at B + x + S, a poke is written
// to the DUT's memory before that cycle, and an Expect step "releases" the
// transmitter at B + x + S. Where that is not possible the step goes later,
// as little as it must, and S grows by the delay (logged per case):
//   - two inputs of one port cannot take effect closer than the beats of
//     the second (inputs of one cycle are serialised, in the case's order;
//     any two inputs take distinct cycles, as in a cycle the NIC decides a
//     frame before it posts a command);
//   - a step after an Expect step waits until the frames that step polled
//     have left the transmitter: the golden case polls them all in one
//     cycle, the NIC sends one frame per frame time.
//
// Golden polls the node only at Expect steps; the NIC's transmitter
// decides in every cycle it is free. Between Expect steps the runner holds
// the transmitter with host frames: in every cycle in which the node
// would send (it has a frame ready, or an input takes effect) an 8-byte
// in2 frame ("HOLD" and a number, one beat at both widths) waits, and the
// NIC sends host frames first (rtl/nic/README.md "Timing"). So responses
// wait and merge as in the golden case (ACK coalescing, a waiting CNP or
// NAK, a READ job restarted before it is sent). From an Expect step's
// release the transmitter is free until the node has nothing more to send:
// that drain's frames are the step's frames.
//
// The plan is made by a golden nic.Timed (the planner) fed with the inputs
// as they are scheduled; the DUT then gets exactly these inputs, its twin
// (as in the model tests) exactly what the DUT accepted, and the twin's
// frames and completions must be the planner's.
//
// Checked against the RTL: (i) the case's own expectations: each Expect
// step's frames byte for byte (the DUT's out0 frames decided in its drain),
// the completions field by field in order (the record has no cycle), every
// QP counter and every node counter (0) over the CSR bus, the QP's state,
// the host memory; (ii) every out0 frame at exactly the twin's cycle, the
// completions, counters, state and memory the twin has (nicRun.check).
// Checked through the planner only, as the NIC has no equivalent: NextEvent
// and the DCQCN rate (at the end of the step's drain, at the mapped
// cycle), the OnEvent reports and the completions' cycles (each at the RTL
// cycle of a step of the case's cycle). Not checked on the RTL: the
// responder queue's high-water mark (golden/rc keeps it unexported; only
// rc's own tests read it).
//
// Limits: the NIC has MAX_READS READ resources and SQ_DEPTH, RQ_DEPTH
// WQEs for every QP; a case that leaves MaxReads, SQDepth or RQDepth at 0
// (rc's defaults: 16 and 256) runs with the NIC's values (the planner
// and the twin too), one that asks for more fails.

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/rc/behaviour"
	"github.com/rocesim/cosim/golden/roce"
)

func TestNICBehaviour(t *testing.T) {
	for _, width := range []int{64, 512} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			nicModel(t, width)
			cases := behaviour.Cases()
			for i := range cases {
				t.Run(cases[i].Name, func(t *testing.T) { bhvNIC(t, width, &cases[i]) })
			}
		})
	}
}

// bhvBase is B - the first cycle after configuration: room for the first
// inputs' beats before their cycle.
const bhvBase = 64

// bhvNIC plays c against a fresh DUT of width bits.
func bhvNIC(t *testing.T, width int, c *behaviour.Case) {
	nc, qc := c.Config()
	require.NoError(t, bhvNICLimits(&qc), "case %s is not applicable to the NIC", c.Name)
	r := bhvStartNIC(t, width, nc, qc, c.Mem)
	p := bhvNewPlan(t, width, nc, qc, c, r.m.Cycle()+bhvBase)
	for i, s := range c.Steps {
		p.step(i, s)
	}
	// Golden polls no more after the last step: hold until the last frames
	// and completions have left.
	end := p.plan.Now() + nicDMALatency + nic.TxExtra + 256
	p.advance(end)
	if len(p.delays) > 0 {
		t.Logf("%d steps later than B + cycle (S at the end %d): %s", len(p.delays), p.shift, strings.Join(p.delays, "; "))
	}
	t.Logf("B = %d, %d hold frames, %d Expect steps", p.base, p.holds, len(p.drains))

	// The DUT: the planned inputs, windows split where a poke writes memory.
	for _, f := range p.inputs {
		r.dutFrame(int(f.Port), f.Cycle, f.Data)
	}
	run := func(to uint64) {
		for r.m.Cycle() < to {
			r.dutWindow(min(to, r.m.Cycle()+4096))
		}
	}
	for _, pk := range p.pokes {
		run(pk.at)
		_, err := r.m.Step(context.Background(), cosim.Window{Target: r.m.Cycle(),
			MemWrites: []cosim.Mem{{Addr: pk.Addr, Data: pk.Data}}})
		require.NoError(t, err)
		r.twinMem.Write(pk.Addr, pk.Data)
	}
	run(end)

	// (ii) the DUT is its twin, cycle for cycle; the twin is the plan.
	r.check(bhvRegions(c))
	var planNet []nic.Out
	var planComp []rc.Completion
	for _, o := range p.outs {
		switch o.Port {
		case nic.PortNet:
			planNet = append(planNet, o)
		case nic.PortCompletion:
			planComp = append(planComp, o.Completion)
		}
	}
	require.Equal(t, len(planNet), len(r.twinNet), "out0 frames of the twin and of the plan")
	for k := range planNet {
		require.Equal(t, planNet[k].Cycle, r.twinNet[k].Cycle, "out0 frame %d: the twin's cycle is not the plan's", k)
		require.Equal(t, planNet[k].Data, r.twinNet[k].Data, "out0 frame %d: the twin's is not the plan's", k)
	}
	require.Equal(t, bhvNoCycle(planComp), r.twinComp[behaviour.QPN], "completions of the twin and of the plan")

	// (i) the case's expectations, against what the DUT did.
	p.checkFrames(r.dutNet)
	var want []rc.Completion
	for _, s := range c.Steps {
		want = append(want, s.Comps...)
	}
	if got := r.dutComp[behaviour.QPN]; !slices.Equal(got, bhvNoCycle(want)) {
		t.Errorf("DUT completions (out1, in order):\n%s\nwant:\n%s", behaviour.List(got), behaviour.List(bhvNoCycle(want)))
	}
	p.checkCompletionCycles(planComp)
	p.checkEvents()
	bhvCheckCSRs(t, r, c)
	bhvCheckMemory(t, r, c)
}

// bhvNICLimits gives qc the NIC's per-QP limits where the case leaves rc's
// defaults, and refuses what the NIC cannot hold.
func bhvNICLimits(qc *rc.QPConfig) error {
	if qc.MaxReads == 0 {
		qc.MaxReads = nicMaxReads
	}
	if qc.SQDepth == 0 {
		qc.SQDepth = nicSQDepth
	}
	if qc.RQDepth == 0 {
		qc.RQDepth = nicRQDepth
	}
	switch {
	case qc.MaxReads > nicMaxReads:
		return fmt.Errorf("MaxReads %d: the NIC has %d READ resources per QP (MAX_READS)", qc.MaxReads, nicMaxReads)
	case qc.SQDepth != nicSQDepth || qc.RQDepth != nicRQDepth:
		return fmt.Errorf("queue depths %d, %d: the NIC's are SQ_DEPTH %d, RQ_DEPTH %d for every QP",
			qc.SQDepth, qc.RQDepth, nicSQDepth, nicRQDepth)
	}
	return nil
}

// bhvStartNIC starts the DUT with the case's node, memory regions (slots
// in behaviour.MRs order), QP (slot 0) and memory, over the CSR bus, and
// its twin with the same.
func bhvStartNIC(t *testing.T, width int, nc rc.NodeConfig, qc rc.QPConfig, mem []behaviour.Chunk) *nicRun {
	t.Helper()
	m := startNICModel(t, width)

	r := &nicRun{t: t, m: m, width: width, rng: rand.New(rand.NewPCG(1, uint64(width))), nq: 1,
		twinMem: rc.NewSparseMemory(), dutComp: map[roce.QPN][]rc.Completion{}, twinComp: map[roce.QPN][]rc.Completion{}}
	for p := range r.given {
		r.given[p] = map[uint32][]byte{}
	}
	twinNode, err := rc.NewNode(nc, r.twinMem)
	require.NoError(t, err)
	r.twin, err = nic.NewTimed(twinNode, nic.TimedConfig{DataWidth: width, DMALatency: nicDMALatency})
	require.NoError(t, err)

	writes, err := nic.NodeConfigWrites(nc)
	require.NoError(t, err, "the case's node configuration on the NIC")
	for i, mr := range behaviour.MRs() {
		writes = append(writes, nic.MRWrites(i, mr)...)
		require.NoError(t, twinNode.RegisterMR(mr))
	}
	w, err := nic.QPConfigWrites(0, qc, nc.ClockHz)
	require.NoError(t, err, "the case's QP configuration on the NIC")
	writes = append(writes, w...)
	require.NoError(t, twinNode.AddQP(qc))
	r.dutQP = []rc.QPConfig{qc}
	cw := make([]cosim.CSR, len(writes))
	for i, w := range writes {
		cw[i] = cosim.CSR{Addr: w.Addr, Data: w.Data}
	}
	var mw []cosim.Mem
	for _, ch := range mem {
		for off := 0; off < len(ch.Data); off += 0x8000 {
			mw = append(mw, cosim.Mem{Addr: ch.Addr + uint64(off), Data: ch.Data[off:min(off+0x8000, len(ch.Data))]})
		}
		r.twinMem.Write(ch.Addr, ch.Data)
	}
	start := m.Cycle() + uint64(len(cw)) + 16
	_, err = m.Step(context.Background(), cosim.Window{Target: start, CSRWrites: cw, MemWrites: mw})
	require.NoError(t, err)
	r.twin.Run(start)
	return r
}

// bhvPlan schedules a case on the NIC's ports with a golden nic.Timed, the
// planner, which takes every input as it is scheduled (see the file
// comment).
type bhvPlan struct {
	t     *testing.T
	c     *behaviour.Case
	width int
	plan  *nic.Timed
	mem   *rc.SparseMemory

	base, shift uint64
	portFree    [2]uint64 // in0, in1: the first cycle a new frame's first beat may take
	lastEffect  uint64    // cycle of the last input or poke, or the end of the last drain
	inputAt     map[uint64]bool
	atCycles    map[uint64][]uint64 // a case cycle -> the RTL cycles of its steps

	inputs []cosim.Frame // Cycle: the first beat
	pokes  []bhvPoke
	holds  int
	drains []bhvDrain
	delays []string

	decided map[uint64]int // the node's frames: decision cycle -> bytes
	outs    []nic.Out
	events  []rc.Event
}

type bhvPoke struct {
	at uint64
	behaviour.Chunk
}

// bhvDrain is an Expect step's stretch: released at from, over at to (the
// transmitter free and nothing left to send).
type bhvDrain struct {
	step     int
	from, to uint64
}

func bhvNewPlan(t *testing.T, width int, nc rc.NodeConfig, qc rc.QPConfig, c *behaviour.Case, base uint64) *bhvPlan {
	p := &bhvPlan{t: t, c: c, width: width, mem: rc.NewSparseMemory(), base: base, portFree: [2]uint64{base - bhvBase, base - bhvBase},
		inputAt: map[uint64]bool{}, atCycles: map[uint64][]uint64{}, decided: map[uint64]int{}}
	n, err := rc.NewNode(nc, p.mem)
	require.NoError(t, err)
	for _, mr := range behaviour.MRs() {
		require.NoError(t, n.RegisterMR(mr))
	}
	require.NoError(t, n.AddQP(qc))
	n.OnEvent = func(e rc.Event) { p.events = append(p.events, e) }
	for _, ch := range c.Mem {
		p.mem.Write(ch.Addr, ch.Data)
	}
	p.plan, err = nic.NewTimed(n, nic.TimedConfig{DataWidth: width, DMALatency: nicDMALatency})
	require.NoError(t, err)
	p.plan.Run(base - bhvBase)
	return p
}

// run simulates the planner's cycles before until and collects its outputs.
func (p *bhvPlan) run(until uint64) {
	p.plan.Run(until)
	for _, o := range p.plan.Outputs() {
		p.outs = append(p.outs, o)
		if o.Port == nic.PortNet && !bhvIsHold(o.Data) {
			p.decided[o.Cycle-nicDMALatency-nic.TxExtra] = len(o.Data)
		}
	}
}

// advance simulates the cycles before target, none of them in a drain: in
// each one in which the node would send (a frame is ready, or an input
// takes effect), a hold frame waits on in2.
func (p *bhvPlan) advance(target uint64) {
	for p.plan.Now() < target {
		c := p.plan.Now()
		ne, ok := p.plan.Node().NextEvent()
		if p.inputAt[c] || ok && ne <= c {
			p.hold(c)
			p.run(c + 1)
			continue
		}
		next := target
		if ok && ne < next {
			next = ne
		}
		p.run(next)
	}
}

// hold makes a host frame wait on in2 from cycle c: its one beat at c-1.
func (p *bhvPlan) hold(c uint64) {
	f := make([]byte, 8)
	copy(f, "HOLD")
	binary.BigEndian.PutUint32(f[4:], uint32(p.holds))
	p.holds++
	require.NoError(p.t, p.plan.HostFrame(f, c-1))
	p.inputs = append(p.inputs, cosim.Frame{Port: 2, Cycle: c - 1, Data: f})
}

// bhvIsHold reports whether an out0 frame is one of the runner's hold
// frames (the NIC's own frames are at least 60 bytes).
func bhvIsHold(f []byte) bool { return len(f) == 8 && string(f[:4]) == "HOLD" }

// drain releases the transmitter at r and returns the first cycle from r
// on at which it is free and the node has nothing to send.
func (p *bhvPlan) drain(r uint64) uint64 {
	for c := r; ; {
		require.Less(p.t, c-r, uint64(1_000_000), "the drain from cycle %d ends", r)
		p.run(c + 1)
		if n, ok := p.decided[c]; ok {
			c += modeltest.Beats(n, p.width)
			continue
		}
		if ne, ok := p.plan.Node().NextEvent(); ok && ne <= c {
			c++ // a frame is ready but the transmitter is not free (payload reads)
			continue
		}
		return c
	}
}

// step schedules step i of the case (see the file comment).
func (p *bhvPlan) step(i int, s behaviour.Step) {
	t := p.t
	nominal := p.base + s.At + p.shift
	var e uint64
	switch s.Kind {
	case behaviour.In:
		data := behaviour.Build(behaviour.PeerEnd, behaviour.NodeEnd, s.In)
		b := modeltest.Beats(len(data), p.width)
		e = max(nominal, p.lastEffect+1, p.plan.Now(), p.portFree[0]+b-1+nic.RxLatency)
		p.advance(e)
		last := e - nic.RxLatency
		p.inputs = append(p.inputs, cosim.Frame{Port: 0, Cycle: last + 1 - b, Data: data})
		p.portFree[0] = last + 1
		require.NoError(t, p.plan.Receive(data, last))
		p.inputAt[e] = true
	case behaviour.Post, behaviour.PostRecv:
		rec := nic.AppendSendCommand(nil, behaviour.QPN, s.WR)
		if s.Kind == behaviour.PostRecv {
			rec = nic.AppendRecvCommand(nil, behaviour.QPN, s.RR)
		}
		b := modeltest.Beats(len(rec), p.width)
		e = max(nominal, p.lastEffect+1, p.plan.Now(), p.portFree[1]+b-1+nic.CmdLatency)
		p.advance(e)
		last := e - nic.CmdLatency
		p.inputs = append(p.inputs, cosim.Frame{Port: 1, Cycle: last + 1 - b, Data: rec})
		p.portFree[1] = last + 1
		require.NoError(t, p.plan.Command(rec, last))
		p.inputAt[e] = true
	case behaviour.Poke:
		e = max(nominal, p.lastEffect+1, p.plan.Now())
		p.advance(e)
		p.mem.Write(s.Poke.Addr, s.Poke.Data)
		p.pokes = append(p.pokes, bhvPoke{e, s.Poke})
	case behaviour.Expect:
		e = max(nominal, p.lastEffect, p.plan.Now())
		p.advance(e)
	default:
		t.Fatalf("step %d: kind %v", i, s.Kind)
	}
	if e > nominal {
		p.delays = append(p.delays, fmt.Sprintf("step %d (%v at %d) +%d", i, s.Kind, s.At, e-nominal))
	}
	p.shift = e - p.base - s.At
	p.lastEffect = e
	p.atCycles[s.At] = append(p.atCycles[s.At], e)
	if s.Kind != behaviour.Expect {
		return
	}

	end := p.drain(e)
	p.drains = append(p.drains, bhvDrain{step: i, from: e, to: end})
	p.lastEffect = end
	// Golden-only APIs, on the planner (whose inputs the twin gets too):
	// after the drain, as the golden case looks after its polls.
	where := fmt.Sprintf("planner, step %d (cycle %d at RTL cycle %d, drained at %d)", i, s.At, e, end)
	if d := behaviour.DiffPlanner(where, p.plan.Node(), s, p.base+p.shift); d != "" {
		t.Error(d)
	}
}

// checkFrames compares the DUT's out0 frames with the case's: each frame
// belongs to the Expect step in whose drain it was decided.
func (p *bhvPlan) checkFrames(net []cosim.Frame) {
	got := make([][][]byte, len(p.drains))
	for _, f := range net {
		if bhvIsHold(f.Data) {
			continue
		}
		d := f.Cycle - nicDMALatency - nic.TxExtra
		k := slices.IndexFunc(p.drains, func(dr bhvDrain) bool { return d >= dr.from && d <= dr.to })
		if k < 0 {
			p.t.Errorf("DUT frame decided at cycle %d, in no Expect step's drain: %s", d, behaviour.Summary(f.Data))
			continue
		}
		got[k] = append(got[k], f.Data)
	}
	for k, dr := range p.drains {
		s := p.c.Steps[dr.step]
		want := make([][]byte, len(s.Out))
		for i, f := range s.Out {
			want[i] = behaviour.Build(behaviour.NodeEnd, behaviour.PeerEnd, f)
		}
		where := fmt.Sprintf("DUT out0, step %d (cycle %d, RTL cycles %d..%d)", dr.step, s.At, dr.from, dr.to)
		if d := behaviour.DiffFrames(where, got[k], want); d != "" {
			p.t.Error(d)
		}
	}
}

// checkCompletionCycles checks the planner's completions per Expect step
// (made after the previous step's drain, up to the end of its own) and
// their cycles: a completion of case cycle x is made at the RTL cycle of a
// step of cycle x. The NIC's completion record carries no cycle.
func (p *bhvPlan) checkCompletionCycles(comps []rc.Completion) {
	var from uint64
	for _, dr := range p.drains {
		s := p.c.Steps[dr.step]
		var got []rc.Completion
		for _, c := range comps {
			if c.Cycle >= from && c.Cycle <= dr.to {
				got = append(got, c)
			}
		}
		from = dr.to + 1
		ok := len(got) == len(s.Comps)
		for i := 0; ok && i < len(got); i++ {
			w := s.Comps[i]
			ok = slices.Contains(p.atCycles[w.Cycle], got[i].Cycle)
			w.Cycle = got[i].Cycle
			ok = ok && w == got[i]
		}
		if !ok {
			p.t.Errorf("planner, step %d (cycle %d): completions\n%s\nwant (RTL cycles of the case's: %v)\n%s", dr.step, s.At,
				behaviour.List(got), p.mapped(s.Comps), behaviour.List(s.Comps))
		}
	}
}

// checkEvents checks the planner's OnEvent reports: the case's, each at
// the RTL cycle of a step of its case cycle.
func (p *bhvPlan) checkEvents() {
	ok := len(p.events) == len(p.c.Events)
	for i := 0; ok && i < len(p.events); i++ {
		w := p.c.Events[i]
		ok = slices.Contains(p.atCycles[w.Cycle], p.events[i].Cycle)
		w.Cycle = p.events[i].Cycle
		ok = ok && w == p.events[i]
	}
	if !ok {
		var cycles [][]uint64
		for _, e := range p.c.Events {
			cycles = append(cycles, p.atCycles[e.Cycle])
		}
		p.t.Errorf("planner OnEvent reports:\n%s\nwant (RTL cycles of the case's: %v)\n%s", behaviour.List(p.events),
			cycles, behaviour.List(p.c.Events))
	}
}

// mapped lists the RTL cycles of each completion's case cycle.
func (p *bhvPlan) mapped(cs []rc.Completion) [][]uint64 {
	var m [][]uint64
	for _, c := range cs {
		m = append(m, p.atCycles[c.Cycle])
	}
	return m
}

// bhvNoCycle returns cs with their cycles 0, as completion records carry them.
func bhvNoCycle(cs []rc.Completion) []rc.Completion {
	var out []rc.Completion
	for _, c := range cs {
		out = append(out, nicCompKey(c))
	}
	return out
}

// bhvCheckCSRs reads every counter and the QP's state over the CSR bus and
// compares them with the case: its QP counters, the node counters all 0
// (golden's node-level ones and the NIC's own: no command refused or bad).
func bhvCheckCSRs(t *testing.T, r *nicRun, c *behaviour.Case) {
	var addrs []uint32
	for n := range nic.NumNodeCounters {
		addrs = append(addrs, nic.NodeCounterAddr(nic.NodeCounter(n)))
	}
	for n := int(nic.FirstQPCounter); n < rc.NumCounters; n++ {
		addrs = append(addrs, nic.QPCounterAddr(0, rc.Counter(n)))
	}
	addrs = append(addrs, nic.QPAddr(0, nic.QPStateReg))
	rep, err := r.m.Step(context.Background(), cosim.Window{Target: r.m.Cycle() + uint64(2*len(addrs)+4), CSRReads: addrs})
	require.NoError(t, err)
	require.Len(t, rep.CSRData, len(addrs))
	got := map[uint32]uint32{}
	for _, d := range rep.CSRData {
		got[d.Addr] = d.Data
	}
	for n := range nic.NumNodeCounters {
		if v := got[nic.NodeCounterAddr(nic.NodeCounter(n))]; v != 0 {
			t.Errorf("DUT node counter %v = %d, want 0", nic.NodeCounter(n), v)
		}
	}
	for cn := range c.Counters {
		require.GreaterOrEqual(t, cn, nic.FirstQPCounter, "case counter %v: the NIC counts it per node, not per QP", cn)
	}
	for n := int(nic.FirstQPCounter); n < rc.NumCounters; n++ {
		cn := rc.Counter(n)
		if v := got[nic.QPCounterAddr(0, cn)]; uint64(v) != c.Counters[cn] {
			t.Errorf("DUT QP counter %v = %d, want %d", cn, v, c.Counters[cn])
		}
	}
	want := nic.QPStateRTS
	if c.InError {
		want = nic.QPStateError
	}
	if s := nic.QPState(got[nic.QPAddr(0, nic.QPStateReg)]); s != want {
		t.Errorf("DUT QP state %v, want %v", s, want)
	}
}

// bhvCheckMemory reads the case's WantMem from the DUT's memory.
func bhvCheckMemory(t *testing.T, r *nicRun, c *behaviour.Case) {
	var reads []cosim.Mem
	for _, ch := range c.WantMem {
		for off := 0; off < len(ch.Data); off += 0x8000 {
			reads = append(reads, cosim.Mem{Addr: ch.Addr + uint64(off), Length: uint32(min(0x8000, len(ch.Data)-off))})
		}
	}
	rep, err := r.m.Step(context.Background(), cosim.Window{Target: r.m.Cycle(), MemReads: reads})
	require.NoError(t, err)
	require.Len(t, rep.MemData, len(reads))
	k := 0
	for _, ch := range c.WantMem {
		var got []byte
		for off := 0; off < len(ch.Data); off += 0x8000 {
			got = append(got, rep.MemData[k].Data...)
			k++
		}
		if i := behaviour.FirstDiff(got, ch.Data); i >= 0 {
			t.Errorf("DUT memory at %#x+%d: %#02x, want %#02x (%d bytes checked)", ch.Addr, i, got[i], ch.Data[i], len(ch.Data))
		}
	}
}

// bhvRegions are the parts of memory the case touches, in MEM_READ-sized
// pieces: the memory regions, its chunks, every work request's local
// buffer and every receive buffer.
func bhvRegions(c *behaviour.Case) []cosim.Mem {
	type span struct{ addr, n uint64 }
	var spans []span
	for _, mr := range behaviour.MRs() {
		spans = append(spans, span{mr.Base, mr.Length})
	}
	for _, ch := range slices.Concat(c.Mem, c.WantMem) {
		spans = append(spans, span{ch.Addr, uint64(len(ch.Data))})
	}
	for _, s := range c.Steps {
		switch s.Kind {
		case behaviour.Post:
			spans = append(spans, span{s.WR.LocalAddr, uint64(s.WR.Length)})
		case behaviour.PostRecv:
			spans = append(spans, span{s.RR.Addr, uint64(s.RR.Length)})
		case behaviour.Poke:
			spans = append(spans, span{s.Poke.Addr, uint64(len(s.Poke.Data))})
		}
	}
	var regs []cosim.Mem
	for _, s := range spans {
		for off := uint64(0); off < s.n; off += 0x8000 {
			regs = append(regs, cosim.Mem{Addr: s.addr + off, Length: uint32(min(0x8000, s.n-off))})
		}
	}
	return regs
}
