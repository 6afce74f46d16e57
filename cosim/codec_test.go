package cosim

import (
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleMsgs holds one message of every type, with every field set to a
// value that shows up if it lands in the wrong place.
func sampleMsgs() []Msg {
	frame := make([]byte, 61)
	for i := range frame {
		frame[i] = byte(0xa0 + i)
	}
	return []Msg{
		{Type: MsgHello, Cycle: 16, Hello: Hello{Version: ProtoVersion, DataWidth: 512, InPorts: 4, OutPorts: 5,
			Text: "name=switch\ntop=sw_top\nparam.PORTS=4\n"}},
		{Type: MsgHelloAck, Cycle: 16, HelloAck: HelloAck{Trace: true, TracePath: "trace/sw0.fst",
			Seed: 0x1122334455667788, SrcGapPct: 10, SinkStallPct: 25}},
		{Type: MsgHelloAck, Cycle: 0, HelloAck: HelloAck{Seed: 1}},
		{Type: MsgFrame, Cycle: 1234, Frame: Frame{Port: 3, Seq: 77, Cycle: 1234, Bad: true, Data: frame}},
		{Type: MsgFrame, Cycle: 1 << 40, Frame: Frame{Port: 0, Seq: 1<<32 - 1, Cycle: 1 << 40, Data: []byte{0x55}}},
		{Type: MsgAccept, Cycle: 1240, Accept: Accept{Port: 2, Seq: 9, Cycle: 1240, LastCycle: 1247}},
		{Type: MsgRun, Cycle: 2000},
		{Type: MsgDone, Cycle: 2000, Done: Done{Cycle: 2000, Busy: true, FramesOut: 3, FramesQueued: 1, SrcStalls: 5, SinkStalls: 1 << 33}},
		{Type: MsgCSRWrite, Cycle: 100, CSR: CSR{Addr: 0x40, Data: 0xdeadbeef}},
		{Type: MsgCSRRead, Cycle: 100, CSR: CSR{Addr: 0x44}},
		{Type: MsgCSRData, Cycle: 100, CSR: CSR{Addr: 0x44, Data: 7}},
		{Type: MsgMemWrite, Cycle: 100, Mem: Mem{Addr: 0x1_0000_1000, Length: 5, Data: []byte("hello")}},
		{Type: MsgMemWrite, Cycle: 100, Mem: Mem{Addr: 8, Length: 0, Data: []byte{}}},
		{Type: MsgMemRead, Cycle: 100, Mem: Mem{Addr: 0x2000, Length: 4096}},
		{Type: MsgMemData, Cycle: 100, Mem: Mem{Addr: 0x2000, Length: 3, Data: []byte{1, 2, 3}}},
		{Type: MsgError, Cycle: 99, Error: ErrorMsg{Code: ErrCodeModel, Text: "assertion failed: fifo overflow"}},
		{Type: MsgGoodbye, Cycle: 3000, Goodbye: Goodbye{Reason: 2}},
	}
}

func encodeAll(t testing.TB, msgs ...Msg) []byte {
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	for i := range msgs {
		require.NoError(t, e.Encode(&msgs[i]))
	}
	require.NoError(t, e.Flush())
	return buf.Bytes()
}

// cloneMsg copies the aliased slices of a decoded message.
func cloneMsg(m Msg) Msg {
	if m.Frame.Data != nil {
		m.Frame.Data = bytes.Clone(m.Frame.Data)
	}
	if m.Mem.Data != nil {
		m.Mem.Data = bytes.Clone(m.Mem.Data)
	}
	return m
}

func TestRoundTripEveryType(t *testing.T) {
	seen := map[MsgType]bool{}
	for _, want := range sampleMsgs() {
		t.Run(want.Type.String(), func(t *testing.T) {
			d := NewDecoder(bytes.NewReader(encodeAll(t, want)))
			var got Msg
			require.NoError(t, d.Read(&got))
			assert.Equal(t, want, got)
			assert.Equal(t, io.EOF, d.Read(&got), "one message, then a clean EOF")
		})
		seen[want.Type] = true
	}
	for typ := range msgNames {
		assert.True(t, seen[typ], "no round trip for %s", typ)
	}
}

// A whole window and a whole reply, each encoded as one batch and written
// with one Write, decode to the same messages in order.
func TestRoundTripBatch(t *testing.T) {
	msgs := sampleMsgs()
	w := &countingWriter{}
	e := NewEncoder(w)
	for i := range msgs {
		require.NoError(t, e.Encode(&msgs[i]))
	}
	require.NoError(t, e.Flush())
	assert.Equal(t, 1, w.writes, "one Write per batch")
	assert.Zero(t, e.Buffered())

	d := NewDecoder(bytes.NewReader(w.buf.Bytes()))
	var got []Msg
	for {
		var m Msg
		err := d.Read(&m)
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		got = append(got, cloneMsg(m))
	}
	assert.Equal(t, msgs, got)
}

type countingWriter struct {
	buf    bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.buf.Write(p)
}

// The byte layouts, written out by hand from sim/proto.h.
func TestWireLayout(t *testing.T) {
	for _, tc := range []struct {
		name string
		msg  Msg
		hex  string
	}{
		{"HELLO", Msg{Type: MsgHello, Cycle: 0x10, Hello: Hello{DataWidth: 64, InPorts: 2, OutPorts: 3, Text: "name=x"}},
			"0100 0000 16000000 1000000000000000" + "02000000 40000000 0200 0300 06000000" + "6e616d653d78"},
		{"HELLO_ACK", Msg{Type: MsgHelloAck, HelloAck: HelloAck{Trace: true, TracePath: "t", Seed: 0x0102030405060708, SrcGapPct: 0x11, SinkStallPct: 0x22}},
			"0200 0100 29000000 0000000000000000" + "02000000 01000000 0807060504030201 1100 2200 00000000" +
				"0000000000000000 ffffffffffffffff" + "74"},
		{"HELLO_ACK window", Msg{Type: MsgHelloAck, HelloAck: HelloAck{Trace: true, TracePath: "t", TraceFrom: 0x100, TraceTo: 0x200}},
			"0200 0100 29000000 0000000000000000" + "02000000 01000000 0000000000000000 0000 0000 00000000" +
				"0001000000000000 0002000000000000" + "74"},
		{"FRAME", Msg{Type: MsgFrame, Frame: Frame{Port: 0x0102, Seq: 0x03040506, Cycle: 0x0a0b, LastCycle: 0x0c0d, Bad: true, Data: []byte{0xee, 0xff}}},
			"0300 0100 12000000 0b0a000000000000" + "0201 0000 06050403 0d0c000000000000" + "eeff"},
		{"ACCEPT", Msg{Type: MsgAccept, Accept: Accept{Port: 1, Seq: 2, Cycle: 3, LastCycle: 4}},
			"0400 0000 10000000 0300000000000000" + "0100 0000 02000000 0400000000000000"},
		{"RUN", Msg{Type: MsgRun, Cycle: 0x100},
			"0500 0000 00000000 0001000000000000"},
		{"DONE", Msg{Type: MsgDone, Done: Done{Cycle: 9, Busy: true, FramesOut: 1, FramesQueued: 2, SrcStalls: 3, SinkStalls: 4}},
			"0600 0100 18000000 0900000000000000" + "01000000 02000000 0300000000000000 0400000000000000"},
		{"CSR_WRITE", Msg{Type: MsgCSRWrite, Cycle: 1, CSR: CSR{Addr: 0x10, Data: 0xaabbccdd}},
			"0700 0000 08000000 0100000000000000" + "10000000 ddccbbaa"},
		{"CSR_READ", Msg{Type: MsgCSRRead, CSR: CSR{Addr: 0x10}},
			"0800 0000 08000000 0000000000000000" + "10000000 00000000"},
		{"CSR_DATA", Msg{Type: MsgCSRData, CSR: CSR{Addr: 0x10, Data: 1}},
			"0900 0000 08000000 0000000000000000" + "10000000 01000000"},
		{"MEM_WRITE", Msg{Type: MsgMemWrite, Mem: Mem{Addr: 0x1122, Data: []byte{9, 8}}},
			"0a00 0000 12000000 0000000000000000" + "2211000000000000 02000000 00000000" + "0908"},
		{"MEM_READ", Msg{Type: MsgMemRead, Mem: Mem{Addr: 0x1122, Length: 0x300}},
			"0b00 0000 10000000 0000000000000000" + "2211000000000000 00030000 00000000"},
		{"MEM_DATA", Msg{Type: MsgMemData, Mem: Mem{Addr: 0x1122, Data: []byte{7}}},
			"0c00 0000 11000000 0000000000000000" + "2211000000000000 01000000 00000000" + "07"},
		{"ERROR", Msg{Type: MsgError, Cycle: 5, Error: ErrorMsg{Code: ErrCodeModel, Text: "no"}},
			"0d00 0000 0a000000 0500000000000000" + "04000000 02000000" + "6e6f"},
		{"GOODBYE", Msg{Type: MsgGoodbye, Cycle: 5},
			"0e00 0000 08000000 0500000000000000" + "00000000 00000000"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := hex.DecodeString(strings.ReplaceAll(tc.hex, " ", ""))
			require.NoError(t, err)
			assert.Equal(t, hex.EncodeToString(want), hex.EncodeToString(encodeAll(t, tc.msg)))
		})
	}
}

