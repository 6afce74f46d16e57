package wirecheck_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/oracle"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/golden/wirecheck"
)

// IPv6 extension headers for withExtensions, next header byte left 0
// (RFC 8200 section 4): Hop-by-Hop and Destination Options with one PadN
// option, a Routing header of an experimental type with no segments left,
// an atomic Fragment header.
var (
	hopByHop = ext{layers.IPProtocolIPv6HopByHop, []byte{0, 0, 1, 4, 0, 0, 0, 0}}
	destOpts = ext{layers.IPProtocolIPv6Destination, []byte{0, 0, 1, 4, 0, 0, 0, 0}}
	routing  = ext{layers.IPProtocolIPv6Routing, []byte{0, 0, 253, 0, 0, 0, 0, 0}}
	atomic   = ext{layers.IPProtocolIPv6Fragment, []byte{0, 0, 0, 0, 0, 0, 0x12, 0x34}}
)

type ext struct {
	proto layers.IPProtocol
	bytes []byte
}

// withExtensions puts extension headers between the IPv6 header and UDP of
// an IPv6 frame and fixes the lengths; the ICRC stays as it was.
func withExtensions(t testing.TB, f []byte, exts ...ext) []byte {
	t.Helper()
	ip, _, _ := offsets(t, f)
	var chain []byte
	next := layers.IPProtocol(f[ip+6])
	for i := len(exts) - 1; i >= 0; i-- {
		h := slices.Clone(exts[i].bytes)
		h[0] = byte(next)
		chain, next = append(h, chain...), exts[i].proto
	}
	out := slices.Concat(f[:ip+40], chain, f[ip+40:])
	out[ip+6] = byte(next)
	binary.BigEndian.PutUint16(out[ip+4:], binary.BigEndian.Uint16(f[ip+4:])+uint16(len(chain)))
	return out
}

// fragmentsOf splits the IP payload of f at byte at (a multiple of 8) into
// two fragments: IPv4 fragment fields, or an IPv6 Fragment header.
func fragmentsOf(t testing.TB, f []byte, at int) [2][]byte {
	t.Helper()
	ip, udp, _ := offsets(t, f)
	payload := f[udp:]
	var out [2][]byte
	for i, part := range [2][]byte{payload[:at], payload[at:]} {
		offset, more := 0, uint16(1)
		if i == 1 {
			offset, more = at, 0
		}
		if f[ip]>>4 == 4 {
			g := slices.Concat(f[:udp], part)
			binary.BigEndian.PutUint16(g[ip+6:], uint16(offset/8)|more<<13)
			out[i] = fitLengths(t, g, ip, len(g))
			continue
		}
		fh := []byte{f[ip+6], 0, 0, 0, 0, 0, 0x56, 0x78}
		binary.BigEndian.PutUint16(fh[2:], uint16(offset/8)<<3|more)
		g := slices.Concat(f[:ip+40], fh, part)
		g[ip+6] = byte(layers.IPProtocolIPv6Fragment)
		binary.BigEndian.PutUint16(g[ip+4:], uint16(len(g)-ip-40))
		out[i] = g
	}
	return out
}

// withPorts sets the UDP ports and fixes the ICRC.
func withPorts(t testing.TB, f []byte, src, dst layers.UDPPort) []byte {
	t.Helper()
	f = slices.Clone(f)
	_, udp, _ := offsets(t, f)
	binary.BigEndian.PutUint16(f[udp:], uint16(src))
	binary.BigEndian.PutUint16(f[udp+2:], uint16(dst))
	return fixICRC(t, f)
}

// publishedFPGAStack reads testdata/fpga_network_stack.hex and puts each IP
// packet in an Ethernet header.
func publishedFPGAStack(t testing.TB) [][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "fpga_network_stack.hex"))
	require.NoError(t, err)
	var frames [][]byte
	for _, block := range strings.Split(string(data), "\n\n") {
		var h strings.Builder
		for _, line := range strings.Split(block, "\n") {
			if !strings.HasPrefix(line, "#") {
				h.WriteString(strings.Join(strings.Fields(line), ""))
			}
		}
		if h.Len() == 0 {
			continue
		}
		pkt, err := hex.DecodeString(h.String())
		require.NoError(t, err)
		eth := slices.Concat(dstMAC, srcMAC, []byte{0x08, 0x00})
		frames = append(frames, slices.Concat(eth, pkt))
	}
	require.Len(t, frames, 5)
	return frames
}

