package ethswitch

import (
	"encoding/binary"

	"github.com/rocesim/cosim/golden/checksum"
)

// Frame-level rules of the switch: MAC addresses and the MAC table hash,
// classification (PCP, DSCP, default), MAC Control recognition, ECN
// marking with the RFC 1624 checksum update, and the PFC frames the switch
// sends. Every function here is a pure function of its arguments.

// EtherTypes and the MAC Control opcode the switch looks at (the EtherType
// is the big-endian 16-bit word at frame offset 12).
const (
	EtherTypeIPv4       = 0x0800 // IPv4, possibly after one VLAN tag
	EtherTypeVLAN       = 0x8100 // IEEE 802.1Q tag: PCP is the top 3 bits of byte 14
	EtherTypeMACControl = 0x8808 // MAC Control: PFC, PAUSE and other opcodes
	OpcodePFC           = 0x0101 // IEEE 802.1Qbb PFC (other opcodes count rx_mac_control)
)

// MAC is a 48-bit Ethernet address, byte 0 first on the wire.
type MAC [6]byte

// PFCDstMAC is the destination of PFC frames, 01:80:C2:00:00:01.
var PFCDstMAC = MAC{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01}

// Broadcast is ff:ff:ff:ff:ff:ff.
var Broadcast = MAC{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}

// Group reports whether the group (I/G) bit, bit 0 of byte 0, is set:
// broadcast and multicast destinations flood, group sources are not learned.
func (a MAC) Group() bool { return a[0]&1 != 0 }

// String returns the address as "01:80:c2:00:00:01".
func (a MAC) String() string {
	const hex = "0123456789abcdef"
	var b [17]byte
	for i, c := range a {
		if i > 0 {
			b[3*i-1] = ':'
		}
		b[3*i] = hex[c>>4]
		b[3*i+1] = hex[c&15]
	}
	return string(b[:])
}

// MACIndex returns the MAC table entry of mac in a table of entries
// entries (README "Learning and the MAC table"): with the MAC as a 48-bit
// big-endian number, h = mac[47:32] ^ mac[31:16] ^ mac[15:0] and the index
// is (h ^ (h >> 8)) mod entries. entries must be positive.
func MACIndex(mac MAC, entries int) int {
	h := binary.BigEndian.Uint16(mac[0:2]) ^ binary.BigEndian.Uint16(mac[2:4]) ^ binary.BigEndian.Uint16(mac[4:6])
	return int(h^h>>8) % entries
}

// etherType returns the EtherType at offset off, or 0 if the frame is
// shorter. Decided frames are at least MinFrameLen bytes long, so the
// offsets the switch reads (up to 18+20) always exist for them.
func etherType(f []byte, off int) uint16 {
	if len(f) < off+2 {
		return 0
	}
	return binary.BigEndian.Uint16(f[off:])
}

// ipv4At reports whether an IPv4 header that the switch accepts starts at
// off: version 4 and IHL >= 5 (the rest of the header is not checked).
func ipv4At(f []byte, off int) bool {
	return len(f) >= off+20 && f[off]>>4 == 4 && f[off]&0x0F >= 5
}

// ipv4Offset returns the offset of the IPv4 header of an IPv4 frame after
// at most one VLAN tag (the frames ECN may mark), or -1.
func ipv4Offset(f []byte) int {
	switch etherType(f, 12) {
	case EtherTypeIPv4:
		if ipv4At(f, 14) {
			return 14
		}
	case EtherTypeVLAN:
		if etherType(f, 16) == EtherTypeIPv4 && ipv4At(f, 18) {
			return 18
		}
	}
	return -1
}

// isPFC reports whether a MAC Control frame is a PFC frame: destination
// 01:80:C2:00:00:01 and opcode 0x0101.
func isPFC(f []byte) bool {
	return len(f) >= 34 && MAC(f[0:6]) == PFCDstMAC && binary.BigEndian.Uint16(f[14:]) == OpcodePFC
}

// priority classifies a frame that passed validity and is not MAC Control
// (README step 2.3): tagged → PCP; untagged IPv4 (version 4, IHL >= 5) →
// DSCP_MAP[DSCP]; otherwise DEFAULT_PRIO.
func priority(f []byte, r *regs) int {
	switch etherType(f, 12) {
	case EtherTypeVLAN:
		return int(f[14] >> 5)
	case EtherTypeIPv4:
		if ipv4At(f, 14) {
			return r.dscpPrio(f[15] >> 2)
		}
	}
	return int(r.defaultPrio & 7)
}

// ecnCapable reports whether a copy of f may be marked: an IPv4 frame after
// at most one VLAN tag (version 4, IHL >= 5) with ECN field 01 or 10.
func ecnCapable(f []byte) bool {
	off := ipv4Offset(f)
	if off < 0 {
		return false
	}
	ecn := f[off+1] & 3
	return ecn == 1 || ecn == 2
}

// MarkCE returns a copy of frame with the ECN field set to 11 (CE) and the
// IPv4 header checksum updated for the word that holds TOS (version and IHL
// in its high byte) by RFC 1624 equation 3, and true, when the switch
// would mark it (an IPv4 frame after at most one VLAN tag, version 4,
// IHL >= 5, ECN 01 or 10); otherwise it returns frame itself and false.
// frame is never modified.
func MarkCE(frame []byte) ([]byte, bool) {
	if !ecnCapable(frame) {
		return frame, false
	}
	off := ipv4Offset(frame)
	out := make([]byte, len(frame))
	copy(out, frame)
	old := binary.BigEndian.Uint16(out[off:])
	out[off+1] |= 3
	hc := binary.BigEndian.Uint16(out[off+10:])
	binary.BigEndian.PutUint16(out[off+10:], checksum.Update(hc, old, binary.BigEndian.Uint16(out[off:])))
	return out, true
}

// PauseCycles converts a received pause time to cycles as the switch does
// (README "PFC", Pause): N = quanta * 512 / dataWidth, exact for the data
// widths the switch allows (powers of two from 8 to 512).
func PauseCycles(quanta uint16, dataWidth int) uint64 {
	return uint64(quanta) * PauseQuantumBits / uint64(dataWidth)
}

// AppendPFCFrame appends to dst the PFCFrameLen-byte frame the switch sends
// for priority prio (README "PFC", PFC frame sent): destination
// 01:80:C2:00:00:01, source src, EtherType 0x8808, opcode 0x0101, enable
// vector 1 << prio, time[prio] = quanta (PFC_QUANTA for XOFF, 0 for XON),
// the other times 0, zero pad. prio must be 0..7.
func AppendPFCFrame(dst []byte, src MAC, prio int, quanta uint16) []byte {
	start := len(dst)
	for range PFCFrameLen {
		dst = append(dst, 0)
	}
	f := dst[start:]
	copy(f[0:6], PFCDstMAC[:])
	copy(f[6:12], src[:])
	binary.BigEndian.PutUint16(f[12:], EtherTypeMACControl)
	binary.BigEndian.PutUint16(f[14:], OpcodePFC)
	binary.BigEndian.PutUint16(f[16:], 1<<uint(prio&7))
	binary.BigEndian.PutUint16(f[18+2*(prio&7):], quanta)
	return dst
}

// PFCFrame returns a new PFC frame as AppendPFCFrame builds it.
func PFCFrame(src MAC, prio int, quanta uint16) []byte {
	return AppendPFCFrame(make([]byte, 0, PFCFrameLen), src, prio, quanta)
}