// Reserved fields are zero even when the buffer held other bytes before.
func TestEncoderZeroesReserved(t *testing.T) {
	var buf bytes.Buffer
	e := NewEncoder(&buf)
	require.NoError(t, e.Frame(Frame{Port: 1, Data: bytes.Repeat([]byte{0xff}, 200)}))
	e.Reset()
	e.Accept(Accept{Port: 1})
	b := e.Bytes()
	assert.Equal(t, []byte{0, 0}, b[HeaderLen+2:HeaderLen+4], "ACCEPT reserved")
	e.Reset()
	e.Run(1)
	require.NoError(t, e.MemRead(0, 0, 1))
	b = e.Bytes()
	assert.Equal(t, []byte{0, 0, 0, 0}, b[2*HeaderLen+12:2*HeaderLen+16], "MEM reserved")
}

func TestEncoderRejects(t *testing.T) {
	e := NewEncoder(io.Discard)
	assert.Error(t, e.Frame(Frame{}), "empty frame")
	assert.Error(t, e.Frame(Frame{Data: make([]byte, MaxFrameLen+1)}))
	require.NoError(t, e.Frame(Frame{Data: make([]byte, MaxFrameLen)}))
	assert.Error(t, e.MemWrite(0, Mem{Data: make([]byte, MaxMemLen+1)}))
	assert.Error(t, e.MemRead(0, 0, MaxMemLen+1))
	assert.Error(t, e.Hello(0, Hello{Text: strings.Repeat("x", MaxBody)}))
	assert.Error(t, e.Encode(&Msg{Type: 99}))
	e.Reset()
	e.Error(0, ErrCodeInternal, strings.Repeat("x", MaxBody)) // cut to fit
	assert.Equal(t, HeaderLen+MaxBody, e.Buffered())
}

