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
// annex A17.3.3). Value is the CRC-32 as computed
// by ComputeICRC; on the wire it is little-endian, low byte first, like the
// Ethernet FCS (rxe_icrc.c, scapy contrib/roce.py).
type ICRC struct {
	layers.BaseLayer
	Value uint32
}

func (c *ICRC) LayerType() gopacket.LayerType  { return LayerTypeICRC }
func (c *ICRC) CanDecode() gopacket.LayerClass { return LayerTypeICRC }
func (c *ICRC) NextLayerType() gopacket.LayerType {
	if len(c.Payload) > 0 {
		return gopacket.LayerTypePayload // bytes after a trailer: Ethernet padding
	}
	return gopacket.LayerTypeZero
}

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
	errICRCLen = errors.New("icrc: packet too short for IP, UDP and BTH headers")
)

// maxMasked is the longest run of headers with masked fields: IPv4 with 40
// bytes of options, UDP and the BTH.
const maxMasked = ipv4MaxHeader + udpHeader + BTHLen

// ComputeICRC returns the ICRC of pkt, an IPv4 or IPv6 packet from its first
// header byte up to, not including, the ICRC. Masked to all ones first: IPv4
// TOS, TTL and header checksum; IPv6 traffic class, flow label and hop limit;
// the UDP checksum; BTH byte 4 (FECN, BECN, reserved). IPv6 extension
// headers are not supported: the next header must be UDP.
//
// It allocates nothing: the headers are copied to the stack, masked and run
// through a package-local slicing-by-8 CRC (handing a stack buffer to
// hash/crc32 would move it to the heap); the rest goes to hash/crc32's
// hardware-assisted path in one call.
func ComputeICRC(pkt []byte) (uint32, error) {
	h, err := parseIP(pkt)
	if err != nil {
		return 0, err
	}
	var hdr [maxMasked]byte
	n := h.bth + BTHLen
	copy(hdr[:], pkt[:n])
	h.mask(hdr[:n])
	crc := update8(onesCRC, hdr[:n])
	return crc32.Update(crc, crc32.IEEETable, pkt[n:]), nil
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

// ipHeaders locates the headers of a RoCEv2 IP packet.
type ipHeaders struct {
	v6  bool
	udp int // offset of the UDP header
	bth int // offset of the BTH
}

// parseIP checks that pkt is an IPv4 or IPv6 packet carrying UDP with room
// for UDP and BTH headers, and returns where they are. The version decides
// the layout, never the header length: IPv4 with IHL 10 is 40 bytes too.
func parseIP(pkt []byte) (ipHeaders, error) {
	if len(pkt) < 1 {
		return ipHeaders{}, errICRCLen
	}
	var h ipHeaders
	switch pkt[ipVersion] >> 4 {
	case 4:
		h.udp = int(pkt[ipv4IHL]&0x0F) * 4
		if h.udp < ipv4MinHeader {
			return h, fmt.Errorf("icrc: IPv4 header length %d is below 20", h.udp)
		}
		if len(pkt) > ipv4Protocol && pkt[ipv4Protocol] != uint8(layers.IPProtocolUDP) {
			return h, fmt.Errorf("icrc: IPv4 protocol %d is not UDP", pkt[ipv4Protocol])
		}
	case 6:
		h.v6, h.udp = true, ipv6Header
		if len(pkt) > ipv6NextHeader && pkt[ipv6NextHeader] != uint8(layers.IPProtocolUDP) {
			return h, fmt.Errorf("icrc: IPv6 next header %d is not UDP (extension headers are not supported)", pkt[ipv6NextHeader])
		}
	default:
		return h, fmt.Errorf("icrc: IP version %d is neither 4 nor 6", pkt[ipVersion]>>4)
	}
	h.bth = h.udp + udpHeader
	if len(pkt) < h.bth+BTHLen {
		return h, errICRCLen
	}
	return h, nil
}

// mask sets the variant fields of the headers in b to all ones.
func (h ipHeaders) mask(b []byte) {
	if h.v6 {
		b[ipv6TrafficClass] |= 0x0F // traffic class, high nibble
		// traffic class low nibble, flow label
		b[ipv6TrafficClass+1], b[ipv6TrafficClass+2], b[ipv6TrafficClass+3] = 0xFF, 0xFF, 0xFF
		b[ipv6HopLimit] = 0xFF
	} else {
		b[ipv4TOS] = 0xFF
		b[ipv4TTL] = 0xFF
		b[ipv4Checksum], b[ipv4Checksum+1] = 0xFF, 0xFF
	}
	b[h.udp+udpChecksum], b[h.udp+udpChecksum+1] = 0xFF, 0xFF
	b[h.bth+bthFECN] = 0xFF // FECN, BECN, reserved
}

// slicing8 holds the tables of a slicing-by-8 CRC-32 (reflected polynomial
// 0xEDB88320): slicing8[k][b] is the CRC of byte b followed by k zero bytes.
var slicing8 = func() (t [8][256]uint32) {
	for i := range 256 {
		c := uint32(i)
		for range 8 {
			if c&1 != 0 {
				c = c>>1 ^ 0xEDB88320
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for i := range 256 {
		for k := 1; k < 8; k++ {
			t[k][i] = t[k-1][i]>>8 ^ t[0][t[k-1][i]&0xFF]
		}
	}
	return t
}()

// update8 continues the CRC-32 crc (as crc32.Update does) over p.
func update8(crc uint32, p []byte) uint32 {
	t := &slicing8
	crc = ^crc
	for len(p) >= 8 {
		crc ^= binary.LittleEndian.Uint32(p)
		crc = t[0][p[7]] ^ t[1][p[6]] ^ t[2][p[5]] ^ t[3][p[4]] ^
			t[4][crc>>24] ^ t[5][crc>>16&0xFF] ^ t[6][crc>>8&0xFF] ^ t[7][crc&0xFF]
		p = p[8:]
	}
	for _, b := range p {
		crc = t[0][byte(crc)^b] ^ crc>>8
	}
	return ^crc
}

// ReferenceICRC is the plain, obviously correct form of ComputeICRC, kept to
// test the fast one: copy, mask, then a bit-at-a-time CRC-32 (reflected
// polynomial 0xEDB88320, initial value and final XOR all ones).
func ReferenceICRC(pkt []byte) (uint32, error) {
	h, err := parseIP(pkt)
	if err != nil {
		return 0, err
	}
	udp := h.udp
	m := append(append([]byte{}, ones[:]...), pkt...)
	ip := m[len(ones):]
	if h.v6 {
		ip[ipv6TrafficClass] |= 0x0F // traffic class, high nibble
		// traffic class low nibble, flow label
		ip[ipv6TrafficClass+1], ip[ipv6TrafficClass+2], ip[ipv6TrafficClass+3] = 0xFF, 0xFF, 0xFF
		ip[ipv6HopLimit] = 0xFF
	} else {
		ip[ipv4TOS] = 0xFF
		ip[ipv4TTL] = 0xFF
		ip[ipv4Checksum], ip[ipv4Checksum+1] = 0xFF, 0xFF
	}
	ip[udp+udpChecksum], ip[udp+udpChecksum+1] = 0xFF, 0xFF
	ip[udp+udpHeader+bthFECN] = 0xFF // FECN, BECN, reserved
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
