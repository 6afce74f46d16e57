package roce_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/roce"
)

// Helpers shared by the test files of this package carry an "rt" prefix so
// they cannot collide with helpers of other _test.go files.

// rtNet is the encapsulation of a test frame below UDP.
type rtNet int

const (
	rtIPv4 rtNet = iota
	rtIPv6
	rtVLANIPv4
	rtVLANIPv6
)

var rtNets = []rtNet{rtIPv4, rtIPv6, rtVLANIPv4, rtVLANIPv6}

func (n rtNet) String() string {
	return [...]string{"IPv4", "IPv6", "VLAN+IPv4", "VLAN+IPv6"}[n]
}

func (n rtNet) v6() bool   { return n == rtIPv6 || n == rtVLANIPv6 }
func (n rtNet) vlan() bool { return n == rtVLANIPv4 || n == rtVLANIPv6 }

// rtIPHeaderLen is the IP header length of frames built by rtBuild.
func (n rtNet) ipHeaderLen() int {
	if n.v6() {
		return 40
	}
	return 20
}

func (n rtNet) ethHeaderLen() int {
	if n.vlan() {
		return 18
	}
	return 14
}

// rtKnownOpCodes lists every opcode with a codec, in numeric order.
func rtKnownOpCodes() []roce.OpCode {
	var ops []roce.OpCode
	for i := 0; i < 256; i++ {
		if op := roce.OpCode(i); op.Known() {
			ops = append(ops, op)
		}
	}
	return ops
}

// rtExtLayers gives, independently of the package's own table, the
// extension headers in the order they follow the BTH on the wire (IBA 9.3:
// DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, IETH; the CNP body).
var rtExtLayers = []struct {
	bit  roce.Header
	typ  gopacket.LayerType
	size int
}{
	{roce.HasDETH, roce.LayerTypeDETH, 8},
	{roce.HasRETH, roce.LayerTypeRETH, 16},
	{roce.HasAtomicETH, roce.LayerTypeAtomicETH, 28},
	{roce.HasAETH, roce.LayerTypeAETH, 4},
	{roce.HasAtomicAckETH, roce.LayerTypeAtomicAckETH, 8},
	{roce.HasImmDt, roce.LayerTypeImmDt, 4},
	{roce.HasIETH, roce.LayerTypeIETH, 4},
	{roce.HasCNP, roce.LayerTypeCNP, 16},
}

func rtBool(r *rand.Rand) bool { return r.IntN(2) == 1 }

// rtRandomBTH returns a BTH with the given opcode and every other field,
// extension headers included, random. PadCnt is left to FixLengths.
func rtRandomBTH(r *rand.Rand, op roce.OpCode) *roce.BTH {
	b := &roce.BTH{
		OpCode:         op,
		SolicitedEvent: rtBool(r),
		MigReq:         rtBool(r),
		TVer:           uint8(r.IntN(16)),
		PKey:           uint16(r.Uint32()),
		FECN:           rtBool(r),
		BECN:           rtBool(r),
		Resv6:          uint8(r.IntN(64)),
		DestQP:         roce.QPN(r.Uint32() & 0xFFFFFF),
		AckReq:         rtBool(r),
		Resv7:          uint8(r.IntN(128)),
		PSN:            roce.PSN(r.Uint32() & roce.PSNMask),
	}
	b.DETH = roce.DETH{QKey: r.Uint32(), Reserved: uint8(r.Uint32()), SrcQP: roce.QPN(r.Uint32() & 0xFFFFFF)}
	b.RETH = roce.RETH{VA: r.Uint64(), RKey: r.Uint32(), DMALen: r.Uint32()}
	b.AtomicETH = roce.AtomicETH{VA: r.Uint64(), RKey: r.Uint32(), SwapAdd: r.Uint64(), Compare: r.Uint64()}
	b.AETH = roce.AETH{Syndrome: roce.AETHSyndrome(r.Uint32()), MSN: r.Uint32() & 0xFFFFFF}
	b.AtomicAckETH = roce.AtomicAckETH{OrigData: r.Uint64()}
	b.ImmDt = roce.ImmDt{Imm: r.Uint32()}
	b.IETH = roce.IETH{RKey: r.Uint32()}
	for i := range b.CNP.Reserved {
		b.CNP.Reserved[i] = byte(r.Uint32())
	}
	return b
}

func rtRandomBytes(r *rand.Rand, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(r.Uint32())
	}
	return p
}