// raw builds a message byte by byte, bypassing the Encoder.
func raw(t MsgType, flags uint16, length uint32, cycle uint64, body ...[]byte) []byte {
	b := make([]byte, HeaderLen)
	le.PutUint16(b[0:], uint16(t))
	le.PutUint16(b[2:], flags)
	le.PutUint32(b[4:], length)
	le.PutUint64(b[8:], cycle)
	for _, p := range body {
		b = append(b, p...)
	}
	return b
}

func u32(v uint32) []byte { return le.AppendUint32(nil, v) }
func u16(v uint16) []byte { return le.AppendUint16(nil, v) }
func u64(v uint64) []byte { return le.AppendUint64(nil, v) }

func TestDecodeRejects(t *testing.T) {
	helloBody := func(version, textLen uint32, text string) []byte {
		return bytes.Join([][]byte{u32(version), u32(64), u16(1), u16(1), u32(textLen), []byte(text)}, nil)
	}
	ackBody := func(version uint32) []byte {
		return bytes.Join([][]byte{u32(version), u32(0), u64(0), u16(0), u16(0), u32(0), u64(0), u64(0)}, nil)
	}
	for _, tc := range []struct {
		name    string
		in      []byte
		msg     MsgType
		reason  string
		wrapped error
	}{
		{"type 0", raw(0, 0, 0, 0), 0, "unknown message type 0", nil},
		{"type 15", raw(15, 0, 0, 0), 0, "unknown message type 15", nil},
		{"garbage", []byte("Hello, I am not a co-simulation model\n"), 0, "unknown message type 25928", nil},
		{"body above MaxBody", raw(MsgFrame, 0, MaxBody+1, 0), MsgFrame, "above the maximum", nil},
		{"frame below fixed", raw(MsgFrame, 0, 4, 0, make([]byte, 4)), MsgFrame, "below the 16-byte fixed part", nil},
		{"frame without data", raw(MsgFrame, 0, 16, 0, make([]byte, 16)), MsgFrame, "no data", nil},
		{"hello below fixed", raw(MsgHello, 0, 8, 0, u32(ProtoVersion), u32(64)), MsgHello, "below the 16-byte", nil},
		{"accept too long", raw(MsgAccept, 0, 17, 0, make([]byte, 17)), MsgAccept, "want exactly 16", nil},
		{"run with body", raw(MsgRun, 0, 1, 0, []byte{0}), MsgRun, "want exactly 0", nil},
		{"run with flags", raw(MsgRun, 1, 0, 0), MsgRun, "undefined flag bits 0x0001", nil},
		{"frame flag 2", raw(MsgFrame, 2, 17, 0, make([]byte, 17)), MsgFrame, "undefined flag bits 0x0002", nil},
		{"hello version 1", raw(MsgHello, 0, 22, 0, helloBody(1, 6, "name=x")), MsgHello, "protocol version 1", ErrVersion},
		{"hello version 3, other layout", raw(MsgHello, 0, 4, 0, u32(3)), MsgHello, "protocol version 3", ErrVersion},
		{"hello_ack version 0", raw(MsgHelloAck, 0, 40, 0, ackBody(0)), MsgHelloAck, "protocol version 0", ErrVersion},
		{"hello text_len short", raw(MsgHello, 0, 22, 0, helloBody(ProtoVersion, 5, "name=x")), MsgHello, "text_len 5, but 6 bytes", nil},
		{"hello text_len huge", raw(MsgHello, 0, 22, 0, helloBody(ProtoVersion, 0xffffffff, "name=x")), MsgHello, "text_len 4294967295", nil},
		{"error text_len", raw(MsgError, 0, 9, 0, u32(1), u32(0), []byte("x")), MsgError, "text_len 0, but 1 bytes", nil},
		{"mem_write length", raw(MsgMemWrite, 0, 18, 0, u64(0), u32(3), u32(0), []byte{1, 2}), MsgMemWrite, "length 3, but 2 bytes", nil},
		{"mem_read too long", raw(MsgMemRead, 0, 16, 0, u64(0), u32(MaxMemLen+1), u32(0)), MsgMemRead, "above the maximum", nil},
		{"accept last before first", raw(MsgAccept, 0, 16, 10, u16(0), u16(0), u32(0), u64(9)), MsgAccept, "last_cycle 9 before", nil},
		{"truncated header", raw(MsgRun, 0, 0, 0)[:9], 0, "truncated header: EOF after 9 of 16", io.ErrUnexpectedEOF},
		{"truncated body", raw(MsgFrame, 0, 100, 0, make([]byte, 40)), MsgFrame, "truncated body: EOF after 40 of 100", io.ErrUnexpectedEOF},
		{"header only", raw(MsgDone, 0, 24, 0), MsgDone, "EOF after 0 of 24", io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A good message first, so the offset is not 0.
			in := append(encodeAll(t, Msg{Type: MsgRun, Cycle: 1}), tc.in...)
			d := NewDecoder(bytes.NewReader(in))
			d.Model = "m0"
			var m Msg
			require.NoError(t, d.Read(&m))
			err := d.Read(&m)
			var pe *ProtocolError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "m0", pe.Model)
			assert.Equal(t, tc.msg, pe.Msg)
			assert.Equal(t, int64(HeaderLen), pe.Offset)
			assert.Contains(t, pe.Reason, tc.reason)
			if tc.wrapped != nil {
				assert.ErrorIs(t, err, tc.wrapped)
			}
			assert.Contains(t, err.Error(), `model "m0": protocol error`)
			assert.Equal(t, err, d.Read(&m), "errors are sticky")
		})
	}
}

