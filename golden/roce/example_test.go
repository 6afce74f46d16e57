package roce_test

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"net"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/roce"
)

// Build an RC RDMA WRITE ONLY over IPv4 and check its ICRC.
func ExampleSerializeLayers() {
	ip := &layers.IPv4{
		Version: 4, TTL: 64, Flags: layers.IPv4DontFragment, TOS: 0x02, // ECT(0)
		Protocol: layers.IPProtocolUDP,
		SrcIP:    net.IP{192, 168, 0, 1}, DstIP: net.IP{192, 168, 0, 2},
	}
	udp := &layers.UDP{SrcPort: 0xC012, DstPort: roce.UDPPort}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		panic(err)
	}
	bth := &roce.BTH{
		OpCode: roce.RCWriteOnly, PKey: roce.DefaultPKey, DestQP: 0x12, AckReq: true, PSN: 0x100,
		RETH: roce.RETH{VA: 0x10000, RKey: 0xABCD, DMALen: 5},
	}
	buf := gopacket.NewSerializeBuffer()
	err := roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		&layers.Ethernet{
			SrcMAC:       net.HardwareAddr{2, 0, 0, 0, 0, 1},
			DstMAC:       net.HardwareAddr{2, 0, 0, 0, 0, 2},
			EthernetType: layers.EthernetTypeIPv4,
		},
		ip, udp, bth, gopacket.Payload("hello"))
	if err != nil {
		panic(err)
	}
	frame := buf.Bytes()

	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	var names []string
	for _, l := range p.Layers() {
		names = append(names, l.LayerType().String())
	}
	fmt.Println(strings.Join(names, " "))
	b := p.Layer(roce.LayerTypeBTH).(*roce.BTH)
	fmt.Printf("%v qp=%v psn=%v ackreq=%v va=%#x rkey=%#x len=%d payload=%q padcnt=%d\n",
		b.OpCode, b.DestQP, b.PSN, b.AckReq, b.RETH.VA, b.RETH.RKey, b.RETH.DMALen, b.Payload, b.PadCnt)

	start, end, err := roce.IPPacket(frame)
	if err != nil {
		panic(err)
	}
	ok, _, _, err := roce.VerifyICRC(frame[start:end])
	fmt.Println("frame", len(frame), "bytes, IP length", end-start, "ICRC valid:", ok, err)
	// Output:
	// Ethernet IPv4 UDP BTH RETH Payload ICRC
	// RC_RDMA_WRITE_ONLY qp=0x000012 psn=0x000100 ackreq=true va=0x10000 rkey=0xabcd len=5 payload="hello" padcnt=3
	// frame 82 bytes, IP length 68 ICRC valid: true <nil>
}

// Decode frames without allocating: a DecodingLayerParser whose layers,
// the BTH among them, are reused for every frame.
func ExampleBTH_DecodeFromBytes() {
	// An RC ACKNOWLEDGE built by scapy contrib.roce.
	frame, _ := hex.DecodeString("02000000000202000000000108004502003000014000401126b80a0000010a000002c00012b7001c00001100ffff00000012009dbe5d1f00000561916b2e")

	var (
		eth     layers.Ethernet
		dot1q   layers.Dot1Q
		ip4     layers.IPv4
		ip6     layers.IPv6
		udp     layers.UDP
		bth     roce.BTH
		payload gopacket.Payload
	)
	parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &dot1q, &ip4, &ip6, &udp, &bth, &payload)
	decoded := make([]gopacket.LayerType, 0, 8)

	if err := parser.DecodeLayers(frame, &decoded); err != nil {
		panic(err)
	}
	fmt.Println(decoded)
	fmt.Printf("%v qp=%v psn=%v pkey=%#04x %v msn=%d\n",
		bth.OpCode, bth.DestQP, bth.PSN, bth.PKey, bth.AETH.Syndrome, bth.AETH.MSN)

	start, end, _ := roce.IPPacket(frame)
	ok, got, _, _ := roce.VerifyICRC(frame[start:end])
	fmt.Printf("ICRC %#08x valid=%v\n", got, ok)

	// The BTH decodes a bare UDP payload just as well.
	var b roce.BTH
	if err := b.DecodeFromBytes(udp.Payload, gopacket.NilDecodeFeedback); err != nil {
		panic(err)
	}
	fmt.Println(b.OpCode, b.PSN, b.ICRC.Value == got)
	// Output:
	// [Ethernet IPv4 UDP BTH]
	// RC_ACKNOWLEDGE qp=0x000012 psn=0x9dbe5d pkey=0xffff ACK(credit=31) msn=5
	// ICRC 0x2e6b9161 valid=true
	// RC_ACKNOWLEDGE 0x9dbe5d true
}

// PSNs are 24-bit and compare modulo 2^24.
func ExamplePSN() {
	last := roce.PSN(0xFFFFFE)
	next := last.Add(3)
	fmt.Println(next)
	fmt.Println(next.Diff(last), last.Diff(next))
	fmt.Println(last.Less(next), next.Less(last))
	fmt.Println(roce.PSN(5).Add(-6))
	fmt.Println(roce.PSN(0x000001).InWindow(last, 4), roce.PSN(0x000002).InWindow(last, 4))
	// Output:
	// 0x000001
	// 3 -3
	// true false
	// 0xffffff
	// true false
}

// The ICRC of an IP packet, written little-endian after it.
func ExampleComputeICRC() {
	frame, _ := hex.DecodeString("02000000000202000000000108004502003000014000401126b80a0000010a000002c00012b7001c00001100ffff00000012009dbe5d1f00000561916b2e")
	pkt := frame[14 : len(frame)-roce.ICRCLen] // IPv4 header to the end of the AETH

	icrc, err := roce.ComputeICRC(pkt)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%#08x % x\n", icrc, binary.LittleEndian.AppendUint32(nil, icrc))

	// TTL, TOS and the checksums are masked: a router may change them.
	pkt[8]--    // TTL
	pkt[1] |= 3 // ECN CE
	again, _ := roce.ComputeICRC(pkt)
	fmt.Println(again == icrc)

	// The rest is covered.
	pkt[len(pkt)-1] ^= 1 // MSN
	changed, _ := roce.ComputeICRC(pkt)
	fmt.Println(changed == icrc)
	// Output:
	// 0x2e6b9161 61 91 6b 2e
	// true
	// false
}
