package cosim

import (
	"bufio"
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

// Decoder reads messages from a stream through its own bufio.Reader and
// validates each one strictly: known type, body length within the type's
// fixed part and MaxBody, text_len and length fields consistent with the
// body length, only defined flag bits, and the protocol version in HELLO
// and HELLO_ACK. Violations are *ProtocolError.
//
// Buffers: Frame.Data and Mem.Data of a decoded Msg alias the Decoder's
// buffers and are valid only until the next Read; copy them to keep
// them. Text fields (Hello.Text, HelloAck.TracePath, ErrorMsg.Text) are
// strings and stay valid. A Decoder is not safe for concurrent use.
type Decoder struct {
	// Model names the peer in ProtocolErrors.
	Model string

	r    *bufio.Reader
	buf  []byte // bodies larger than r's buffer
	off  int64  // bytes consumed so far
	last int64  // offset of the last message's header
	err  error  // sticky: after an error the stream position is lost

	// Keeping decoders (newKeepingDecoder) read without bufio into
	// chunks that are never written again once read into: see keepData.
	src    io.Reader
	chunk  []byte // the chunk being filled; bytes below w are read
	rd, wr int    // next byte to decode, end of the bytes read
}

// keepChunk is the size of a keeping decoder's chunks: a chunk holds a
// window's reply of thousands of small frames, and one read from the
// socket takes as much as the model has written.
const keepChunk = 1 << 20

// newKeepingDecoder returns a Decoder whose Frame.Data and Mem.Data stay
// valid after the next Read, for good: it reads the stream into chunks it
// never reuses (a chunk is left to the garbage collector once nothing
// points into it), so a reply's frames need not be copied out of it.
// Read costs one copy of the data less per frame, and an allocation of
// keepChunk bytes per keepChunk bytes of stream (headers included).
func newKeepingDecoder(r io.Reader) *Decoder {
	return &Decoder{src: r}
}

// NewDecoder returns a Decoder reading from r.
func NewDecoder(r io.Reader) *Decoder {
	return &Decoder{r: bufio.NewReaderSize(r, 64<<10)}
}

// Offset returns the stream offset of the header of the message last
// returned (or of the one that failed).
func (d *Decoder) Offset() int64 { return d.last }

// Buffered returns the number of bytes read from the stream and not yet
// decoded.
func (d *Decoder) Buffered() int {
	if d.src != nil {
		return d.wr - d.rd
	}
	return d.r.Buffered()
}

func (d *Decoder) perr(t MsgType, cause error, format string, args ...any) error {
	return &ProtocolError{Model: d.Model, Msg: t, Offset: d.last, Reason: fmt.Sprintf(format, args...), Err: cause}
}

// Read reads the next message into m, overwriting every field. It returns
// io.EOF, unwrapped, when the stream ends cleanly between two messages; a
// *ProtocolError when the bytes are wrong or the stream ends inside a
// message; otherwise the reader's error (a deadline, a reset). After any
// error the Decoder returns the same error forever.
func (d *Decoder) Read(m *Msg) error {
	if d.err != nil {
		return d.err
	}
	d.err = d.read(m)
	return d.err
}

// take returns the next n bytes of the stream and consumes them, like
// io.ReadFull: with how many came, io.EOF when none did before the end,
// io.ErrUnexpectedEOF when some did. Bytes that fit in the reader's
// buffer are not copied: they alias it, as a larger read aliases d.buf,
// valid until the next take. A reply brings thousands of small messages,
// and copying each out of the buffer cost as much as decoding it.
func (d *Decoder) take(n int) ([]byte, int, error) {
	if d.src != nil {
		return d.takeKept(n)
	}
	if n <= d.r.Size() {
		b, err := d.r.Peek(n)
		d.r.Discard(len(b))
		d.off += int64(len(b))
		if err != nil {
			if err == io.EOF && len(b) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, len(b), err
		}
		return b, n, nil
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	b := d.buf[:n]
	got, err := io.ReadFull(d.r, b)
	d.off += int64(got)
	return b, got, err
}

// takeKept is take for a keeping decoder. The bytes it returns are never
// written again, capped so that an append cannot run into the next ones.
func (d *Decoder) takeKept(n int) ([]byte, int, error) {
	if d.wr-d.rd < n {
		if len(d.chunk)-d.rd < n {
			// Not enough room: a new chunk, with the unread bytes moved
			// over. The old chunk's bytes stay as they are.
			c := make([]byte, max(keepChunk, n))
			d.wr = copy(c, d.chunk[d.rd:d.wr])
			d.rd, d.chunk = 0, c
		}
		empty := 0
		for d.wr-d.rd < n {
			k, err := d.src.Read(d.chunk[d.wr:])
			d.wr += k
			if k > 0 {
				empty = 0
				continue
			}
			if err == nil {
				if empty++; empty < 100 { // as bufio.Reader does
					continue
				}
				err = io.ErrNoProgress
			}
			got := d.wr - d.rd
			d.rd = d.wr
			d.off += int64(got)
			if err == io.EOF && got > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, got, err
		}
	}
	b := d.chunk[d.rd : d.rd+n : d.rd+n]
	d.rd += n
	d.off += int64(n)
	return b, n, nil
}

func (d *Decoder) read(m *Msg) error {
	d.last = d.off
	hdr, n, err := d.take(HeaderLen)
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return d.perr(0, io.ErrUnexpectedEOF, "truncated header: EOF after %d of %d bytes", n, HeaderLen)
		}
		return err
	}
	h := parseHeader(hdr)
	if h.Type == 0 || int(h.Type) >= len(specs) {
		return d.perr(0, nil, "unknown message type %d (header % x)", uint16(h.Type), hdr)
	}
	sp := specs[h.Type]
	if h.Len > MaxBody {
		return d.perr(h.Type, nil, "body length %d is above the maximum %d", h.Len, MaxBody)
	}
	b, n, err := d.take(int(h.Len))
	if err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return d.perr(h.Type, io.ErrUnexpectedEOF, "truncated body: EOF after %d of %d bytes", n, h.Len)
		}
		return err
	}
	// The version comes first: another version may have another layout.
	if (h.Type == MsgHello || h.Type == MsgHelloAck) && len(b) >= 4 {
		if v := le.Uint32(b); v != ProtoVersion {
			return d.perr(h.Type, ErrVersion, "protocol version %d, this side speaks %d", v, ProtoVersion)
		}
	}
	if h.Len < sp.fixed {
		return d.perr(h.Type, nil, "body length %d is below the %d-byte fixed part", h.Len, sp.fixed)
	}
	if !sp.variable && h.Len != sp.fixed {
		return d.perr(h.Type, nil, "body length %d, want exactly %d", h.Len, sp.fixed)
	}
	if bad := h.Flags &^ sp.flags; bad != 0 {
		return d.perr(h.Type, nil, "undefined flag bits %#04x", bad)
	}
	*m = Msg{Type: h.Type, Cycle: h.Cycle}
	rest := len(b) - int(sp.fixed)
	switch h.Type {
	case MsgHello:
		if tl := le.Uint32(b[12:]); int64(tl) != int64(rest) {
			return d.perr(h.Type, nil, "text_len %d, but %d bytes follow the fixed part", tl, rest)
		}
		m.Hello = Hello{
			Version:   le.Uint32(b[0:]),
			DataWidth: le.Uint32(b[4:]),
			InPorts:   le.Uint16(b[8:]),
			OutPorts:  le.Uint16(b[10:]),
			Text:      string(b[helloLen:]),
		}
	case MsgHelloAck:
		if tl := le.Uint32(b[4:]); int64(tl) != int64(rest) {
			return d.perr(h.Type, nil, "text_len %d, but %d bytes follow the fixed part", tl, rest)
		}
		m.HelloAck = HelloAck{
			Trace:        h.Flags&FlagAckTrace != 0,
			TracePath:    string(b[helloAckLen:]),
			Seed:         le.Uint64(b[8:]),
			SrcGapPct:    le.Uint16(b[16:]),
			SinkStallPct: le.Uint16(b[18:]),
		}
	case MsgFrame:
		if rest == 0 {
			return d.perr(h.Type, nil, "frame with no data")
		}
		m.Frame = Frame{
			Port:      le.Uint16(b[0:]),
			Seq:       le.Uint32(b[4:]),
			Cycle:     h.Cycle,
			LastCycle: le.Uint64(b[8:]),
			Bad:       h.Flags&FlagFrameBad != 0,
			Data:      b[frameLen:],
		}
	case MsgAccept:
		m.Accept = Accept{
			Port:      le.Uint16(b[0:]),
			Seq:       le.Uint32(b[4:]),
			Cycle:     h.Cycle,
			LastCycle: le.Uint64(b[8:]),
		}
		if m.Accept.LastCycle < h.Cycle {
			return d.perr(h.Type, nil, "last_cycle %d before the first-beat cycle %d", m.Accept.LastCycle, h.Cycle)
		}
	case MsgDone:
		m.Done = Done{
			Cycle:        h.Cycle,
			Busy:         h.Flags&FlagDoneBusy != 0,
			FramesOut:    le.Uint32(b[0:]),
			FramesQueued: le.Uint32(b[4:]),
			SrcStalls:    le.Uint64(b[8:]),
			SinkStalls:   le.Uint64(b[16:]),
		}
	case MsgCSRWrite, MsgCSRRead, MsgCSRData:
		m.CSR = CSR{Addr: le.Uint32(b[0:]), Data: le.Uint32(b[4:])}
	case MsgMemWrite, MsgMemData, MsgMemRead:
		m.Mem = Mem{Addr: le.Uint64(b[0:]), Length: le.Uint32(b[8:])}
		if h.Type == MsgMemRead {
			if m.Mem.Length > MaxMemLen {
				return d.perr(h.Type, nil, "length %d is above the maximum %d", m.Mem.Length, MaxMemLen)
			}
			break
		}
		if int64(m.Mem.Length) != int64(rest) {
			return d.perr(h.Type, nil, "length %d, but %d bytes follow the fixed part", m.Mem.Length, rest)
		}
		m.Mem.Data = b[memLen:]
	case MsgError:
		if tl := le.Uint32(b[4:]); int64(tl) != int64(rest) {
			return d.perr(h.Type, nil, "text_len %d, but %d bytes follow the fixed part", tl, rest)
		}
		m.Error = ErrorMsg{Code: le.Uint32(b[0:]), Text: string(b[errorLen:])}
	case MsgGoodbye:
		m.Goodbye = Goodbye{Reason: le.Uint32(b[0:])}
	}
	return nil
}
