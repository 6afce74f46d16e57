package tap

import (
	"bytes"
	"encoding/binary"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/oracle"
	"github.com/stretchr/testify/require"
)

// tcpPacket builds an Ethernet/IP/TCP packet with gopacket, checksums
// computed by gopacket: the reference the offload code is checked against.
func tcpPacket(t testing.TB, v6 bool, seq uint32, id uint16, payload []byte, tune func(*layers.TCP)) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2},
		EthernetType: layers.EthernetTypeIPv4}
	tcp := &layers.TCP{SrcPort: 40000, DstPort: 5201, Seq: seq, Ack: 777, ACK: true, Window: 512,
		Options: []layers.TCPOption{{OptionType: layers.TCPOptionKindNop}, {OptionType: layers.TCPOptionKindNop},
			{OptionType: layers.TCPOptionKindTimestamps, OptionLength: 10, OptionData: []byte{0, 0, 1, 0, 0, 0, 2, 0}}}}
	if tune != nil {
		tune(tcp)
	}
	var ip gopacket.SerializableLayer
	if v6 {
		eth.EthernetType = layers.EthernetTypeIPv6
		ip6 := &layers.IPv6{Version: 6, TrafficClass: 2, HopLimit: 64, NextHeader: layers.IPProtocolTCP,
			SrcIP: net.ParseIP("fd00::1"), DstIP: net.ParseIP("fd00::2")}
		require.NoError(t, tcp.SetNetworkLayerForChecksum(ip6))
		ip = ip6
	} else {
		ip4 := &layers.IPv4{Version: 4, TOS: 2, TTL: 64, Id: id, Flags: layers.IPv4DontFragment, Protocol: layers.IPProtocolTCP,
			SrcIP: net.IP{10, 0, 0, 1}, DstIP: net.IP{10, 0, 0, 2}}
		require.NoError(t, tcp.SetNetworkLayerForChecksum(ip4))
		ip = ip4
	}
	buf := gopacket.NewSerializeBuffer()
	require.NoError(t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true},
		eth, ip, tcp, gopacket.Payload(payload)))
	return append([]byte(nil), buf.Bytes()...)
}

func payloadOf(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i*7 + i/251)
	}
	return p
}

// superPacket is what a host hands over with TSO: one packet with all the
// payload, its TCP checksum left as the pseudo-header's sum.
func superPacket(t testing.TB, v6 bool, payload []byte, mss int, tune func(*layers.TCP)) ([]byte, vnetHdr) {
	p := tcpPacket(t, v6, 1000, 50, payload, tune)
	l3, _ := l3Offset(p)
	l4, ok := tcpOffset(p, l3, v6)
	require.True(t, ok)
	binary.BigEndian.PutUint16(p[l4+16:], checksum.Fold(pseudoSum(p, l3, v6, len(p)-l4)))
	gso := uint8(gsoTCPv4)
	if v6 {
		gso = gsoTCPv6
	}
	return p, vnetHdr{flags: vnetNeedsCsum, gsoType: gso, gsoSize: uint16(mss), csumStart: uint16(l4), csumOffset: 16}
}

func TestSplitMakesTheSegmentsATSONICWould(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		for _, size := range []int{1, 1448, 1449, 10000, 65000} {
			t.Run(strconv.FormatBool(v6)+"/"+strconv.Itoa(size), func(t *testing.T) {
				const mss = 1448
				payload := payloadOf(size)
				pkt, h := superPacket(t, v6, payload, mss, func(tcp *layers.TCP) { tcp.PSH, tcp.CWR = true, true })
				var s splitter
				frames, err := s.split(pkt, h)
				require.NoError(t, err)
				require.Len(t, frames, (size+mss-1)/mss)
				for i, f := range frames {
					chunk := payload[i*mss : min((i+1)*mss, size)]
					last := i == len(frames)-1
					want := tcpPacket(t, v6, 1000+uint32(i*mss), 50+uint16(i), chunk, func(tcp *layers.TCP) {
						tcp.PSH, tcp.CWR = last, i == 0
					})
					require.Equal(t, want, f, "segment %d", i)
				}
			})
		}
	}
}

func TestSplitRefusesWhatTheHeaderDoesNotDescribe(t *testing.T) {
	pkt, h := superPacket(t, false, payloadOf(5000), 1448, nil)
	var s splitter
	bad := map[string]func() ([]byte, vnetHdr){
		"IPv6 GSO on IPv4": func() ([]byte, vnetHdr) { h := h; h.gsoType = gsoTCPv6; return pkt, h },
		"ECN GSO":          func() ([]byte, vnetHdr) { h := h; h.gsoType |= gsoECN; return pkt, h },
		"UDP GSO":          func() ([]byte, vnetHdr) { h := h; h.gsoType = 3; return pkt, h },
		"zero MSS":         func() ([]byte, vnetHdr) { h := h; h.gsoSize = 0; return pkt, h },
		"cut short":        func() ([]byte, vnetHdr) { return pkt[:len(pkt)-1], h },
		"headers only":     func() ([]byte, vnetHdr) { return pkt[:40], h },
	}
	for name, mk := range bad {
		p, h := mk()
		_, err := s.split(p, h)
		require.ErrorIs(t, err, errOffload, name)
	}
}

func TestCompleteCsumFillsWhatTheHostLeft(t *testing.T) {
	want := tcpPacket(t, false, 1000, 50, payloadOf(301), nil)
	pkt, h := superPacket(t, false, payloadOf(301), 1448, nil)
	require.NoError(t, completeCsum(pkt, h))
	require.Equal(t, want, pkt)
	h.csumOffset = uint16(len(pkt))
	require.ErrorIs(t, completeCsum(pkt, h), errOffload)
}

