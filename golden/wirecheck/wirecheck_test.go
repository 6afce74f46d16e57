package wirecheck_test

import (
	"encoding/binary"
	"fmt"
	"net"
	"slices"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/golden/wirecheck"
)

// spec describes a RoCEv2 frame for build. The builder does not check the
// payload rules, so it also makes frames the checker must reject.
type spec struct {
	op      roce.OpCode
	payload int
	ipv6    bool
	// tags lists the TPIDs of VLAN tags, outermost first: {0x8100} for
	// 802.1Q, {0x88a8, 0x8100} for QinQ.
	tags []layers.EthernetType
	// bth, if set, adjusts the BTH before it is serialised.
	bth func(*roce.BTH)
}

var (
	srcMAC = net.HardwareAddr{0x02, 0, 0, 0, 0, 1}
	dstMAC = net.HardwareAddr{0x02, 0, 0, 0, 0, 2}
)

// build serialises s with the golden codecs: lengths, IPv4 checksum and ICRC
// all correct, UDP checksum 0 as rxe sends it.
func build(t testing.TB, s spec) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: srcMAC, DstMAC: dstMAC}
	ls := []gopacket.SerializableLayer{eth}
	inner := layers.EthernetTypeIPv4
	if s.ipv6 {
		inner = layers.EthernetTypeIPv6
	}
	eth.EthernetType = inner
	if len(s.tags) > 0 {
		eth.EthernetType = s.tags[0]
		for i := range s.tags {
			next := inner
			if i+1 < len(s.tags) {
				next = s.tags[i+1]
			}
			ls = append(ls, &layers.Dot1Q{Priority: 3, VLANIdentifier: uint16(100 + i), Type: next})
		}
	}
	udp := &layers.UDP{SrcPort: 49152, DstPort: roce.UDPPort}
	if s.ipv6 {
		ip := &layers.IPv6{Version: 6, TrafficClass: 0x02, FlowLabel: 0x12345, NextHeader: layers.IPProtocolUDP,
			HopLimit: 64, SrcIP: net.ParseIP("fd00::1"), DstIP: net.ParseIP("fd00::2")}
		require.NoError(t, udp.SetNetworkLayerForChecksum(ip))
		ls = append(ls, ip)
	} else {
		ip := &layers.IPv4{Version: 4, TOS: 0x02, Id: 0x1234, Flags: layers.IPv4DontFragment, TTL: 64,
			Protocol: layers.IPProtocolUDP, SrcIP: net.IPv4(10, 0, 0, 1).To4(), DstIP: net.IPv4(10, 0, 0, 2).To4()}
		require.NoError(t, udp.SetNetworkLayerForChecksum(ip))
		ls = append(ls, ip)
	}
	b := &roce.BTH{OpCode: s.op, PKey: roce.DefaultPKey, DestQP: 0x12, PSN: 0x9dbe5d}
	b.RETH = roce.RETH{VA: 0x1000, RKey: 0x2a, DMALen: 4096}
	b.AETH = roce.AETH{Syndrome: roce.SyndromeACKUnlimited, MSN: 5}
	b.DETH = roce.DETH{QKey: 0x11111111, SrcQP: 0x1}
	b.AtomicETH = roce.AtomicETH{VA: 0x2000, RKey: 0x2b, SwapAdd: 1, Compare: 2}
	b.ImmDt = roce.ImmDt{Imm: 0x1234}
	b.IETH = roce.IETH{RKey: 0x2c}
	if s.op == roce.CNPOpCode {
		b.BECN, b.PSN = true, 0
	}
	if s.bth != nil {
		s.bth(b)
	}
	ls = append(ls, udp, b)
	if s.payload > 0 {
		p := make([]byte, s.payload)
		for i := range p {
			p[i] = byte(i*7 + 1)
		}
		ls = append(ls, gopacket.Payload(p))
	}
	buf := gopacket.NewSerializeBuffer()
	require.NoError(t, roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...))
	f := slices.Clone(buf.Bytes())
	_, udpOff, _ := offsets(t, f)
	binary.BigEndian.PutUint16(f[udpOff+6:], 0) // masked by the ICRC
	return f
}

// offsets returns where the IP header, the UDP header and the BTH start.
func offsets(t testing.TB, f []byte) (ip, udp, bth int) {
	t.Helper()
	ip, _, err := roce.IPPacket(f)
	require.NoError(t, err)
	if f[ip]>>4 == 6 {
		udp = ip + 40
	} else {
		udp = ip + int(f[ip]&0x0F)*4
	}
	return ip, udp, udp + 8
}

// fixIPv4 recomputes the IPv4 header checksum, if the frame is IPv4.
func fixIPv4(f []byte, ip int) {
	if f[ip]>>4 == 4 {
		hl := int(f[ip]&0x0F) * 4
		f[ip+10], f[ip+11] = 0, 0
		binary.BigEndian.PutUint16(f[ip+10:], checksum.Checksum(f[ip:ip+hl]))
	}
}

// fitLengths makes the IP length, the IPv4 checksum and (when the UDP
// length field is present) the UDP length fit a frame cut short or spliced,
// so that the damage is the only fault. It does not touch the ICRC.
func fitLengths(t testing.TB, f []byte, ip, udp int) []byte {
	t.Helper()
	if f[ip]>>4 == 4 {
		binary.BigEndian.PutUint16(f[ip+2:], uint16(len(f)-ip))
		fixIPv4(f, ip)
	} else {
		binary.BigEndian.PutUint16(f[ip+4:], uint16(len(f)-ip-40))
	}
	if len(f) >= udp+6 {
		binary.BigEndian.PutUint16(f[udp+4:], uint16(len(f)-udp))
	}
	return f
}

