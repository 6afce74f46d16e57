package roce_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
)

// rtRandomIPPacket returns an IP packet of size bytes (ICRC not included)
// whose header is IPv6 or IPv4 with the given IHL, every other byte random.
// The ICRC functions read only the version, IHL and IPv6 next header.
func rtRandomIPPacket(r *rand.Rand, v6 bool, ihl, size int) []byte {
	p := rtRandomBytes(r, size)
	if v6 {
		p[0] = 0x60 | p[0]&0x0F
		p[6] = uint8(layers.IPProtocolUDP)
	} else {
		p[0] = 0x40 | uint8(ihl)
		p[9] = uint8(layers.IPProtocolUDP)
	}
	return p
}

// rtMaskedICRC is an independent ICRC written from IBA annex A17.3.3:
// CRC-32 IEEE over 8 0xFF bytes and the IP packet with its variant fields
// set to ones.
func rtMaskedICRC(pkt []byte) uint32 {
	m := append(bytes.Repeat([]byte{0xFF}, 8), pkt...)
	ip := m[8:]
	var udp int
	if ip[0]>>4 == 6 {
		udp = 40
		ip[0] |= 0x0F // traffic class 7:4
		ip[1] = 0xFF  // traffic class 3:0, flow label 19:16
		ip[2], ip[3] = 0xFF, 0xFF
		ip[7] = 0xFF // hop limit
	} else {
		udp = int(ip[0]&0x0F) * 4
		ip[1] = 0xFF // TOS
		ip[8] = 0xFF // TTL
		ip[10], ip[11] = 0xFF, 0xFF
	}
	ip[udp+6], ip[udp+7] = 0xFF, 0xFF
	ip[udp+8+4] = 0xFF
	return crc32.ChecksumIEEE(m)
}

func TestComputeICRCMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(32, 0xEDB88320))
	n := 0
	for v6 := range 2 {
		for ihl := 5; ihl <= 15; ihl++ {
			if v6 == 1 && ihl > 5 {
				break
			}
			if ihl == 10 {
				continue // TestICRCIPv4IHL10
			}
			hdr := ihl * 4
			if v6 == 1 {
				hdr = 40
			}
			min := hdr + 8 + roce.BTHLen
			for i := range 300 {
				size := min + r.IntN(64)
				if i%2 == 1 {
					size = min + r.IntN(4200-min+1)
				}
				pkt := rtRandomIPPacket(r, v6 == 1, ihl, size)
				fast, err := roce.ComputeICRC(pkt)
				require.NoError(t, err)
				ref, err := roce.ReferenceICRC(pkt)
				require.NoError(t, err)
				require.Equal(t, ref, fast, "v6=%d ihl=%d size=%d", v6, ihl, size)
				require.Equal(t, rtMaskedICRC(pkt), fast, "v6=%d ihl=%d size=%d", v6, ihl, size)
				n++
			}
		}
	}
	assert.Equal(t, 11*300, n)
}

// TestICRCIPv4IHL10: an IPv4 header with 20 bytes of options is 40 bytes
// long, like an IPv6 header. ComputeICRC and ReferenceICRC tell the two
// apart by the UDP offset (udp == ipv6Header) instead of the version, so
// they apply the IPv6 masks to such an IPv4 packet (and disagree with each
// other: 0x6F versus byte0|0x0F for the first byte).
func TestICRCIPv4IHL10(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 40))
	bad := 0
	for range 50 {
		pkt := rtRandomIPPacket(r, false, 10, 40+8+12+r.IntN(200))
		fast, err := roce.ComputeICRC(pkt)
		require.NoError(t, err)
		ref, err := roce.ReferenceICRC(pkt)
		require.NoError(t, err)
		if fast != rtMaskedICRC(pkt) || ref != rtMaskedICRC(pkt) {
			bad++
		}
	}
	if bad > 0 {
		t.Errorf("icrc.go ComputeICRC and ReferenceICRC: %d of 50 IPv4 packets with IHL 10 get the IPv6 masks", bad)
	}
}