// segments splits a super-packet into the frames a host would send.
func segments(t testing.TB, v6 bool, size, mss int, tune func(*layers.TCP)) [][]byte {
	pkt, h := superPacket(t, v6, payloadOf(size), mss, tune)
	var s splitter
	frames, err := s.split(pkt, h)
	require.NoError(t, err)
	var out [][]byte
	for _, f := range frames {
		out = append(out, append([]byte(nil), f...))
	}
	return out
}

func TestJoinIsSplitReversed(t *testing.T) {
	for _, v6 := range []bool{false, true} {
		mss := 1448 // full frames at MTU 1500
		if v6 {
			mss -= 20
		}
		frames := segments(t, v6, 20000, mss, func(tcp *layers.TCP) { tcp.PSH = true })
		n, a := runLen(frames, 1518)
		require.Equal(t, len(frames), n)
		sp := join(nil, frames, a)
		h := parseVnetHdr(sp)
		require.Equal(t, uint16(mss), h.gsoSize)
		require.Equal(t, uint8(vnetNeedsCsum), h.flags)
		var s splitter
		again, err := s.split(sp[vnetHdrLen:], h)
		require.NoError(t, err)
		require.Equal(t, frames, again)

		// The IPv4 header checksum is whole (the receiver checks it);
		// gopacket decodes the rest as one TCP packet with all the data.
		p := gopacket.NewPacket(sp[vnetHdrLen:], layers.LayerTypeEthernet, gopacket.Default)
		require.Nil(t, p.ErrorLayer())
		require.Equal(t, payloadOf(20000), p.Layer(layers.LayerTypeTCP).LayerPayload())
		if !v6 {
			l4 := HeaderLen + 20
			require.Zero(t, checksum.Checksum(sp[vnetHdrLen+HeaderLen:vnetHdrLen+l4]))
		}
	}
}

func TestRunsEndWhereGROWouldFlush(t *testing.T) {
	base := func() [][]byte { return segments(t, false, 8*1448, 1448, nil) }
	cases := []struct {
		name string
		edit func(f [][]byte) [][]byte
		want int
	}{
		{"all join", func(f [][]byte) [][]byte { return f }, 8},
		{"PSH ends a run after it", func(f [][]byte) [][]byte { f[2][HeaderLen+20+13] |= 0x08; return f }, 3},
		{"a CE mark starts a new run", func(f [][]byte) [][]byte { f[3][HeaderLen+1] |= 3; return f }, 3},
		{"a sequence gap", func(f [][]byte) [][]byte { return append(f[:4:4], f[5:]...) }, 4},
		{"another window", func(f [][]byte) [][]byte { f[5][HeaderLen+20+15]++; return f }, 5},
		{"another ACK", func(f [][]byte) [][]byte { f[1][HeaderLen+20+11]++; return f }, 1},
		{"a short segment ends it", func(f [][]byte) [][]byte {
			short := segments(t, false, 8*1448, 1000, nil)
			return append(f[:2:2], short[0])
		}, 2},
		{"padding never joins", func(f [][]byte) [][]byte { f[6] = append(f[6], 0); return f }, 6},
	}
	for _, c := range cases {
		n, _ := runLen(c.edit(base()), 1518)
		require.Equal(t, c.want, n, c.name)
	}
	// The first frame alone when it pushes, is not TCP data, or too long.
	f := base()
	f[0][HeaderLen+20+13] |= 0x08
	n, _ := runLen(f, 1518)
	require.Equal(t, 1, n)
	n, _ = runLen(base(), 100)
	require.Equal(t, 1, n)
	n, _ = runLen([][]byte{make([]byte, 60), base()[0]}, 1518)
	require.Equal(t, 1, n)
}

// TestTsharkChecksSplitFrames has Wireshark verify every IPv4 and TCP
// checksum of split segments, and the sequence numbers it reads.
func TestTsharkChecksSplitFrames(t *testing.T) {
	tshark := oracle.Tshark(t)
	path := filepath.Join(t.TempDir(), "split.pcap")
	f, err := os.Create(path)
	require.NoError(t, err)
	w := pcapgo.NewWriter(f)
	require.NoError(t, w.WriteFileHeader(65536, layers.LinkTypeEthernet))
	var frames [][]byte
	for _, v6 := range []bool{false, true} {
		frames = append(frames, segments(t, v6, 30011, 1400, func(tcp *layers.TCP) { tcp.PSH = true })...)
	}
	for _, fr := range frames {
		require.NoError(t, w.WritePacket(gopacket.CaptureInfo{CaptureLength: len(fr), Length: len(fr)}, fr))
	}
	require.NoError(t, f.Close())
	rows := oracle.Run(t, tshark, "-r", path, "-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE",
		"-o", "tcp.relative_sequence_numbers:FALSE", "-T", "fields", "-E", "separator=,",
		"-e", "ip.checksum.status", "-e", "tcp.checksum.status", "-e", "tcp.seq", "-e", "tcp.len", "-e", "tcp.flags.push")
	require.Len(t, rows, len(frames))
	for i, row := range rows {
		k := i % 22 // 22 segments of 1400 bytes per address family
		want := []string{"1", "1", strconv.Itoa(1000 + k*1400), strconv.Itoa(min(1400, 30011-k*1400)), "False"}
		if i >= 22 {
			want[0] = "" // IPv6 has no header checksum
		}
		if k == 21 {
			want[4] = "True"
		}
		got := strings.Split(row, ",")
		if got[4] == "1" || got[4] == "0" { // older tshark prints flags as 0/1
			want[4] = map[string]string{"False": "0", "True": "1"}[want[4]]
		}
		require.Equal(t, want, got, "frame %d", i)
	}
	require.True(t, bytes.Equal(frames[0][:HeaderLen], frames[21][:HeaderLen]))
}
