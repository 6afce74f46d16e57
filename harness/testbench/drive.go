package testbench

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gopacket/gopacket"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/engine"
)

// Now is the cycle the bench stands at: everything before it has run, and
// a frame sent now arrives at it.
func (b *Bench) Now() uint64 { return b.s.Cycle() }

// Sent is a frame sent into an input port. Once the DUT has taken it,
// First and Last are the cycles its first and last beats went in.
type Sent struct {
	Port  string
	Data  []byte
	Cycle uint64 // offered from this cycle on
	b     *Bench

	first, last uint64
	taken       bool
}

// Taken reports whether the DUT has taken the whole frame.
func (s *Sent) Taken() bool { return s.taken }

// First is the cycle the frame's first beat went in.
func (s *Sent) First() uint64 {
	s.b.t.Helper()
	s.need("First")
	return s.first
}

// Last is the cycle the frame's last beat went in.
func (s *Sent) Last() uint64 {
	s.b.t.Helper()
	s.need("Last")
	return s.last
}

func (s *Sent) need(call string) {
	s.b.t.Helper()
	if !s.taken {
		s.b.fatal("Sent."+call, "the frame sent on %s from cycle %d is not taken yet (the bench is at cycle %d; run on, or RunUntil(sent.Taken, ...))",
			s.Port, s.Cycle, s.b.Now())
	}
}

// SendOption modifies Send.
type SendOption func(*sendOptions)

type sendOptions struct {
	at    uint64
	hasAt bool
	bad   bool
}

// At offers the frame from a cycle at or after Now instead of Now.
func At(cycle uint64) SendOption { return func(o *sendOptions) { o.at, o.hasAt = cycle, true } }

// Bad marks the frame bad: tuser[0] on its last beat, as a MAC marks a
// frame whose FCS failed.
func Bad() SendOption { return func(o *sendOptions) { o.bad = true } }

// Send offers a frame on an input port ("dut.in0") from Now (or At a
// later cycle); the DUT takes it as soon as the port is free, after the
// frames sent there before it. It returns the frame's record, which says
// when the DUT took it. The bench keeps its own copy of frame.
func (b *Bench) Send(port string, frame []byte, opts ...SendOption) *Sent {
	b.t.Helper()
	call := fmt.Sprintf("Send(%q)", port)
	b.usable(call)
	k := b.inPort(call, port)
	var o sendOptions
	for _, f := range opts {
		f(&o)
	}
	at := b.Now()
	if o.hasAt {
		if o.at < at {
			b.fatal(call, "At(%d) is in the past: the bench is at cycle %d", o.at, at)
		}
		at = o.at
	}
	if len(frame) == 0 {
		b.fatal(call, "an empty frame")
	}
	s := &Sent{Port: port, Data: bytes.Clone(frame), Cycle: at, b: b}
	if err := b.s.Send(k.model, k.port, at, s.Data, o.bad); err != nil {
		b.fatal(call, "%v", err)
	}
	b.pending[k] = append(b.pending[k], s)
	return s
}

// Packet serialises gopacket layers into a frame, lengths and checksums
// computed, the ICRC too when it holds a RoCEv2 packet (roce.SerializeLayers).
func (b *Bench) Packet(ls ...gopacket.SerializableLayer) []byte {
	b.t.Helper()
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	serialize := gopacket.SerializeLayers
	if slices.ContainsFunc(ls, func(l gopacket.SerializableLayer) bool { return l.LayerType() == roce.LayerTypeBTH }) {
		serialize = roce.SerializeLayers // the ICRC needs the finished headers
	}
	if err := serialize(buf, opts, ls...); err != nil {
		b.fatal("Packet", "%v", err)
	}
	return bytes.Clone(buf.Bytes())
}

// inPort resolves an input port for call.
func (b *Bench) inPort(call, port string) portKey {
	b.t.Helper()
	model, p, in, err := b.s.Port(port)
	if err != nil {
		b.fatal(call, "%v", err)
	}
	if !in {
		top, _ := b.s.Top(model)
		b.fatal(call, "%s is an output port: frames are sent on input ports (%s.in0..%s.in%d)", port, model, model, top.In-1)
	}
	return portKey{model, p}
}

// outPort resolves an output port for call.
func (b *Bench) outPort(call, port string) *portLog {
	b.t.Helper()
	model, p, in, err := b.s.Port(port)
	if err != nil {
		b.fatal(call, "%v", err)
	}
	if in {
		top, _ := b.s.Top(model)
		b.fatal(call, "%s is an input port: frames are expected on output ports (%s.out0..%s.out%d)", port, model, model, top.Out-1)
	}
	k := portKey{model, p}
	l := b.out[k]
	if l == nil {
		l = &portLog{name: port}
		b.out[k] = l
	}
	return l
}

// Out is every frame an output port has sent so far, claimed by an
// expectation or not.
func (b *Bench) Out(port string) []Received {
	b.t.Helper()
	return slices.Clone(b.outPort(fmt.Sprintf("Out(%q)", port), port).frames)
}

// Run runs every model for cycles cycles.
func (b *Bench) Run(cycles uint64) {
	b.t.Helper()
	b.runTo("Run", b.Now()+cycles)
}

// RunTo runs every model up to cycle (exclusive): Now is cycle after it.
func (b *Bench) RunTo(cycle uint64) {
	b.t.Helper()
	call := fmt.Sprintf("RunTo(%d)", cycle)
	if cycle < b.Now() {
		b.fatal(call, "cycle %d is in the past: the bench is at cycle %d", cycle, b.Now())
	}
	b.runTo(call, cycle)
}

