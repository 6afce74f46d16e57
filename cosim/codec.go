package cosim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Msg is one message of either direction: the header's type and cycle
// stamp, and the body of that type in the field of the same name. Only the
// field that belongs to Type is meaningful.
//
// The header's cycle is in Cycle and, for FRAME, ACCEPT and DONE, also in
// the body struct (Frame.Cycle, Accept.Cycle, Done.Cycle): Decoder.Read
// fills both, Encoder.Encode takes it from the body struct for those three
// types and from Cycle for the others. Header flags appear as the body's
// booleans (HelloAck.Trace, Frame.Bad, Done.Busy).
type Msg struct {
	Type  MsgType
	Cycle uint64

	Hello    Hello
	HelloAck HelloAck
	Frame    Frame
	Accept   Accept
	Done     Done
	CSR      CSR      // CSR_WRITE, CSR_READ (Data ignored), CSR_DATA
	Mem      Mem      // MEM_WRITE, MEM_READ (Length only), MEM_DATA
	Error    ErrorMsg // ERROR
	Goodbye  Goodbye  // GOODBYE
}

// msgSpec is what the decoder knows about a type: its fixed body part,
// whether variable bytes may follow, and the flag bits it may carry.
type msgSpec struct {
	fixed    uint32
	variable bool
	flags    uint16
}

var specs = [...]msgSpec{
	MsgHello:    {helloLen, true, 0},
	MsgHelloAck: {helloAckLen, true, FlagAckTrace},
	MsgFrame:    {frameLen, true, FlagFrameBad},
	MsgAccept:   {acceptLen, false, 0},
	MsgRun:      {0, false, 0},
	MsgDone:     {doneLen, false, FlagDoneBusy},
	MsgCSRWrite: {csrLen, false, 0},
	MsgCSRRead:  {csrLen, false, 0},
	MsgCSRData:  {csrLen, false, 0},
	MsgMemWrite: {memLen, true, 0},
	MsgMemRead:  {memLen, false, 0},
	MsgMemData:  {memLen, true, 0},
	MsgError:    {errorLen, true, 0},
	MsgGoodbye:  {goodbyeLen, false, 0},
}

// Bounds on the variable parts, so that every message fits in MaxBody.
const (
	// MaxFrameLen is the largest frame a FRAME message carries.
	MaxFrameLen = MaxBody - frameLen
	// MaxMemLen is the largest block a MEM_WRITE, MEM_READ or MEM_DATA moves.
	MaxMemLen = MaxBody - memLen
)

var le = binary.LittleEndian

// Encoder appends messages to a reusable buffer and sends the whole batch
// with one Write on Flush. A batch is usually one window (FRAME* CSR_*
// MEM_* RUN) or one reply (ACCEPT* FRAME* CSR_DATA* MEM_DATA* DONE).
//
// Buffers: the Encoder copies every byte it is given (frame data, memory
// blocks, text) into its own buffer before the method returns, so the
// caller may reuse its slices at once. The Encoder's buffer is its own and
// is reused from batch to batch. An Encoder is not safe for concurrent use.
type Encoder struct {
	w     io.Writer
	buf   []byte
	chunk int   // write out the pending messages once they reach this many bytes; 0: only on Flush
	err   error // the first error of a chunk write, returned by Flush
	// handoff, when set, takes the pending messages in place of a Write
	// (it owns them from then on) and returns the buffer to go on with.
	handoff func([]byte) []byte
}

// NewEncoder returns an Encoder that writes batches to w.
func NewEncoder(w io.Writer) *Encoder {
	return &Encoder{w: w, buf: make([]byte, 0, 4096)}
}

// SetChunk makes the Encoder write the pending messages (whole messages
// only) as soon as they reach n bytes, instead of holding them until
// Flush: a large window then streams to the model while it is being built,
// and the buffer stays near n bytes. 0 restores one Write per Flush.
func (e *Encoder) SetChunk(n int) { e.chunk = n }

// Buffered returns the number of bytes waiting for Flush.
func (e *Encoder) Buffered() int { return len(e.buf) }

// Bytes returns the pending batch. It aliases the Encoder's buffer: valid
// until the next call on the Encoder.
func (e *Encoder) Bytes() []byte { return e.buf }

// Reset drops the pending batch.
func (e *Encoder) Reset() { e.buf = e.buf[:0] }

// Flush sends the pending batch with a single Write and empties the buffer,
// also when the Write fails (the stream is then broken anyway).
func (e *Encoder) Flush() error {
	e.writeOut()
	err := e.err
	e.err = nil
	return err
}