// tsharkProtocols returns, per frame of a capture of frames, the protocols
// tshark dissects (frame.protocols, e.g. "eth:ethertype:ip:udp:infiniband").
func tsharkProtocols(t *testing.T, frames [][]byte) []string {
	t.Helper()
	tshark := oracle.Tshark(t)
	path := filepath.Join(t.TempDir(), "frames.pcap")
	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	require.NoError(t, w.WriteFileHeader(65535, layers.LinkTypeEthernet))
	for i, f := range frames {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(int64(i), 0), CaptureLength: len(f), Length: len(f)}
		require.NoError(t, w.WritePacket(ci, f))
	}
	require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
	rows := oracle.Run(t, tshark, "-r", path, "-T", "fields", "-e", "frame.protocols")
	require.Len(t, rows, len(frames))
	return rows
}

// TestTsharkRoCEIsCheckedAsRoCE: every frame Wireshark dissects as RoCEv2
// (its infiniband dissector on UDP port 4791) is RoCEv2 to the checker too,
// and a RoCEv2 frame Wireshark does not dissect as such is either invalid or
// says which checks it did not get.
func TestTsharkRoCEIsCheckedAsRoCE(t *testing.T) {
	v4 := build(t, spec{op: roce.RCSendOnly, payload: 256})
	v6 := build(t, spec{op: roce.RCSendOnly, payload: 256, ipv6: true})
	ack6 := build(t, spec{op: roce.RCAcknowledge, ipv6: true})
	cases := map[string][]byte{
		"IPv4":                             v4,
		"IPv6":                             v6,
		"QinQ":                             build(t, spec{op: roce.RCAcknowledge, tags: []layers.EthernetType{layers.EthernetTypeQinQ, layers.EthernetTypeDot1Q}}),
		"IPv6 Hop-by-Hop":                  withExtensions(t, ack6, hopByHop),
		"IPv6 Destination Options":         withExtensions(t, ack6, destOpts),
		"IPv6 Routing":                     withExtensions(t, ack6, routing),
		"IPv6 atomic fragment":             withExtensions(t, ack6, atomic),
		"IPv6 Hop-by-Hop, Routing, DstOpt": withExtensions(t, v6, hopByHop, routing, destOpts),
		"from 4791 to a higher port":       withPorts(t, v4, roce.UDPPort, 18515),
		"from 4791 to 53":                  withPorts(t, v4, roce.UDPPort, 53),
		"from and to 4791":                 withPorts(t, v4, roce.UDPPort, roce.UDPPort),
		"UDP to 4790":                      withPorts(t, v4, 49152, 4790),
	}
	names := make([]string, 0, len(cases))
	for name := range cases {
		names = append(names, name)
	}
	slices.Sort(names)
	frames := make([][]byte, 0, len(names))
	for _, n := range names {
		frames = append(frames, cases[n])
	}
	// Fragments in order, so that tshark reassembles them.
	for _, f := range []struct {
		name  string
		frame []byte
	}{{"IPv4", v4}, {"IPv6", v6}} {
		fs := fragmentsOf(t, f.frame, 128)
		names = append(names, f.name+" first fragment", f.name+" last fragment")
		frames = append(frames, fs[0], fs[1])
	}
	for i, f := range publishedFPGAStack(t) {
		names = append(names, "fpga-network-stack packet "+string(rune('1'+i)))
		frames = append(frames, f)
	}

	protos := tsharkProtocols(t, frames)
	c := wirecheck.NewChecker()
	var notToTshark []string
	for i, f := range frames {
		r := c.Check(f)
		t.Logf("%-34s tshark %-45s ours %s %v %v", names[i], protos[i], r.Kind, codes(r), r.Unchecked)
		if strings.Contains(protos[i], ":infiniband") {
			assert.Equal(t, wirecheck.KindRoCE, r.Kind, "%s: tshark dissects %s", names[i], protos[i])
			continue
		}
		notToTshark = append(notToTshark, names[i])
		if r.Kind == wirecheck.KindRoCE {
			assert.True(t, !r.OK() || len(r.Unchecked) > 0,
				"%s: RoCEv2 here but not to tshark (%s), and neither invalid nor flagged", names[i], protos[i])
		}
	}
	// tshark leaves a first fragment undissected (it dissects the datagram
	// at its last) and takes the lower port first (53 is DNS).
	assert.ElementsMatch(t, []string{"UDP to 4790", "from 4791 to 53", "IPv4 first fragment", "IPv6 first fragment"}, notToTshark)
}