// rtFrame is a RoCEv2 Ethernet frame built by rtBuild.
type rtFrame struct {
	Net     rtNet
	Data    []byte    // the whole Ethernet frame
	IPStart int       // first byte of the IP header
	IPEnd   int       // one past the ICRC
	BTH     *roce.BTH // the BTH as serialised (PadCnt set by FixLengths)
	Payload []byte
}

// IP returns the IP packet, ICRC included.
func (f rtFrame) IP() []byte { return f.Data[f.IPStart:f.IPEnd] }

// UDPPayload returns the UDP payload: BTH to ICRC.
func (f rtFrame) UDPPayload() []byte {
	return f.Data[f.IPStart+f.Net.ipHeaderLen()+8 : f.IPEnd]
}

// rtBuild serialises Ethernet, [Dot1Q], IP, UDP, bth and payload with
// roce.SerializeLayers (FixLengths, ComputeChecksums). Addresses, ports, TOS,
// TTL and the like come from r.
func rtBuild(tb testing.TB, r *rand.Rand, n rtNet, bth *roce.BTH, payload []byte) rtFrame {
	tb.Helper()
	ipType := layers.EthernetTypeIPv4
	if n.v6() {
		ipType = layers.EthernetTypeIPv6
	}
	eth := &layers.Ethernet{
		SrcMAC:       net.HardwareAddr(rtRandomBytes(r, 6)),
		DstMAC:       net.HardwareAddr(rtRandomBytes(r, 6)),
		EthernetType: ipType,
	}
	ls := []gopacket.SerializableLayer{eth}
	if n.vlan() {
		eth.EthernetType = layers.EthernetTypeDot1Q
		ls = append(ls, &layers.Dot1Q{Priority: uint8(r.IntN(8)), VLANIdentifier: uint16(r.IntN(4095)), Type: ipType})
	}
	udp := &layers.UDP{SrcPort: layers.UDPPort(0xC000 + r.IntN(0x4000)), DstPort: roce.UDPPort}
	if n.v6() {
		ip := &layers.IPv6{
			Version:      6,
			TrafficClass: uint8(r.Uint32()),
			FlowLabel:    r.Uint32() & 0xFFFFF,
			NextHeader:   layers.IPProtocolUDP,
			HopLimit:     uint8(1 + r.IntN(255)),
			SrcIP:        net.IP(rtRandomBytes(r, 16)),
			DstIP:        net.IP(rtRandomBytes(r, 16)),
		}
		require.NoError(tb, udp.SetNetworkLayerForChecksum(ip))
		ls = append(ls, ip)
	} else {
		ip := &layers.IPv4{
			Version:  4,
			TOS:      uint8(r.Uint32()),
			Id:       uint16(r.Uint32()),
			Flags:    layers.IPv4DontFragment,
			TTL:      uint8(1 + r.IntN(255)),
			Protocol: layers.IPProtocolUDP,
			SrcIP:    net.IP(rtRandomBytes(r, 4)),
			DstIP:    net.IP(rtRandomBytes(r, 4)),
		}
		require.NoError(tb, udp.SetNetworkLayerForChecksum(ip))
		ls = append(ls, ip)
	}
	ls = append(ls, udp, bth, gopacket.Payload(payload))
	buf := gopacket.NewSerializeBuffer()
	require.NoError(tb, roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...))

	pad := -len(payload) & 3
	start := n.ethHeaderLen()
	end := start + n.ipHeaderLen() + 8 + roce.BTHLen + rtHeaderBytes(bth.OpCode) + len(payload) + pad + roce.ICRCLen
	data := bytes.Clone(buf.Bytes())
	require.GreaterOrEqual(tb, len(data), end)
	return rtFrame{Net: n, Data: data, IPStart: start, IPEnd: end, BTH: bth, Payload: payload}
}

// rtHeaderBytes adds up the extension header sizes of rtExtLayers.
func rtHeaderBytes(op roce.OpCode) int {
	n := 0
	for _, e := range rtExtLayers {
		if op.Headers()&e.bit != 0 {
			n += e.size
		}
	}
	return n
}

// rtSimpleFrame builds a frame of one opcode with a fixed seed.
func rtSimpleFrame(tb testing.TB, n rtNet, op roce.OpCode, payloadLen int) rtFrame {
	tb.Helper()
	r := rand.New(rand.NewPCG(uint64(op), uint64(payloadLen)))
	return rtBuild(tb, r, n, rtRandomBTH(r, op), rtRandomBytes(r, payloadLen))
}

