package framegen_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"net"
	"slices"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/golden/wirecheck"
	"github.com/rocesim/cosim/harness/framegen"
)

func newRNG(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x5eed)) }

// sweep returns payload lengths op allows, including the edges.
func sweep(op roce.OpCode) []int {
	switch op.Payload() {
	case roce.PayloadFull:
		return framegen.PMTUs
	case roce.PayloadLast:
		return []int{1, 2, 3, 4, 5, 7, 8, 255, 256, 257, 1000, 1023, 2049, 4093, 4095, 4096}
	case roce.PayloadOnly:
		return []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 64, 1456, 1457, 4095, 4096}
	}
	return []int{0}
}

func TestKnownOpCodes(t *testing.T) {
	ops := framegen.KnownOpCodes()
	require.Len(t, ops, 38, "RC 23, UC 12, UD 2, CNP 1")
	assert.True(t, slices.IsSorted(ops))
	count := map[roce.Transport]int{}
	for _, op := range ops {
		assert.True(t, op.Known(), "%s", op)
		count[op.Transport()]++
	}
	assert.Equal(t, map[roce.Transport]int{roce.TransportRC: 23, roce.TransportUC: 12, roce.TransportUD: 2, roce.TransportCNP: 1}, count)
	assert.Contains(t, ops, roce.CNPOpCode)
	assert.Contains(t, ops, roce.UDSendOnlyImm)
	assert.Contains(t, ops, roce.UC(roce.RCWriteOnlyImm))
}

func TestEncaps(t *testing.T) {
	require.Equal(t, []framegen.Encap{framegen.IPv4, framegen.IPv6, framegen.VLANIPv4, framegen.VLANIPv6}, framegen.Encaps)
	var names []string
	for _, e := range framegen.Encaps {
		names = append(names, e.String())
	}
	assert.Equal(t, []string{"IPv4", "IPv6", "VLAN/IPv4", "VLAN/IPv6"}, names)
}

func TestBuildEveryOpCodeEncapAndLength(t *testing.T) {
	rng := newRNG(1)
	c := wirecheck.NewChecker()
	n := 0
	for _, op := range framegen.KnownOpCodes() {
		for _, e := range framegen.Encaps {
			for _, pl := range sweep(op) {
				name := fmt.Sprintf("%s/%s/%d", op, e, pl)
				f, err := framegen.Build(rng, framegen.Spec{OpCode: op, Encap: e, PayloadLen: pl})
				require.NoError(t, err, name)
				n++

				r := c.Check(f)
				if !assert.True(t, r.OK(), "%s: %v", name, r.Problems) {
					continue
				}
				assert.Equal(t, wirecheck.KindRoCE, r.Kind, name)

				checkDecoded(t, name, f, op, e, pl)
			}
		}
	}
	t.Logf("%d frames", n)
}

// checkDecoded decodes f with gopacket's own decoder and checks it holds
// what was asked for.
func checkDecoded(t *testing.T, name string, f []byte, op roce.OpCode, e framegen.Encap, pl int) {
	t.Helper()
	p := gopacket.NewPacket(f, layers.LayerTypeEthernet, gopacket.Default)
	if el := p.ErrorLayer(); !assert.Nil(t, el, name) {
		t.Logf("%s: %v", name, el.Error())
		return
	}
	vlan := e == framegen.VLANIPv4 || e == framegen.VLANIPv6
	v6 := e == framegen.IPv6 || e == framegen.VLANIPv6
	assert.Equal(t, vlan, p.Layer(layers.LayerTypeDot1Q) != nil, "%s: 802.1Q tag", name)
	assert.Equal(t, v6, p.Layer(layers.LayerTypeIPv6) != nil, "%s: IPv6", name)
	assert.Equal(t, !v6, p.Layer(layers.LayerTypeIPv4) != nil, "%s: IPv4", name)
	udp, ok := p.Layer(layers.LayerTypeUDP).(*layers.UDP)
	require.True(t, ok, name)
	assert.Equal(t, roce.UDPPort, udp.DstPort, name)
	if ip4, ok := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
		assert.Equal(t, layers.IPv4DontFragment, ip4.Flags, name)
		assert.NotZero(t, ip4.TTL, name)
	}

	b, ok := p.Layer(roce.LayerTypeBTH).(*roce.BTH)
	require.True(t, ok, name)
	assert.Equal(t, op, b.OpCode, name)
	assert.Len(t, b.Payload, pl, name)
	assert.Zero(t, b.TVer, name)
	assert.Equal(t, uint16(roce.DefaultPKey), b.PKey, name)
	assert.Equal(t, uint8(-pl&3), b.PadCnt, name)
	assert.Len(t, b.Pad, int(b.PadCnt), name)
	if pl > 0 {
		app := p.ApplicationLayer()
		if assert.NotNil(t, app, name) {
			assert.Len(t, app.Payload(), pl, name)
		}
	}
	if op == roce.CNPOpCode {
		assert.True(t, b.BECN, name)
		assert.Zero(t, b.PSN, name)
		assert.False(t, b.AckReq, name)
	}

	start, end, err := roce.IPPacket(f)
	require.NoError(t, err, name)
	want, err := roce.ReferenceICRC(f[start : end-roce.ICRCLen])
	require.NoError(t, err, name)
	assert.Equal(t, want, b.ICRC.Value, "%s: ICRC", name)
}