// RunUntil runs until cond holds, checked every few cycles (64), and
// returns the cycle it held at; the test fails if it does not hold within
// cycles.
func (b *Bench) RunUntil(cond func() bool, within uint64) uint64 {
	b.t.Helper()
	call := fmt.Sprintf("RunUntil(..., %d)", within)
	deadline := b.Now() + within
	for !cond() {
		if b.Now() >= deadline {
			b.fatal(call, "the condition did not hold by cycle %d", deadline)
		}
		b.runTo(call, min(deadline, b.Now()+b.grain))
	}
	return b.Now()
}

func (b *Bench) runTo(call string, target uint64) {
	b.t.Helper()
	b.usable(call)
	if err := b.s.RunTo(b.ctx, target); err != nil {
		b.fatal(call, "%v", err)
	}
}

// RunUntilIdle runs until nothing is left to do for now: every frame sent
// taken, nothing in flight in a model or on a link, every frame the golden
// models expect out. It returns the cycle; the test fails if that takes
// longer than within cycles.
func (b *Bench) RunUntilIdle(within uint64) uint64 {
	b.t.Helper()
	call := fmt.Sprintf("RunUntilIdle(%d)", within)
	b.usable(call)
	deadline := b.Now() + within
	for !b.s.Idle() {
		if b.Now() >= deadline {
			b.fatal(call, "still busy at cycle %d", deadline)
		}
		b.runTo(call, min(deadline, b.Now()+b.grain))
	}
	return b.Now()
}

// WriteCSR writes a register by name, "model.NAME" ("sw.CTRL",
// "sw.port1.tx_frames"): the registers and counters of the model's top
// (rtl/<dev>/README.md). The write is on the bus at Now and in force from
// the next cycle; the bench moves on a cycle. The golden model hears it.
func (b *Bench) WriteCSR(reg string, value uint32) {
	b.t.Helper()
	call := fmt.Sprintf("WriteCSR(%q)", reg)
	b.usable(call)
	model, addr := b.register(call, reg, true)
	if _, err := b.s.Access(b.ctx, model, engine.Access{CSRWrites: []cosim.CSR{{Addr: addr, Data: value}}}); err != nil {
		b.fatal(call, "%v", err)
	}
}

// ReadCSR reads a register or counter by name (WriteCSR), over the CSR
// bus from Now; the bench moves on by the read's cycles.
func (b *Bench) ReadCSR(reg string) uint32 {
	b.t.Helper()
	return b.readCSRs(fmt.Sprintf("ReadCSR(%q)", reg), reg)[0]
}

// ReadCSRs reads several registers of one model, one after the other.
func (b *Bench) ReadCSRs(regs ...string) []uint32 {
	b.t.Helper()
	return b.readCSRs(fmt.Sprintf("ReadCSRs(%s)", quoteAll(regs)), regs...)
}

func (b *Bench) readCSRs(call string, regs ...string) []uint32 {
	b.t.Helper()
	b.usable(call)
	if len(regs) == 0 {
		b.fatal(call, "no register named")
	}
	var model string
	var addrs []uint32
	for _, r := range regs {
		m, a := b.register(call, r, false)
		if model != "" && m != model {
			b.fatal(call, "%s and %s are registers of two models: read each model's apart", regs[0], r)
		}
		model = m
		addrs = append(addrs, a)
	}
	rep, err := b.s.Access(b.ctx, model, engine.Access{CSRReads: addrs})
	if err != nil {
		b.fatal(call, "%v", err)
	}
	return rep.CSR
}

// register resolves "model.NAME" to a model and a CSR address.
func (b *Bench) register(call, reg string, write bool) (string, uint32) {
	b.t.Helper()
	model, name, ok := strings.Cut(reg, ".")
	top, found := b.s.Top(model)
	switch {
	case !ok:
		b.fatal(call, "%q names no register: registers are named model.NAME (sw.CTRL, sw.port1.tx_frames)", reg)
	case !found:
		b.fatal(call, "no model %q", model)
	}
	if a, ok := top.Registers[name]; ok {
		return model, a
	}
	if a, ok := top.Counters[name]; ok {
		return model, a // counters are registers too: a write sets them
	}
	if a, ok := top.ReadOnly[name]; ok {
		if write {
			b.fatal(call, "%s is read-only", reg)
		}
		return model, a
	}
	b.fatal(call, "top %s has no register or counter %q (%s)", top.Name, name, known(top))
	return "", 0
}

// known lists a top's register names for an error, and how many counters
// it has besides.
func known(top engine.Top) string {
	var names []string
	for n := range top.Registers {
		names = append(names, n)
	}
	for n := range top.ReadOnly {
		names = append(names, n)
	}
	sort.Strings(names)
	s := "registers: " + strings.Join(names, " ")
	if len(names) == 0 {
		s = "no registers by name"
	}
	if len(top.Counters) > 0 {
		var cs []string
		for n := range top.Counters {
			cs = append(cs, n)
		}
		sort.Strings(cs)
		s += fmt.Sprintf("; %d counters such as %s", len(cs), cs[0])
	}
	return s
}

func quoteAll(s []string) string {
	q := make([]string, len(s))
	for i, x := range s {
		q[i] = fmt.Sprintf("%q", x)
	}
	return strings.Join(q, ", ")
}