func fixICRC(t testing.TB, f []byte) []byte {
	t.Helper()
	require.NoError(t, roce.FixICRC(f))
	return f
}

// setPadCnt sets the BTH PadCnt bits and recomputes the ICRC.
func setPadCnt(t testing.TB, f []byte, n uint8) []byte {
	t.Helper()
	_, _, bth := offsets(t, f)
	f[bth+1] = f[bth+1]&^0x30 | n<<4
	return fixICRC(t, f)
}

func codes(r wirecheck.Result) []string {
	var cs []string
	for _, p := range r.Problems {
		cs = append(cs, p.Code)
	}
	return cs
}

type codeCase struct {
	name  string
	frame func(t testing.TB) []byte
	kind  wirecheck.Kind // KindRoCE when zero
	// absent lists codes that must not be reported alongside.
	absent []string
}

// runCodeCases checks that every frame of cases is reported with code.
func runCodeCases(t *testing.T, code string, cases []codeCase) {
	t.Helper()
	c := wirecheck.NewChecker()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := tc.frame(t)
			r := c.Check(f)
			want := tc.kind
			if want == wirecheck.KindOther {
				want = wirecheck.KindRoCE
			}
			assert.Equal(t, want, r.Kind)
			assert.False(t, r.OK())
			assert.Contains(t, codes(r), code, "problems: %v", r.Problems)
			for _, a := range tc.absent {
				assert.NotContains(t, codes(r), a, "problems: %v", r.Problems)
			}
			for _, p := range r.Problems {
				assert.NotEmpty(t, p.Message, "problem %q has no message", p.Code)
				assert.Equal(t, p.Code+": "+p.Message, p.String())
			}
		})
	}
}

// payloadLens returns payload lengths valid for op.
func payloadLens(op roce.OpCode) []int {
	switch op.Payload() {
	case roce.PayloadFull:
		return []int{256, 512, 1024, 2048, 4096}
	case roce.PayloadLast:
		return []int{1, 2, 3, 4, 5, 255, 4095, 4096}
	case roce.PayloadOnly:
		return []int{0, 1, 3, 4, 64, 1456, 4096}
	}
	return []int{0}
}

func knownOpCodes() []roce.OpCode {
	var ops []roce.OpCode
	for i := 0; i < 256; i++ {
		if op := roce.OpCode(i); op.Known() {
			ops = append(ops, op)
		}
	}
	return ops
}

var encaps = []struct {
	name string
	ipv6 bool
	tags []layers.EthernetType
}{
	{"IPv4", false, nil},
	{"IPv6", true, nil},
	{"Dot1Q/IPv4", false, []layers.EthernetType{layers.EthernetTypeDot1Q}},
	{"Dot1Q/IPv6", true, []layers.EthernetType{layers.EthernetTypeDot1Q}},
	{"QinQ/IPv4", false, []layers.EthernetType{layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q}},
	{"QinQ/IPv6", true, []layers.EthernetType{layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q}},
}

func TestValidFramesOfEveryOpCode(t *testing.T) {
	ops := knownOpCodes()
	require.Len(t, ops, 38, "RC 23, UC 12, UD 2, CNP 1")
	c := wirecheck.NewChecker()
	for _, op := range ops {
		for _, e := range encaps {
			for _, n := range payloadLens(op) {
				name := fmt.Sprintf("%s/%s/%d", op, e.name, n)
				f := build(t, spec{op: op, payload: n, ipv6: e.ipv6, tags: e.tags})
				r := c.Check(f)
				if !assert.True(t, r.OK(), "%s: %v", name, r.Problems) {
					continue
				}
				assert.Empty(t, r.Problems, name)
				assert.Equal(t, wirecheck.KindRoCE, r.Kind, name)
				assert.Nil(t, r.PFC(), name)
				b := r.BTH()
				if assert.NotNil(t, b, name) {
					assert.Equal(t, op, b.OpCode, name)
					assert.Len(t, b.Payload, n, name)
					assert.Equal(t, roce.QPN(0x12), b.DestQP, name)
				}
			}
		}
	}
}

func TestICRCMaskedFieldsAreNotProblems(t *testing.T) {
	// The ICRC masks TOS, TTL and the IPv4 checksum; traffic class, flow
	// label and hop limit; the UDP checksum; FECN, BECN and the reserved
	// bits of BTH byte 4. Changing them must not be reported as bad-icrc.
	cases := []struct {
		name  string
		ipv6  bool
		apply func(f []byte, ip, udp, bth int)
	}{
		{"TTL and TOS, IPv4 checksum recomputed", false, func(f []byte, ip, udp, bth int) {
			f[ip+1] ^= 0xFC
			f[ip+8] = 1
			fixIPv4(f, ip)
		}},
		{"hop limit, traffic class, flow label", true, func(f []byte, ip, udp, bth int) {
			f[ip] ^= 0x0F
			f[ip+1] ^= 0xFF
			f[ip+3] ^= 0xFF
			f[ip+7] = 1
		}},
		{"UDP checksum", false, func(f []byte, ip, udp, bth int) { binary.BigEndian.PutUint16(f[udp+6:], 0xBEEF) }},
		{"FECN and BECN", true, func(f []byte, ip, udp, bth int) { f[bth+4] |= 0xC0 }},
	}
	c := wirecheck.NewChecker()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := build(t, spec{op: roce.RCWriteOnly, payload: 40, ipv6: tc.ipv6})
			ip, udp, bth := offsets(t, f)
			tc.apply(f, ip, udp, bth)
			r := c.Check(f)
			assert.True(t, r.OK(), "%v", r.Problems)
		})
	}
}

