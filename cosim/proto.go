package cosim

import (
	"encoding/binary"
	"fmt"
	"math"
)

// The socket protocol, harness side. The model side is sim/proto.h; the
// layouts, type numbers and flags here mirror it exactly. See that file for
// the conversation; every integer is little-endian.

// ProtoVersion is the protocol version both sides must agree on.
const ProtoVersion = 2 // 2: HELLO_ACK carries the trace window

// MaxBody bounds one message body: a frame or memory block is at most 1 MiB.
const MaxBody = 1 << 20

// MsgType is the type of a message.
type MsgType uint16

const (
	MsgHello    MsgType = 1
	MsgHelloAck MsgType = 2
	MsgFrame    MsgType = 3
	MsgAccept   MsgType = 4
	MsgRun      MsgType = 5
	MsgDone     MsgType = 6
	MsgCSRWrite MsgType = 7
	MsgCSRRead  MsgType = 8
	MsgCSRData  MsgType = 9
	MsgMemWrite MsgType = 10
	MsgMemRead  MsgType = 11
	MsgMemData  MsgType = 12
	MsgError    MsgType = 13
	MsgGoodbye  MsgType = 14
)

var msgNames = map[MsgType]string{
	MsgHello: "HELLO", MsgHelloAck: "HELLO_ACK", MsgFrame: "FRAME", MsgAccept: "ACCEPT",
	MsgRun: "RUN", MsgDone: "DONE", MsgCSRWrite: "CSR_WRITE", MsgCSRRead: "CSR_READ",
	MsgCSRData: "CSR_DATA", MsgMemWrite: "MEM_WRITE", MsgMemRead: "MEM_READ",
	MsgMemData: "MEM_DATA", MsgError: "ERROR", MsgGoodbye: "GOODBYE",
}

func (t MsgType) String() string {
	if n, ok := msgNames[t]; ok {
		return n
	}
	return fmt.Sprintf("MsgType(%d)", uint16(t))
}

// Flags.
const (
	FlagAckTrace = 1 // HELLO_ACK: write an FST trace to the path in the text
	FlagFrameBad = 1 // FRAME: tuser[0] on the last beat
	FlagDoneBusy = 1 // DONE: inputs queued or the DUT reports not idle
)

// Sizes of the fixed parts, as static_assert'ed in sim/proto.h.
const (
	HeaderLen   = 16
	helloLen    = 16
	helloAckLen = 40
	frameLen    = 16
	acceptLen   = 16
	doneLen     = 24
	csrLen      = 8
	memLen      = 16
	errorLen    = 8
	goodbyeLen  = 8
)

// Header starts every message.
type Header struct {
	Type  MsgType
	Flags uint16
	Len   uint32 // body bytes after the header
	Cycle uint64
}

func (h *Header) put(b []byte) {
	binary.LittleEndian.PutUint16(b[0:], uint16(h.Type))
	binary.LittleEndian.PutUint16(b[2:], h.Flags)
	binary.LittleEndian.PutUint32(b[4:], h.Len)
	binary.LittleEndian.PutUint64(b[8:], h.Cycle)
}

func parseHeader(b []byte) Header {
	return Header{
		Type:  MsgType(binary.LittleEndian.Uint16(b[0:])),
		Flags: binary.LittleEndian.Uint16(b[2:]),
		Len:   binary.LittleEndian.Uint32(b[4:]),
		Cycle: binary.LittleEndian.Uint64(b[8:]),
	}
}

// Hello is the model's introduction.
type Hello struct {
	Version   uint32
	DataWidth uint32
	InPorts   uint16
	OutPorts  uint16
	Text      string // "key=value" lines: name, top, param.NAME
}

// HelloAck is the harness's answer to Hello.
type HelloAck struct {
	Trace     bool
	TracePath string
	// TraceFrom and TraceTo bound what the trace holds: cycles
	// TraceFrom..TraceTo-1; TraceTo 0 is to the end of the run.
	TraceFrom    uint64
	TraceTo      uint64
	Seed         uint64
	SrcGapPct    uint16
	SinkStallPct uint16
}

// traceEnd maps HelloAck.TraceTo to the wire and back: 0 (no end) there
// is UINT64_MAX on the wire, which sim/proto.h reads as no end.
func traceEnd(to uint64) uint64 {
	switch to {
	case 0:
		return math.MaxUint64
	case math.MaxUint64:
		return 0
	}
	return to
}

// Frame is a frame entering (Port is an input) or leaving (an output) a model.
type Frame struct {
	Port  uint16
	Seq   uint32
	Cycle uint64 // arrival cycle (in) or the cycle the first beat left (out)
	// LastCycle is the cycle the last beat left (out only): a link
	// delivers the frame its latency after that.
	LastCycle uint64
	Bad       bool // tuser[0]
	Data      []byte
}

// Accept tells when the DUT took an input frame.
type Accept struct {
	Port      uint16
	Seq       uint32
	Cycle     uint64 // first beat
	LastCycle uint64
}

// Done ends a model's reply to RUN.
type Done struct {
	Cycle        uint64
	Busy         bool
	FramesOut    uint32
	FramesQueued uint32
	SrcStalls    uint64
	SinkStalls   uint64
}

// CSR is a register access.
type CSR struct {
	Addr, Data uint32
}

// Mem is a host-memory access.
type Mem struct {
	Addr   uint64
	Length uint32 // MEM_READ: bytes wanted
	Data   []byte
}

// ErrorMsg is an ERROR message.
type ErrorMsg struct {
	Code uint32
	Text string
}

// Error codes of ERROR messages.
const (
	ErrCodeProtocol = 1
	ErrCodeVersion  = 2
	ErrCodePort     = 3
	ErrCodeModel    = 4
	ErrCodeInternal = 5
)

// Goodbye ends the conversation: the harness sends it, the model answers
// with its own GOODBYE and exits with status 0.
type Goodbye struct {
	Reason uint32 // 0: normal end
}

var errCodeNames = map[uint32]string{
	ErrCodeProtocol: "PROTOCOL", ErrCodeVersion: "VERSION", ErrCodePort: "PORT",
	ErrCodeModel: "MODEL", ErrCodeInternal: "INTERNAL",
}

// ErrorCodeName names an ERROR code ("MODEL", "PROTOCOL", ...).
func ErrorCodeName(code uint32) string {
	if n, ok := errCodeNames[code]; ok {
		return n
	}
	return fmt.Sprintf("code %d", code)
}
