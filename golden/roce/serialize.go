package roce

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/checksum"
)

// SerializeLayers is gopacket.SerializeLayers for frames that hold a RoCEv2
// packet: with opts.ComputeChecksums it also computes the ICRC, which needs
// the finished IP and UDP headers.
func SerializeLayers(w gopacket.SerializeBuffer, opts gopacket.SerializeOptions, ls ...gopacket.SerializableLayer) error {
	if err := gopacket.SerializeLayers(w, opts, ls...); err != nil {
		return err
	}
	if !opts.ComputeChecksums {
		return nil
	}
	return FixICRC(w.Bytes())
}

// FixICRC rewrites the ICRC of an Ethernet frame that carries a RoCEv2
// packet, in place. A non-zero UDP checksum is recomputed after it, since it
// covers the ICRC: the ICRC masks the UDP checksum, but a Linux receiver
// checks a non-zero one before Soft-RoCE sees the packet
// (udp_queue_rcv_one_skb), so it must be right or zero.
func FixICRC(frame []byte) error {
	start, end, err := IPPacket(frame)
	if err != nil {
		return err
	}
	pkt := frame[start:end]
	if len(pkt) < ICRCLen {
		return errICRCLen
	}
	icrc, err := ComputeICRC(pkt[:len(pkt)-ICRCLen])
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(pkt[len(pkt)-ICRCLen:], icrc)
	fixUDPChecksum(pkt)
	return nil
}

// fixUDPChecksum recomputes the UDP checksum of an IP packet unless it is
// zero (RFC 768 pseudo-header for IPv4, RFC 8200 section 8.1 for IPv6).
// ComputeICRC has checked the headers are there.
func fixUDPChecksum(pkt []byte) {
	h, err := parseIP(pkt)
	udp := h.udp
	if err != nil || binary.BigEndian.Uint16(pkt[udp+udpChecksum:]) == 0 {
		return
	}
	addrs := pkt[ipv4SrcAddr : ipv4DstAddr+ipv4AddrLen] // source and destination addresses
	if h.v6 {
		addrs = pkt[ipv6SrcAddr : ipv6DstAddr+ipv6AddrLen]
	}
	datagram := pkt[udp:]
	sum := uint64(checksum.Sum(0, addrs)) + uint64(layers.IPProtocolUDP) + uint64(len(datagram))
	pkt[udp+udpChecksum], pkt[udp+udpChecksum+1] = 0, 0
	c := ^checksum.Sum(sum, datagram)
	if c == 0 {
		c = 0xFFFF // zero means "no checksum" (RFC 768)
	}
	binary.BigEndian.PutUint16(pkt[udp+udpChecksum:], c)
}

// ErrNotIP is returned by IPPacket for a frame that carries neither IPv4 nor IPv6.
var ErrNotIP = errors.New("frame carries neither IPv4 nor IPv6")

// IPPacket finds the IP packet in an Ethernet frame, after any 802.1Q or
// 802.1ad tags: frame[start:end] runs from the first IP header byte to the
// last byte the IP length field counts (Ethernet padding excluded).
func IPPacket(frame []byte) (start, end int, err error) {
	off := ethHeader
	if len(frame) < off {
		return 0, 0, truncated("Ethernet", ethHeader, len(frame))
	}
	et := layers.EthernetType(binary.BigEndian.Uint16(frame[ethType:]))
	for et == layers.EthernetTypeDot1Q || et == layers.EthernetTypeQinQ {
		if len(frame) < off+dot1QLen {
			return 0, 0, truncated("Dot1Q", dot1QLen, len(frame)-off)
		}
		et = layers.EthernetType(binary.BigEndian.Uint16(frame[off+dot1QType:]))
		off += dot1QLen
	}
	var n int
	switch et {
	case layers.EthernetTypeIPv4:
		if len(frame) < off+ipv4MinHeader {
			return 0, 0, truncated("IPv4", ipv4MinHeader, len(frame)-off)
		}
		n = int(binary.BigEndian.Uint16(frame[off+ipv4TotalLen:]))
		if ihl := int(frame[off+ipv4IHL]&0x0F) * 4; n < ihl || ihl < ipv4MinHeader {
			return 0, 0, fmt.Errorf("IPv4 total length %d is shorter than its header (IHL %d bytes)", n, ihl)
		}
	case layers.EthernetTypeIPv6:
		if len(frame) < off+ipv6Header {
			return 0, 0, truncated("IPv6", ipv6Header, len(frame)-off)
		}
		n = ipv6Header + int(binary.BigEndian.Uint16(frame[off+ipv6PayloadLen:]))
	default:
		return 0, 0, fmt.Errorf("%w (EtherType %#04x)", ErrNotIP, uint16(et))
	}
	if off+n > len(frame) {
		return 0, 0, truncated("IP packet", n, len(frame)-off)
	}
	return off, off + n, nil
}