// rtMasked reports whether bit (0 = LSB) of byte i of an IP packet is
// masked by the ICRC (IBA annex A17.3.3).
func rtMasked(pkt []byte, i, bit int) bool {
	if pkt[0]>>4 == 6 {
		switch {
		case i == 0:
			return bit < 4 // traffic class 7:4; the version is covered
		case i >= 1 && i <= 3, i == 7, i == 46, i == 47, i == 52:
			return true
		}
		return false
	}
	udp := int(pkt[0]&0x0F) * 4
	switch i {
	case 1, 8, 10, 11, udp + 6, udp + 7, udp + 12:
		return true
	}
	return false
}

// TestICRCBitFlips flips every bit of a few packets: outside the masked
// fields VerifyICRC must fail, inside them it must still pass.
func TestICRCBitFlips(t *testing.T) {
	cases := []struct {
		n   rtNet
		op  roce.OpCode
		len int
	}{
		{rtIPv4, roce.RCWriteOnlyImm, 37},
		{rtIPv4, roce.RCAtomicAcknowledge, 0},
		{rtVLANIPv4, roce.RCSendOnlyInv, 6},
		{rtIPv6, roce.UDSendOnlyImm, 21},
		{rtIPv6, roce.RCCompareSwap, 0},
		{rtVLANIPv6, roce.CNPOpCode, 0},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%v/%v/%d", c.n, c.op, c.len), func(t *testing.T) {
			rtFlipAll(t, rtSimpleFrame(t, c.n, c.op, c.len).IP())
		})
	}
	// IPv4 with options, built raw.
	r := rand.New(rand.NewPCG(7, 7))
	for _, ihl := range []int{6, 7, 15} {
		t.Run(fmt.Sprintf("IPv4/IHL%d", ihl), func(t *testing.T) {
			pkt := rtRandomIPPacket(r, false, ihl, ihl*4+8+12+r.IntN(40))
			icrc, err := roce.ComputeICRC(pkt)
			require.NoError(t, err)
			rtFlipAll(t, binary.LittleEndian.AppendUint32(pkt, icrc))
		})
	}
}

// rtFlipAll flips each bit of pkt, an IP packet with a valid ICRC, in turn.
func rtFlipAll(t *testing.T, orig []byte) {
	t.Helper()
	pkt := bytes.Clone(orig)
	ok, _, _, err := roce.VerifyICRC(pkt)
	require.NoError(t, err)
	require.True(t, ok)
	masked := 0
	for i := range pkt {
		for bit := range 8 {
			pkt[i] ^= 1 << bit
			var ok bool
			var err error
			require.NotPanics(t, func() { ok, _, _, err = roce.VerifyICRC(pkt) })
			if rtMasked(orig, i, bit) {
				masked++
				assert.NoError(t, err, "byte %d bit %d", i, bit)
				assert.True(t, ok, "masked byte %d bit %d must not change the ICRC", i, bit)
			} else {
				assert.False(t, ok && err == nil, "byte %d bit %d is covered by the ICRC", i, bit)
			}
			pkt[i] ^= 1 << bit
		}
	}
	if orig[0]>>4 == 6 {
		assert.Equal(t, 4+3*8+8+16+8, masked)
	} else {
		assert.Equal(t, 7*8, masked)
	}
}

