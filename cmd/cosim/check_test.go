package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/golden/wirecheck"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/pcapio"
)

// cosim runs the command with args as main does and returns the exit
// status and what it printed.
func cosim(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return cosimCtx(t, context.Background(), args...)
}

func cosimCtx(t testing.TB, ctx context.Context, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	err := run(ctx, args, &out, &errb)
	code = exitCode(err, &errb)
	return code, out.String(), errb.String()
}

// lines splits output into lines without the final newline.
func lines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

func writePcap(t *testing.T, dir, name string, frames [][]byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, pcapio.WritePcap(p, frames))
	return p
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

var srcMAC = net.HardwareAddr{0x02, 0, 0, 0, 0, 1}

func rng(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// build returns a valid RoCEv2 frame from framegen.
func build(t *testing.T, r *rand.Rand, op roce.OpCode, e framegen.Encap, payload int) []byte {
	t.Helper()
	f, err := framegen.Build(r, framegen.Spec{OpCode: op, Encap: e, PayloadLen: payload})
	require.NoError(t, err)
	return f
}

// validFrames returns every opcode in every encapsulation, then a PFC frame
// per priority and a PAUSE frame.
func validFrames(t *testing.T) [][]byte {
	t.Helper()
	r := rng(11)
	var frames [][]byte
	for _, op := range framegen.KnownOpCodes() {
		for _, e := range framegen.Encaps {
			frames = append(frames, build(t, r, op, e, framegen.PayloadLen(r, op, 1024)))
		}
	}
	for prio := 0; prio < pfc.NumPriorities; prio++ {
		var q [pfc.NumPriorities]uint16
		q[prio] = uint16(100 * (prio + 1))
		f, err := pfc.New(srcMAC, 1<<prio, q)
		require.NoError(t, err)
		frames = append(frames, f)
	}
	f, err := pfc.NewPause(srcMAC, 0xFFFF)
	require.NoError(t, err)
	return append(frames, f)
}

// offsets returns where the IP header, the UDP header and the BTH start.
func offsets(t *testing.T, f []byte) (ip, udp, bth int) {
	t.Helper()
	ip, _, err := roce.IPPacket(f)
	require.NoError(t, err)
	udp = ip + 40
	if f[ip]>>4 == 4 {
		udp = ip + int(f[ip]&0x0F)*4
	}
	return ip, udp, udp + 8
}

func fixICRC(t *testing.T, f []byte) []byte {
	t.Helper()
	require.NoError(t, roce.FixICRC(f))
	return f
}

// corruption is a damaged copy of a valid frame and the problem code the
// checker must name.
type corruption struct {
	name  string
	code  string
	frame []byte
}

func corruptions(t *testing.T) []corruption {
	t.Helper()
	r := rng(5)
	var cs []corruption
	add := func(name, code string, op roce.OpCode, e framegen.Encap, payload int, damage func(f []byte, ip, udp, bth int) []byte) {
		f := build(t, r, op, e, payload)
		ip, udp, bth := offsets(t, f)
		cs = append(cs, corruption{name, code, damage(slices.Clone(f), ip, udp, bth)})
	}
	add("bad ICRC", wirecheck.CodeICRC, roce.RCSendOnly, framegen.IPv4, 64, func(f []byte, ip, udp, bth int) []byte {
		f[bth+12+5] ^= 0x04
		return f
	})
	add("stale IPv4 checksum after a TTL change", wirecheck.CodeIPv4Checksum, roce.RCWriteFirst, framegen.IPv4, 256, func(f []byte, ip, udp, bth int) []byte {
		f[ip+8]++
		return f
	})
	add("wrong UDP length", wirecheck.CodeUDPLength, roce.RCSendLast, framegen.IPv6, 100, func(f []byte, ip, udp, bth int) []byte {
		binary.BigEndian.PutUint16(f[udp+4:], binary.BigEndian.Uint16(f[udp+4:])+4)
		return fixICRC(t, f)
	})
	add("TVer 1", wirecheck.CodeTVer, roce.UDSendOnly, framegen.VLANIPv4, 32, func(f []byte, ip, udp, bth int) []byte {
		f[bth+1] |= 0x01
		return fixICRC(t, f)
	})
	add("PadCnt on an ACK", wirecheck.CodePadCount, roce.RCAcknowledge, framegen.IPv4, 0, func(f []byte, ip, udp, bth int) []byte {
		f[bth+1] |= 0x20
		return fixICRC(t, f)
	})
	add("cut inside the BTH", wirecheck.CodeTruncated, roce.RCReadRequest, framegen.VLANIPv6, 0, func(f []byte, ip, udp, bth int) []byte {
		f = f[:bth+6]
		binary.BigEndian.PutUint16(f[ip+4:], uint16(len(f)-ip-40))
		binary.BigEndian.PutUint16(f[udp+4:], uint16(len(f)-udp))
		return f
	})
	p, err := pfc.New(srcMAC, 0x01, [pfc.NumPriorities]uint16{10})
	require.NoError(t, err)
	p[16] = 0x80
	cs = append(cs, corruption{"reserved PFC enable bits", "pfc-" + pfc.CodeEnableReserved, p})
	return cs
}

// nonRoCE returns an ARP request, a TCP/IPv4 segment and a UDP DNS query.
func nonRoCE(t *testing.T) (frames [][]byte, summaries []string) {
	t.Helper()
	ser := func(ls ...gopacket.SerializableLayer) []byte {
		buf := gopacket.NewSerializeBuffer()
		require.NoError(t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...))
		return slices.Clone(buf.Bytes())
	}
	dst := net.HardwareAddr{0x02, 0, 0, 0, 0, 2}
	ip4 := func(proto layers.IPProtocol) *layers.IPv4 {
		return &layers.IPv4{Version: 4, TTL: 64, Protocol: proto, SrcIP: net.IPv4(10, 0, 0, 1).To4(), DstIP: net.IPv4(10, 0, 0, 2).To4()}
	}
	eth := &layers.Ethernet{SrcMAC: srcMAC, DstMAC: dst, EthernetType: layers.EthernetTypeIPv4}

	arp := ser(&layers.Ethernet{SrcMAC: srcMAC, DstMAC: layers.EthernetBroadcast, EthernetType: layers.EthernetTypeARP},
		&layers.ARP{AddrType: layers.LinkTypeEthernet, Protocol: layers.EthernetTypeIPv4, HwAddressSize: 6, ProtAddressSize: 4,
			Operation: layers.ARPRequest, SourceHwAddress: srcMAC, SourceProtAddress: []byte{10, 0, 0, 1},
			DstHwAddress: make([]byte, 6), DstProtAddress: []byte{10, 0, 0, 2}})

	ip := ip4(layers.IPProtocolTCP)
	tcp := &layers.TCP{SrcPort: 40000, DstPort: 80, Seq: 1, SYN: true, Window: 1024}
	require.NoError(t, tcp.SetNetworkLayerForChecksum(ip))
	tcpFrame := ser(eth, ip, tcp)

	ip = ip4(layers.IPProtocolUDP)
	udp := &layers.UDP{SrcPort: 5353, DstPort: 53}
	require.NoError(t, udp.SetNetworkLayerForChecksum(ip))
	dns := ser(eth, ip, udp, &layers.DNS{ID: 7, RD: true,
		Questions: []layers.DNSQuestion{{Name: []byte("example.com"), Type: layers.DNSTypeA, Class: layers.DNSClassIN}}})

	return [][]byte{arp, tcpFrame, dns},
		[]string{"not RoCE: Ethernet/ARP", "not RoCE: Ethernet/IPv4/TCP", "not RoCE: Ethernet/IPv4/UDP/DNS"}
}