func TestEthernetPaddingIsNotAProblem(t *testing.T) {
	// RC SEND_ONLY without payload: 14 + 20 + 8 + 12 + 4 = 58 bytes, padded
	// by the Ethernet layer to the 60-byte minimum.
	f := build(t, spec{op: roce.RCSendOnly})
	require.Len(t, f, 60)
	_, end, err := roce.IPPacket(f)
	require.NoError(t, err)
	require.Equal(t, 58, end, "the IP packet ends before the Ethernet padding")

	c := wirecheck.NewChecker()
	r := c.Check(f)
	assert.True(t, r.OK(), "%v", r.Problems)
	require.NotNil(t, r.BTH())
	assert.Empty(t, r.BTH().Payload, "the padding is not payload")

	g := slices.Clone(f)
	g[58], g[59] = 0xAA, 0x55 // padding content is not covered by anything
	r = c.Check(g)
	assert.True(t, r.OK(), "non-zero padding: %v", r.Problems)

	r = c.Check(f[:58])
	assert.True(t, r.OK(), "unpadded 58-byte frame: %v", r.Problems)
}

func TestTaggedFramesAreChecked(t *testing.T) {
	c := wirecheck.NewChecker()
	for _, e := range encaps[2:] {
		t.Run(e.name, func(t *testing.T) {
			f := build(t, spec{op: roce.RCWriteFirst, payload: 256, ipv6: e.ipv6, tags: e.tags})
			if len(e.tags) == 2 {
				require.Equal(t, uint16(0x88a8), binary.BigEndian.Uint16(f[12:]))
				require.Equal(t, uint16(0x8100), binary.BigEndian.Uint16(f[16:]))
			}
			r := c.Check(f)
			require.True(t, r.OK(), "%v", r.Problems)
			require.Equal(t, wirecheck.KindRoCE, r.Kind)
			require.NotNil(t, r.BTH())
			assert.Equal(t, roce.RCWriteFirst, r.BTH().OpCode)
			assert.Len(t, r.BTH().Payload, 256)

			// Behind the tags the rules still apply.
			g := slices.Clone(f)
			g[len(g)-10] ^= 1
			assert.Contains(t, codes(c.Check(g)), wirecheck.CodeICRC)

			g = slices.Clone(f)
			g = setPadCnt(t, g, 1)
			assert.Contains(t, codes(c.Check(g)), wirecheck.CodePadCount)

			ip, udp, bth := offsets(t, f)
			g = fitLengths(t, slices.Clone(f[:bth+5]), ip, udp)
			r = c.Check(g)
			assert.Equal(t, wirecheck.KindRoCE, r.Kind)
			assert.Contains(t, codes(r), wirecheck.CodeTruncated)
		})
	}
}

func TestCodeTruncated(t *testing.T) {
	cut := func(s spec, at func(ip, udp, bth int) int) func(t testing.TB) []byte {
		return func(t testing.TB) []byte {
			f := build(t, s)
			ip, udp, bth := offsets(t, f)
			return fitLengths(t, slices.Clone(f[:at(ip, udp, bth)]), ip, udp)
		}
	}
	runCodeCases(t, wirecheck.CodeTruncated, []codeCase{
		{name: "cut inside the BTH", frame: cut(spec{op: roce.RCSendOnly, payload: 64}, func(ip, udp, bth int) int { return bth + 6 })},
		{name: "cut inside the BTH, IPv6", frame: cut(spec{op: roce.RCAcknowledge, ipv6: true}, func(ip, udp, bth int) int { return bth + 11 })},
		{name: "cut inside the BTH, QinQ", frame: cut(spec{op: roce.RCSendOnly, tags: encaps[4].tags}, func(ip, udp, bth int) int { return bth + 1 })},
		{name: "cut inside the RETH", frame: cut(spec{op: roce.RCWriteFirst, payload: 256}, func(ip, udp, bth int) int { return bth + 12 + 8 })},
		{name: "cut inside the AtomicETH", frame: cut(spec{op: roce.RCCompareSwap, ipv6: true}, func(ip, udp, bth int) int { return bth + 12 + 20 })},
		{name: "headers whole, ICRC missing", frame: cut(spec{op: roce.RCAcknowledge}, func(ip, udp, bth int) int { return bth + 12 + 4 })},
		{name: "cut inside the UDP header", frame: cut(spec{op: roce.RCSendOnly, payload: 64}, func(ip, udp, bth int) int { return udp + 5 })},
		{name: "cut inside the UDP header, IPv6", frame: cut(spec{op: roce.RCSendOnly, ipv6: true}, func(ip, udp, bth int) int { return udp + 4 })},
		{name: "PFC cut inside its parameters", kind: wirecheck.KindMACControl, frame: func(t testing.TB) []byte {
			f, err := pfc.New(srcMAC, 0xFF, [pfc.NumPriorities]uint16{1, 2, 3, 4, 5, 6, 7, 8})
			require.NoError(t, err)
			return f[:14+10]
		}},
		{name: "PAUSE cut inside its parameters", kind: wirecheck.KindMACControl, frame: func(t testing.TB) []byte {
			f, err := pfc.NewPause(srcMAC, 100)
			require.NoError(t, err)
			return f[:14+3]
		}},
	})
}