// TestUDPChecksumIsZero: framegen means to send UDP checksum 0 as rxe does
// (comment in Build).
func TestUDPChecksumIsZero(t *testing.T) {
	rng := newRNG(1)
	for _, e := range framegen.Encaps {
		f, err := framegen.Build(rng, framegen.Spec{OpCode: roce.RCSendOnly, Encap: e, PayloadLen: 16})
		require.NoError(t, err)
		start, _, err := roce.IPPacket(f)
		require.NoError(t, err)
		udp := start + 20
		if e == framegen.IPv6 || e == framegen.VLANIPv6 {
			udp = start + 40
		}
		assert.Zero(t, binary.BigEndian.Uint16(f[udp+6:]), "%s", e)
	}
}

func TestPayloadLen(t *testing.T) {
	rng := newRNG(7)
	c := wirecheck.NewChecker()
	for _, op := range framegen.KnownOpCodes() {
		for _, maxLen := range []int{1, 100, 256, 300, 1024, 4096, 9000} {
			seen := map[int]bool{}
			for i := 0; i < 50; i++ {
				n := framegen.PayloadLen(rng, op, maxLen)
				seen[n] = true
				switch op.Payload() {
				case roce.PayloadNone:
					require.Zero(t, n, "%s", op)
				case roce.PayloadFull:
					require.Contains(t, framegen.PMTUs, n, "%s", op)
					if maxLen >= 256 {
						require.LessOrEqual(t, n, maxLen, "%s max %d", op, maxLen)
					} else {
						require.Equal(t, 256, n, "%s: the smallest path MTU when none fits", op)
					}
				case roce.PayloadLast:
					require.GreaterOrEqual(t, n, 1, "%s", op)
					require.LessOrEqual(t, n, min(maxLen, 4096), "%s", op)
				case roce.PayloadOnly:
					require.GreaterOrEqual(t, n, 0, "%s", op)
					require.LessOrEqual(t, n, min(maxLen, 4096), "%s", op)
				}
				if i < 3 {
					f, err := framegen.Build(rng, framegen.Spec{OpCode: op, Encap: framegen.Encaps[i], PayloadLen: n})
					require.NoError(t, err, "%s %d", op, n)
					require.True(t, c.Check(f).OK(), "%s %d", op, n)
				}
			}
			if op.Payload() != roce.PayloadNone && maxLen >= 1024 {
				assert.Greater(t, len(seen), 1, "%s max %d: lengths are drawn, not fixed", op, maxLen)
			}
		}
	}
}

func TestBuildIsDeterministic(t *testing.T) {
	build := func(seed uint64) [][]byte {
		rng := newRNG(seed)
		var out [][]byte
		for _, op := range framegen.KnownOpCodes() {
			for _, e := range framegen.Encaps {
				f, err := framegen.Build(rng, framegen.Spec{OpCode: op, Encap: e, PayloadLen: framegen.PayloadLen(rng, op, 2048)})
				require.NoError(t, err)
				out = append(out, f)
			}
		}
		return out
	}
	a, b := build(42), build(42)
	require.Equal(t, len(a), len(b))
	for i := range a {
		require.True(t, bytes.Equal(a[i], b[i]), "frame %d differs between two runs with the same seed", i)
	}
	other := build(43)
	same := 0
	for i := range a {
		if bytes.Equal(a[i], other[i]) {
			same++
		}
	}
	assert.Zero(t, same, "frames of seed 42 and 43 should differ")

	// Header fields are drawn: two frames of one generator differ.
	rng := newRNG(5)
	s := framegen.Spec{OpCode: roce.RCAcknowledge, Encap: framegen.IPv4}
	f1, err := framegen.Build(rng, s)
	require.NoError(t, err)
	f2, err := framegen.Build(rng, s)
	require.NoError(t, err)
	assert.NotEqual(t, f1, f2)
}