// writeOut writes the pending messages; the first error is kept for Flush.
func (e *Encoder) writeOut() {
	if len(e.buf) == 0 {
		return
	}
	if e.handoff != nil {
		e.buf = e.handoff(e.buf)[:0]
		return
	}
	if e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
	if cap(e.buf) > 8<<20 {
		e.buf = make([]byte, 0, 4096) // do not keep one huge window's buffer forever
	}
}

// add appends a header and room for a body of n bytes, the fixed part
// zeroed (reserved fields stay zero), and returns the body.
func (e *Encoder) add(t MsgType, flags uint16, cycle uint64, fixed, n int) []byte {
	if e.chunk > 0 && len(e.buf) >= e.chunk {
		e.writeOut()
	}
	off := len(e.buf)
	e.buf = slices.Grow(e.buf, HeaderLen+n)[:off+HeaderLen+n]
	h := Header{Type: t, Flags: flags, Len: uint32(n), Cycle: cycle}
	h.put(e.buf[off:])
	body := e.buf[off+HeaderLen:]
	clear(body[:fixed])
	return body
}

func flagIf(b bool, f uint16) uint16 {
	if b {
		return f
	}
	return 0
}

func tooLong(what string, n, max int) error {
	return fmt.Errorf("%s of %d bytes is longer than the protocol's %d", what, n, max)
}

// Hello appends a HELLO. Version 0 stands for ProtoVersion.
func (e *Encoder) Hello(cycle uint64, h Hello) error {
	if len(h.Text) > MaxBody-helloLen {
		return tooLong("HELLO text", len(h.Text), MaxBody-helloLen)
	}
	v := h.Version
	if v == 0 {
		v = ProtoVersion
	}
	b := e.add(MsgHello, 0, cycle, helloLen, helloLen+len(h.Text))
	le.PutUint32(b[0:], v)
	le.PutUint32(b[4:], h.DataWidth)
	le.PutUint16(b[8:], h.InPorts)
	le.PutUint16(b[10:], h.OutPorts)
	le.PutUint32(b[12:], uint32(len(h.Text)))
	copy(b[helloLen:], h.Text)
	return nil
}

// HelloAck appends a HELLO_ACK carrying ProtoVersion.
func (e *Encoder) HelloAck(cycle uint64, a HelloAck) error {
	if len(a.TracePath) > MaxBody-helloAckLen {
		return tooLong("HELLO_ACK trace path", len(a.TracePath), MaxBody-helloAckLen)
	}
	b := e.add(MsgHelloAck, flagIf(a.Trace, FlagAckTrace), cycle, helloAckLen, helloAckLen+len(a.TracePath))
	le.PutUint32(b[0:], ProtoVersion)
	le.PutUint32(b[4:], uint32(len(a.TracePath)))
	le.PutUint64(b[8:], a.Seed)
	le.PutUint16(b[16:], a.SrcGapPct)
	le.PutUint16(b[18:], a.SinkStallPct)
	le.PutUint64(b[24:], a.TraceFrom)
	le.PutUint64(b[32:], traceEnd(a.TraceTo))
	copy(b[helloAckLen:], a.TracePath)
	return nil
}

// Frame appends a FRAME stamped with f.Cycle. The data is copied.
func (e *Encoder) Frame(f Frame) error {
	if len(f.Data) == 0 {
		return errors.New("FRAME with no data")
	}
	if len(f.Data) > MaxFrameLen {
		return tooLong("frame", len(f.Data), MaxFrameLen)
	}
	b := e.add(MsgFrame, flagIf(f.Bad, FlagFrameBad), f.Cycle, frameLen, frameLen+len(f.Data))
	le.PutUint16(b[0:], f.Port)
	le.PutUint32(b[4:], f.Seq)
	le.PutUint64(b[8:], f.LastCycle)
	copy(b[frameLen:], f.Data)
	return nil
}

// Accept appends an ACCEPT stamped with a.Cycle.
func (e *Encoder) Accept(a Accept) {
	b := e.add(MsgAccept, 0, a.Cycle, acceptLen, acceptLen)
	le.PutUint16(b[0:], a.Port)
	le.PutUint32(b[4:], a.Seq)
	le.PutUint64(b[8:], a.LastCycle)
}

// Run appends a RUN: run until cycle (exclusive).
func (e *Encoder) Run(cycle uint64) {
	e.add(MsgRun, 0, cycle, 0, 0)
}

// Done appends a DONE stamped with d.Cycle.
func (e *Encoder) Done(d Done) {
	b := e.add(MsgDone, flagIf(d.Busy, FlagDoneBusy), d.Cycle, doneLen, doneLen)
	le.PutUint32(b[0:], d.FramesOut)
	le.PutUint32(b[4:], d.FramesQueued)
	le.PutUint64(b[8:], d.SrcStalls)
	le.PutUint64(b[16:], d.SinkStalls)
}