// TestIPv6ExtensionHeaders: behind extension headers the lengths and the
// BTH are checked as without them, and the ICRC is reported as not checked,
// with the reason, never as a problem.
func TestIPv6ExtensionHeaders(t *testing.T) {
	c := wirecheck.NewChecker()
	for name, exts := range map[string][]ext{
		"Hop-by-Hop":              {hopByHop},
		"Destination Options":     {destOpts},
		"Routing":                 {routing},
		"atomic fragment":         {atomic},
		"Hop-by-Hop then Routing": {hopByHop, routing},
	} {
		f := withExtensions(t, build(t, spec{op: roce.RCWriteOnly, payload: 100, ipv6: true}), exts...)
		r := c.Check(f)
		require.Equal(t, wirecheck.KindRoCE, r.Kind, name)
		assert.Empty(t, r.Problems, name)
		require.Len(t, r.Unchecked, 1, name)
		assert.Equal(t, wirecheck.UncheckedICRC, r.Unchecked[0].Code, name)
		assert.Contains(t, r.Unchecked[0].Message, "IPv6 extension headers", name)
		require.NotNil(t, r.BTH(), name)
		assert.Equal(t, roce.RCWriteOnly, r.BTH().OpCode, name)
		assert.Len(t, r.BTH().Payload, 100, name)

		// The lengths are still checked: one byte more in the UDP length.
		bad := slices.Clone(f)
		ip, _, _ := offsets(t, f)
		udp := ip + 40
		for _, e := range exts {
			udp += len(e.bytes)
		}
		binary.BigEndian.PutUint16(bad[udp+4:], binary.BigEndian.Uint16(bad[udp+4:])+1)
		assert.Contains(t, codes(c.Check(bad)), wirecheck.CodeUDPLength, name)
	}

	// A header cut short ends the walk: not RoCE, no problem.
	f := withExtensions(t, build(t, spec{op: roce.RCAcknowledge, ipv6: true}), hopByHop)
	ip, _, _ := offsets(t, f)
	f[ip+40+1] = 200 // Hdr Ext Len far past the packet
	r := c.Check(f)
	assert.Equal(t, wirecheck.KindOther, r.Kind)
	assert.True(t, r.OK(), "%v", r.Problems)
}

// TestFragments: the first fragment of a RoCEv2 datagram, and its later
// fragments, are RoCEv2 and flagged as not reassembled; the fragments of
// other datagrams are not RoCEv2.
func TestFragments(t *testing.T) {
	for _, ipv6 := range []bool{false, true} {
		fs := fragmentsOf(t, build(t, spec{op: roce.RCSendOnly, payload: 256, ipv6: ipv6}), 128)
		c := wirecheck.NewChecker()
		for i, f := range fs {
			r := c.Check(f)
			require.Equal(t, wirecheck.KindRoCE, r.Kind, "ipv6 %t fragment %d", ipv6, i)
			assert.True(t, r.OK(), "ipv6 %t fragment %d: %v", ipv6, i, r.Problems)
			require.Len(t, r.Unchecked, 1)
			assert.Equal(t, wirecheck.UncheckedFragment, r.Unchecked[0].Code)
			assert.Contains(t, r.Summary(), "IP fragment")
		}
		// Seen alone, a later fragment is not RoCEv2: nothing says it is.
		r := wirecheck.NewChecker().Check(fs[1])
		assert.Equal(t, wirecheck.KindOther, r.Kind, "ipv6 %t", ipv6)
		assert.Contains(t, r.Summary(), "not RoCE, IP fragment at byte 128")
	}
}

// FuzzCheck: any frame gets a verdict without a panic; a frame not RoCEv2
// or MAC Control has no problems, and only RoCEv2 frames list skipped checks.
func FuzzCheck(f *testing.F) {
	v6 := build(f, spec{op: roce.RCSendOnly, payload: 256, ipv6: true})
	f.Add(build(f, spec{op: roce.RCSendOnly, payload: 256}))
	f.Add(withExtensions(f, v6, hopByHop, routing, destOpts))
	f.Add(withExtensions(f, v6, atomic))
	for _, g := range fragmentsOf(f, v6, 128) {
		f.Add(g)
	}
	for _, g := range publishedFPGAStack(f) {
		f.Add(g)
	}
	c := wirecheck.NewChecker()
	f.Fuzz(func(t *testing.T, frame []byte) {
		r := c.Check(frame)
		_ = r.Summary()
		if r.Kind == wirecheck.KindOther && (len(r.Problems) > 0 || len(r.Unchecked) > 0) {
			t.Fatalf("not RoCEv2 or MAC Control, yet %v %v", r.Problems, r.Unchecked)
		}
		if r.Kind != wirecheck.KindRoCE && len(r.Unchecked) > 0 {
			t.Fatalf("%s with unchecked %v", r.Kind, r.Unchecked)
		}
	})
}
