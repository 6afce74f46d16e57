// Package nic holds the golden models of the RoCEv2 NIC's RTL units. Today:
// the ICRC insert and check units of rtl/nic; the RC transport follows.
package nic

import (
	"encoding/binary"

	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/roce"
)

// ICRCCounters mirrors the statistics counters of the ICRC units.
type ICRCCounters struct {
	RoCE    uint64 // RoCEv2 frames handled
	Other   uint64 // frames passed through untouched
	BadICRC uint64 // icrc_check only: RoCEv2 frames whose ICRC did not verify
}

// roceIP returns where the IP packet of a RoCEv2 frame starts and its length
// from the IP header, the way the RTL classifies frames: EtherType IPv4 or
// IPv6 after at most one 802.1Q tag, IP protocol (IPv6 next header) UDP,
// UDP destination port 4791. ok is false for any other frame.
func roceIP(f []byte) (start, ipLen int, ok bool) {
	const eth = 14
	if len(f) < eth {
		return 0, 0, false
	}
	off := eth
	et := layers.EthernetType(binary.BigEndian.Uint16(f[12:]))
	if et == layers.EthernetTypeDot1Q {
		if len(f) < off+4 {
			return 0, 0, false
		}
		et = layers.EthernetType(binary.BigEndian.Uint16(f[off+2:]))
		off += 4
	}
	var udp int
	switch et {
	case layers.EthernetTypeIPv4:
		if len(f) < off+20 || f[off]>>4 != 4 || f[off+9] != uint8(layers.IPProtocolUDP) {
			return 0, 0, false
		}
		udp = off + int(f[off]&0x0F)*4
		ipLen = int(binary.BigEndian.Uint16(f[off+2:]))
	case layers.EthernetTypeIPv6:
		if len(f) < off+40 || f[off]>>4 != 6 || f[off+6] != uint8(layers.IPProtocolUDP) {
			return 0, 0, false
		}
		udp = off + 40
		ipLen = 40 + int(binary.BigEndian.Uint16(f[off+4:]))
	default:
		return 0, 0, false
	}
	if len(f) < udp+8+roce.BTHLen || binary.BigEndian.Uint16(f[udp+2:]) != uint16(roce.UDPPort) {
		return 0, 0, false
	}
	return off, ipLen, true
}

// InsertICRC is the golden icrc_insert: a RoCEv2 frame gets the ICRC of
// everything from its IP header to its last byte appended; any other frame
// passes unchanged. The input's IP and UDP lengths already count the ICRC.
func InsertICRC(frame []byte, c *ICRCCounters) []byte {
	start, _, ok := roceIP(frame)
	if !ok {
		c.Other++
		return frame
	}
	icrc, err := roce.ComputeICRC(frame[start:])
	if err != nil {
		c.Other++
		return frame
	}
	c.RoCE++
	return binary.LittleEndian.AppendUint32(append([]byte{}, frame...), icrc)
}

// CheckICRC is the golden icrc_check: a RoCEv2 frame loses its ICRC and any
// Ethernet padding after the IP packet (the IP length locates the ICRC), and
// comes out bad when the ICRC does not verify; any other frame passes
// unchanged.
func CheckICRC(frame []byte, c *ICRCCounters) (out []byte, bad bool) {
	start, ipLen, ok := roceIP(frame)
	if !ok || ipLen < roce.ICRCLen || start+ipLen > len(frame) {
		c.Other++
		return frame, false
	}
	c.RoCE++
	pkt := frame[start : start+ipLen]
	good, _, _, err := roce.VerifyICRC(pkt)
	if err != nil || !good {
		c.BadICRC++
		bad = true
	}
	return frame[:start+ipLen-roce.ICRCLen], bad
}