// rtNormal returns a copy of b with what decoding leaves out of the
// comparison zeroed: BaseLayers, Pad and ICRC; with unimplied also the
// extension headers the opcode does not imply.
func rtNormal(b *roce.BTH, unimplied bool) roce.BTH {
	c := *b
	c.BaseLayer = layers.BaseLayer{}
	c.Pad, c.ICRC = nil, roce.ICRC{}
	c.DETH.BaseLayer = layers.BaseLayer{}
	c.RETH.BaseLayer = layers.BaseLayer{}
	c.AtomicETH.BaseLayer = layers.BaseLayer{}
	c.AETH.BaseLayer = layers.BaseLayer{}
	c.AtomicAckETH.BaseLayer = layers.BaseLayer{}
	c.ImmDt.BaseLayer = layers.BaseLayer{}
	c.IETH.BaseLayer = layers.BaseLayer{}
	c.CNP.BaseLayer = layers.BaseLayer{}
	if unimplied {
		h := b.OpCode.Headers()
		if h&roce.HasDETH == 0 {
			c.DETH = roce.DETH{}
		}
		if h&roce.HasRETH == 0 {
			c.RETH = roce.RETH{}
		}
		if h&roce.HasAtomicETH == 0 {
			c.AtomicETH = roce.AtomicETH{}
		}
		if h&roce.HasAETH == 0 {
			c.AETH = roce.AETH{}
		}
		if h&roce.HasAtomicAckETH == 0 {
			c.AtomicAckETH = roce.AtomicAckETH{}
		}
		if h&roce.HasImmDt == 0 {
			c.ImmDt = roce.ImmDt{}
		}
		if h&roce.HasIETH == 0 {
			c.IETH = roce.IETH{}
		}
		if h&roce.HasCNP == 0 {
			c.CNP = roce.CNP{}
		}
	}
	return c
}

// rtCheckBTH asserts that got, decoded from f, holds every field of f.BTH,
// the payload, a zero pad of the right length and a valid ICRC.
func rtCheckBTH(t *testing.T, f rtFrame, got *roce.BTH) {
	t.Helper()
	want := f.BTH
	assert.Equal(t, rtNormal(want, true), rtNormal(got, false), "BTH and extension headers")
	assert.Equal(t, uint8(-len(f.Payload)&3), got.PadCnt, "PadCnt")
	assert.Equal(t, want.PadCnt, got.PadCnt)
	assert.Equal(t, make([]byte, got.PadCnt), []byte(got.Pad), "pad bytes")
	if len(f.Payload) == 0 {
		assert.Empty(t, got.Payload)
	} else {
		assert.Equal(t, f.Payload, got.Payload)
	}
	udp := f.UDPPayload()
	assert.Equal(t, udp[:roce.BTHLen], got.Contents, "BTH Contents")
	assert.Equal(t, binary.LittleEndian.Uint32(udp[len(udp)-4:]), got.ICRC.Value)

	ok, gotICRC, wantICRC, err := roce.VerifyICRC(f.IP())
	require.NoError(t, err)
	assert.True(t, ok, "ICRC %#08x, want %#08x", gotICRC, wantICRC)
	assert.Equal(t, wantICRC, got.ICRC.Value)

	// Re-serialising the decoded BTH as it is gives back the datagram.
	out := gopacket.NewSerializeBuffer()
	require.NoError(t, gopacket.SerializeLayers(out, gopacket.SerializeOptions{}, got, gopacket.Payload(got.Payload)))
	assert.Equal(t, udp, out.Bytes(), "re-serialised BTH")
}

// rtExpectedLayers is the layer list NewPacket must produce for f.
func rtExpectedLayers(f rtFrame) []gopacket.LayerType {
	lt := []gopacket.LayerType{layers.LayerTypeEthernet}
	if f.Net.vlan() {
		lt = append(lt, layers.LayerTypeDot1Q)
	}
	if f.Net.v6() {
		lt = append(lt, layers.LayerTypeIPv6)
	} else {
		lt = append(lt, layers.LayerTypeIPv4)
	}
	lt = append(lt, layers.LayerTypeUDP, roce.LayerTypeBTH)
	for _, e := range rtExtLayers {
		if f.BTH.OpCode.Headers()&e.bit != 0 {
			lt = append(lt, e.typ)
		}
	}
	if len(f.Payload) > 0 {
		lt = append(lt, gopacket.LayerTypePayload)
	}
	return append(lt, roce.LayerTypeICRC)
}