var tallyRE = regexp.MustCompile(`^(\d+) packets: (\d+) RoCEv2, (\d+) MAC control, (\d+) other; (\d+) invalid$`)

func TestCheckValidFrames(t *testing.T) {
	frames := validFrames(t)
	path := writePcap(t, t.TempDir(), "valid.pcap", frames)

	code, stdout, stderr := cosim(t, "check", path)
	assert.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Empty(t, stderr)
	ls := lines(stdout)
	require.Len(t, ls, len(frames)+1, stdout)

	c := wirecheck.NewChecker()
	for i, f := range frames {
		want := fmt.Sprintf("%6d  %s  ok", i+1, c.Check(f).Summary())
		assert.Equal(t, want, ls[i])
	}
	nRoCE := len(framegen.KnownOpCodes()) * len(framegen.Encaps)
	assert.Equal(t, fmt.Sprintf("%d packets: %d RoCEv2, %d MAC control, 0 other; 0 invalid", len(frames), nRoCE, pfc.NumPriorities+1),
		ls[len(ls)-1])
	assert.Regexp(t, tallyRE, ls[len(ls)-1])
	assert.Regexp(t, `^     1  RC SEND_FIRST qp=0x[0-9a-f]{6} psn=0x[0-9a-f]{6} len=\d+ .*ok$`, ls[0])
	assert.Regexp(t, `^\s+\d+  PAUSE src=02:00:00:00:00:01 quanta=65535  ok$`, ls[len(frames)-1])
}

