package nic

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

// The NIC's host records (rtl/nic/README.md "Host records"): a command on
// port in1 posts a work request, a completion on out1 reports one. Both are
// little-endian, as a host writes and reads them.
const (
	CommandLen    = 64
	CompletionLen = 32
)

// Command kinds (byte 0).
const (
	KindPostSend = 1
	KindPostRecv = 2
)

// Completion kinds (byte 0).
const (
	KindSendCompletion = 1
	KindRecvCompletion = 2
)

// Command is one decoded command record: a send work request (Send) or a
// receive work request (Recv) for QP QPN.
type Command struct {
	Kind uint8
	QPN  roce.QPN
	Send rc.WorkRequest
	Recv rc.RecvRequest
}

// ErrBadCommand is wrapped by DecodeCommand's errors: the NIC drops such a
// record and counts it in cmd_bad.
var ErrBadCommand = errors.New("bad command record")

var le = binary.LittleEndian

// AppendSendCommand appends the record that posts wr to qpn.
func AppendSendCommand(dst []byte, qpn roce.QPN, wr rc.WorkRequest) []byte {
	b := make([]byte, CommandLen)
	b[0], b[1] = KindPostSend, byte(wr.Op)
	le.PutUint32(b[4:], uint32(qpn)&0xFFFFFF)
	le.PutUint64(b[8:], wr.ID)
	le.PutUint64(b[16:], wr.LocalAddr)
	le.PutUint32(b[24:], wr.Length)
	le.PutUint32(b[28:], wr.RKey)
	le.PutUint64(b[32:], wr.RemoteAddr)
	le.PutUint32(b[40:], wr.Imm)
	return append(dst, b...)
}

// AppendRecvCommand appends the record that posts rr to qpn.
func AppendRecvCommand(dst []byte, qpn roce.QPN, rr rc.RecvRequest) []byte {
	b := make([]byte, CommandLen)
	b[0] = KindPostRecv
	le.PutUint32(b[4:], uint32(qpn)&0xFFFFFF)
	le.PutUint64(b[8:], rr.ID)
	le.PutUint64(b[16:], rr.Addr)
	le.PutUint32(b[24:], rr.Length)
	return append(dst, b...)
}

// DecodeCommand decodes a command record. A record of another length, an
// unknown kind or op, or a reserved field that is not zero is an error
// wrapping ErrBadCommand: the NIC checks the same.
func DecodeCommand(b []byte) (Command, error) {
	if len(b) != CommandLen {
		return Command{}, fmt.Errorf("%w: %d bytes, want %d", ErrBadCommand, len(b), CommandLen)
	}
	c := Command{Kind: b[0], QPN: roce.QPN(le.Uint32(b[4:]) & 0xFFFFFF)}
	reserved := b[2] | b[3] | b[7]
	for _, x := range b[44:] {
		reserved |= x
	}
	switch c.Kind {
	case KindPostSend:
		if b[1] > byte(rc.OpRead) {
			return Command{}, fmt.Errorf("%w: op %d", ErrBadCommand, b[1])
		}
		c.Send = rc.WorkRequest{ID: le.Uint64(b[8:]), Op: rc.Op(b[1]), LocalAddr: le.Uint64(b[16:]),
			Length: le.Uint32(b[24:]), RKey: le.Uint32(b[28:]), RemoteAddr: le.Uint64(b[32:]), Imm: le.Uint32(b[40:])}
	case KindPostRecv:
		for _, x := range b[28:44] {
			reserved |= x
		}
		reserved |= b[1]
		c.Recv = rc.RecvRequest{ID: le.Uint64(b[8:]), Addr: le.Uint64(b[16:]), Length: le.Uint32(b[24:])}
	default:
		return Command{}, fmt.Errorf("%w: kind %d", ErrBadCommand, c.Kind)
	}
	if reserved != 0 {
		return Command{}, fmt.Errorf("%w: a reserved byte is not 0", ErrBadCommand)
	}
	return c, nil
}

// AppendCompletion appends the completion record of c.
func AppendCompletion(dst []byte, c rc.Completion) []byte {
	b := make([]byte, CompletionLen)
	b[0] = KindSendCompletion
	if c.Recv {
		b[0] = KindRecvCompletion
	}
	b[1], b[2] = byte(c.Op), byte(c.Status)
	if c.HasImm {
		b[3] = 1
	}
	le.PutUint32(b[4:], uint32(c.QPN)&0xFFFFFF)
	le.PutUint64(b[8:], c.ID)
	le.PutUint32(b[16:], c.Bytes)
	le.PutUint32(b[20:], c.Imm)
	return append(dst, b...)
}

// DecodeCompletion decodes a completion record (the cycle is not in it).
func DecodeCompletion(b []byte) (rc.Completion, error) {
	if len(b) != CompletionLen {
		return rc.Completion{}, fmt.Errorf("completion record of %d bytes, want %d", len(b), CompletionLen)
	}
	if b[0] != KindSendCompletion && b[0] != KindRecvCompletion {
		return rc.Completion{}, fmt.Errorf("completion record of kind %d", b[0])
	}
	return rc.Completion{Recv: b[0] == KindRecvCompletion, Op: rc.Op(b[1]), Status: rc.Status(b[2]),
		HasImm: b[3]&1 != 0, QPN: roce.QPN(le.Uint32(b[4:]) & 0xFFFFFF), ID: le.Uint64(b[8:]),
		Bytes: le.Uint32(b[16:]), Imm: le.Uint32(b[20:])}, nil
}
