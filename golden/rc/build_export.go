package rc

import "github.com/rocesim/cosim/golden/roce"

// Packet describes one frame as a node builds it: what the QP contributes
// (addresses, UDP source port, TOS, DestQP) and what the packet does
// (opcode, PSN, flags, extension headers, payload). It has the fields of
// the NIC's transmit descriptor (nic_pkg::desc_t, rtl/nic/nic_pkg.sv), so a test can
// give both the same packet.
type Packet struct {
	DstMAC, SrcMAC [6]byte
	SrcIP, DstIP   [4]byte
	UDPSrcPort     uint16
	TOS            uint8 // DSCP<<2 | ECN
	// Tagged puts an 802.1Q tag with TCI (PCP<<13 | VID) after the MACs.
	Tagged bool
	TCI    uint16
	DestQP roce.QPN
	OpCode roce.OpCode
	PSN    roce.PSN
	AckReq bool
	BECN   bool

	// Extension headers, written only when OpCode.Headers has them (RETH,
	// AETH, ImmDt; a CNP gets its 16 zero bytes instead).
	VA       uint64
	RKey     uint32
	DMALen   uint32
	Syndrome roce.AETHSyndrome
	MSN      uint32 // 24 bits
	Imm      uint32

	// PayloadLen bytes are read from the memory at Addr when the frame is
	// built.
	Addr       uint64
	PayloadLen int
}

// BuildFrame builds the frame of p into buf (grown only if shorter than
// the frame) and returns it: the same function a Node sends its frames
// with, so the bytes are exactly what a node with that QP would send for
// that packet (IPv4 checksum, pad and ICRC computed, UDP checksum 0). mem
// may be nil when p.PayloadLen is 0. DestQP and PSN are 24-bit numbers, as
// on the wire; higher bits are not masked (a node never makes them).
func BuildFrame(buf []byte, p *Packet, mem Memory) []byte {
	h := makeHeader(p.SrcMAC, p.DstMAC, p.SrcIP, p.DstIP, p.UDPSrcPort, vlanTag{on: p.Tagged, tci: p.TCI})
	tp := txPacket{
		op:      p.OpCode,
		psn:     p.PSN,
		ackReq:  p.AckReq,
		becn:    p.BECN,
		va:      p.VA,
		rkey:    p.RKey,
		dmaLen:  p.DMALen,
		syn:     p.Syndrome,
		msn:     p.MSN,
		imm:     p.Imm,
		addr:    p.Addr,
		payload: p.PayloadLen,
	}
	return build(buf, &h, p.TOS, p.DestQP, &tp, mem)
}
