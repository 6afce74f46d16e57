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

// roceIP applies the RTL's rule for "this is a RoCEv2 frame" (rtl/common/
// crc32_roce.sv): EtherType IPv4 or IPv6 at byte 12, or at byte 16 after one
// 802.1Q tag; the version nibble matching; IPv4 IHL at least 5; protocol or
// next header UDP; an IP length leaving room for UDP, BTH and ICRC (IPv4
// total length >= 4*IHL + 24, IPv6 payload length >= 24); UDP destination
// port 4791; and every byte read for this in the frame. It returns where
// the IP packet starts, where the UDP header starts, and the IP end the IP
// length gives.
func roceIP(f []byte) (start, udp, end int, ok bool) {
	const eth, minL4 = 14, 8 + roce.BTHLen + roce.ICRCLen
	if len(f) < eth {
		return 0, 0, 0, false
	}
	off := eth
	et := layers.EthernetType(binary.BigEndian.Uint16(f[12:]))
	if et == layers.EthernetTypeDot1Q {
		if len(f) < off+4 {
			return 0, 0, 0, false
		}
		et = layers.EthernetType(binary.BigEndian.Uint16(f[off+2:]))
		off += 4
	}
	var ipLen int
	switch et {
	case layers.EthernetTypeIPv4:
		if len(f) < off+20 || f[off]>>4 != 4 || f[off]&0x0F < 5 || f[off+9] != uint8(layers.IPProtocolUDP) {
			return 0, 0, 0, false
		}
		udp = off + int(f[off]&0x0F)*4
		ipLen = int(binary.BigEndian.Uint16(f[off+2:]))
		if ipLen < udp-off+minL4 {
			return 0, 0, 0, false
		}
	case layers.EthernetTypeIPv6:
		if len(f) < off+40 || f[off]>>4 != 6 || f[off+6] != uint8(layers.IPProtocolUDP) {
			return 0, 0, 0, false
		}
		udp = off + 40
		ipLen = 40 + int(binary.BigEndian.Uint16(f[off+4:]))
		if ipLen < 40+minL4 {
			return 0, 0, 0, false
		}
	default:
		return 0, 0, 0, false
	}
	if len(f) < udp+4 || binary.BigEndian.Uint16(f[udp+2:]) != uint16(roce.UDPPort) {
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
		m[0] |= 0x0F
		set(1)
		set(2)
		set(3)
		set(7)
	} else {
		set(1)
		set(8)
		set(10)
		set(11)
	}
	set(udp + 6)
	set(udp + 7)
	set(udp + 8 + 4)
	return crc32.Update(crc32.ChecksumIEEE([]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}), crc32.IEEETable, m)
}