func (e *Encoder) csr(t MsgType, cycle uint64, c CSR) {
	b := e.add(t, 0, cycle, csrLen, csrLen)
	le.PutUint32(b[0:], c.Addr)
	le.PutUint32(b[4:], c.Data)
}

// CSRWrite appends a CSR_WRITE.
func (e *Encoder) CSRWrite(cycle uint64, c CSR) { e.csr(MsgCSRWrite, cycle, c) }

// CSRRead appends a CSR_READ of addr.
func (e *Encoder) CSRRead(cycle uint64, addr uint32) { e.csr(MsgCSRRead, cycle, CSR{Addr: addr}) }

// CSRData appends a CSR_DATA, the answer to a CSR_READ.
func (e *Encoder) CSRData(cycle uint64, c CSR) { e.csr(MsgCSRData, cycle, c) }

func (e *Encoder) mem(t MsgType, cycle uint64, addr uint64, length uint32, data []byte) {
	b := e.add(t, 0, cycle, memLen, memLen+len(data))
	le.PutUint64(b[0:], addr)
	le.PutUint32(b[8:], length)
	copy(b[memLen:], data)
}

// MemWrite appends a MEM_WRITE of m.Data at m.Addr (m.Length is ignored:
// the length sent is len(m.Data)). The data is copied.
func (e *Encoder) MemWrite(cycle uint64, m Mem) error {
	if len(m.Data) > MaxMemLen {
		return tooLong("MEM_WRITE block", len(m.Data), MaxMemLen)
	}
	e.mem(MsgMemWrite, cycle, m.Addr, uint32(len(m.Data)), m.Data)
	return nil
}

// MemRead appends a MEM_READ of length bytes at addr.
func (e *Encoder) MemRead(cycle uint64, addr uint64, length uint32) error {
	if length > MaxMemLen {
		return tooLong("MEM_READ", int(length), MaxMemLen)
	}
	e.mem(MsgMemRead, cycle, addr, length, nil)
	return nil
}

// MemData appends a MEM_DATA, the answer to a MEM_READ (length len(m.Data)).
func (e *Encoder) MemData(cycle uint64, m Mem) error {
	if len(m.Data) > MaxMemLen {
		return tooLong("MEM_DATA block", len(m.Data), MaxMemLen)
	}
	e.mem(MsgMemData, cycle, m.Addr, uint32(len(m.Data)), m.Data)
	return nil
}

// Error appends an ERROR. Text longer than fits is cut.
func (e *Encoder) Error(cycle uint64, code uint32, text string) {
	text = text[:min(len(text), MaxBody-errorLen)]
	b := e.add(MsgError, 0, cycle, errorLen, errorLen+len(text))
	le.PutUint32(b[0:], code)
	le.PutUint32(b[4:], uint32(len(text)))
	copy(b[errorLen:], text)
}

// Goodbye appends a GOODBYE.
func (e *Encoder) Goodbye(cycle uint64, g Goodbye) {
	b := e.add(MsgGoodbye, 0, cycle, goodbyeLen, goodbyeLen)
	le.PutUint32(b[0:], g.Reason)
}

// Encode appends m, dispatching on m.Type (see Msg for where the cycle
// stamp is taken from).
func (e *Encoder) Encode(m *Msg) error {
	switch m.Type {
	case MsgHello:
		return e.Hello(m.Cycle, m.Hello)
	case MsgHelloAck:
		return e.HelloAck(m.Cycle, m.HelloAck)
	case MsgFrame:
		return e.Frame(m.Frame)
	case MsgAccept:
		e.Accept(m.Accept)
	case MsgRun:
		e.Run(m.Cycle)
	case MsgDone:
		e.Done(m.Done)
	case MsgCSRWrite, MsgCSRRead, MsgCSRData:
		e.csr(m.Type, m.Cycle, m.CSR)
	case MsgMemWrite:
		return e.MemWrite(m.Cycle, m.Mem)
	case MsgMemRead:
		return e.MemRead(m.Cycle, m.Mem.Addr, m.Mem.Length)
	case MsgMemData:
		return e.MemData(m.Cycle, m.Mem)
	case MsgError:
		e.Error(m.Cycle, m.Error.Code, m.Error.Text)
	case MsgGoodbye:
		e.Goodbye(m.Cycle, m.Goodbye)
	default:
		return fmt.Errorf("cannot encode %s", m.Type)
	}
	return nil
}
