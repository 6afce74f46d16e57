package roce_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rocesim/cosim/golden/roce"
)

type rtOpWant struct {
	name    string // operation
	hdrs    roce.Header
	hdrLen  int
	payload roce.PayloadRule
}

// rtOpTable is written by hand from IBA table 38 (RC 0x00-0x14,
// CNP 0x81) and, for what the notes leave out, from IBA table 38 / rxe
// rxe_opcode.c: RC SEND with invalidate (0x16, 0x17, IETH), UC 0x20-0x2B
// (the RC SEND and RDMA WRITE rows), UD SEND ONLY [with immediate] (0x64,
// 0x65, DETH). Payload rules from section 2: FIRST/MIDDLE carry PMTU bytes,
// LAST 1..PMTU, ONLY 0..PMTU.
var rtOpTable = map[roce.OpCode]rtOpWant{
	0x00: {"SEND_FIRST", 0, 0, roce.PayloadFull},
	0x01: {"SEND_MIDDLE", 0, 0, roce.PayloadFull},
	0x02: {"SEND_LAST", 0, 0, roce.PayloadLast},
	0x03: {"SEND_LAST_WITH_IMMEDIATE", roce.HasImmDt, 4, roce.PayloadLast},
	0x04: {"SEND_ONLY", 0, 0, roce.PayloadOnly},
	0x05: {"SEND_ONLY_WITH_IMMEDIATE", roce.HasImmDt, 4, roce.PayloadOnly},
	0x06: {"RDMA_WRITE_FIRST", roce.HasRETH, 16, roce.PayloadFull},
	0x07: {"RDMA_WRITE_MIDDLE", 0, 0, roce.PayloadFull},
	0x08: {"RDMA_WRITE_LAST", 0, 0, roce.PayloadLast},
	0x09: {"RDMA_WRITE_LAST_WITH_IMMEDIATE", roce.HasImmDt, 4, roce.PayloadLast},
	0x0A: {"RDMA_WRITE_ONLY", roce.HasRETH, 16, roce.PayloadOnly},
	0x0B: {"RDMA_WRITE_ONLY_WITH_IMMEDIATE", roce.HasRETH | roce.HasImmDt, 20, roce.PayloadOnly},
	0x0C: {"RDMA_READ_REQUEST", roce.HasRETH, 16, roce.PayloadNone},
	0x0D: {"RDMA_READ_RESPONSE_FIRST", roce.HasAETH, 4, roce.PayloadFull},
	0x0E: {"RDMA_READ_RESPONSE_MIDDLE", 0, 0, roce.PayloadFull},
	0x0F: {"RDMA_READ_RESPONSE_LAST", roce.HasAETH, 4, roce.PayloadLast},
	0x10: {"RDMA_READ_RESPONSE_ONLY", roce.HasAETH, 4, roce.PayloadOnly},
	0x11: {"ACKNOWLEDGE", roce.HasAETH, 4, roce.PayloadNone},
	0x12: {"ATOMIC_ACKNOWLEDGE", roce.HasAETH | roce.HasAtomicAckETH, 12, roce.PayloadNone},
	0x13: {"COMPARE_SWAP", roce.HasAtomicETH, 28, roce.PayloadNone},
	0x14: {"FETCH_ADD", roce.HasAtomicETH, 28, roce.PayloadNone},
	0x16: {"SEND_LAST_WITH_INVALIDATE", roce.HasIETH, 4, roce.PayloadLast},
	0x17: {"SEND_ONLY_WITH_INVALIDATE", roce.HasIETH, 4, roce.PayloadOnly},

	0x20: {"SEND_FIRST", 0, 0, roce.PayloadFull},
	0x21: {"SEND_MIDDLE", 0, 0, roce.PayloadFull},
	0x22: {"SEND_LAST", 0, 0, roce.PayloadLast},
	0x23: {"SEND_LAST_WITH_IMMEDIATE", roce.HasImmDt, 4, roce.PayloadLast},
	0x24: {"SEND_ONLY", 0, 0, roce.PayloadOnly},
	0x25: {"SEND_ONLY_WITH_IMMEDIATE", roce.HasImmDt, 4, roce.PayloadOnly},
	0x26: {"RDMA_WRITE_FIRST", roce.HasRETH, 16, roce.PayloadFull},
	0x27: {"RDMA_WRITE_MIDDLE", 0, 0, roce.PayloadFull},
	0x28: {"RDMA_WRITE_LAST", 0, 0, roce.PayloadLast},
	0x29: {"RDMA_WRITE_LAST_WITH_IMMEDIATE", roce.HasImmDt, 4, roce.PayloadLast},
	0x2A: {"RDMA_WRITE_ONLY", roce.HasRETH, 16, roce.PayloadOnly},
	0x2B: {"RDMA_WRITE_ONLY_WITH_IMMEDIATE", roce.HasRETH | roce.HasImmDt, 20, roce.PayloadOnly},

	0x64: {"SEND_ONLY", roce.HasDETH, 8, roce.PayloadOnly},
	0x65: {"SEND_ONLY_WITH_IMMEDIATE", roce.HasDETH | roce.HasImmDt, 12, roce.PayloadOnly},

	0x81: {"CNP", roce.HasCNP, 16, roce.PayloadNone},
}

