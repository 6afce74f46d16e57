package roce

import "fmt"

// OpCode is the BTH opcode: bits 7:5 select the transport, bits 4:0 the
// operation (IBA 9.2.1, table 38; rxe_opcode.c).
type OpCode uint8

// Transport is the service an opcode belongs to: OpCode bits 7:5.
type Transport uint8

// Transports (IBA table 38). RD is recognised but has no codec here: its
// RDETH/DETH headers are not used by RoCEv2 NICs.
const (
	TransportRC  Transport = 0 // Reliable Connection
	TransportUC  Transport = 1 // Unreliable Connection
	TransportRD  Transport = 2 // Reliable Datagram
	TransportUD  Transport = 3 // Unreliable Datagram
	TransportCNP Transport = 4 // RoCEv2 congestion notification (annex A17.9.3)
)

func (t Transport) String() string {
	switch t {
	case TransportRC:
		return "RC"
	case TransportUC:
		return "UC"
	case TransportRD:
		return "RD"
	case TransportUD:
		return "UD"
	case TransportCNP:
		return "CNP"
	}
	return fmt.Sprintf("Transport(%d)", uint8(t))
}

// Operations (OpCode bits 4:0).
const (
	opSendFirst          = 0x00
	opSendMiddle         = 0x01
	opSendLast           = 0x02
	opSendLastImm        = 0x03
	opSendOnly           = 0x04
	opSendOnlyImm        = 0x05
	opWriteFirst         = 0x06
	opWriteMiddle        = 0x07
	opWriteLast          = 0x08
	opWriteLastImm       = 0x09
	opWriteOnly          = 0x0A
	opWriteOnlyImm       = 0x0B
	opReadRequest        = 0x0C
	opReadResponseFirst  = 0x0D
	opReadResponseMiddle = 0x0E
	opReadResponseLast   = 0x0F
	opReadResponseOnly   = 0x10
	opAcknowledge        = 0x11
	opAtomicAcknowledge  = 0x12
	opCompareSwap        = 0x13
	opFetchAdd           = 0x14
	opSendLastInv        = 0x16
	opSendOnlyInv        = 0x17
)

// RC opcodes (IBA table 38).
const (
	RCSendFirst          OpCode = opSendFirst
	RCSendMiddle         OpCode = opSendMiddle
	RCSendLast           OpCode = opSendLast
	RCSendLastImm        OpCode = opSendLastImm
	RCSendOnly           OpCode = opSendOnly
	RCSendOnlyImm        OpCode = opSendOnlyImm
	RCWriteFirst         OpCode = opWriteFirst
	RCWriteMiddle        OpCode = opWriteMiddle
	RCWriteLast          OpCode = opWriteLast
	RCWriteLastImm       OpCode = opWriteLastImm
	RCWriteOnly          OpCode = opWriteOnly
	RCWriteOnlyImm       OpCode = opWriteOnlyImm
	RCReadRequest        OpCode = opReadRequest
	RCReadResponseFirst  OpCode = opReadResponseFirst
	RCReadResponseMiddle OpCode = opReadResponseMiddle
	RCReadResponseLast   OpCode = opReadResponseLast
	RCReadResponseOnly   OpCode = opReadResponseOnly
	RCAcknowledge        OpCode = opAcknowledge
	RCAtomicAcknowledge  OpCode = opAtomicAcknowledge
	RCCompareSwap        OpCode = opCompareSwap
	RCFetchAdd           OpCode = opFetchAdd
	RCSendLastInv        OpCode = opSendLastInv
	RCSendOnlyInv        OpCode = opSendOnlyInv

	UDSendOnly    OpCode = 0x60 | opSendOnly
	UDSendOnlyImm OpCode = 0x60 | opSendOnlyImm

	// CNP is the RoCEv2 Congestion Notification Packet (annex A17.9.3).
	CNPOpCode OpCode = 0x81
)

// UC returns the Unreliable Connection opcode of an RC operation.
func UC(rc OpCode) OpCode { return 0x20 | rc&0x1F }

// Header is a set of extension headers that follow the BTH.
type Header uint8

// Extension headers in wire order: a packet carries them in this order.
const (
	HasDETH Header = 1 << iota
	HasRETH
	HasAtomicETH
	HasAETH
	HasAtomicAckETH
	HasImmDt
	HasIETH
	HasCNP
)

// Payload rules of an opcode (IBA 9.7.4).
type PayloadRule uint8

const (
	PayloadNone    PayloadRule = iota // no payload, PadCnt 0
	PayloadFull                       // FIRST and MIDDLE: exactly PMTU bytes
	PayloadLast                       // LAST: 1..PMTU bytes
	PayloadOnly                       // ONLY: 0..PMTU bytes
	PayloadUnknown                    // unknown opcode: nothing to check
)

type opInfo struct {
	name    string
	headers Header
	payload PayloadRule
}