func TestBuildRejectsInvalidSpecs(t *testing.T) {
	cases := []struct {
		name string
		s    framegen.Spec
	}{
		{"unknown RC opcode", framegen.Spec{OpCode: 0x15}},
		{"unknown opcode 0xff", framegen.Spec{OpCode: 0xFF, PayloadLen: 4}},
		{"UD SEND_FIRST", framegen.Spec{OpCode: 0x60, PayloadLen: 256}},
		{"UC RDMA_READ_REQUEST", framegen.Spec{OpCode: roce.UC(roce.RCReadRequest)}},
		{"SEND_FIRST with 100 bytes", framegen.Spec{OpCode: roce.RCSendFirst, PayloadLen: 100}},
		{"SEND_FIRST with 0 bytes", framegen.Spec{OpCode: roce.RCSendFirst}},
		{"RDMA_WRITE_MIDDLE with 8192 bytes", framegen.Spec{OpCode: roce.RCWriteMiddle, PayloadLen: 8192}},
		{"ACK with payload", framegen.Spec{OpCode: roce.RCAcknowledge, PayloadLen: 4}},
		{"READ request with payload", framegen.Spec{OpCode: roce.RCReadRequest, PayloadLen: 1}},
		{"CNP with payload", framegen.Spec{OpCode: roce.CNPOpCode, PayloadLen: 16}},
		{"SEND_LAST with 0 bytes", framegen.Spec{OpCode: roce.RCSendLast}},
		{"SEND_LAST with 4097 bytes", framegen.Spec{OpCode: roce.RCSendLast, PayloadLen: 4097}},
		{"SEND_ONLY with 4097 bytes", framegen.Spec{OpCode: roce.RCSendOnly, PayloadLen: 4097}},
		{"SEND_ONLY with -1 bytes", framegen.Spec{OpCode: roce.RCSendOnly, PayloadLen: -1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rng := newRNG(1)
			f, err := framegen.Build(rng, tc.s)
			require.Error(t, err)
			assert.Nil(t, f)
			assert.Contains(t, err.Error(), "framegen:")
			assert.Contains(t, err.Error(), tc.s.OpCode.String())
		})
	}
}

func TestBuildL2(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	dst, src := [6]byte{2, 0, 0, 0, 0, 1}, [6]byte{2, 0, 0, 0, 0, 2}
	f := framegen.BuildL2(rng, framegen.L2Spec{Dst: dst, Src: src, VLAN: true, PCP: 5, VID: 7, IPv4: true, DSCP: 46, ECN: 2, Len: 100})
	p := gopacket.NewPacket(f, layers.LayerTypeEthernet, gopacket.Default)
	// gopacket has no decoder for protocol 253 after IPv4; the headers are what count.
	vlan := p.Layer(layers.LayerTypeDot1Q).(*layers.Dot1Q)
	require.Equal(t, uint8(5), vlan.Priority)
	require.Equal(t, uint16(7), vlan.VLANIdentifier)
	ip := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	require.Equal(t, uint8(46<<2|2), ip.TOS)
	require.Equal(t, uint16(100-18), ip.Length)
	require.Zero(t, wirecheck.IPv4Checksum(f[18:38]), "checksum right")

	runt := framegen.BuildL2(rng, framegen.L2Spec{Dst: dst, Src: src, IPv4: true, Len: 30})
	require.Len(t, runt, 30)
	require.Equal(t, []byte{0x88, 0xB5}, runt[12:14], "no room for IPv4: experimental type")
	plain := framegen.BuildL2(rng, framegen.L2Spec{Dst: dst, Src: src, Len: 60})
	require.Equal(t, dst[:], plain[:6])
	require.Equal(t, src[:], plain[6:12])
}

// WritePFC's frames are the ones golden/pfc builds (its codec is checked
// against tshark) for the vector and times they carry, with no problem
// CheckFrame knows; times stay within PFCMaxQuanta and some are 0.
func TestWritePFC(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	src := [6]byte{2, 0, 0, 0, 1, 2}
	zeros, enabled := 0, 0
	for range 200 {
		f := make([]byte, pfc.FrameLen)
		framegen.WritePFC(rng, src, f)
		p := gopacket.NewPacket(f, layers.LayerTypeEthernet, gopacket.Default)
		eth := p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
		frame, ok := p.Layer(pfc.LayerTypePFC).(*pfc.PFC)
		require.True(t, ok, "% x", f)
		require.Empty(t, pfc.CheckFrame(eth, frame))
		want, err := pfc.New(net.HardwareAddr(src[:]), frame.EnableVector.Priorities(), frame.Quanta)
		require.NoError(t, err)
		require.Equal(t, want, f)
		for _, q := range frame.Quanta {
			require.LessOrEqual(t, q, uint16(framegen.PFCMaxQuanta))
			if q == 0 {
				zeros++
			}
		}
		enabled += bits.OnesCount8(frame.EnableVector.Priorities())
	}
	assert.InDelta(t, 0.25, float64(zeros)/1600, 0.05, "a quarter of the times resume")
	assert.InDelta(t, 0.5, float64(enabled)/1600, 0.05, "half the priorities enabled")
}
