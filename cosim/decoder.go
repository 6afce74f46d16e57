package cosim

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

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
			TraceFrom:    le.Uint64(b[24:]),
			TraceTo:      traceEnd(le.Uint64(b[32:])),
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
