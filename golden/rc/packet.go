package rc

import (
	"encoding/binary"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/roce"
)

// Layout of every frame a node sends: Ethernet II, IPv4 without options,
// UDP, BTH (IBA annex A17 and 9.2). Offsets are those of an untagged frame;
// a QP with a VLAN tag (IEEE 802.1Q clause 9.6) sends every field tagLen
// bytes later.
const (
	ethLen   = 14
	tagLen   = 4 // 802.1Q tag: TPID 0x8100, TCI (PCP, DEI, VID)
	ipv4Len  = 20
	udpLen   = 8
	ipOff    = ethLen
	udpOff   = ipOff + ipv4Len
	bthOff   = udpOff + udpLen
	extOff   = bthOff + roce.BTHLen
	icrcLen  = roce.ICRCLen
	rethLen  = 16
	aethLen  = 4
	immLen   = 4
	cnpBody  = 16
	ecnECT0  = 0b10
	ecnCE    = 0b11
	ipTTL    = 64
	ipFlagDF = 0x4000
)

// MinFrameLen is the shortest frame a node sends: a MAC pads a shorter one
// with zeros (IEEE 802.3 clause 4.2.3.3). Frames on our links carry no FCS,
// so the minimum is 60, not 64. Only a packet with no extension header and
// no payload (a 0-byte SEND ONLY, WRITE LAST, ...: 58 bytes) is shorter.
const MinFrameLen = 60

// MaxFrameLen is the longest frame a node sends: a WRITE ONLY with
// immediate carrying 4096 bytes (RETH and ImmDt, no pad), with a VLAN tag.
const MaxFrameLen = tagLen + extOff + rethLen + immLen + 4096 + icrcLen

// txPacket describes one packet to build.
type txPacket struct {
	op     roce.OpCode
	psn    roce.PSN
	ackReq bool
	becn   bool
	// Extension headers present by opcode: RETH, AETH, ImmDt.
	va     uint64
	rkey   uint32
	dmaLen uint32
	syn    roce.AETHSyndrome
	msn    uint32
	imm    uint32
	// Payload, read from memory at build time.
	addr    uint64
	payload int
}

// header is the part of a QP's frames that never changes: Ethernet (with
// the QP's 802.1Q tag, if any), the constant IPv4 fields and the UDP ports.
type header struct {
	b  [tagLen + bthOff]byte
	l2 int // Ethernet header bytes: ethLen, or ethLen + tagLen when tagged
}

// vlanTag is an 802.1Q tag: TCI = PCP (3 bits) | DEI (0) | VID (12 bits).
type vlanTag struct {
	on  bool
	tci uint16
}

func makeTag(on bool, pcp uint8, vid uint16) vlanTag {
	return vlanTag{on: on, tci: uint16(pcp&7)<<13 | vid&0xFFF}
}

func makeHeader(src, dst [6]byte, srcIP, dstIP [4]byte, sport uint16, tag vlanTag) header {
	var h header
	copy(h.b[0:6], dst[:])
	copy(h.b[6:12], src[:])
	h.l2 = ethLen
	if tag.on {
		binary.BigEndian.PutUint16(h.b[12:], 0x8100)
		binary.BigEndian.PutUint16(h.b[14:], tag.tci)
		h.l2 += tagLen
	}
	binary.BigEndian.PutUint16(h.b[h.l2-2:], 0x0800)
	ip := h.b[h.l2:]
	ip[0] = 0x45
	binary.BigEndian.PutUint16(ip[6:], ipFlagDF) // ID 0, DF: never fragmented
	ip[8] = ipTTL
	ip[9] = 17 // UDP
	copy(ip[12:16], srcIP[:])
	copy(ip[16:20], dstIP[:])
	binary.BigEndian.PutUint16(ip[ipv4Len:], sport)
	binary.BigEndian.PutUint16(ip[ipv4Len+2:], uint16(roce.UDPPort))
	return h
}

// build writes p into buf (grown only if shorter than the frame) and
// returns the frame. The UDP checksum is 0, as rxe sends it; the IPv4
// checksum and the ICRC are computed. A frame shorter than MinFrameLen is
// padded with zeros after the ICRC to MinFrameLen, as a MAC pads it; the IP
// total length and the UDP length do not count the padding.
func build(buf []byte, h *header, tos uint8, destQP roce.QPN, p *txPacket, mem Memory) []byte {
	hdrs := p.op.Headers()
	ext := 0
	if hdrs&roce.HasRETH != 0 {
		ext += rethLen
	}
	if hdrs&roce.HasAETH != 0 {
		ext += aethLen
	}
	if hdrs&roce.HasImmDt != 0 {
		ext += immLen
	}
	if p.op == roce.CNPOpCode {
		ext = cnpBody
	}
	pad := -p.payload & 3
	ipO := h.l2 // the offsets of this QP's frames (tagged or not)
	udpO, bthO := ipO+ipv4Len, ipO+ipv4Len+udpLen
	n := bthO + roce.BTHLen + ext + p.payload + pad + icrcLen // IP end: the lengths count up to here
	fn := max(n, MinFrameLen)                                 // with Ethernet padding after the ICRC
	if cap(buf) < fn {
		buf = make([]byte, fn)
	}
	f := buf[:fn]
	copy(f, h.b[:bthO])
	ip := f[ipO:]
	ip[1] = tos
	binary.BigEndian.PutUint16(ip[2:], uint16(n-ipO))
	ip[10], ip[11] = 0, 0
	binary.BigEndian.PutUint16(ip[10:], checksum.Checksum(ip[:ipv4Len]))
	binary.BigEndian.PutUint16(f[udpO+4:], uint16(n-udpO))
	f[udpO+6], f[udpO+7] = 0, 0

	b := f[bthO:]
	b[0] = uint8(p.op)
	b[1] = uint8(pad) << 4
	binary.BigEndian.PutUint16(b[2:], roce.DefaultPKey)
	b[4] = 0
	if p.becn {
		b[4] = 0x40
	}
	binary.BigEndian.PutUint32(b[4:], uint32(destQP)|uint32(b[4])<<24)
	binary.BigEndian.PutUint32(b[8:], uint32(p.psn))
	if p.ackReq {
		b[8] = 0x80
	}
	o := bthO + roce.BTHLen
	switch {
	case p.op == roce.CNPOpCode:
		clear(f[o : o+cnpBody])
		o += cnpBody
	default:
		if hdrs&roce.HasRETH != 0 {
			binary.BigEndian.PutUint64(f[o:], p.va)
			binary.BigEndian.PutUint32(f[o+8:], p.rkey)
			binary.BigEndian.PutUint32(f[o+12:], p.dmaLen)
			o += rethLen
		}
		if hdrs&roce.HasAETH != 0 {
			binary.BigEndian.PutUint32(f[o:], uint32(p.syn)<<24|p.msn&0xFFFFFF)
			o += aethLen
		}
		if hdrs&roce.HasImmDt != 0 {
			binary.BigEndian.PutUint32(f[o:], p.imm)
			o += immLen
		}
	}
	if p.payload > 0 {
		mem.Read(p.addr, f[o:o+p.payload])
		o += p.payload
	}
	clear(f[o : o+pad])
	o += pad
	icrc, _ := roce.ComputeICRC(f[ipO:o]) // cannot fail: the headers are whole
	binary.LittleEndian.PutUint32(f[o:], icrc)
	clear(f[n:]) // Ethernet padding, not part of the IP packet (Decode ignores it)
	return f
}