// TestICRCInvariantFields sets the variant fields through their meaning.
func TestICRCInvariantFields(t *testing.T) {
	check := func(t *testing.T, pkt []byte, what string) {
		t.Helper()
		ok, got, want, err := roce.VerifyICRC(pkt)
		require.NoError(t, err, what)
		assert.True(t, ok, "%s changed the ICRC: %#08x != %#08x", what, got, want)
	}
	t.Run("IPv4", func(t *testing.T) {
		f := rtSimpleFrame(t, rtIPv4, roce.RCWriteFirst, 256)
		pkt := f.IP()
		for v := range 256 {
			p := bytes.Clone(pkt)
			p[1] = uint8(v) // TOS: DSCP and ECN
			check(t, p, fmt.Sprintf("TOS %#02x", v))
			p = bytes.Clone(pkt)
			p[1] = p[1]&^3 | 3 // ECN CE, as a switch marks it
			p[8] = uint8(v)    // TTL
			check(t, p, fmt.Sprintf("TTL %d", v))
			p = bytes.Clone(pkt)
			binary.BigEndian.PutUint16(p[10:], uint16(v*257)) // header checksum
			binary.BigEndian.PutUint16(p[26:], uint16(v*131)) // UDP checksum
			check(t, p, "IPv4 and UDP checksums")
			p = bytes.Clone(pkt)
			p[28+4] = uint8(v) // FECN, BECN, 6 reserved bits
			check(t, p, fmt.Sprintf("BTH byte 4 %#02x", v))
		}
		p := bytes.Clone(pkt)
		p[1], p[8], p[10], p[11], p[26], p[27], p[32] = 0, 0, 0, 0, 0, 0, 0xC0
		check(t, p, "all at once")
	})
	t.Run("IPv6", func(t *testing.T) {
		f := rtSimpleFrame(t, rtIPv6, roce.RCReadResponseFirst, 256)
		pkt := f.IP()
		for v := range 256 {
			p := bytes.Clone(pkt)
			// Traffic class spans bits 27:20 of the first word.
			w := binary.BigEndian.Uint32(p)
			binary.BigEndian.PutUint32(p, w&^0x0FF00000|uint32(v)<<20)
			check(t, p, fmt.Sprintf("traffic class %#02x", v))
			p = bytes.Clone(pkt)
			binary.BigEndian.PutUint32(p, w&^0xFFFFF|uint32(v*4099)&0xFFFFF)
			check(t, p, "flow label")
			p = bytes.Clone(pkt)
			p[7] = uint8(v)
			check(t, p, fmt.Sprintf("hop limit %d", v))
			p = bytes.Clone(pkt)
			binary.BigEndian.PutUint16(p[46:], uint16(v*257))
			check(t, p, "UDP checksum")
			p = bytes.Clone(pkt)
			p[48+4] = uint8(v)
			check(t, p, fmt.Sprintf("BTH byte 4 %#02x", v))
		}
	})
}

// rtScapyACK was built by scapy contrib.roce (an RC ACKNOWLEDGE, QP 0x12,
// PSN 0x9dbe5d, AETH syndrome 0x1f MSN 5) and handed to us in the brief; its
// last 4 bytes are the ICRC, little-endian.
const rtScapyACK = "02000000000202000000000108004502003000014000401126b80a0000010a000002c00012b7001c00001100ffff00000012009dbe5d1f00000561916b2e"

func TestICRCKnownAnswerScapy(t *testing.T) {
	frame, err := hex.DecodeString(rtScapyACK)
	require.NoError(t, err)
	start, end, err := roce.IPPacket(frame)
	require.NoError(t, err)
	require.Equal(t, 14, start)
	require.Equal(t, len(frame), end)
	pkt := frame[start:end]

	ok, got, want, err := roce.VerifyICRC(pkt)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, uint32(0x2e6b9161), got)
	assert.Equal(t, got, want)
	c, err := roce.ComputeICRC(pkt[:len(pkt)-4])
	require.NoError(t, err)
	assert.Equal(t, uint32(0x2e6b9161), c)
	ref, err := roce.ReferenceICRC(pkt[:len(pkt)-4])
	require.NoError(t, err)
	assert.Equal(t, c, ref)
	assert.Equal(t, c, rtMaskedICRC(pkt[:len(pkt)-4]))

	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	require.Nil(t, p.ErrorLayer())
	bth := p.Layer(roce.LayerTypeBTH).(*roce.BTH)
	assert.Equal(t, roce.RCAcknowledge, bth.OpCode)
	assert.Equal(t, roce.QPN(0x12), bth.DestQP)
	assert.Equal(t, roce.PSN(0x9dbe5d), bth.PSN)
	assert.Equal(t, roce.SyndromeACKUnlimited, bth.AETH.Syndrome)
	assert.Equal(t, uint32(5), bth.AETH.MSN)
	assert.Equal(t, uint16(roce.DefaultPKey), bth.PKey)
	assert.Equal(t, uint32(0x2e6b9161), bth.ICRC.Value)

	// Our serialiser builds the same bytes from the decoded fields.
	eth := p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
	ip := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4)
	udp := p.Layer(layers.LayerTypeUDP).(*layers.UDP)
	b := &roce.BTH{OpCode: roce.RCAcknowledge, PKey: roce.DefaultPKey, DestQP: 0x12, PSN: 0x9dbe5d,
		AETH: roce.AETH{Syndrome: roce.SyndromeACKUnlimited, MSN: 5}}
	buf := gopacket.NewSerializeBuffer()
	require.NoError(t, roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: false},
		&layers.Ethernet{SrcMAC: eth.SrcMAC, DstMAC: eth.DstMAC, EthernetType: layers.EthernetTypeIPv4},
		&layers.IPv4{Version: 4, IHL: 5, TOS: ip.TOS, Id: ip.Id, Flags: ip.Flags, TTL: ip.TTL, Protocol: ip.Protocol,
			Checksum: ip.Checksum, SrcIP: ip.SrcIP, DstIP: ip.DstIP},
		&layers.UDP{SrcPort: udp.SrcPort, DstPort: udp.DstPort},
		b))
	require.NoError(t, roce.FixICRC(buf.Bytes()))
	assert.Equal(t, frame, buf.Bytes())
}