// rtParser is a DecodingLayerParser with its layers, reusable.
type rtParser struct {
	eth     layers.Ethernet
	dot1q   layers.Dot1Q
	ip4     layers.IPv4
	ip6     layers.IPv6
	udp     layers.UDP
	bth     roce.BTH
	payload gopacket.Payload
	parser  *gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
}

func rtNewParser() *rtParser {
	p := &rtParser{decoded: make([]gopacket.LayerType, 0, 8)}
	p.parser = gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet,
		&p.eth, &p.dot1q, &p.ip4, &p.ip6, &p.udp, &p.bth, &p.payload)
	p.parser.IgnorePanic = true // let a decoder panic reach the test
	return p
}

func (p *rtParser) decode(frame []byte) error { return p.parser.DecodeLayers(frame, &p.decoded) }

func TestRoundTripEveryOpCode(t *testing.T) {
	r := rand.New(rand.NewPCG(0x5eed, 4791))
	ops := rtKnownOpCodes()
	require.Len(t, ops, 38, "RC 23 (0x00-0x14, 0x16, 0x17), UC 12, UD 2, CNP 1")
	dlp := rtNewParser()
	frames := 0
	for _, op := range ops {
		lens := []int{0}
		if op.Payload() != roce.PayloadNone {
			lens = []int{0, 1, 2, 3, 4, 5, 6, 7, 4096}
		}
		for _, n := range rtNets {
			for _, pl := range lens {
				t.Run(fmt.Sprintf("%v/%v/%d", op, n, pl), func(t *testing.T) {
					f := rtBuild(t, r, n, rtRandomBTH(r, op), rtRandomBytes(r, pl))
					frames++

					start, end, err := roce.IPPacket(f.Data)
					require.NoError(t, err)
					assert.Equal(t, f.IPStart, start)
					assert.Equal(t, f.IPEnd, end)

					// gopacket.NewPacket with the registered UDP port.
					p := gopacket.NewPacket(f.Data, layers.LayerTypeEthernet, gopacket.Default)
					require.Nil(t, p.ErrorLayer(), "decode error")
					var got []gopacket.LayerType
					for _, l := range p.Layers() {
						got = append(got, l.LayerType())
					}
					require.Equal(t, rtExpectedLayers(f), got, "layer order")
					bth, ok := p.Layer(roce.LayerTypeBTH).(*roce.BTH)
					require.True(t, ok)
					rtCheckBTH(t, f, bth)
					rtCheckExtLayers(t, p, f)
					if len(f.Payload) > 0 {
						require.NotNil(t, p.ApplicationLayer())
						assert.Equal(t, f.Payload, p.ApplicationLayer().Payload())
					} else {
						assert.Nil(t, p.ApplicationLayer())
					}
					icrc, ok := p.Layer(roce.LayerTypeICRC).(*roce.ICRC)
					require.True(t, ok)
					assert.Equal(t, bth.ICRC.Value, icrc.Value)
					assert.Equal(t, f.IP()[len(f.IP())-4:], icrc.Contents)

					// The zero-allocation parser, reused across frames.
					require.NoError(t, dlp.decode(f.Data))
					assert.False(t, dlp.parser.Truncated)
					// The same list, less the extension headers and the ICRC,
					// which live inside the BTH there.
					var wantDLP []gopacket.LayerType
					for _, lt := range got {
						switch lt {
						case layers.LayerTypeEthernet, layers.LayerTypeDot1Q, layers.LayerTypeIPv4, layers.LayerTypeIPv6,
							layers.LayerTypeUDP, roce.LayerTypeBTH, gopacket.LayerTypePayload:
							wantDLP = append(wantDLP, lt)
						}
					}
					assert.Equal(t, wantDLP, dlp.decoded, "DecodingLayerParser layers")
					rtCheckBTH(t, f, &dlp.bth)
					if len(f.Payload) > 0 {
						assert.Equal(t, f.Payload, []byte(dlp.payload))
					}
				})
			}
		}
	}
	assert.Equal(t, 6*4*1+32*4*9, frames) // 32 opcodes carry payload, 6 do not
}