func TestCodeICRC(t *testing.T) {
	damage := func(s spec, apply func(f []byte, ip, udp, bth int)) func(t testing.TB) []byte {
		return func(t testing.TB) []byte {
			f := build(t, s)
			ip, udp, bth := offsets(t, f)
			apply(f, ip, udp, bth)
			return f
		}
	}
	runCodeCases(t, wirecheck.CodeICRC, []codeCase{
		{name: "payload bit", frame: damage(spec{op: roce.RCSendOnly, payload: 64}, func(f []byte, ip, udp, bth int) { f[bth+12+10] ^= 0x10 })},
		{name: "ICRC byte", frame: damage(spec{op: roce.RCAcknowledge}, func(f []byte, ip, udp, bth int) { f[len(f)-1] ^= 0x80 })},
		{name: "ICRC big-endian", frame: damage(spec{op: roce.RCSendOnly, payload: 4}, func(f []byte, ip, udp, bth int) { slices.Reverse(f[len(f)-4:]) })},
		{name: "destination QP, IPv6", frame: damage(spec{op: roce.RCSendLast, payload: 100, ipv6: true}, func(f []byte, ip, udp, bth int) { f[bth+7] ^= 1 })},
		{name: "RETH rkey, QinQ", frame: damage(spec{op: roce.RCWriteOnly, payload: 8, tags: encaps[4].tags}, func(f []byte, ip, udp, bth int) { f[bth+12+8] ^= 1 })},
		{name: "IPv6 source address", frame: damage(spec{op: roce.UDSendOnly, payload: 32, ipv6: true}, func(f []byte, ip, udp, bth int) { f[ip+8+15] ^= 1 })},
		{name: "IPv4 source address, IPv4 checksum recomputed", absent: []string{wirecheck.CodeIPv4Checksum},
			frame: damage(spec{op: roce.CNPOpCode}, func(f []byte, ip, udp, bth int) { f[ip+15] ^= 1; fixIPv4(f, ip) })},
	})
}

func TestCodeIPv4Checksum(t *testing.T) {
	damage := func(apply func(f []byte, ip int)) func(t testing.TB) []byte {
		return func(t testing.TB) []byte {
			f := build(t, spec{op: roce.RCSendOnly, payload: 16})
			ip, _, _ := offsets(t, f)
			apply(f, ip)
			return f
		}
	}
	runCodeCases(t, wirecheck.CodeIPv4Checksum, []codeCase{
		// TTL is masked by the ICRC: only the IPv4 checksum notices.
		{name: "TTL changed, checksum stale", absent: []string{wirecheck.CodeICRC}, frame: damage(func(f []byte, ip int) { f[ip+8]-- })},
		{name: "TOS changed, checksum stale", absent: []string{wirecheck.CodeICRC}, frame: damage(func(f []byte, ip int) { f[ip+1] = 0xB8 })},
		{name: "checksum zero", absent: []string{wirecheck.CodeICRC}, frame: damage(func(f []byte, ip int) { f[ip+10], f[ip+11] = 0, 0 })},
	})
}

func TestCodeIPLength(t *testing.T) {
	runCodeCases(t, wirecheck.CodeIPLength, []codeCase{
		{name: "IPv4 total length larger than the frame", frame: func(t testing.TB) []byte {
			f := build(t, spec{op: roce.RCSendOnly, payload: 100})
			ip, _, _ := offsets(t, f)
			binary.BigEndian.PutUint16(f[ip+2:], binary.BigEndian.Uint16(f[ip+2:])+8)
			fixIPv4(f, ip)
			return f
		}},
		{name: "IPv6 payload length larger than the frame", frame: func(t testing.TB) []byte {
			f := build(t, spec{op: roce.RCSendOnly, payload: 100, ipv6: true})
			ip, _, _ := offsets(t, f)
			binary.BigEndian.PutUint16(f[ip+4:], binary.BigEndian.Uint16(f[ip+4:])+1)
			return f
		}},
		{name: "extra bytes after the IPv4 packet", absent: []string{wirecheck.CodeICRC, wirecheck.CodeUDPLength}, frame: func(t testing.TB) []byte {
			f := build(t, spec{op: roce.RCSendOnly, payload: 100})
			require.Greater(t, len(f), 60)
			return append(f, 1, 2, 3, 4, 5, 6, 7, 8)
		}},
		{name: "extra bytes after the IPv6 packet, 802.1Q", absent: []string{wirecheck.CodeICRC, wirecheck.CodeUDPLength}, frame: func(t testing.TB) []byte {
			f := build(t, spec{op: roce.RCAcknowledge, ipv6: true, tags: encaps[2].tags})
			return append(f, 0, 0, 0, 0)
		}},
		{name: "minimum frame followed by too much padding", frame: func(t testing.TB) []byte {
			f := build(t, spec{op: roce.RCSendOnly})
			require.Len(t, f, 60)
			return append(f, 0, 0, 0, 0)
		}},
	})
}

func TestCodeUDPLength(t *testing.T) {
	udpLen := func(s spec, delta int) func(t testing.TB) []byte {
		return func(t testing.TB) []byte {
			f := build(t, s)
			_, udp, _ := offsets(t, f)
			l := int(binary.BigEndian.Uint16(f[udp+4:]))
			binary.BigEndian.PutUint16(f[udp+4:], uint16(l+delta))
			return fixICRC(t, f)
		}
	}
	runCodeCases(t, wirecheck.CodeUDPLength, []codeCase{
		{name: "4 more than the IP packet holds", absent: []string{wirecheck.CodeICRC}, frame: udpLen(spec{op: roce.RCSendOnly, payload: 64}, +4)},
		{name: "4 less than the IP packet holds", frame: udpLen(spec{op: roce.RCSendOnly, payload: 64}, -4)},
		{name: "IPv6, 1 more", absent: []string{wirecheck.CodeICRC}, frame: udpLen(spec{op: roce.RCWriteMiddle, payload: 256, ipv6: true}, +1)},
		{name: "zero", frame: func(t testing.TB) []byte {
			f := build(t, spec{op: roce.RCAcknowledge})
			_, udp, _ := offsets(t, f)
			f[udp+4], f[udp+5] = 0, 0
			return fixICRC(t, f)
		}},
	})
}