// Every prefix of a valid stream decodes the whole messages it holds and
// then reports truncation (or a clean EOF at a message boundary); none
// panics.
func TestDecodeEveryPrefix(t *testing.T) {
	stream := encodeAll(t, sampleMsgs()...)
	bounds := map[int]bool{0: true}
	d := NewDecoder(bytes.NewReader(stream))
	var m Msg
	for d.Read(&m) == nil {
		bounds[int(d.off)] = true
	}
	for n := range len(stream) {
		d := NewDecoder(bytes.NewReader(stream[:n]))
		var err error
		for err == nil {
			err = d.Read(&m)
		}
		if bounds[n] {
			assert.Equal(t, io.EOF, err, "prefix %d ends on a boundary", n)
		} else {
			assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "prefix %d", n)
		}
	}
}

// Reader errors other than EOF come back unwrapped (the Model classifies
// them: deadlines, resets).
func TestDecodeReaderError(t *testing.T) {
	boom := errors.New("boom")
	d := NewDecoder(io.MultiReader(bytes.NewReader(raw(MsgRun, 0, 0, 0)[:5]), &errReader{boom}))
	var m Msg
	assert.Equal(t, boom, d.Read(&m))
}

type errReader struct{ err error }

func (r *errReader) Read([]byte) (int, error) { return 0, r.err }