// rtCheckExtLayers asserts that each extension header layer of p holds the
// fields f was built with and covers the right bytes.
func rtCheckExtLayers(t *testing.T, p gopacket.Packet, f rtFrame) {
	t.Helper()
	want := rtNormal(f.BTH, true)
	h := f.BTH.OpCode.Headers()
	off := roce.BTHLen
	udp := f.UDPPayload()
	for _, e := range rtExtLayers {
		l := p.Layer(e.typ)
		if h&e.bit == 0 {
			assert.Nil(t, l, "%v", e.typ)
			continue
		}
		require.NotNil(t, l, "%v", e.typ)
		assert.Equal(t, udp[off:off+e.size], l.LayerContents(), "%v contents", e.typ)
		off += e.size
		var got any
		switch x := l.(type) {
		case *roce.DETH:
			c := *x
			c.BaseLayer = layers.BaseLayer{}
			got = c
			assert.Equal(t, want.DETH, c)
		case *roce.RETH:
			c := *x
			c.BaseLayer = layers.BaseLayer{}
			got = c
			assert.Equal(t, want.RETH, c)
		case *roce.AtomicETH:
			c := *x
			c.BaseLayer = layers.BaseLayer{}
			got = c
			assert.Equal(t, want.AtomicETH, c)
		case *roce.AETH:
			c := *x
			c.BaseLayer = layers.BaseLayer{}
			got = c
			assert.Equal(t, want.AETH, c)
		case *roce.AtomicAckETH:
			c := *x
			c.BaseLayer = layers.BaseLayer{}
			got = c
			assert.Equal(t, want.AtomicAckETH, c)
		case *roce.ImmDt:
			c := *x
			c.BaseLayer = layers.BaseLayer{}
			got = c
			assert.Equal(t, want.ImmDt, c)
		case *roce.IETH:
			c := *x
			c.BaseLayer = layers.BaseLayer{}
			got = c
			assert.Equal(t, want.IETH, c)
		case *roce.CNP:
			c := *x
			c.BaseLayer = layers.BaseLayer{}
			got = c
			assert.Equal(t, want.CNP, c)
		}
		assert.NotNil(t, got, "unexpected layer %T", l)
	}
}

// TestRoundTripCNP checks the CNP of IBA annex A17.9: IP length
// 60, UDP length 40, byte 4 = 0x40, 16 zero bytes.
func TestRoundTripCNP(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 60))
	bth := &roce.BTH{OpCode: roce.CNPOpCode, BECN: true, PKey: roce.DefaultPKey, DestQP: 0xABCDE}
	f := rtBuild(t, r, rtIPv4, bth, nil)
	ip := f.IP()
	assert.Len(t, ip, 60)
	assert.Equal(t, uint16(60), binary.BigEndian.Uint16(ip[2:4]))
	assert.Equal(t, uint16(40), binary.BigEndian.Uint16(ip[24:26]))
	b := ip[28:]
	assert.Equal(t, []byte{0x81, 0x00, 0xFF, 0xFF, 0x40, 0x0A, 0xBC, 0xDE, 0, 0, 0, 0}, b[:12])
	assert.Equal(t, make([]byte, 16), b[12:28])
	ok, _, _, err := roce.VerifyICRC(ip)
	require.NoError(t, err)
	assert.True(t, ok)
}

// TestSerializeWithoutComputeChecksums: the ICRC written is BTH.ICRC.Value
// and PadCnt stays as set when FixLengths is off.
func TestSerializeWithoutComputeChecksums(t *testing.T) {
	bth := &roce.BTH{OpCode: roce.RCSendOnly, PadCnt: 2, Pad: []byte{0xAA, 0xBB}, ICRC: roce.ICRC{Value: 0x11223344}}
	buf := gopacket.NewSerializeBuffer()
	require.NoError(t, roce.SerializeLayers(buf, gopacket.SerializeOptions{}, bth, gopacket.Payload{1, 2}))
	assert.Equal(t, []byte{0x04, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0xAA, 0xBB, 0x44, 0x33, 0x22, 0x11}, buf.Bytes())

	// FixLengths resets PadCnt from the payload and zeroes the pad.
	buf = gopacket.NewSerializeBuffer()
	require.NoError(t, roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true}, bth, gopacket.Payload{1, 2, 3}))
	assert.Equal(t, uint8(1), bth.PadCnt)
	assert.Equal(t, []byte{0x04, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0x44, 0x33, 0x22, 0x11}, buf.Bytes())
}

// TestFixICRC: FixICRC rewrites a stale ICRC of a finished frame.
func TestFixICRC(t *testing.T) {
	for _, n := range rtNets {
		f := rtSimpleFrame(t, n, roce.RCWriteOnly, 33)
		ip := f.IP()
		want := binary.LittleEndian.Uint32(ip[len(ip)-4:])
		binary.LittleEndian.PutUint32(ip[len(ip)-4:], ^want)
		ok, _, _, err := roce.VerifyICRC(ip)
		require.NoError(t, err)
		require.False(t, ok)
		require.NoError(t, roce.FixICRC(f.Data))
		assert.Equal(t, want, binary.LittleEndian.Uint32(ip[len(ip)-4:]), "%v", n)
	}
}