func TestCodePadCount(t *testing.T) {
	pad := func(s spec, n uint8) func(t testing.TB) []byte {
		return func(t testing.TB) []byte { return setPadCnt(t, build(t, s), n) }
	}
	runCodeCases(t, wirecheck.CodePadCount, []codeCase{
		{name: "PadCnt on an ACK", absent: []string{wirecheck.CodeICRC}, frame: pad(spec{op: roce.RCAcknowledge}, 1)},
		{name: "PadCnt on a READ request, IPv6", frame: pad(spec{op: roce.RCReadRequest, ipv6: true}, 3)},
		{name: "PadCnt on a CNP", frame: pad(spec{op: roce.CNPOpCode}, 2)},
		{name: "PadCnt 2 on a SEND_FIRST", absent: []string{wirecheck.CodeICRC}, frame: pad(spec{op: roce.RCSendFirst, payload: 256}, 2)},
		{name: "PadCnt 1 on a READ_RESPONSE_MIDDLE", frame: pad(spec{op: roce.RCReadResponseMiddle, payload: 1024, tags: encaps[2].tags}, 1)},
		{name: "PadCnt 3 on a UC RDMA_WRITE_FIRST", frame: pad(spec{op: roce.UC(roce.RCWriteFirst), payload: 512}, 3)},
		{name: "PadCnt larger than the bytes after the headers", frame: pad(spec{op: roce.RCSendOnly}, 3)},
		{name: "PadCnt larger than the bytes after the headers, RDMA_WRITE_ONLY", frame: pad(spec{op: roce.RCWriteOnly}, 2)},
		{name: "payload and pad not whole words", frame: func(t testing.TB) []byte {
			// SEND_ONLY with 8 payload bytes, cut to 5 without pad.
			f := build(t, spec{op: roce.RCSendOnly, payload: 8})
			ip, udp, bth := offsets(t, f)
			g := append(slices.Clone(f[:bth+12+5]), f[len(f)-4:]...)
			return fixICRC(t, fitLengths(t, g, ip, udp))
		}},
	})
}

func TestCodePayloadLength(t *testing.T) {
	frame := func(s spec) func(t testing.TB) []byte {
		return func(t testing.TB) []byte { return build(t, s) }
	}
	runCodeCases(t, wirecheck.CodePayloadLength, []codeCase{
		{name: "SEND_FIRST with 100 bytes", absent: []string{wirecheck.CodePadCount, wirecheck.CodeICRC}, frame: frame(spec{op: roce.RCSendFirst, payload: 100})},
		{name: "RDMA_WRITE_FIRST with 100 bytes", frame: frame(spec{op: roce.RCWriteFirst, payload: 100})},
		{name: "SEND_MIDDLE with 4100 bytes", frame: frame(spec{op: roce.RCSendMiddle, payload: 4100})},
		{name: "READ_RESPONSE_FIRST with 0 bytes", frame: frame(spec{op: roce.RCReadResponseFirst})},
		{name: "SEND_LAST with 0 bytes", absent: []string{wirecheck.CodePadCount}, frame: frame(spec{op: roce.RCSendLast})},
		{name: "RDMA_WRITE_LAST_WITH_IMMEDIATE with 0 bytes", frame: frame(spec{op: roce.RCWriteLastImm, ipv6: true})},
		{name: "SEND_LAST with 4100 bytes", frame: frame(spec{op: roce.RCSendLast, payload: 4100})},
		{name: "SEND_ONLY with 4100 bytes", absent: []string{wirecheck.CodePadCount}, frame: frame(spec{op: roce.RCSendOnly, payload: 4100})},
		{name: "UD SEND_ONLY with 4097 bytes", frame: frame(spec{op: roce.UDSendOnly, payload: 4097})},
		{name: "ACK with payload", absent: []string{wirecheck.CodePadCount}, frame: frame(spec{op: roce.RCAcknowledge, payload: 4})},
		{name: "ATOMIC_ACKNOWLEDGE with payload", frame: frame(spec{op: roce.RCAtomicAcknowledge, payload: 8})},
		{name: "READ request with payload", frame: frame(spec{op: roce.RCReadRequest, payload: 16})},
		{name: "FETCH_ADD with payload", frame: frame(spec{op: roce.RCFetchAdd, payload: 8})},
		{name: "CNP with payload", frame: frame(spec{op: roce.CNPOpCode, payload: 4})},
	})
}

func TestCodeTVer(t *testing.T) {
	tver := func(s spec, v uint8) func(t testing.TB) []byte {
		return func(t testing.TB) []byte {
			s.bth = func(b *roce.BTH) { b.TVer = v }
			return build(t, s)
		}
	}
	runCodeCases(t, wirecheck.CodeTVer, []codeCase{
		{name: "TVer 1", absent: []string{wirecheck.CodeICRC}, frame: tver(spec{op: roce.RCSendOnly, payload: 64}, 1)},
		{name: "TVer 15, IPv6", absent: []string{wirecheck.CodeICRC}, frame: tver(spec{op: roce.RCAcknowledge, ipv6: true}, 15)},
		{name: "TVer 2, CNP over 802.1Q", frame: tver(spec{op: roce.CNPOpCode, tags: encaps[2].tags}, 2)},
	})
}