func TestICRCErrors(t *testing.T) {
	ipv4 := func(ihl, size int) []byte {
		p := make([]byte, size)
		p[0] = 0x40 | byte(ihl)
		if size > 9 {
			p[9] = 17 // UDP
		}
		return p
	}
	ipv6 := func(nh byte, size int) []byte {
		p := make([]byte, size)
		p[0] = 0x60
		if size > 6 {
			p[6] = nh
		}
		return p
	}
	cases := map[string][]byte{
		"nil":                   nil,
		"empty":                 {},
		"one byte":              {0x45},
		"IPv4 no UDP":           ipv4(5, 20),
		"IPv4 short BTH":        ipv4(5, 20+8+11),
		"IPv4 IHL 15 short BTH": ipv4(15, 60+8+11),
		"IPv4 IHL 0":            ipv4(0, 100),
		"IPv4 IHL 1":            ipv4(1, 100),
		"IPv4 IHL 4":            ipv4(4, 100),
		"version 0":             append([]byte{0x05}, make([]byte, 99)...),
		"version 5":             append([]byte{0x55}, make([]byte, 99)...),
		"version 15":            append([]byte{0xF5}, make([]byte, 99)...),
		"IPv6 short":            ipv6(17, 5),
		"IPv6 no UDP":           ipv6(17, 40+7),
		"IPv6 short BTH":        ipv6(17, 40+8+11),
		"IPv6 next header TCP":  ipv6(6, 100),
		"IPv4 protocol TCP":     func() []byte { p := ipv4(5, 100); p[9] = 6; return p }(),
		"IPv6 hop-by-hop":       ipv6(0, 100),
		"IPv6 fragment":         ipv6(44, 100),
	}
	for name, pkt := range cases {
		t.Run(name, func(t *testing.T) {
			assert.NotPanics(t, func() {
				_, err := roce.ComputeICRC(pkt)
				assert.Error(t, err, "ComputeICRC")
				_, err = roce.ReferenceICRC(pkt)
				assert.Error(t, err, "ReferenceICRC")
				ok, _, _, err := roce.VerifyICRC(append(bytes.Clone(pkt), 0, 0, 0, 0))
				assert.Error(t, err, "VerifyICRC")
				assert.False(t, ok)
			})
		})
	}
	// VerifyICRC on fewer than 4 bytes.
	for n := range 4 {
		assert.NotPanics(t, func() {
			ok, _, _, err := roce.VerifyICRC(make([]byte, n))
			assert.Error(t, err)
			assert.False(t, ok)
		})
	}
	// The smallest packets that have all three headers succeed.
	for _, pkt := range [][]byte{ipv4(5, 40), ipv4(15, 80), ipv6(17, 60)} {
		_, err := roce.ComputeICRC(pkt)
		assert.NoError(t, err, "%d bytes", len(pkt))
	}
}