func TestCheckCorruptedFrames(t *testing.T) {
	cs := corruptions(t)
	valid := validFrames(t)
	// Interleave: valid, corrupted, valid, corrupted, ...
	var frames [][]byte
	wantCode := map[int]string{} // 1-based index -> code
	for i, cr := range cs {
		frames = append(frames, valid[i*5])
		frames = append(frames, cr.frame)
		wantCode[len(frames)] = cr.code
	}
	path := writePcap(t, t.TempDir(), "corrupted.pcap", frames)

	code, stdout, stderr := cosim(t, "check", path)
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, fmt.Sprintf("%d invalid packets", len(cs)))
	ls := lines(stdout)
	require.Len(t, ls, len(frames)+1, stdout)
	for i := range frames {
		idx := i + 1
		line := ls[i]
		assert.True(t, strings.HasPrefix(line, fmt.Sprintf("%6d  ", idx)), line)
		want, bad := wantCode[idx]
		if !bad {
			assert.True(t, strings.HasSuffix(line, "  ok"), "packet %d: %s", idx, line)
			continue
		}
		name := cs[idx/2-1].name
		assert.Contains(t, line, "  INVALID ", "%s: %s", name, line)
		assert.Contains(t, line, " "+want+": ", "%s: %s", name, line)
		assert.False(t, strings.HasSuffix(line, "  ok"), "%s: %s", name, line)
	}
	// The cut RoCEv2 frame still counts as RoCEv2, the PFC frame as MAC control.
	assert.Equal(t, fmt.Sprintf("%d packets: %d RoCEv2, 1 MAC control, 0 other; %d invalid", len(frames), len(frames)-1, len(cs)),
		ls[len(ls)-1])
}

func TestCheckNonRoCEFrames(t *testing.T) {
	frames, summaries := nonRoCE(t)
	path := writePcap(t, t.TempDir(), "other.pcap", frames)

	code, stdout, stderr := cosim(t, "check", path)
	assert.Equal(t, 0, code, "stderr: %s", stderr)
	assert.Empty(t, stderr)
	assert.Equal(t, []string{
		"     1  " + summaries[0] + "  ok",
		"     2  " + summaries[1] + "  ok",
		"     3  " + summaries[2] + "  ok",
		"3 packets: 0 RoCEv2, 0 MAC control, 3 other; 0 invalid",
	}, lines(stdout))
}

// truncatedPcap returns a pcap of frames whose last record is cut in half.
func truncatedPcap(t *testing.T, frames [][]byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, pcapio.WritePcapTo(&buf, frames))
	b := buf.Bytes()
	return b[:len(b)-len(frames[len(frames)-1])/2]
}