func TestCodeUnknownOpCode(t *testing.T) {
	var cases []codeCase
	for _, op := range []roce.OpCode{0x15, 0x18, 0x1f, 0x2c, 0x33, 0x40, 0x4a, 0x60, 0x66, 0x80, 0x82, 0xa0, 0xff} {
		require.False(t, op.Known(), "%#02x", uint8(op))
		cases = append(cases, codeCase{
			name:   fmt.Sprintf("%#02x", uint8(op)),
			absent: []string{wirecheck.CodeICRC, wirecheck.CodeTruncated},
			frame:  func(t testing.TB) []byte { return build(t, spec{op: op, payload: 8}) },
		})
	}
	runCodeCases(t, wirecheck.CodeUnknownOpCode, cases)

	// An unknown opcode is still RoCEv2: the BTH is decoded and summarised.
	r := wirecheck.NewChecker().Check(build(t, spec{op: 0x15, payload: 8}))
	require.NotNil(t, r.BTH())
	assert.Equal(t, roce.OpCode(0x15), r.BTH().OpCode)
	assert.Regexp(t, `^OpCode\(0x15\) qp=0x000012 psn=0x9dbe5d len=8`, r.Summary())
}

func TestCodesPFC(t *testing.T) {
	pfcFrame := func(t testing.TB) []byte {
		f, err := pfc.New(srcMAC, 0x09, [pfc.NumPriorities]uint16{100, 0, 0, 200})
		require.NoError(t, err)
		return f
	}
	pauseFrame := func(t testing.TB) []byte {
		f, err := pfc.NewPause(srcMAC, 0xFFFF)
		require.NoError(t, err)
		return f
	}
	c := wirecheck.NewChecker()
	for name, f := range map[string][]byte{"PFC": pfcFrame(t), "PAUSE": pauseFrame(t)} {
		r := c.Check(f)
		assert.True(t, r.OK(), "%s: %v", name, r.Problems)
		assert.Equal(t, wirecheck.KindMACControl, r.Kind, name)
		assert.NotNil(t, r.PFC(), name)
		assert.Nil(t, r.BTH(), name)
	}

	cases := []struct {
		name  string
		code  string
		frame func(t testing.TB) []byte
	}{
		{"reserved enable bits", pfc.CodeEnableReserved, func(t testing.TB) []byte {
			f := pfcFrame(t)
			f[16] = 0x80
			return f
		}},
		{"unknown MAC control opcode", pfc.CodeUnknownOpcode, func(t testing.TB) []byte {
			f := pauseFrame(t)
			f[15] = 0x03
			return f
		}},
		{"non-zero pad, PFC", pfc.CodePadNonZero, func(t testing.TB) []byte {
			f := pfcFrame(t)
			f[59] = 1
			return f
		}},
		{"non-zero pad, PAUSE", pfc.CodePadNonZero, func(t testing.TB) []byte {
			f := pauseFrame(t)
			f[20] = 0xFF
			return f
		}},
		{"short frame", pfc.CodeShortFrame, func(t testing.TB) []byte { return pfcFrame(t)[:40] }},
		{"PFC to a unicast address", pfc.CodeDstMAC, func(t testing.TB) []byte {
			f := pfcFrame(t)
			copy(f, dstMAC)
			return f
		}},
		{"PAUSE to a group address", pfc.CodeDstMAC, func(t testing.TB) []byte {
			f := pauseFrame(t)
			copy(f, []byte{0x01, 0x00, 0x5e, 0x00, 0x00, 0x01})
			return f
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Check(tc.frame(t))
			assert.Equal(t, wirecheck.KindMACControl, r.Kind)
			assert.Contains(t, codes(r), "pfc-"+tc.code, "problems: %v", r.Problems)
			for _, code := range codes(r) {
				assert.Regexp(t, `^pfc-`, code)
			}
		})
	}

	// A PAUSE sent to the station's own unicast address is fine.
	f := pauseFrame(t)
	copy(f, dstMAC)
	assert.True(t, c.Check(f).OK())
}

func TestOtherFramesAreNotChecked(t *testing.T) {
	c := wirecheck.NewChecker()
	for _, tc := range otherFrames(t) {
		t.Run(tc.name, func(t *testing.T) {
			r := c.Check(tc.frame)
			assert.Equal(t, wirecheck.KindOther, r.Kind)
			assert.True(t, r.OK(), "%v", r.Problems)
			assert.Nil(t, r.BTH())
			assert.Nil(t, r.PFC())
			assert.Equal(t, tc.summary, r.Summary())
		})
	}
}

type otherFrame struct {
	name    string
	frame   []byte
	summary string
}

func serialize(t testing.TB, ls ...gopacket.SerializableLayer) []byte {
	t.Helper()
	buf := gopacket.NewSerializeBuffer()
	require.NoError(t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...))
	return slices.Clone(buf.Bytes())
}

