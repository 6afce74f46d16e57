package cosim

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Window is one step of simulated time for one model: the inputs that
// arrive during [current cycle, Target) and the host accesses to apply
// before it runs.
type Window struct {
	// Target: run until this cycle (exclusive). It may equal the current
	// cycle (a window of length 0: CSR and memory accesses only).
	Target uint64
	// Frames enter the model's input ports, in order. Each Cycle is the
	// arrival cycle, within the window and not before an earlier frame on
	// the same port. Step numbers the frames: it writes Seq into each
	// element of this slice (per port, counting from 0 over the run).
	Frames []Frame
	// CSRWrites are applied in order, then CSRReads are answered in order.
	CSRWrites []CSR
	CSRReads  []uint32
	// MemWrites are applied in order, then MemReads (Addr and Length) are
	// answered in order.
	MemWrites []Mem
	MemReads  []Mem
}

// Reply is a model's answer to one Window. The caller owns every slice in
// it, frame and memory data included: Step never touches them again.
type Reply struct {
	// Accepts: input frames the DUT finished taking during the window,
	// with their first- and last-beat cycles, in order per port.
	Accepts []Accept
	// Frames the model emitted, completed during the window, in order per
	// port; Cycle is the cycle its first beat left.
	Frames []Frame
	// CSRData answers Window.CSRReads and MemData answers
	// Window.MemReads, one for one, in order.
	CSRData []CSR
	MemData []Mem
	// Done closes the reply: Done.Cycle is the target reached.
	Done Done
}