func TestOpCodeTable(t *testing.T) {
	transports := map[uint8]string{0: "RC", 1: "UC", 3: "UD", 4: "CNP"}
	known := 0
	for i := range 256 {
		op := roce.OpCode(i)
		want, ok := rtOpTable[op]
		assert.Equal(t, ok, op.Known(), "%#02x Known", i)
		assert.Equal(t, roce.Transport(i>>5), op.Transport(), "%#02x Transport", i)
		if !ok {
			assert.Equal(t, fmt.Sprintf("OpCode(0x%02x)", i), op.String())
			assert.Equal(t, "", op.Operation(), "%#02x", i)
			assert.Equal(t, roce.Header(0), op.Headers(), "%#02x", i)
			if op.Transport() != roce.TransportRC { // see TestOpCodeUnknownRCPayload
				assert.Equal(t, roce.PayloadUnknown, op.Payload(), "%#02x", i)
			}
			continue
		}
		known++
		assert.Equal(t, want.name, op.Operation(), "%#02x", i)
		if op == roce.CNPOpCode {
			assert.Equal(t, "CNP", op.String())
		} else {
			assert.Equal(t, transports[uint8(i>>5)]+"_"+want.name, op.String())
		}
		assert.Equal(t, want.hdrs, op.Headers(), "%v headers", op)
		assert.Equal(t, want.hdrLen, op.Headers().HeaderLen(), "%v header length", op)
		assert.Equal(t, want.payload, op.Payload(), "%v payload", op)
	}
	assert.Equal(t, len(rtOpTable), known)
}

func TestOpCodeUnknown(t *testing.T) {
	unknown := []roce.OpCode{0x15, 0x2C, 0x3F, 0x60, 0x61, 0x62, 0x63, 0x66, 0x80, 0x82, 0xA0, 0xFF}
	for i := 0x18; i <= 0x1F; i++ {
		unknown = append(unknown, roce.OpCode(i))
	}
	for i := 0x40; i <= 0x5F; i++ { // RD is not supported
		unknown = append(unknown, roce.OpCode(i))
	}
	for _, op := range unknown {
		assert.False(t, op.Known(), "%#02x", uint8(op))
		assert.Equal(t, fmt.Sprintf("OpCode(0x%02x)", uint8(op)), op.String())
	}
	assert.Equal(t, "OpCode(0x15)", roce.OpCode(0x15).String())
	assert.Equal(t, "OpCode(0xff)", roce.OpCode(0xFF).String())
	assert.Equal(t, "OpCode(0x80)", roce.OpCode(0x80).String())
	assert.Equal(t, roce.TransportRD, roce.OpCode(0x4A).Transport())
}

// TestOpCodeUnknownRCPayload: an unknown opcode has PayloadUnknown, in RC
// as in the other transports.
func TestOpCodeUnknownRCPayload(t *testing.T) {
	var bad []string
	for _, op := range []roce.OpCode{0x15, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F} {
		if op.Payload() != roce.PayloadUnknown {
			bad = append(bad, fmt.Sprintf("%#02x:%d", uint8(op), op.Payload()))
		}
	}
	if len(bad) > 0 {
		t.Errorf("opcode.go OpCode.info: unknown RC opcodes report PayloadNone, not PayloadUnknown: %v", bad)
	}
}

func TestOpCodeNamesAndConstants(t *testing.T) {
	assert.Equal(t, "RC_SEND_FIRST", roce.RCSendFirst.String())
	assert.Equal(t, "RC_RDMA_WRITE_ONLY_WITH_IMMEDIATE", roce.RCWriteOnlyImm.String())
	assert.Equal(t, "RC_ACKNOWLEDGE", roce.RCAcknowledge.String())
	assert.Equal(t, "UC_RDMA_WRITE_ONLY", roce.UC(roce.RCWriteOnly).String())
	assert.Equal(t, "UD_SEND_ONLY_WITH_IMMEDIATE", roce.UDSendOnlyImm.String())
	assert.Equal(t, "CNP", roce.CNPOpCode.String())
	assert.Equal(t, roce.OpCode(0x2A), roce.UC(roce.RCWriteOnly))
	assert.Equal(t, roce.OpCode(0x2A), roce.UC(0x2A))
	assert.Equal(t, roce.OpCode(0x64), roce.UDSendOnly)
	assert.Equal(t, roce.OpCode(0x81), roce.CNPOpCode)
	assert.Equal(t, roce.OpCode(0x17), roce.RCSendOnlyInv)

	for i, s := range []string{"RC", "UC", "RD", "UD", "CNP", "Transport(5)", "Transport(6)", "Transport(7)"} {
		assert.Equal(t, s, roce.Transport(i).String())
	}
}