// rcOps describes the operations of the connected transports, indexed by
// OpCode bits 4:0 (IBA table 38; rxe_opcode.c rxe_opcode[]).
var rcOps = [32]opInfo{
	opSendFirst:          {"SEND_FIRST", 0, PayloadFull},
	opSendMiddle:         {"SEND_MIDDLE", 0, PayloadFull},
	opSendLast:           {"SEND_LAST", 0, PayloadLast},
	opSendLastImm:        {"SEND_LAST_WITH_IMMEDIATE", HasImmDt, PayloadLast},
	opSendOnly:           {"SEND_ONLY", 0, PayloadOnly},
	opSendOnlyImm:        {"SEND_ONLY_WITH_IMMEDIATE", HasImmDt, PayloadOnly},
	opWriteFirst:         {"RDMA_WRITE_FIRST", HasRETH, PayloadFull},
	opWriteMiddle:        {"RDMA_WRITE_MIDDLE", 0, PayloadFull},
	opWriteLast:          {"RDMA_WRITE_LAST", 0, PayloadLast},
	opWriteLastImm:       {"RDMA_WRITE_LAST_WITH_IMMEDIATE", HasImmDt, PayloadLast},
	opWriteOnly:          {"RDMA_WRITE_ONLY", HasRETH, PayloadOnly},
	opWriteOnlyImm:       {"RDMA_WRITE_ONLY_WITH_IMMEDIATE", HasRETH | HasImmDt, PayloadOnly},
	opReadRequest:        {"RDMA_READ_REQUEST", HasRETH, PayloadNone},
	opReadResponseFirst:  {"RDMA_READ_RESPONSE_FIRST", HasAETH, PayloadFull},
	opReadResponseMiddle: {"RDMA_READ_RESPONSE_MIDDLE", 0, PayloadFull},
	opReadResponseLast:   {"RDMA_READ_RESPONSE_LAST", HasAETH, PayloadLast},
	opReadResponseOnly:   {"RDMA_READ_RESPONSE_ONLY", HasAETH, PayloadOnly},
	opAcknowledge:        {"ACKNOWLEDGE", HasAETH, PayloadNone},
	opAtomicAcknowledge:  {"ATOMIC_ACKNOWLEDGE", HasAETH | HasAtomicAckETH, PayloadNone},
	opCompareSwap:        {"COMPARE_SWAP", HasAtomicETH, PayloadNone},
	opFetchAdd:           {"FETCH_ADD", HasAtomicETH, PayloadNone},
	opSendLastInv:        {"SEND_LAST_WITH_INVALIDATE", HasIETH, PayloadLast},
	opSendOnlyInv:        {"SEND_ONLY_WITH_INVALIDATE", HasIETH, PayloadOnly},
}

func (o OpCode) info() (opInfo, bool) {
	op := uint8(o) & 0x1F
	switch o.Transport() {
	case TransportRC:
		if i := rcOps[op]; i.name != "" {
			return i, true
		}
	case TransportUC:
		// UC has SEND and RDMA WRITE only (IBA table 38).
		if op <= opWriteOnlyImm {
			return rcOps[op], true
		}
	case TransportUD:
		if op == opSendOnly || op == opSendOnlyImm {
			i := rcOps[op]
			i.headers |= HasDETH
			return i, true
		}
	case TransportCNP:
		if o == CNPOpCode {
			return opInfo{"CNP", HasCNP, PayloadNone}, true
		}
	}
	return opInfo{payload: PayloadUnknown}, false
}

// Transport returns the service of the opcode (bits 7:5).
func (o OpCode) Transport() Transport { return Transport(o >> 5) }

// Known reports whether the opcode has a codec here.
func (o OpCode) Known() bool { _, ok := o.info(); return ok }

// Operation returns the operation name without the transport, such as
// "RDMA_WRITE_FIRST", or "" for an unknown opcode.
func (o OpCode) Operation() string { i, _ := o.info(); return i.name }

// Headers returns the extension headers that follow a BTH with this opcode.
func (o OpCode) Headers() Header { i, _ := o.info(); return i.headers }

// Payload returns the payload rule of the opcode.
func (o OpCode) Payload() PayloadRule { i, _ := o.info(); return i.payload }

// String returns names in the form scapy and rdma-core use, e.g.
// "RC_RDMA_WRITE_FIRST", or "OpCode(0x1f)" when unknown.
func (o OpCode) String() string {
	i, ok := o.info()
	switch {
	case !ok:
		return fmt.Sprintf("OpCode(%#02x)", uint8(o))
	case o == CNPOpCode:
		return "CNP"
	}
	return o.Transport().String() + "_" + i.name
}

// HeaderLen returns the number of bytes the extension headers of h occupy.
func (h Header) HeaderLen() int { return int(headerLen[h]) }

// headerLen caches HeaderLen for every set of headers.
var headerLen = func() (t [256]uint8) {
	for h := range t {
		for _, e := range extOrder {
			if Header(h)&e.bit != 0 {
				t[h] += uint8(e.size)
			}
		}
	}
	return t
}()

// extOrder lists the extension headers in wire order with their sizes
// (rxe_hdr.h; IBA 9.3).
var extOrder = [...]struct {
	bit  Header
	size int
}{
	{HasDETH, DETHLen},
	{HasRETH, RETHLen},
	{HasAtomicETH, AtomicETHLen},
	{HasAETH, AETHLen},
	{HasAtomicAckETH, AtomicAckETHLen},
	{HasImmDt, ImmDtLen},
	{HasIETH, IETHLen},
	{HasCNP, CNPLen},
}