func otherFrames(t testing.TB) []otherFrame {
	ip4 := func() *layers.IPv4 {
		return &layers.IPv4{Version: 4, TTL: 64, SrcIP: net.IPv4(10, 0, 0, 1).To4(), DstIP: net.IPv4(10, 0, 0, 2).To4()}
	}
	eth := func(et layers.EthernetType) *layers.Ethernet {
		return &layers.Ethernet{SrcMAC: srcMAC, DstMAC: dstMAC, EthernetType: et}
	}

	arp := serialize(t, &layers.Ethernet{SrcMAC: srcMAC, DstMAC: layers.EthernetBroadcast, EthernetType: layers.EthernetTypeARP},
		&layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
			Operation: layers.ARPRequest, SourceHwAddress: srcMAC, SourceProtAddress: []byte{10, 0, 0, 1},
			DstHwAddress: make([]byte, 6), DstProtAddress: []byte{10, 0, 0, 2}})

	ip := ip4()
	ip.Protocol = layers.IPProtocolTCP
	tcp := &layers.TCP{SrcPort: 40000, DstPort: 4791, Seq: 1, SYN: true, Window: 1024}
	require.NoError(t, tcp.SetNetworkLayerForChecksum(ip))
	tcpFrame := serialize(t, eth(layers.EthernetTypeIPv4), ip, tcp)

	ip = ip4()
	ip.Protocol = layers.IPProtocolUDP
	udp := &layers.UDP{SrcPort: 5353, DstPort: 53}
	require.NoError(t, udp.SetNetworkLayerForChecksum(ip))
	dns := &layers.DNS{ID: 7, RD: true, Questions: []layers.DNSQuestion{{Name: []byte("example.com"), Type: layers.DNSTypeA, Class: layers.DNSClassIN}}}
	dnsFrame := serialize(t, eth(layers.EthernetTypeIPv4), ip, udp, dns)

	ip = ip4()
	ip.Protocol = layers.IPProtocolUDP
	udp = &layers.UDP{SrcPort: 40000, DstPort: 9999}
	require.NoError(t, udp.SetNetworkLayerForChecksum(ip))
	udpFrame := serialize(t, eth(layers.EthernetTypeIPv4), ip, udp, gopacket.Payload([]byte("hello, world")))

	return []otherFrame{
		{"ARP", arp, "not RoCE: Ethernet/ARP"},
		{"TCP", tcpFrame, "not RoCE: Ethernet/IPv4/TCP"},
		{"UDP DNS", dnsFrame, "not RoCE: Ethernet/IPv4/UDP/DNS"},
		{"UDP to port 9999", udpFrame, "not RoCE: Ethernet/IPv4/UDP/Payload"},
		{"runt", []byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, "not RoCE: undecodable"},
		{"empty", nil, "not RoCE: undecodable"},
	}
}

func TestSummary(t *testing.T) {
	c := wirecheck.NewChecker()
	summary := func(f []byte) string {
		t.Helper()
		r := c.Check(f)
		require.True(t, r.OK(), "%v", r.Problems)
		return r.Summary()
	}

	assert.Regexp(t, `^RC RDMA_WRITE_FIRST qp=0x[0-9a-f]{6} psn=0x[0-9a-f]{6} len=256`,
		summary(build(t, spec{op: roce.RCWriteFirst, payload: 256, ipv6: true})))

	cases := []struct {
		name string
		s    spec
		want string
	}{
		{"RDMA_WRITE_FIRST", spec{op: roce.RCWriteFirst, payload: 1024},
			"RC RDMA_WRITE_FIRST qp=0x000012 psn=0x9dbe5d len=1024 va=0x1000 rkey=0x2a dmalen=4096"},
		{"ACK", spec{op: roce.RCAcknowledge, bth: func(b *roce.BTH) { b.AETH.Syndrome = roce.ACKSyndrome(31) }},
			"RC ACKNOWLEDGE qp=0x000012 psn=0x9dbe5d len=0 ACK(credit=31) msn=5"},
		{"NAK", spec{op: roce.RCAcknowledge, bth: func(b *roce.BTH) { b.AETH.Syndrome = roce.SyndromeNAKPSNSeq }},
			"RC ACKNOWLEDGE qp=0x000012 psn=0x9dbe5d len=0 NAK(PSN_SEQUENCE_ERROR) msn=5"},
		{"SEND_ONLY_WITH_IMMEDIATE, AckReq", spec{op: roce.RCSendOnlyImm, payload: 8, bth: func(b *roce.BTH) { b.AckReq = true }},
			"RC SEND_ONLY_WITH_IMMEDIATE qp=0x000012 psn=0x9dbe5d len=8 imm=0x00001234 ackreq"},
		{"UC RDMA_WRITE_LAST", spec{op: roce.UC(roce.RCWriteLast), payload: 3, tags: encaps[2].tags},
			"UC RDMA_WRITE_LAST qp=0x000012 psn=0x9dbe5d len=3"},
		{"UD SEND_ONLY", spec{op: roce.UDSendOnly, payload: 20, ipv6: true},
			"UD SEND_ONLY qp=0x000012 psn=0x9dbe5d len=20"},
		{"CNP", spec{op: roce.CNPOpCode},
			"CNP qp=0x000012 psn=0x000000 len=0 fecn=false becn=true"},
		{"FECN", spec{op: roce.RCSendOnly, bth: func(b *roce.BTH) { b.FECN = true; b.DestQP = 0xabcdef; b.PSN = 1 }},
			"RC SEND_ONLY qp=0xabcdef psn=0x000001 len=0 fecn=true becn=false"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, summary(build(t, tc.s)), tc.name)
	}

	f, err := pfc.New(srcMAC, 0x09, [pfc.NumPriorities]uint16{100, 0, 0, 200})
	require.NoError(t, err)
	assert.Equal(t, "PFC src=02:00:00:00:00:01 enable=P0|P3 quanta=[100 0 0 200 0 0 0 0]", summary(f))

	f, err = pfc.NewPause(srcMAC, 0xFFFF)
	require.NoError(t, err)
	assert.Equal(t, "PAUSE src=02:00:00:00:00:01 quanta=65535", summary(f))

	f[15] = 0x03 // unknown MAC control opcode
	r := c.Check(f)
	assert.False(t, r.OK())
	assert.Equal(t, "MAC Control MACControlOpcode(0x0003) src=02:00:00:00:00:01", r.Summary())

	for _, o := range otherFrames(t) {
		assert.Equal(t, o.summary, summary(o.frame), o.name)
	}
}

