// Package framegen builds valid RoCEv2 frames from a seeded generator:
// every opcode, IPv4 or IPv6, with or without an 802.1Q tag, with payload
// sizes the opcode allows. The same seed gives the same frames.
package framegen

import (
	"fmt"
	"math/rand/v2"
	"net"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/roce"
)

// Encap is the encapsulation below UDP.
type Encap uint8

const (
	IPv4 Encap = iota
	IPv6
	VLANIPv4 // 802.1Q tag, then IPv4
	VLANIPv6
)

func (e Encap) String() string {
	if e > VLANIPv6 {
		return fmt.Sprintf("Encap(%d)", uint8(e))
	}
	return [...]string{"IPv4", "IPv6", "VLAN/IPv4", "VLAN/IPv6"}[e]
}

// Encaps lists every encapsulation.
var Encaps = []Encap{IPv4, IPv6, VLANIPv4, VLANIPv6}

// KnownOpCodes returns every opcode the golden codecs know, in order.
func KnownOpCodes() []roce.OpCode {
	var ops []roce.OpCode
	for i := 0; i < 256; i++ {
		if op := roce.OpCode(i); op.Known() {
			ops = append(ops, op)
		}
	}
	return ops
}

// PMTUs are the path MTUs of IBA 9.7.4.
var PMTUs = []int{256, 512, 1024, 2048, 4096}

// Spec says what to build; header fields not named here are drawn from
// the generator.
type Spec struct {
	OpCode     roce.OpCode
	Encap      Encap
	PayloadLen int // must suit the opcode (see PayloadLen)
}

// PayloadLen draws a payload length the opcode allows, up to maxLen bytes
// (FIRST and MIDDLE packets always carry one path MTU).
func PayloadLen(rng *rand.Rand, op roce.OpCode, maxLen int) int {
	switch op.Payload() {
	case roce.PayloadFull:
		var fit []int
		for _, m := range PMTUs {
			if m <= maxLen {
				fit = append(fit, m)
			}
		}
		if len(fit) == 0 {
			return PMTUs[0]
		}
		return fit[rng.IntN(len(fit))]
	case roce.PayloadLast:
		return 1 + rng.IntN(min(max(maxLen, 1), 4096))
	case roce.PayloadOnly:
		return rng.IntN(min(max(maxLen, 0), 4096) + 1)
	}
	return 0
}

// Build serialises one frame with random header fields drawn from rng.
func Build(rng *rand.Rand, s Spec) ([]byte, error) {
	if err := checkSpec(s); err != nil {
		return nil, err
	}
	mac := func() net.HardwareAddr {
		return net.HardwareAddr{0x02, byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32()), byte(rng.Uint32())}
	}
	eth := &layers.Ethernet{SrcMAC: mac(), DstMAC: mac()}
	var ls []gopacket.SerializableLayer
	ls = append(ls, eth)
	inner := layers.EthernetTypeIPv4
	if s.Encap == IPv6 || s.Encap == VLANIPv6 {
		inner = layers.EthernetTypeIPv6
	}
	if s.Encap == VLANIPv4 || s.Encap == VLANIPv6 {
		eth.EthernetType = layers.EthernetTypeDot1Q
		ls = append(ls, &layers.Dot1Q{Priority: uint8(rng.IntN(8)), VLANIdentifier: uint16(1 + rng.IntN(4094)), Type: inner})
	} else {
		eth.EthernetType = inner
	}
	udp := &layers.UDP{SrcPort: layers.UDPPort(0xC000 | rng.IntN(0x4000)), DstPort: roce.UDPPort}
	// DSCP random, ECN ECT(0) or ECT(1) as a sender uses (RFC 3168).
	tos := uint8(rng.IntN(64))<<2 | uint8(1+rng.IntN(2))
	if inner == layers.EthernetTypeIPv4 {
		ip := &layers.IPv4{Version: 4, TOS: tos, Id: uint16(rng.Uint32()), Flags: layers.IPv4DontFragment,
			TTL: uint8(1 + rng.IntN(255)), Protocol: layers.IPProtocolUDP,
			SrcIP: net.IPv4(10, byte(rng.Uint32()), byte(rng.Uint32()), byte(1+rng.IntN(254))).To4(),
			DstIP: net.IPv4(10, byte(rng.Uint32()), byte(rng.Uint32()), byte(1+rng.IntN(254))).To4()}
		if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
			return nil, err
		}
		ls = append(ls, ip)
	} else {
		ip6 := func() net.IP {
			a := make(net.IP, 16)
			a[0], a[1] = 0xfd, 0x00
			for i := 2; i < 16; i++ {
				a[i] = byte(rng.Uint32())
			}
			return a
		}
		ip := &layers.IPv6{Version: 6, TrafficClass: tos, FlowLabel: rng.Uint32() & 0xFFFFF,
			NextHeader: layers.IPProtocolUDP, HopLimit: uint8(1 + rng.IntN(255)), SrcIP: ip6(), DstIP: ip6()}
		if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
			return nil, err
		}
		ls = append(ls, ip)
	}
	ls = append(ls, udp, randomBTH(rng, s.OpCode))
	payload := make([]byte, s.PayloadLen)
	fillRandom(rng, payload)
	if len(payload) > 0 {
		ls = append(ls, gopacket.Payload(payload))
	}
	buf := gopacket.NewSerializeBuffer()
	opts := gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}
	if err := roce.SerializeLayers(buf, opts, ls...); err != nil {
		return nil, err
	}
	// rxe sends UDP checksum 0 (rxe_net.c prepare_udp_hdr); the ICRC masks
	// it, so zeroing it leaves the ICRC valid.
	f := buf.Bytes()
	start, _, err := roce.IPPacket(f)
	if err != nil {
		return nil, err
	}
	csum := start + 20 + 6
	if inner == layers.EthernetTypeIPv6 {
		csum = start + 40 + 6
	}
	f[csum], f[csum+1] = 0, 0
	return f, nil
}