// linkType147 returns a pcapng file with one packet on a USER0 interface.
func linkType147(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := pcapgo.NewNgWriterInterface(&buf, pcapgo.NgInterface{Name: "user0", LinkType: 147, TimestampResolution: 9},
		pcapgo.NgWriterOptions{SectionInfo: pcapgo.NgSectionInfo{Application: "test"}})
	require.NoError(t, err)
	data := []byte("not an ethernet frame, a user link type")
	require.NoError(t, w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(1, 0), CaptureLength: len(data), Length: len(data)}, data))
	require.NoError(t, w.Flush())
	return buf.Bytes()
}

func TestCheckUnreadableInputs(t *testing.T) {
	frames := validFrames(t)[:3]
	var pcap bytes.Buffer
	require.NoError(t, pcapio.WritePcapTo(&pcap, frames))
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(pcap.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())

	cases := []struct {
		name string
		make func(dir string) string
		// printed is the number of packets listed before the failure.
		printed int
		want    []string // in the message on stderr, besides the path
	}{
		{"empty file", func(dir string) string { return writeFile(t, dir, "empty.pcap", nil) }, 0,
			[]string{"empty file"}},
		{"garbage", func(dir string) string {
			return writeFile(t, dir, "garbage.pcap", bytes.Repeat([]byte("this is not a capture file\n"), 20))
		}, 0, []string{"not a pcap or pcapng file"}},
		{"gzip-compressed pcap", func(dir string) string { return writeFile(t, dir, "capture.pcap.gz", gz.Bytes()) }, 0,
			[]string{"gzip"}},
		{"pcap header cut short", func(dir string) string { return writeFile(t, dir, "short.pcap", pcap.Bytes()[:10]) }, 0,
			[]string{"truncated pcap file header"}},
		{"truncated pcap", func(dir string) string { return writeFile(t, dir, "cut.pcap", truncatedPcap(t, frames)) }, 2,
			[]string{"packet 3", "truncated"}},
		{"pcapng with link type 147", func(dir string) string { return writeFile(t, dir, "user0.pcapng", linkType147(t)) }, 0,
			[]string{"link type 147"}},
		{"missing file", func(dir string) string { return filepath.Join(dir, "missing.pcap") }, 0,
			[]string{"no such file or directory"}},
		{"directory", func(dir string) string { return dir }, 0,
			[]string{"is a directory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.make(t.TempDir())
			code, stdout, stderr := cosim(t, "check", path)
			assert.Equal(t, 2, code)
			// The message of the file names it and says what is wrong.
			var msg string
			for _, l := range lines(stderr) {
				if strings.HasPrefix(l, "cosim check: ") {
					msg = l
				}
			}
			require.NotEmpty(t, msg, "no per-file message on stderr: %q", stderr)
			assert.Contains(t, msg, path)
			for _, w := range tc.want {
				assert.Contains(t, msg, w)
			}
			assert.Contains(t, stderr, "1 of 1 files could not be read")

			ls := lines(stdout)
			require.Len(t, ls, tc.printed+1, stdout)
			for i := 0; i < tc.printed; i++ {
				assert.Regexp(t, fmt.Sprintf(`^%6d  .*  ok$`, i+1), ls[i])
			}
			assert.Regexp(t, fmt.Sprintf(`^%d packets: .* 0 invalid$`, tc.printed), ls[tc.printed])
		})
	}
}

