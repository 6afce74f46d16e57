// Package nic holds the golden models of the RoCEv2 NIC's RTL units (the
// ICRC insert and check units of rtl/nic) and the codec of the NIC's host
// records (commands and completions); the RC transport is golden/rc.
package nic

import (
	"encoding/binary"
	"hash/crc32"

	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/roce"
)

// ICRCCounters mirrors the statistics counters of the ICRC units.
type ICRCCounters struct {
	RoCE    uint64 // RoCEv2 frames handled
	Other   uint64 // frames passed through untouched
	BadICRC uint64 // icrc_check only: RoCEv2 frames whose ICRC did not verify
}

// Offsets of the fields the ICRC units read, each from the first byte of
// its header; golden/roce's headers.go names the same ones.
const (
	ethType   = 12
	ethHeader = 14
	dot1QType = 2 // EtherType after the tag control information
	dot1QLen  = 4

	ipv4TOS       = 1
	ipv4TotalLen  = 2
	ipv4TTL       = 8
	ipv4Protocol  = 9
	ipv4Checksum  = 10
	ipv4MinHeader = 20

	ipv6TrafficClass = 0 // low nibble of byte 0, high nibble of byte 1; the flow label follows
	ipv6PayloadLen   = 4
	ipv6NextHeader   = 6
	ipv6HopLimit     = 7
	ipv6Header       = 40

	udpDstPort  = 2
	udpChecksum = 6
	udpHeader   = 8

	bthFECN = 4 // FECN, BECN, Resv6
)

// roceIP applies the RTL's rule for "this is a RoCEv2 frame" (rtl/common/
// crc32_roce.sv): EtherType IPv4 or IPv6 at byte 12, or at byte 16 after one
// 802.1Q tag; the version nibble matching; IPv4 IHL at least 5; protocol or
// next header UDP; an IP length leaving room for UDP, BTH and ICRC (IPv4
// total length >= 4*IHL + 24, IPv6 payload length >= 24); UDP destination
// port 4791; and every byte read for this in the frame. It returns where
// the IP packet starts, where the UDP header starts, and the IP end the IP
// length gives.
func roceIP(f []byte) (start, udp, end int, ok bool) {
	const minL4 = udpHeader + roce.BTHLen + roce.ICRCLen
	if len(f) < ethHeader {
		return 0, 0, 0, false
	}
	off := ethHeader
	et := layers.EthernetType(binary.BigEndian.Uint16(f[ethType:]))
	if et == layers.EthernetTypeDot1Q {
		if len(f) < off+dot1QLen {
			return 0, 0, 0, false
		}
		et = layers.EthernetType(binary.BigEndian.Uint16(f[off+dot1QType:]))
		off += dot1QLen
	}
	var ipLen int
	switch et {
	case layers.EthernetTypeIPv4:
		if len(f) < off+ipv4MinHeader || f[off]>>4 != 4 || f[off]&0x0F < 5 || f[off+ipv4Protocol] != uint8(layers.IPProtocolUDP) {
			return 0, 0, 0, false
		}
		udp = off + int(f[off]&0x0F)*4
		ipLen = int(binary.BigEndian.Uint16(f[off+ipv4TotalLen:]))
		if ipLen < udp-off+minL4 {
			return 0, 0, 0, false
		}
	case layers.EthernetTypeIPv6:
		if len(f) < off+ipv6Header || f[off]>>4 != 6 || f[off+ipv6NextHeader] != uint8(layers.IPProtocolUDP) {
			return 0, 0, 0, false
		}
		udp = off + ipv6Header
		ipLen = ipv6Header + int(binary.BigEndian.Uint16(f[off+ipv6PayloadLen:]))
		if ipLen < ipv6Header+minL4 {
			return 0, 0, 0, false
		}
	default:
		return 0, 0, 0, false
	}
	if len(f) < udp+udpDstPort+2 || binary.BigEndian.Uint16(f[udp+udpDstPort:]) != uint16(roce.UDPPort) {
		return 0, 0, 0, false
	}
	return off, udp, off + ipLen, true
}

// InsertICRC is the golden icrc_insert: a RoCEv2 frame gets the ICRC of
// everything from its IP header to its last byte appended (lengths are not
// checked: the unit appends at tlast); any other frame passes unchanged. The
// input's IP and UDP lengths already count the ICRC.
func InsertICRC(frame []byte, c *ICRCCounters) []byte {
	start, udp, _, ok := roceIP(frame)
	if !ok {
		c.Other++
		return frame
	}
	c.RoCE++
	out := make([]byte, len(frame), len(frame)+roce.ICRCLen) // one allocation: the caller keeps it
	copy(out, frame)
	return binary.LittleEndian.AppendUint32(out, maskedICRC(frame[start:], udp-start))
}

// CheckICRC is the golden icrc_check: a RoCEv2 frame leaves without its ICRC
// and anything after it (the IP length locates the ICRC), flagged bad when
// the ICRC is wrong; a frame that ends before its ICRC leaves whole, one
// that ends inside it leaves cut before it, both flagged bad. Any other
// frame passes unchanged.
func CheckICRC(frame []byte, c *ICRCCounters) (out []byte, bad bool) {
	start, udp, end, ok := roceIP(frame)
	if !ok {
		c.Other++
		return frame, false
	}
	c.RoCE++
	icrcAt := end - roce.ICRCLen
	switch {
	case len(frame) < icrcAt:
		out, bad = frame, true
	case len(frame) < end:
		out, bad = frame[:icrcAt], true
	default:
		out = frame[:icrcAt]
		bad = binary.LittleEndian.Uint32(frame[icrcAt:]) != maskedICRC(frame[start:icrcAt], udp-start)
	}
	if bad {
		c.BadICRC++
	}
	return out, bad
}

// maskedICRC is roce.ComputeICRC, extended to packets cut short inside
// their UDP header or BTH, which the insert unit still sums: the masks
// apply to whichever of their bytes are there.
func maskedICRC(pkt []byte, udp int) uint32 {
	if icrc, err := roce.ComputeICRC(pkt); err == nil {
		return icrc
	}
	m := append([]byte{}, pkt...)
	set := func(i int) {
		if i < len(m) {
			m[i] = 0xFF
		}
	}
	if m[0]>>4 == 6 {
		m[ipv6TrafficClass] |= 0x0F
		set(ipv6TrafficClass + 1) // traffic class low nibble, flow label
		set(ipv6TrafficClass + 2)
		set(ipv6TrafficClass + 3)
		set(ipv6HopLimit)
	} else {
		set(ipv4TOS)
		set(ipv4TTL)
		set(ipv4Checksum)
		set(ipv4Checksum + 1)
	}
	set(udp + udpChecksum)
	set(udp + udpChecksum + 1)
	set(udp + udpHeader + bthFECN)
	return crc32.Update(crc32.ChecksumIEEE([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), crc32.IEEETable, m)
}