func checkSpec(s Spec) error {
	if s.Encap > VLANIPv6 {
		return fmt.Errorf("framegen: unknown encapsulation %d", s.Encap)
	}
	if !s.OpCode.Known() {
		return fmt.Errorf("framegen: unknown opcode %s", s.OpCode)
	}
	ok := true
	switch s.OpCode.Payload() {
	case roce.PayloadNone:
		ok = s.PayloadLen == 0
	case roce.PayloadFull:
		ok = false
		for _, m := range PMTUs {
			ok = ok || s.PayloadLen == m
		}
	case roce.PayloadLast:
		ok = s.PayloadLen >= 1 && s.PayloadLen <= 4096
	case roce.PayloadOnly:
		ok = s.PayloadLen >= 0 && s.PayloadLen <= 4096
	}
	if !ok {
		return fmt.Errorf("framegen: %s cannot carry %d payload bytes", s.OpCode, s.PayloadLen)
	}
	return nil
}

func randomBTH(rng *rand.Rand, op roce.OpCode) *roce.BTH {
	b := &roce.BTH{
		OpCode:         op,
		SolicitedEvent: rng.IntN(2) == 0,
		PKey:           roce.DefaultPKey,
		DestQP:         roce.QPN(rng.Uint32() & 0xFFFFFF),
		AckReq:         rng.IntN(2) == 0,
		PSN:            roce.PSN(rng.Uint32() & roce.PSNMask),
	}
	if op == roce.CNPOpCode {
		// A CNP: BECN set, PSN 0, no AckReq (IBA annex A17.9).
		b.BECN, b.PSN, b.AckReq, b.SolicitedEvent = true, 0, false, false
	}
	b.DETH = roce.DETH{QKey: rng.Uint32(), SrcQP: roce.QPN(rng.Uint32() & 0xFFFFFF)}
	b.RETH = roce.RETH{VA: rng.Uint64(), RKey: rng.Uint32(), DMALen: rng.Uint32()}
	b.AtomicETH = roce.AtomicETH{VA: rng.Uint64() &^ 7, RKey: rng.Uint32(), SwapAdd: rng.Uint64(), Compare: rng.Uint64()}
	b.AETH = roce.AETH{Syndrome: roce.SyndromeACKUnlimited, MSN: rng.Uint32() & 0xFFFFFF}
	b.AtomicAckETH = roce.AtomicAckETH{OrigData: rng.Uint64()}
	b.ImmDt = roce.ImmDt{Imm: rng.Uint32()}
	b.IETH = roce.IETH{RKey: rng.Uint32()}
	return b
}
