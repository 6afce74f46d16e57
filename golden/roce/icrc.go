package roce

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// ICRCLen is the size of the invariant CRC trailer.
const ICRCLen = 4

// ICRC is the invariant CRC trailer that ends every RoCEv2 packet (IBA
// annex A17.3.3; PROTOCOL-NOTES section 3). Value is the CRC-32 as computed
// by ComputeICRC; on the wire it is little-endian, low byte first, like the
// Ethernet FCS (rxe_icrc.c, scapy contrib/roce.py).
type ICRC struct {
	layers.BaseLayer
	Value uint32
}

func (c *ICRC) LayerType() gopacket.LayerType     { return LayerTypeICRC }
func (c *ICRC) CanDecode() gopacket.LayerClass    { return LayerTypeICRC }
func (c *ICRC) NextLayerType() gopacket.LayerType { return gopacket.LayerTypeZero }

// DecodeFromBytes decodes the first 4 bytes of data.
func (c *ICRC) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < ICRCLen {
		*c = ICRC{}
		df.SetTruncated()
		return truncated("ICRC", ICRCLen, len(data))
	}
	c.Value = binary.LittleEndian.Uint32(data)
	c.BaseLayer = layers.BaseLayer{Contents: data[:ICRCLen], Payload: data[ICRCLen:]}
	return nil
}

// SerializeTo appends the trailer (it follows everything serialised so far).
func (c *ICRC) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.AppendBytes(ICRCLen)
	if err != nil {
		return err
	}
	binary.LittleEndian.PutUint32(buf, c.Value)
	return nil
}

// The CRC runs over 8 bytes of 0xFF standing for the masked LRH of native
// InfiniBand, then the IP packet with its variant fields set to all ones.
var (
	ones       = [8]byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}
	onesCRC    = crc32.ChecksumIEEE(ones[:]) // 0xDEBB20E3 in rxe's register form
	ipv6Byte0  = [1]byte{0x6F}               // version 6, traffic class bits masked
	errICRCLen = errors.New("icrc: packet too short for IP, UDP and BTH headers")
)

const (
	ipv4MinHeader = 20
	ipv6Header    = 40
	udpHeader     = 8
	bthLen        = 12
)

// ComputeICRC returns the ICRC of pkt, an IPv4 or IPv6 packet from its first
// header byte up to, not including, the ICRC. Masked to all ones first: IPv4
// TOS, TTL and header checksum; IPv6 traffic class, flow label and hop limit;
// the UDP checksum; BTH byte 4 (FECN, BECN, reserved). IPv6 extension
// headers are not supported: the next header must be UDP.
//
// It allocates nothing: the masked bytes are fed to the CRC as constant runs
// of ones between slices of pkt.
func ComputeICRC(pkt []byte) (uint32, error) {
	udp, err := udpOffset(pkt)
	if err != nil {
		return 0, err
	}
	bth := udp + udpHeader
	crc := onesCRC
	if udp == ipv6Header {
		// version | TC[7:4], TC[3:0] | FL[19:16], FL[15:0], payload length,
		// next header, hop limit.
		crc = crc32.Update(crc, crc32.IEEETable, ipv6Byte0[:])
		crc = crc32.Update(crc, crc32.IEEETable, ones[:3])
		crc = crc32.Update(crc, crc32.IEEETable, pkt[4:7])
		crc = crc32.Update(crc, crc32.IEEETable, ones[:1])
		crc = crc32.Update(crc, crc32.IEEETable, pkt[8:udp+6])
	} else {
		crc = crc32.Update(crc, crc32.IEEETable, pkt[0:1])
		crc = crc32.Update(crc, crc32.IEEETable, ones[:1]) // TOS
		crc = crc32.Update(crc, crc32.IEEETable, pkt[2:8])
		crc = crc32.Update(crc, crc32.IEEETable, ones[:1]) // TTL
		crc = crc32.Update(crc, crc32.IEEETable, pkt[9:10])
		crc = crc32.Update(crc, crc32.IEEETable, ones[:2]) // header checksum
		crc = crc32.Update(crc, crc32.IEEETable, pkt[12:udp+6])
	}
	crc = crc32.Update(crc, crc32.IEEETable, ones[:2]) // UDP checksum
	crc = crc32.Update(crc, crc32.IEEETable, pkt[udp+8:bth+4])
	crc = crc32.Update(crc, crc32.IEEETable, ones[:1]) // FECN, BECN, reserved
	return crc32.Update(crc, crc32.IEEETable, pkt[bth+5:]), nil
}

// VerifyICRC reports whether the last 4 bytes of pkt, an IP packet that ends
// with its ICRC, hold the right ICRC. It also returns the value found and the
// value expected.
func VerifyICRC(pkt []byte) (ok bool, got, want uint32, err error) {
	if len(pkt) < ICRCLen {
		return false, 0, 0, errICRCLen
	}
	n := len(pkt) - ICRCLen
	want, err = ComputeICRC(pkt[:n])
	if err != nil {
		return false, 0, 0, err
	}
	got = binary.LittleEndian.Uint32(pkt[n:])
	return got == want, got, want, nil
}

// udpOffset returns where the UDP header starts in an IP packet and checks
// that the packet holds at least IP, UDP and BTH headers.
func udpOffset(pkt []byte) (int, error) {
	if len(pkt) < 1 {
		return 0, errICRCLen
	}
	var off int
	switch pkt[0] >> 4 {
	case 4:
		off = int(pkt[0]&0x0F) * 4
		if off < ipv4MinHeader {
			return 0, fmt.Errorf("icrc: IPv4 header length %d is below 20", off)
		}
	case 6:
		off = ipv6Header
		if len(pkt) > 6 && pkt[6] != uint8(layers.IPProtocolUDP) {
			return 0, fmt.Errorf("icrc: IPv6 next header %d is not UDP (extension headers are not supported)", pkt[6])
		}
	default:
		return 0, fmt.Errorf("icrc: IP version %d is neither 4 nor 6", pkt[0]>>4)
	}
	if len(pkt) < off+udpHeader+bthLen {
		return 0, errICRCLen
	}
	return off, nil
}

// ReferenceICRC is the plain, obviously correct form of ComputeICRC, kept to
// test the fast one: copy, mask, then a bit-at-a-time CRC-32 (reflected
// polynomial 0xEDB88320, initial value and final XOR all ones).
func ReferenceICRC(pkt []byte) (uint32, error) {
	udp, err := udpOffset(pkt)
	if err != nil {
		return 0, err
	}
	m := append(append([]byte{}, ones[:]...), pkt...)
	ip := m[8:]
	if udp == ipv6Header {
		ip[0] |= 0x0F                          // traffic class, high nibble
		ip[1], ip[2], ip[3] = 0xFF, 0xFF, 0xFF // traffic class low nibble, flow label
		ip[7] = 0xFF                           // hop limit
	} else {
		ip[1] = 0xFF                // TOS
		ip[8] = 0xFF                // TTL
		ip[10], ip[11] = 0xFF, 0xFF // header checksum
	}
	ip[udp+6], ip[udp+7] = 0xFF, 0xFF // UDP checksum
	ip[udp+udpHeader+4] = 0xFF        // FECN, BECN, reserved
	crc := uint32(0xFFFFFFFF)
	for _, b := range m {
		crc ^= uint32(b)
		for i := 0; i < 8; i++ {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xEDB88320
			} else {
				crc >>= 1
			}
		}
	}
	return ^crc, nil
}