func TestCheckSeveralFilesOneUnreadable(t *testing.T) {
	dir := t.TempDir()
	valid := validFrames(t)
	cs := corruptions(t)
	good := writePcap(t, dir, "good.pcap", valid[:3])
	garbage := writeFile(t, dir, "garbage.pcap", []byte("garbage, not a capture"))
	missing := filepath.Join(dir, "missing.pcap")
	bad := writePcap(t, dir, "bad.pcap", [][]byte{valid[4], cs[0].frame})

	code, stdout, stderr := cosim(t, "check", good, garbage, missing, bad)
	assert.Equal(t, 2, code, "unreadable input wins over invalid packets")
	assert.Contains(t, stderr, "cosim check: "+garbage+": not a pcap or pcapng file")
	assert.Contains(t, stderr, missing)
	assert.Contains(t, stderr, "2 of 4 files could not be read")

	ls := lines(stdout)
	require.Len(t, ls, 4+3+2+1, stdout)
	assert.Equal(t, "== "+good, ls[0])
	for i := 1; i <= 3; i++ {
		assert.Regexp(t, fmt.Sprintf(`^%6d  .*  ok$`, i), ls[i])
	}
	assert.Equal(t, "== "+garbage, ls[4])
	assert.Equal(t, "== "+missing, ls[5])
	assert.Equal(t, "== "+bad, ls[6])
	assert.Regexp(t, `^     1  .*  ok$`, ls[7])
	assert.Regexp(t, `^     2  .*  INVALID bad-icrc: `, ls[8])
	assert.Equal(t, "5 packets: 5 RoCEv2, 0 MAC control, 0 other; 1 invalid", ls[9])
}

func TestCheckJSON(t *testing.T) {
	dir := t.TempDir()
	valid := validFrames(t)
	cs := corruptions(t)
	other, _ := nonRoCE(t)
	frames := [][]byte{valid[0], cs[0].frame, cs[5].frame, valid[len(valid)-1], other[0]}
	path := writePcap(t, dir, "mixed.pcap", frames)
	path2 := writePcap(t, dir, "second.pcap", [][]byte{valid[7]})

	code, stdout, stderr := cosim(t, "check", "--json", path, path2)
	assert.Equal(t, 1, code)
	ls := lines(stdout)
	require.Len(t, ls, len(frames)+1, "one JSON object per packet and nothing else on stdout: %s", stdout)
	// The tally goes to stderr.
	assert.Contains(t, lines(stderr), "6 packets: 4 RoCEv2, 1 MAC control, 1 other; 2 invalid")
	assert.NotRegexp(t, `packets:`, stdout)

	type problem struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	type report struct {
		File       string    `json:"file"`
		Index      int       `json:"index"`
		Length     int       `json:"length"`
		Kind       string    `json:"kind"`
		Summary    string    `json:"summary"`
		OK         bool      `json:"ok"`
		Problems   []problem `json:"problems"`
		OpCode     string    `json:"opcode"`
		DestQP     *uint32   `json:"dest_qp"`
		PSN        *uint32   `json:"psn"`
		PayloadLen *int      `json:"payload_len"`
	}
	common := []string{"file", "index", "length", "kind", "summary", "ok", "problems"}
	withBTH := append(slices.Clone(common), "opcode", "dest_qp", "psn", "payload_len")
	c := wirecheck.NewChecker()
	all := append(slices.Clone(frames), valid[7])
	for i, l := range ls {
		var keys map[string]json.RawMessage
		require.NoError(t, json.Unmarshal([]byte(l), &keys), "line %d is not JSON: %s", i+1, l)
		var rep report
		require.NoError(t, json.Unmarshal([]byte(l), &rep))

		f := all[i]
		res := c.Check(f)
		wantFile, wantIndex := path, i+1
		if i == len(frames) {
			wantFile, wantIndex = path2, 1
		}
		assert.Equal(t, wantFile, rep.File)
		assert.Equal(t, wantIndex, rep.Index)
		assert.Equal(t, len(f), rep.Length)
		assert.Equal(t, res.Kind.String(), rep.Kind)
		assert.Equal(t, res.Summary(), rep.Summary)
		assert.Equal(t, res.OK(), rep.OK)
		if rep.OK {
			assert.Equal(t, "[]", string(keys["problems"]), "line %d: problems is an empty list, not null", i+1)
		} else {
			assert.True(t, strings.HasPrefix(string(keys["problems"]), "[{"), "line %d: %s", i+1, keys["problems"])
		}
		require.Len(t, rep.Problems, len(res.Problems))
		for j, p := range res.Problems {
			assert.Equal(t, problem{p.Code, p.Message}, rep.Problems[j])
		}

		wantKeys := common
		if b := res.BTH(); b != nil {
			wantKeys = withBTH
			assert.Equal(t, b.OpCode.String(), rep.OpCode)
			assert.Equal(t, uint32(b.DestQP), *rep.DestQP)
			assert.Equal(t, uint32(b.PSN), *rep.PSN)
			assert.Equal(t, len(b.Payload), *rep.PayloadLen)
		}
		var got []string
		for k := range keys {
			got = append(got, k)
		}
		assert.ElementsMatch(t, wantKeys, got, "line %d: %s", i+1, l)
	}

	// Spot checks against the frames as built.
	var rep report
	require.NoError(t, json.Unmarshal([]byte(ls[0]), &rep))
	assert.Equal(t, "roce", rep.Kind)
	assert.Equal(t, "RC_SEND_FIRST", rep.OpCode)
	require.NoError(t, json.Unmarshal([]byte(ls[1]), &rep))
	assert.False(t, rep.OK)
	require.NotEmpty(t, rep.Problems)
	assert.Equal(t, wirecheck.CodeICRC, rep.Problems[0].Code)
	assert.Equal(t, 64, *rep.PayloadLen)
	rep = report{}
	require.NoError(t, json.Unmarshal([]byte(ls[2]), &rep))
	assert.Equal(t, "roce", rep.Kind, "a RoCEv2 frame cut inside its BTH")
	assert.Equal(t, wirecheck.CodeTruncated, rep.Problems[0].Code)
	assert.Nil(t, rep.DestQP)
	require.NoError(t, json.Unmarshal([]byte(ls[3]), &rep))
	assert.Equal(t, "mac-control", rep.Kind)
	require.NoError(t, json.Unmarshal([]byte(ls[4]), &rep))
	assert.Equal(t, "other", rep.Kind)
	assert.Equal(t, "not RoCE: Ethernet/ARP", rep.Summary)
}

