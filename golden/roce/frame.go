package roce

import (
	"encoding/binary"
	"errors"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// ErrNotRoCE is returned by Frame.Decode for a frame that is not RoCEv2.
var ErrNotRoCE = errors.New("not a RoCEv2 frame")

// Frame is a RoCEv2 frame decoded in place, at fixed offsets, without
// gopacket's layer machinery: the fast path for checking millions of frames.
// Decode the same frame with gopacket.NewPacket for a full view.
type Frame struct {
	VLAN    bool   // one 802.1Q tag
	TCI     uint16 // its tag control information (PCP, DEI, VID)
	IPv6    bool
	IPStart int // frame[IPStart:IPEnd] is the IP packet, ICRC included
	IPEnd   int
	SrcPort layers.UDPPort
	BTH     BTH // with its extension headers, payload, pad and ICRC
}

// Decode decodes frame: Ethernet, at most one 802.1Q tag, IPv4 or IPv6
// (no extension headers), UDP to port 4791 and the BTH with everything
// after it. It returns ErrNotRoCE for other frames and a *TruncatedError
// when a header is cut short; it allocates nothing.
func (f *Frame) Decode(frame []byte) error {
	if len(frame) < ethHeader {
		return truncated("Ethernet", ethHeader, len(frame))
	}
	off := ethHeader
	et := binary.BigEndian.Uint16(frame[ethType:])
	f.VLAN, f.TCI = false, 0
	if et == uint16(layers.EthernetTypeDot1Q) {
		if len(frame) < off+dot1QLen {
			return truncated("Dot1Q", dot1QLen, len(frame)-off)
		}
		f.VLAN, f.TCI = true, binary.BigEndian.Uint16(frame[off:])
		et = binary.BigEndian.Uint16(frame[off+dot1QType:])
		off += dot1QLen
	}
	var udp, ipLen int
	switch et {
	case uint16(layers.EthernetTypeIPv4):
		if len(frame) < off+ipv4MinHeader {
			return truncated("IPv4", ipv4MinHeader, len(frame)-off)
		}
		ihl := int(frame[off+ipv4IHL]&0x0F) * 4
		if frame[off+ipVersion]>>4 != 4 || ihl < ipv4MinHeader || frame[off+ipv4Protocol] != uint8(layers.IPProtocolUDP) {
			return ErrNotRoCE
		}
		f.IPv6, udp, ipLen = false, off+ihl, int(binary.BigEndian.Uint16(frame[off+ipv4TotalLen:]))
	case uint16(layers.EthernetTypeIPv6):
		if len(frame) < off+ipv6Header {
			return truncated("IPv6", ipv6Header, len(frame)-off)
		}
		if frame[off+ipVersion]>>4 != 6 || frame[off+ipv6NextHeader] != uint8(layers.IPProtocolUDP) {
			return ErrNotRoCE
		}
		f.IPv6, udp, ipLen = true, off+ipv6Header, ipv6Header+int(binary.BigEndian.Uint16(frame[off+ipv6PayloadLen:]))
	default:
		return ErrNotRoCE
	}
	if len(frame) < udp+udpHeader {
		return truncated("UDP", udpHeader, len(frame)-udp)
	}
	if binary.BigEndian.Uint16(frame[udp+udpDstPort:]) != uint16(UDPPort) {
		return ErrNotRoCE
	}
	end := off + ipLen
	if end > len(frame) || end < udp+udpHeader {
		return truncated("IP packet", ipLen, len(frame)-off)
	}
	f.IPStart, f.IPEnd = off, end
	f.SrcPort = layers.UDPPort(binary.BigEndian.Uint16(frame[udp+udpSrcPort:]))
	return f.BTH.DecodeFromBytes(frame[udp+udpHeader:end], gopacket.NilDecodeFeedback)
}

// IPPacket returns the IP packet of a decoded frame, ICRC included.
func (f *Frame) IPPacket(frame []byte) []byte { return frame[f.IPStart:f.IPEnd] }
