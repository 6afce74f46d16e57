package tb

import (
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	tb "github.com/rocesim/cosim/harness/testbench"
)

// Fields of the 802.1Q tag a test may leave out, named by layer and field
// as testbench's own (IEEE 802.1Q-2018, 9.6: the TCI is PCP, DEI, VID).
var (
	Dot1QPCP = tb.Field{Layer: layers.LayerTypeDot1Q, Name: "Priority", Bit: 0, Bits: 3}
	Dot1QDEI = tb.Field{Layer: layers.LayerTypeDot1Q, Name: "DropEligible", Bit: 3, Bits: 1}
	Dot1QVID = tb.Field{Layer: layers.LayerTypeDot1Q, Name: "VLANIdentifier", Bit: 4, Bits: 12}
)

// tag is a VLAN tag's control information.
type tag struct {
	pcp uint8
	dei bool
	vid uint16
}

// udp is a frame from host 1 to host 2 (or to everyone, when broadcast),
// tagged when vlan is not nil; its payload makes it 82 bytes untagged, so
// that no padding differs between the tagged and untagged forms.
func udp(b *tb.Bench, vlan *tag, broadcast bool, payload string) []byte {
	dst := net.HardwareAddr{2, 0, 0, 0, 0, 2}
	if broadcast {
		dst = net.HardwareAddr{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
	}
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: dst, EthernetType: layers.EthernetTypeIPv4}
	ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}}
	u := &layers.UDP{SrcPort: 4000, DstPort: 4001}
	u.SetNetworkLayerForChecksum(ip)
	body := gopacket.Payload(payload + "..........................................."[:40-min(40, len(payload))])
	if vlan == nil {
		return b.Packet(eth, ip, u, body)
	}
	eth.EthernetType = layers.EthernetTypeDot1Q
	q := &layers.Dot1Q{Priority: vlan.pcp, DropEligible: vlan.dei, VLANIdentifier: vlan.vid, Type: layers.EthernetTypeIPv4}
	return b.Packet(eth, q, ip, u, body)
}

// tci is t as the TAG register holds it.
func (t tag) tci() uint32 {
	v := uint32(t.pcp)<<13 | uint32(t.vid&0xfff)
	if t.dei {
		v |= 1 << 12
	}
	return v
}

// raw is a frame of n bytes whose bytes 12..13 are etherType.
func raw(n int, etherType uint16) []byte {
	f := make([]byte, n)
	for i := range f {
		f[i] = byte(0x10 + i)
	}
	if n >= 14 {
		f[12], f[13] = byte(etherType>>8), byte(etherType)
	}
	return f
}