func TestCheckJSONAllValid(t *testing.T) {
	path := writePcap(t, t.TempDir(), "valid.pcap", validFrames(t)[:10])
	code, stdout, stderr := cosim(t, "check", "--json", path)
	assert.Equal(t, 0, code, stderr)
	assert.Equal(t, "10 packets: 10 RoCEv2, 0 MAC control, 0 other; 0 invalid\n", stderr)
	for _, l := range lines(stdout) {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m), l)
		assert.Equal(t, true, m["ok"])
		assert.Equal(t, []any{}, m["problems"], "problems is an empty list, not null")
	}
}

func TestCheckSnappedPacket(t *testing.T) {
	r := rng(3)
	roceFrame := build(t, r, roce.RCSendOnly, framegen.IPv4, 940)
	require.Greater(t, len(roceFrame), 900)
	frames, _ := nonRoCE(t)
	tcp := frames[1]

	var buf bytes.Buffer
	w := pcapgo.NewWriter(&buf)
	require.NoError(t, w.WriteFileHeader(65535, layers.LinkTypeEthernet))
	require.NoError(t, w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(1, 0), CaptureLength: 60, Length: len(roceFrame)}, roceFrame[:60]))
	// A snapped packet that is not RoCEv2 is listed, not judged.
	require.NoError(t, w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(2, 0), CaptureLength: 40, Length: len(tcp)}, tcp[:40]))
	path := writeFile(t, t.TempDir(), "snapped.pcap", buf.Bytes())

	code, stdout, stderr := cosim(t, "check", path)
	assert.Equal(t, 1, code, stderr)
	ls := lines(stdout)
	require.Len(t, ls, 3, stdout)
	assert.Regexp(t, `^     1  RC SEND_ONLY .*  INVALID .*truncated: captured 60 of \d+ bytes`, ls[0])
	assert.Regexp(t, `^     2  not RoCE: .*  ok$`, ls[1])
	assert.Equal(t, "2 packets: 1 RoCEv2, 0 MAC control, 1 other; 1 invalid", ls[2])

	code, stdout, _ = cosim(t, "check", "--json", path)
	assert.Equal(t, 1, code)
	var rep struct {
		Length   int
		OK       bool
		Problems []wirecheck.Problem
	}
	require.NoError(t, json.Unmarshal([]byte(lines(stdout)[0]), &rep))
	assert.Equal(t, len(roceFrame), rep.Length, "length is the length on the wire")
	assert.False(t, rep.OK)
	assert.True(t, slices.ContainsFunc(rep.Problems, func(p wirecheck.Problem) bool { return p.Code == wirecheck.CodeTruncated }), "%v", rep.Problems)
}