// Value returns the value of key in the HELLO text ("name", "top",
// "param.DATA_WIDTH").
func (h Hello) Value(key string) (string, bool) {
	for line := range strings.SplitSeq(h.Text, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// Params returns the Verilog parameters in the HELLO text, without the
// "param." prefix.
func (h Hello) Params() map[string]string {
	p := map[string]string{}
	for line := range strings.SplitSeq(h.Text, "\n") {
		if k, v, ok := strings.Cut(line, "="); ok {
			if name, ok := strings.CutPrefix(k, "param."); ok {
				p[name] = v
			}
		}
	}
	return p
}

// checkHello returns why h is unacceptable, or "".
func checkHello(h *Hello) string {
	if h.DataWidth == 0 || h.DataWidth%8 != 0 {
		return fmt.Sprintf("data width %d bits is not a positive multiple of 8", h.DataWidth)
	}
	for i, line := range strings.Split(h.Text, "\n") {
		if line == "" {
			continue
		}
		if k, _, ok := strings.Cut(line, "="); !ok || k == "" {
			return fmt.Sprintf("text line %d is not key=value: %q", i+1, line)
		}
	}
	if n, ok := h.Value("name"); !ok || n == "" {
		return "text has no name=<model> line"
	}
	return ""
}

// Handshake reads the model's HELLO, checks it (version, a data width
// that is a multiple of 8, "key=value" text with a name) and answers with
// ack. It is bounded by ctx and the Start timeout. The first window starts
// at HELLO's cycle stamp.
func (m *Model) Handshake(ctx context.Context, ack HelloAck) (Hello, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	const op = "handshake"
	if err := m.usable(op); err != nil {
		return Hello{}, err
	}
	if m.shook {
		return Hello{}, &ModelError{Model: m.name, Op: op, Err: errors.New("handshake already done")}
	}
	if ack.SrcGapPct > 100 || ack.SinkStallPct > 100 {
		return Hello{}, &ModelError{Model: m.name, Op: op, Err: fmt.Errorf("HELLO_ACK percentages %d and %d: want 0..100", ack.SrcGapPct, ack.SinkStallPct)}
	}
	if ack.Trace && ack.TracePath == "" {
		return Hello{}, &ModelError{Model: m.name, Op: op, Err: errors.New("HELLO_ACK asks for a trace but gives no path")}
	}
	end := m.begin(ctx, m.t.Start)
	defer end()
	if err := m.dec.Read(&m.msg); err != nil {
		return Hello{}, m.fail(ctx, "handshake: waiting for HELLO", err)
	}
	switch m.msg.Type {
	case MsgHello:
	case MsgError:
		return Hello{}, m.fail(ctx, "handshake: waiting for HELLO", m.remote(&m.msg))
	default:
		return Hello{}, m.fail(ctx, "handshake", m.perr(m.msg.Type, "expected HELLO, got %s", m.msg.Type))
	}
	h := m.msg.Hello
	if why := checkHello(&h); why != "" {
		return Hello{}, m.fail(ctx, "handshake", m.perr(MsgHello, "%s", why))
	}
	if err := m.enc.HelloAck(m.msg.Cycle, ack); err != nil {
		return Hello{}, &ModelError{Model: m.name, Op: op, Err: err}
	}
	if err := m.enc.Flush(); err != nil {
		return Hello{}, m.fail(ctx, "handshake: sending HELLO_ACK", m.sentError(err))
	}
	m.hello, m.cycle, m.sent, m.shook = h, m.msg.Cycle, m.msg.Cycle, true
	m.inSeq = make([]uint32, h.InPorts)
	m.lastIn = make([]uint64, h.InPorts)
	m.pending = make([]cycleQueue, h.InPorts)
	m.outSeq = make([]uint32, h.OutPorts)
	m.outLast = make([]uint64, h.OutPorts)
	return h, nil
}

// checkWindow validates w against the model and the protocol before any
// byte is sent; a bad window is the caller's bug and leaves the Model
// usable.
func (m *Model) checkWindow(w *Window) error {
	start := m.sent
	if w.Target < start {
		return fmt.Errorf("target cycle %d is before the model's cycle %d", w.Target, start)
	}
	last := append(m.tmpLast[:0], m.lastIn...)
	m.tmpLast = last
	for i := range w.Frames {
		f := &w.Frames[i]
		switch {
		case int(f.Port) >= len(m.inSeq):
			return fmt.Errorf("frame %d: port %d, but the model has %d input ports", i, f.Port, len(m.inSeq))
		case len(f.Data) == 0 || len(f.Data) > MaxFrameLen:
			return fmt.Errorf("frame %d: %d bytes, want 1..%d", i, len(f.Data), MaxFrameLen)
		case f.Cycle < start || f.Cycle >= w.Target:
			return fmt.Errorf("frame %d: arrival cycle %d outside the window [%d, %d)", i, f.Cycle, start, w.Target)
		}
		if f.Cycle < last[f.Port] {
			return fmt.Errorf("frame %d: arrival cycle %d on port %d is before the previous frame's %d", i, f.Cycle, f.Port, last[f.Port])
		}
		last[f.Port] = f.Cycle
	}
	for i, mw := range w.MemWrites {
		if len(mw.Data) > MaxMemLen {
			return fmt.Errorf("memory write %d: %d bytes, above the maximum %d", i, len(mw.Data), MaxMemLen)
		}
	}
	for i, mr := range w.MemReads {
		if mr.Length > MaxMemLen {
			return fmt.Errorf("memory read %d: %d bytes, above the maximum %d", i, mr.Length, MaxMemLen)
		}
	}
	return nil
}

// Step runs one window: it sends the window's messages in one write
// (FRAME*, CSR_WRITE*, CSR_READ*, MEM_WRITE*, MEM_READ*, RUN) and reads
// the reply up to DONE, checking it against the window and the
// conversation so far (ports, sequence numbers, cycles within the window,
// one answer per read, DONE's counts and cycle). It is bounded by ctx and
// the Step timeout, and returns as soon as the model's process dies.
//
// Buffers: Step copies what it needs from w before it returns, so the
// caller may reuse w's slices afterwards; Step writes Seq into each
// element of w.Frames. The caller owns everything in the Reply.
func (m *Model) Step(ctx context.Context, w Window) (Reply, error) {
	var r Reply
	if err := m.StepInto(ctx, w, &r); err != nil {
		return Reply{}, err
	}
	return r, nil
}

// StepInto is Step, with the reply written into r: it reuses the room of
// r's slices (Accepts, Frames, CSRData, MemData) instead of making new
// ones, so a caller that steps every window saves their allocations. The
// caller must be done with those slices' elements from the previous
// window. The frame and memory data the elements point to are not reused:
// they stay the caller's, as with Step. On error *r is reset to empty.
func (m *Model) StepInto(ctx context.Context, w Window, r *Reply) error {
	*r = Reply{Accepts: r.Accepts[:0], Frames: r.Frames[:0], CSRData: r.CSRData[:0], MemData: r.MemData[:0]}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := m.usable("step"); err != nil {
		return err
	}
	if !m.shook {
		return &ModelError{Model: m.name, Op: "step", Err: errors.New("Step before Handshake")}
	}
	if len(m.flights) > 0 {
		return &ModelError{Model: m.name, Op: "step", Err: fmt.Errorf("Step with %d windows sent and not received: Recv them first", len(m.flights))}
	}
	if err := m.checkWindow(&w); err != nil {
		return &ModelError{Model: m.name, Op: fmt.Sprintf("step to cycle %d", w.Target), Err: err}
	}
	if err := ctx.Err(); err != nil {
		return &ModelError{Model: m.name, Op: fmt.Sprintf("step to cycle %d", w.Target), Err: err}
	}
	start := m.sent
	// The encoder writes a large window in chunks while it builds it, so
	// the step's deadline is armed before the first byte goes out.
	end := m.begin(ctx, m.t.Step)
	defer end()
	m.enc.Reset()
	m.encodeWindow(&w, start)
	if err := m.enc.Flush(); err != nil {
		*r = Reply{}
		return m.fail(ctx, fmt.Sprintf("step to cycle %d: sending the window", w.Target), m.sentError(err))
	}
	fl := flight{start: start, target: w.Target, csrReads: w.CSRReads, memReads: w.MemReads, inSeq: m.inSeq}
	m.growAccepts(&fl, r)
	n, err := m.readReply(&fl, r)
	if err != nil {
		*r = Reply{}
		return m.fail(ctx, fmt.Sprintf("step to cycle %d: waiting for DONE (%d reply messages received)", w.Target, n), err)
	}
	m.cycle, m.sent = w.Target, w.Target
	return nil
}

// keep returns b, data of the message just decoded, for the caller to
// keep: the model's decoder reads into buffers it never writes again
// (newKeepingDecoder), so the bytes need no copy. Pieces are capped so
// that an append by their owner cannot run into the next piece.
func (m *Model) keep(b []byte) []byte {
	return b[:len(b):len(b)]
}

// readReply reads the reply to window fl, ACCEPT*, FRAME*, CSR_DATA*,
// MEM_DATA* (in any order) and DONE, into r, whose slices are empty. It
// returns how many messages it read.
func (m *Model) readReply(fl *flight, r *Reply) (int, error) {
	msg := &m.msg
	start := fl.start
	for n := 0; ; n++ {
		if err := m.dec.Read(msg); err != nil {
			return n, err
		}
		switch msg.Type {
		case MsgAccept:
			a := msg.Accept
			if int(a.Port) >= len(m.pending) {
				return n, m.perr(msg.Type, "port %d, but the model has %d input ports", a.Port, len(m.pending))
			}
			q := &m.pending[a.Port]
			if q.len() == 0 || a.Seq != m.inSeq[a.Port]-uint32(q.len()) || a.Seq >= fl.inSeq[a.Port] {
				if q.len() > 0 && a.Seq == m.inSeq[a.Port]-uint32(q.len()) {
					return n, m.perr(msg.Type, "frame seq %d of port %d: not sent yet (the window sent %d frames there)", a.Seq, a.Port, fl.inSeq[a.Port])
				}
				return n, m.perr(msg.Type, "frame seq %d of port %d: expected the ACCEPT of seq %d (%d frames sent)",
					a.Seq, a.Port, m.inSeq[a.Port]-uint32(q.len()), m.inSeq[a.Port])
			}
			if a.Cycle < q.front() {
				return n, m.perr(msg.Type, "frame seq %d of port %d accepted at cycle %d, before its arrival at %d", a.Seq, a.Port, a.Cycle, q.front())
			}
			if a.LastCycle < start || a.LastCycle >= fl.target {
				return n, m.perr(msg.Type, "frame seq %d of port %d: last beat at cycle %d, outside the window [%d, %d)", a.Seq, a.Port, a.LastCycle, start, fl.target)
			}
			q.pop()
			r.Accepts = append(r.Accepts, a)
		case MsgFrame:
			f := msg.Frame
			if int(f.Port) >= len(m.outSeq) {
				return n, m.perr(msg.Type, "port %d, but the model has %d output ports", f.Port, len(m.outSeq))
			}
			if f.Seq != m.outSeq[f.Port] {
				return n, m.perr(msg.Type, "seq %d on output port %d, want %d", f.Seq, f.Port, m.outSeq[f.Port])
			}
			if f.Cycle >= fl.target {
				return n, m.perr(msg.Type, "first beat at cycle %d, not before the window's end %d", f.Cycle, fl.target)
			}
			if f.Cycle+1 <= m.outLast[f.Port] {
				return n, m.perr(msg.Type, "seq %d on output port %d starts at cycle %d, not after the previous frame's %d", f.Seq, f.Port, f.Cycle, m.outLast[f.Port]-1)
			}
			m.outSeq[f.Port]++
			m.outLast[f.Port] = f.Cycle + 1
			f.Data = m.keep(f.Data)
			r.Frames = append(r.Frames, f)
		case MsgCSRData:
			i := len(r.CSRData)
			if i >= len(fl.csrReads) || msg.CSR.Addr != fl.csrReads[i] {
				return n, m.perr(msg.Type, "address %#x does not answer CSR read %d of %d", msg.CSR.Addr, i, len(fl.csrReads))
			}
			r.CSRData = append(r.CSRData, msg.CSR)
		case MsgMemData:
			i := len(r.MemData)
			if i >= len(fl.memReads) || msg.Mem.Addr != fl.memReads[i].Addr || msg.Mem.Length != fl.memReads[i].Length {
				return n, m.perr(msg.Type, "%d bytes at %#x do not answer memory read %d of %d", msg.Mem.Length, msg.Mem.Addr, i, len(fl.memReads))
			}
			mem := msg.Mem
			mem.Data = m.keep(mem.Data)
			r.MemData = append(r.MemData, mem)
		case MsgDone:
			d := msg.Done
			// Queued: sent up to this window and not accepted (frames of
			// later windows are not the model's yet).
			queued := 0
			for p := range m.pending {
				queued += int(fl.inSeq[p] - (m.inSeq[p] - uint32(m.pending[p].len())))
			}
			switch {
			case d.Cycle != fl.target:
				return n, m.perr(msg.Type, "cycle %d, want the target %d", d.Cycle, fl.target)
			case int(d.FramesOut) != len(r.Frames):
				return n, m.perr(msg.Type, "frames_out %d, but %d FRAME messages came", d.FramesOut, len(r.Frames))
			case int(d.FramesQueued) != queued:
				return n, m.perr(msg.Type, "frames_queued %d, but %d input frames are sent and not accepted", d.FramesQueued, queued)
			case len(r.CSRData) != len(fl.csrReads):
				return n, m.perr(msg.Type, "%d CSR reads answered of %d", len(r.CSRData), len(fl.csrReads))
			case len(r.MemData) != len(fl.memReads):
				return n, m.perr(msg.Type, "%d memory reads answered of %d", len(r.MemData), len(fl.memReads))
			}
			r.Done = d
			return n + 1, nil
		case MsgError:
			return n, m.remote(msg)
		default:
			return n, m.perr(msg.Type, "unexpected %s while waiting for DONE", msg.Type)
		}
	}
}