func TestHeaderLen(t *testing.T) {
	sizes := map[roce.Header]int{
		roce.HasDETH: 8, roce.HasRETH: 16, roce.HasAtomicETH: 28, roce.HasAETH: 4,
		roce.HasAtomicAckETH: 8, roce.HasImmDt: 4, roce.HasIETH: 4, roce.HasCNP: 16,
	}
	assert.Len(t, sizes, 8)
	assert.Equal(t, 0, roce.Header(0).HeaderLen())
	for h := range 256 {
		want := 0
		for bit, n := range sizes {
			if roce.Header(h)&bit != 0 {
				want += n
			}
		}
		assert.Equal(t, want, roce.Header(h).HeaderLen(), "%08b", h)
	}
	assert.Equal(t, 88, roce.Header(0xFF).HeaderLen())
	assert.Equal(t, roce.DETHLen+roce.RETHLen+roce.AtomicETHLen+roce.AETHLen+roce.AtomicAckETHLen+
		roce.ImmDtLen+roce.IETHLen+roce.CNPLen, 88)
}

func TestAETHSyndrome(t *testing.T) {
	cases := []struct {
		s     roce.AETHSyndrome
		str   string
		kind  roce.AckKind
		value uint8
		resv  bool
	}{
		{0x1F, "ACK(credit=31)", roce.KindACK, 31, false},
		{0x00, "ACK(credit=0)", roce.KindACK, 0, false},
		{0x2E, "RNR_NAK(timer=14)", roce.KindRNRNAK, 14, false},
		{0x20, "RNR_NAK(timer=0)", roce.KindRNRNAK, 0, false},
		{0x60, "NAK(PSN_SEQUENCE_ERROR)", roce.KindNAK, 0, false},
		{0x61, "NAK(INVALID_REQUEST)", roce.KindNAK, 1, false},
		{0x62, "NAK(REMOTE_ACCESS_ERROR)", roce.KindNAK, 2, false},
		{0x63, "NAK(REMOTE_OPERATIONAL_ERROR)", roce.KindNAK, 3, false},
		{0x64, "NAK(INVALID_RD_REQUEST)", roce.KindNAK, 4, false},
		{0x65, "NAK(NAKCode(5))", roce.KindNAK, 5, false},
		{0x40, "AETHSyndrome(0x40)", roce.KindReserved, 0, true},
		{0x5F, "AETHSyndrome(0x5f)", roce.KindReserved, 31, true},
		{0x80, "AETHSyndrome(0x80)", roce.KindACK, 0, true},
		{0xFF, "AETHSyndrome(0xff)", roce.KindNAK, 31, true},
	}
	for _, c := range cases {
		assert.Equal(t, c.str, c.s.String(), "%#02x", uint8(c.s))
		assert.Equal(t, c.kind, c.s.Kind(), "%#02x", uint8(c.s))
		assert.Equal(t, c.value, c.s.Value(), "%#02x", uint8(c.s))
		assert.Equal(t, c.resv, c.s.Reserved(), "%#02x", uint8(c.s))
		if c.kind == roce.KindNAK {
			assert.Equal(t, roce.NAKCode(c.value), c.s.NAKCode())
		}
	}
	assert.Equal(t, roce.NAKPSNSequenceError, roce.AETHSyndrome(0x60).NAKCode())
	assert.Equal(t, roce.NAKInvalidRequest, roce.AETHSyndrome(0x61).NAKCode())
	assert.Equal(t, roce.NAKRemoteAccessError, roce.AETHSyndrome(0x62).NAKCode())
	assert.Equal(t, roce.NAKRemoteOperationalErr, roce.AETHSyndrome(0x63).NAKCode())

	assert.Equal(t, roce.AETHSyndrome(0x1F), roce.SyndromeACKUnlimited)
	assert.Equal(t, roce.AETHSyndrome(0x60), roce.SyndromeNAKPSNSeq)
	assert.Equal(t, roce.AETHSyndrome(0x61), roce.SyndromeNAKInvalid)
	assert.Equal(t, roce.AETHSyndrome(0x62), roce.SyndromeNAKAccess)
	assert.Equal(t, roce.AETHSyndrome(0x63), roce.SyndromeNAKOperation)
	assert.Equal(t, roce.AETHSyndrome(0x1F), roce.ACKSyndrome(31))
	assert.Equal(t, roce.AETHSyndrome(0x2E), roce.RNRNAKSyndrome(14))
	assert.Equal(t, roce.AETHSyndrome(0x3F), roce.RNRNAKSyndrome(0xFF))
	assert.Equal(t, roce.AETHSyndrome(0x62), roce.NAKSyndrome(roce.NAKRemoteAccessError))

	for s := range 256 {
		syn := roce.AETHSyndrome(s)
		assert.Equal(t, roce.AckKind(s>>5&3), syn.Kind())
		assert.Equal(t, uint8(s&0x1F), syn.Value())
		assert.Equal(t, s&0x80 != 0 || s>>5&3 == 2, syn.Reserved())
	}
	for k, s := range []string{"ACK", "RNR_NAK", "RESERVED", "NAK"} {
		assert.Equal(t, s, roce.AckKind(k).String())
	}
}