func TestCheckPcapNG(t *testing.T) {
	// pcapng written by the harness is read like classic pcap.
	frames := validFrames(t)
	var buf bytes.Buffer
	w, err := pcapio.NewLinkWriter(&buf, "nic0", pcapio.LinkWriterOptions{})
	require.NoError(t, err)
	for i, f := range frames {
		require.NoError(t, w.WriteFrame(uint64(i*100), f))
	}
	require.NoError(t, w.Close())
	path := writeFile(t, t.TempDir(), "link.pcapng", buf.Bytes())

	code, stdout, stderr := cosim(t, "check", path)
	assert.Equal(t, 0, code, stderr)
	ls := lines(stdout)
	require.Len(t, ls, len(frames)+1)
	assert.Regexp(t, fmt.Sprintf(`^%d packets: .* 0 invalid$`, len(frames)), ls[len(frames)])
}

func TestCheckCancelled(t *testing.T) {
	path := writePcap(t, t.TempDir(), "valid.pcap", validFrames(t)[:2])
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	code, _, stderr := cosimCtx(t, ctx, "check", path)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "context canceled")
}

// TestCheckNotCheckedInFull: a RoCEv2 packet behind an IPv6 Hop-by-Hop
// header is checked but for its ICRC, which the output says with the
// reason; it is not invalid, and the tally counts it.
func TestCheckNotCheckedInFull(t *testing.T) {
	f := build(t, rng(3), roce.RCAcknowledge, framegen.IPv6, 0)
	ip, _, _ := offsets(t, f)
	hbh := []byte{f[ip+6], 0, 1, 4, 0, 0, 0, 0} // next header, length 0, PadN of 4 bytes
	f = slices.Concat(f[:ip+40], hbh, f[ip+40:])
	f[ip+6] = byte(layers.IPProtocolIPv6HopByHop)
	binary.BigEndian.PutUint16(f[ip+4:], binary.BigEndian.Uint16(f[ip+4:])+uint16(len(hbh)))
	path := writePcap(t, t.TempDir(), "hbh.pcap", [][]byte{validFrames(t)[0], f})

	code, stdout, stderr := cosim(t, "check", path)
	assert.Equal(t, 0, code, stderr)
	ls := lines(stdout)
	require.Len(t, ls, 3, stdout)
	assert.Regexp(t, `^     2  RC ACKNOWLEDGE .*  ok; not checked: icrc: 8 bytes of IPv6 extension headers \(IPv6HopByHop\) precede UDP; `, ls[1])
	assert.Equal(t, "2 packets: 2 RoCEv2, 0 MAC control, 0 other; 0 invalid; 1 not checked in full", ls[2])

	code, stdout, _ = cosim(t, "check", "--json", path)
	assert.Equal(t, 0, code)
	var rep struct {
		OK        bool `json:"ok"`
		Unchecked []struct {
			Code string `json:"code"`
		} `json:"unchecked"`
	}
	require.NoError(t, json.Unmarshal([]byte(lines(stdout)[1]), &rep))
	assert.True(t, rep.OK)
	require.Len(t, rep.Unchecked, 1)
	assert.Equal(t, "icrc", rep.Unchecked[0].Code)
	assert.NotContains(t, lines(stdout)[0], "unchecked", "absent when every check ran")
}
