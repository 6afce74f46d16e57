package testbench

import (
	"bytes"
	"fmt"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/golden/nic"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/device/nicdev"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// NIC is the host of a NIC model (top "nic") on a bench: it posts work
// requests on the NIC's command port (in1), takes completions from its
// completion port (out1) and reads and writes its host memory
// (rtl/nic/README.md, "Host interface"). The golden model checks every
// completion, per QP, and every frame on the wire.
type NIC struct {
	b      *Bench
	model  string
	ready  uint64         // the first cycle a post may arrive: the setup written
	golden *nicdev.Golden // its memory and QPs, for the checks against golden
	qps    []rc.QPConfig  // QP slot q holds qps[q]
}

// settle is how long after its last setup write a NIC takes its first
// post, as the [[rdma]] workload leaves it (harness/workload/rdma).
const settle = 16

// SetUpNIC sets a NIC model up as its host does before traffic: its
// address and clock, memory regions and QPs (nicdev.Setup), written into
// the DUT over the CSR bus from cycle 0 (one write a cycle, QPs last) and
// into its golden model alike; Setup.Init is its host memory's first
// contents. Zero queue depths and read limits of a QP take the values the
// models are built with (nicdev.Params), a zero clock the scenario's. It
// comes before the bench runs anything; the NIC's posts wait until its
// setup is written.
func (b *Bench) SetUpNIC(model string, s nicdev.Setup) *NIC {
	b.t.Helper()
	call := fmt.Sprintf("SetUpNIC(%q)", model)
	b.usable(call)
	top, ok := b.s.Top(model)
	switch {
	case !ok:
		b.fatal(call, "no model %q", model)
	case top.Name != "nic":
		b.fatal(call, "model %s is a %s, not a NIC (top \"nic\")", model, top.Name)
	}
	if s.Node.ClockHz == 0 {
		s.Node.ClockHz = b.s.ClockHz()
	}
	s.QPs = append([]rc.QPConfig(nil), s.QPs...)
	for i := range s.QPs {
		q := &s.QPs[i]
		q.MaxReads = cmpOr(q.MaxReads, nicdev.Params["MAX_READS"])
		q.SQDepth = cmpOr(q.SQDepth, nicdev.Params["SQ_DEPTH"])
		q.RQDepth = cmpOr(q.RQDepth, nicdev.Params["RQ_DEPTH"])
	}
	writes, err := s.CSRWrites()
	if err != nil {
		b.fatal(call, "%v", err)
	}
	n := &NIC{b: b, model: model}
	err = b.s.Configure(model, func(m *engine.SetupModel) error {
		g, ok := m.Golden.(*nicdev.Golden)
		if !ok {
			return fmt.Errorf("model %s has no NIC golden model", model)
		}
		if err := g.Configure(&s); err != nil {
			return err
		}
		n.golden, n.qps = g, s.QPs
		n.ready = uint64(m.Configure(writes)) + settle
		mem := make([]cosim.Mem, 0, len(s.Init))
		for _, blk := range s.Init {
			mem = append(mem, cosim.Mem{Addr: blk.Addr, Data: bytes.Clone(blk.Data)})
		}
		m.InitMemory(mem)
		return nil
	})
	if err != nil {
		b.fatal(call, "%v", err)
	}
	return n
}

func cmpOr(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// Ready is the first cycle the NIC takes posts: its setup is written.
func (n *NIC) Ready() uint64 { return n.ready }

// PostSend posts a send work request (SEND, WRITE, READ, with or without
// immediate) on QP qpn: a command record into in1, from Now or once the
// setup is written.
func (n *NIC) PostSend(qpn roce.QPN, wr rc.WorkRequest) *Sent {
	n.b.t.Helper()
	return n.b.Send(n.model+".in1", nic.AppendSendCommand(nil, qpn, wr), At(max(n.b.Now(), n.ready)))
}

// PostRecv posts a receive buffer on QP qpn.
func (n *NIC) PostRecv(qpn roce.QPN, rr rc.RecvRequest) *Sent {
	n.b.t.Helper()
	return n.b.Send(n.model+".in1", nic.AppendRecvCommand(nil, qpn, rr), At(max(n.b.Now(), n.ready)))
}

// ExpectCompletion wants the next completion record out of the NIC (out1)
// to be want (its Cycle aside), by the deadline, and returns it decoded
// with the cycle it left. Completions of different QPs come in any order
// between them; the golden model checks each QP's in order.
func (n *NIC) ExpectCompletion(want rc.Completion, opts ...ExpectOption) rc.Completion {
	n.b.t.Helper()
	want.Cycle = 0
	got := n.b.Expect(n.model+".out1", completion{want}, opts...)
	c, _ := nic.DecodeCompletion(got.Data)
	c.Cycle = got.Cycle
	return c
}

// WriteMemory writes the NIC's host memory at Now, in a window of no
// cycles; the golden model's memory takes the same write. Write memory
// the NIC is not reading at the time.
func (n *NIC) WriteMemory(addr uint64, data []byte) {
	n.b.t.Helper()
	call := fmt.Sprintf("WriteMemory(%#x)", addr)
	n.b.usable(call)
	var ms []cosim.Mem
	for off := 0; off < len(data); off += cosim.MaxMemLen {
		ms = append(ms, cosim.Mem{Addr: addr + uint64(off), Data: bytes.Clone(data[off:min(len(data), off+cosim.MaxMemLen)])})
	}
	if _, err := n.b.s.Access(n.b.ctx, n.model, engine.Access{MemWrites: ms}); err != nil {
		n.b.fatal(call, "%v", err)
	}
}

// ReadMemory reads length bytes of the NIC's host memory at Now.
func (n *NIC) ReadMemory(addr uint64, length int) []byte {
	n.b.t.Helper()
	call := fmt.Sprintf("ReadMemory(%#x, %d)", addr, length)
	n.b.usable(call)
	var ms []cosim.Mem
	for off := 0; off < length; off += cosim.MaxMemLen {
		ms = append(ms, cosim.Mem{Addr: addr + uint64(off), Length: uint32(min(length-off, cosim.MaxMemLen))})
	}
	rep, err := n.b.s.Access(n.b.ctx, n.model, engine.Access{MemReads: ms})
	if err != nil {
		n.b.fatal(call, "%v", err)
	}
	out := make([]byte, 0, length)
	for _, d := range rep.Mem {
		out = append(out, d...)
	}
	return out
}

// CheckMemory compares length bytes of the NIC's host memory at addr, as
// they are at Now, with the golden model's host memory: every byte the
// DUT wrote (a WRITE, a SEND, a READ response) must be the one golden
// wrote. The test fails at the first difference, with the number of bytes
// that differ and both memories in hex around it. The two write a
// message's bytes at their own cycles: check when the NIC has nothing in
// flight (RunUntilIdle).
func (n *NIC) CheckMemory(addr uint64, length int) {
	n.b.t.Helper()
	call := fmt.Sprintf("CheckMemory(%#x, %d)", addr, length)
	n.b.usable(call)
	if length <= 0 {
		n.b.fatal(call, "no bytes to compare")
	}
	got := n.ReadMemory(addr, length)
	want := make([]byte, length)
	n.golden.Memory().Read(addr, want)
	if bytes.Equal(want, got) {
		return
	}
	i := firstDiff(want, got)
	diff := 0
	for k := range want {
		if want[k] != got[k] {
			diff++
		}
	}
	from, to := max(0, i-8), min(length, i+24)
	n.b.fatal(call, "%s's host memory differs from the golden model's at %#x (%d of %d bytes differ)\n  golden %#x: % x\n  DUT    %#x: % x",
		n.model, addr+uint64(i), diff, length, addr+uint64(from), want[from:to], addr+uint64(from), got[from:to])
}

// CheckQPStates reads the state register of every QP the setup gave the
// NIC (rtl/nic/README.md, "CSR map") and compares it with the state of
// the golden model's QP: ready to send, or in error after a fatal
// completion. The test fails naming the first QP whose states differ.
func (n *NIC) CheckQPStates() {
	n.b.t.Helper()
	const call = "CheckQPStates"
	n.b.usable(call)
	addrs := make([]uint32, len(n.qps))
	for q := range n.qps {
		addrs[q] = nic.QPAddr(q, nic.QPStateReg)
	}
	rep, err := n.b.s.Access(n.b.ctx, n.model, engine.Access{CSRReads: addrs})
	if err != nil {
		n.b.fatal(call, "%v", err)
	}
	node := n.golden.Timed().Node()
	for q, c := range n.qps {
		want := nic.QPStateRTS
		if node.QPInError(c.QPN) {
			want = nic.QPStateError
		}
		if got := nic.QPState(rep.CSR[q]); got != want {
			n.b.fatal(call, "%s's QP %d (QPN %v) is in state %v, golden's in %v", n.model, q, c.QPN, got, want)
		}
	}
}

// completion wants a completion record, field by field.
type completion struct{ want rc.Completion }

func (c completion) Match(got []byte) (bool, []scoreboard.FieldDiff) {
	g, err := nic.DecodeCompletion(got)
	if err != nil {
		return false, []scoreboard.FieldDiff{{Field: "record", Want: "a completion", Got: err.Error()}}
	}
	var diffs []scoreboard.FieldDiff
	add := func(name string, w, g any) {
		if w != g {
			diffs = append(diffs, scoreboard.FieldDiff{Field: "completion." + name, Want: fmt.Sprint(w), Got: fmt.Sprint(g)})
		}
	}
	w := c.want
	add("QPN", w.QPN, g.QPN)
	add("Recv", w.Recv, g.Recv)
	add("ID", fmt.Sprintf("%#x", w.ID), fmt.Sprintf("%#x", g.ID))
	add("Op", w.Op, g.Op)
	add("Status", w.Status, g.Status)
	add("Bytes", w.Bytes, g.Bytes)
	add("HasImm", w.HasImm, g.HasImm)
	add("Imm", fmt.Sprintf("%#x", w.Imm), fmt.Sprintf("%#x", g.Imm))
	return len(diffs) == 0, diffs
}

func (c completion) Want() []byte   { return nic.AppendCompletion(nil, c.want) }
func (c completion) String() string { return "completion " + c.want.String() }