// loopReader replays the same bytes forever without allocating.
type loopReader struct {
	b   []byte
	off int
}

func (r *loopReader) Read(p []byte) (int, error) {
	n := copy(p, r.b[r.off:])
	r.off = (r.off + n) % len(r.b)
	return n, nil
}

// The hot path, a FRAME encoded and decoded, allocates nothing once the
// buffers have grown.
func TestCodecAllocs(t *testing.T) {
	e := NewEncoder(io.Discard)
	f := Frame{Port: 1, Seq: 2, Cycle: 3, Data: make([]byte, 1500)}
	d := NewDecoder(&loopReader{b: encodeAll(t, Msg{Type: MsgFrame, Frame: f}, Msg{Type: MsgDone, Done: Done{Cycle: 4}})})
	var m Msg
	allocs := testing.AllocsPerRun(200, func() {
		e.Frame(f)
		e.Done(Done{Cycle: 4})
		e.Flush()
		d.Read(&m)
		d.Read(&m)
	})
	assert.Zero(t, allocs)
}

func TestMsgTypeString(t *testing.T) {
	assert.Equal(t, "CSR_DATA", MsgCSRData.String())
	assert.Equal(t, "MsgType(99)", MsgType(99).String())
	assert.Equal(t, "MODEL", ErrorCodeName(ErrCodeModel))
	assert.Equal(t, "code 42", ErrorCodeName(42))
}

// chunkWriter records the size of every Write; it fails them all once
// fail is set.
type chunkWriter struct {
	bytes.Buffer
	writes []int
	fail   error
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	if w.fail != nil {
		return 0, w.fail
	}
	w.writes = append(w.writes, len(p))
	return w.Buffer.Write(p)
}

// SetChunk: a chunked batch is the same byte stream as one Write per
// Flush, cut only between messages, and a failed chunk write is reported
// by Flush.
func TestEncoderChunks(t *testing.T) {
	batch := func(e *Encoder) {
		for k := range 100 {
			require.NoError(t, e.Frame(Frame{Port: uint16(k % 3), Cycle: uint64(k), Data: bytes.Repeat([]byte{byte(k)}, 60+k)}))
		}
		e.Run(1000)
	}
	var whole chunkWriter
	e := NewEncoder(&whole)
	batch(e)
	require.NoError(t, e.Flush())
	require.Equal(t, []int{whole.Len()}, whole.writes)

	var cut chunkWriter
	e = NewEncoder(&cut)
	e.SetChunk(1000)
	batch(e)
	assert.Greater(t, len(cut.writes), 5, "written while building")
	require.NoError(t, e.Flush())
	assert.Equal(t, whole.Bytes(), cut.Bytes())
	// every write ends where a message starts (or at the end)
	starts := map[int]bool{cut.Len(): true}
	d := NewDecoder(bytes.NewReader(cut.Bytes()))
	var m Msg
	for d.Read(&m) == nil {
		starts[int(d.Offset())] = true
	}
	off := 0
	for _, n := range cut.writes {
		off += n
		assert.True(t, starts[off], "a write ends at %d, inside a message", off)
	}

	broken := errors.New("pipe broken")
	cut.fail = broken
	batch(e)
	assert.ErrorIs(t, e.Flush(), broken)
	cut.fail = nil
	require.NoError(t, e.Flush(), "the error is reported once")
}