// TestSummaryOfCutRoCEFrame: a RoCEv2 frame cut before its BTH is decoded is
// Kind RoCE and must not be summarised as "not RoCE".
func TestSummaryOfCutRoCEFrame(t *testing.T) {
	f := build(t, spec{op: roce.RCSendOnly, payload: 64})
	ip, udp, bth := offsets(t, f)
	f = fitLengths(t, f[:bth+6], ip, udp)
	r := wirecheck.NewChecker().Check(f)
	require.Equal(t, wirecheck.KindRoCE, r.Kind)
	assert.NotContains(t, r.Summary(), "not RoCE")
}

// TestRoCEDatagramWithoutBTH: a UDP datagram to port 4791 that ends right
// after the UDP header is a RoCEv2 packet without its BTH.
func TestRoCEDatagramWithoutBTH(t *testing.T) {
	f := build(t, spec{op: roce.RCSendOnly, payload: 8})
	ip, udp, bth := offsets(t, f)
	f = fitLengths(t, f[:bth], ip, udp)
	r := wirecheck.NewChecker().Check(f)
	require.Equal(t, wirecheck.KindRoCE, r.Kind)
	assert.Contains(t, codes(r), wirecheck.CodeTruncated, "problems: %v", r.Problems)
}

// TestSourcePort4791: Wireshark dissects UDP from port 4791 as RoCEv2
// whatever the destination port, so the checker takes it as RoCEv2 too, and
// flags the destination port (IBA Annex A17: RoCEv2 goes to 4791).
func TestSourcePort4791(t *testing.T) {
	f := build(t, spec{op: roce.RCAcknowledge})
	_, udp, _ := offsets(t, f)
	binary.BigEndian.PutUint16(f[udp:], uint16(roce.UDPPort))
	binary.BigEndian.PutUint16(f[udp+2:], 18515)
	r := wirecheck.NewChecker().Check(fixICRC(t, f))
	require.Equal(t, wirecheck.KindRoCE, r.Kind)
	assert.Equal(t, []string{wirecheck.CodeUDPPort}, codes(r))
	assert.Equal(t, "UDP port 4791 to 18515: RoCEv2 packets go to destination port 4791", r.Problems[0].Message)
	require.NotNil(t, r.BTH())
	assert.Equal(t, roce.RCAcknowledge, r.BTH().OpCode)

	// Cut inside the UDP header, it is still recognised by its port.
	r = wirecheck.NewChecker().Check(fitLengths(t, f[:udp+4], udp-20, udp))
	assert.Equal(t, wirecheck.KindRoCE, r.Kind)
	assert.Contains(t, codes(r), wirecheck.CodeTruncated)
}

func TestCheckerReuse(t *testing.T) {
	// Problems and decoded layers of one frame must not leak into the next.
	good := build(t, spec{op: roce.RCWriteOnly, payload: 100, ipv6: true})
	bad := setPadCnt(t, build(t, spec{op: roce.RCAcknowledge}), 3)
	pause, err := pfc.NewPause(srcMAC, 1)
	require.NoError(t, err)
	badPFC := slices.Clone(pause)
	badPFC[15] = 0x07
	other := otherFrames(t)[1].frame

	c := wirecheck.NewChecker()
	for i := 0; i < 3; i++ {
		assert.False(t, c.Check(bad).OK())
		r := c.Check(good)
		assert.True(t, r.OK(), "%v", r.Problems)
		assert.Equal(t, roce.RCWriteOnly, r.BTH().OpCode)
		assert.False(t, c.Check(badPFC).OK())
		r = c.Check(other)
		assert.True(t, r.OK())
		assert.Nil(t, r.BTH())
		r = c.Check(pause)
		assert.True(t, r.OK(), "%v", r.Problems)
		assert.Nil(t, r.BTH())
		assert.Equal(t, "PAUSE src=02:00:00:00:00:01 quanta=1", r.Summary())
	}
}

func TestCheckAllocatesNothing(t *testing.T) {
	frames := map[string][]byte{
		"RC SEND_ONLY IPv4 60B":           build(t, spec{op: roce.RCSendOnly}),
		"RC RDMA_WRITE_FIRST IPv4":        build(t, spec{op: roce.RCWriteFirst, payload: 1024}),
		"RC ACK IPv6 802.1Q":              build(t, spec{op: roce.RCAcknowledge, ipv6: true, tags: encaps[2].tags}),
		"UD SEND_ONLY_WITH_IMM QinQ IPv4": build(t, spec{op: roce.UDSendOnlyImm, payload: 1456, tags: encaps[4].tags}),
		"CNP IPv6":                        build(t, spec{op: roce.CNPOpCode, ipv6: true}),
	}
	c := wirecheck.NewChecker()
	for name, f := range frames {
		require.True(t, c.Check(f).OK(), name)
		allocs := testing.AllocsPerRun(200, func() {
			if !c.Check(f).OK() {
				panic("frame became invalid")
			}
		})
		assert.Zero(t, allocs, "%s: Check allocates", name)
	}
}

func BenchmarkCheck(b *testing.B) {
	for _, bc := range []struct {
		name string
		s    spec
		len  int
	}{
		// 64 bytes on the wire with the FCS: the 60-byte minimum frame.
		{"64B", spec{op: roce.RCSendOnly}, 60},
		// A 1500-byte IP packet: 20 + 8 + 12 + 1456 + 4.
		{"1500B", spec{op: roce.RCSendOnly, payload: 1456}, 1514},
	} {
		b.Run(bc.name, func(b *testing.B) {
			f := build(b, bc.s)
			require.Len(b, f, bc.len)
			c := wirecheck.NewChecker()
			require.True(b, c.Check(f).OK())
			b.SetBytes(int64(len(f)))
			b.ReportAllocs()
			for b.Loop() {
				if !c.Check(f).OK() {
					b.Fatal("frame became invalid")
				}
			}
		})
	}
}