// rtUDPChecksumOK reports whether the UDP checksum of an IP packet that
// carries UDP is zero (not computed, legal for IPv4 only) or right.
func rtUDPChecksumOK(ip []byte) bool {
	var udp, addrs []byte
	if ip[0]>>4 == 6 {
		udp, addrs = ip[40:], ip[8:40]
	} else {
		udp, addrs = ip[int(ip[0]&0xF)*4:], ip[12:20]
		if binary.BigEndian.Uint16(udp[6:8]) == 0 {
			return true
		}
	}
	sum := uint64(checksum.Sum(0, addrs)) + 17 + uint64(len(udp))
	return checksum.Sum(sum, udp) == 0xFFFF
}

// TestSerializeLayersUDPChecksum: gopacket computes the UDP checksum over a
// zero ICRC placeholder; SerializeLayers then writes the ICRC. The checksum
// it leaves must still be right (or zero over IPv4, as rxe sends).
func TestSerializeLayersUDPChecksum(t *testing.T) {
	bad := 0
	for _, n := range rtNets {
		f := rtSimpleFrame(t, n, roce.RCSendOnly, 100)
		if !rtUDPChecksumOK(f.IP()) {
			// Diagnosis: the checksum is right for the frame as it was
			// before FixICRC, with a zero ICRC.
			ip := bytes.Clone(f.IP())
			clear(ip[len(ip)-4:])
			require.True(t, rtUDPChecksumOK(ip), "%v", n)
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("serialize.go SerializeLayers/FixICRC: %d of %d frames carry a UDP checksum computed over the zero ICRC placeholder", bad, len(rtNets))
	}
}

// TestSerializeLayersIPv4Options: IPv4 headers with options (IHL 6..15)
// get the IPv4 ICRC masks and a right UDP checksum. IHL 10 makes the header
// 40 bytes long, like IPv6's; see TestICRCIPv4IHL10.
func TestSerializeLayersIPv4Options(t *testing.T) {
	var bad []int
	for ihl := 6; ihl <= 15; ihl++ {
		r := rand.New(rand.NewPCG(uint64(ihl), 4))
		opts := make([]layers.IPv4Option, ihl-5)
		for i := range opts {
			// Router alert (RFC 2113), 4 bytes each.
			opts[i] = layers.IPv4Option{OptionType: 0x94, OptionLength: 4, OptionData: []byte{0, 0}}
		}
		ip := &layers.IPv4{Version: 4, TTL: 64, Protocol: layers.IPProtocolUDP, Options: opts,
			SrcIP: net.IP(rtRandomBytes(r, 4)), DstIP: net.IP(rtRandomBytes(r, 4))}
		udp := &layers.UDP{SrcPort: 0xC000, DstPort: roce.UDPPort}
		require.NoError(t, udp.SetNetworkLayerForChecksum(ip))
		bth := rtRandomBTH(r, roce.RCWriteOnly)
		buf := gopacket.NewSerializeBuffer()
		require.NoError(t, roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
			&layers.Ethernet{SrcMAC: make(net.HardwareAddr, 6), DstMAC: make(net.HardwareAddr, 6), EthernetType: layers.EthernetTypeIPv4},
			ip, udp, bth, gopacket.Payload(rtRandomBytes(r, 30))))
		frame := buf.Bytes()
		require.Equal(t, byte(0x40|ihl), frame[14], "IHL")
		start, end, err := roce.IPPacket(frame)
		require.NoError(t, err)
		pkt := frame[start:end]
		good := rtMaskedICRC(pkt[:len(pkt)-4]) == binary.LittleEndian.Uint32(pkt[len(pkt)-4:]) && rtUDPChecksumOK(pkt)
		if ihl == 10 && !good {
			bad = append(bad, ihl)
			continue
		}
		assert.True(t, good, "IHL %d: ICRC or UDP checksum wrong", ihl)
		p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
		require.Nil(t, p.ErrorLayer())
		assert.Equal(t, rtNormal(bth, true), rtNormal(p.Layer(roce.LayerTypeBTH).(*roce.BTH), false))
	}
	if len(bad) > 0 {
		t.Errorf("icrc.go ComputeICRC, serialize.go fixUDPChecksum: udp == ipv6Header: IHL %v frames get IPv6 treatment", bad)
	}
}
