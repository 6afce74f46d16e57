package pfc_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/oracle"
	"github.com/rocesim/cosim/golden/pfc"
)

var srcMAC = net.HardwareAddr{0x00, 0x11, 0x22, 0x33, 0x44, 0x55}

// knownPFC is a PFC frame written out by hand from the 802.1Qbb layout:
// from 00:11:22:33:44:55, priorities 0 and 5 enabled, priority 0 paused for
// 0xffff quanta, priority 5 for 0x0100, other pause times zero.
const knownPFC = "0180c2000001" + "001122334455" + "8808" + // Ethernet
	"0101" + "0021" + // opcode, enable vector
	"ffff" + "0000" + "0000" + "0000" + "0000" + "0100" + "0000" + "0000" + // quanta c0..c7
	"0000000000000000000000000000000000000000000000000000" // 26 bytes pad

// knownPause is an 802.3x PAUSE frame written by hand: 0x1234 quanta.
const knownPause = "0180c2000001" + "001122334455" + "8808" +
	"0001" + "1234" +
	"000000000000000000000000000000000000000000000000000000000000000000000000000000000000" // 42 bytes pad

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}

type vector struct {
	name   string
	opcode pfc.MACControlOpcode
	enable uint8
	quanta [8]uint16
}

var vectors = []vector{
	{"pfc-all-xon", pfc.OpcodePFC, 0xff, [8]uint16{}},
	{"pfc-all-max", pfc.OpcodePFC, 0xff, [8]uint16{0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff}},
	{"pfc-p3-only", pfc.OpcodePFC, 0x08, [8]uint16{3: 0x1000}},
	{"pfc-mixed", pfc.OpcodePFC, 0xa5, [8]uint16{1, 2, 3, 4, 5, 6, 7, 65535}},
	{"pfc-none-enabled", pfc.OpcodePFC, 0x00, [8]uint16{}},
	{"pfc-p0-p5", pfc.OpcodePFC, 0x21, [8]uint16{0: 0xffff, 5: 0x0100}},
	{"pause", pfc.OpcodePause, 0, [8]uint16{0x1234}},
	{"pause-xon", pfc.OpcodePause, 0, [8]uint16{0}},
	{"pause-max", pfc.OpcodePause, 0, [8]uint16{0xffff}},
}

func build(t testing.TB, v vector) []byte {
	t.Helper()
	var frame []byte
	var err error
	if v.opcode == pfc.OpcodePause {
		frame, err = pfc.NewPause(srcMAC, v.quanta[0])
	} else {
		frame, err = pfc.New(srcMAC, v.enable, v.quanta)
	}
	require.NoError(t, err)
	return frame
}

func TestRoundTrip(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.name, func(t *testing.T) {
			frame := build(t, v)
			require.Len(t, frame, pfc.FrameLen)

			pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
			require.Nil(t, pkt.ErrorLayer(), "decode error")
			ls := pkt.Layers()
			require.Len(t, ls, 2)
			eth := ls[0].(*layers.Ethernet)
			p := ls[1].(*pfc.PFC)
			assert.Equal(t, pfc.LayerTypePFC, p.LayerType())
			assert.Equal(t, pfc.EtherType, eth.EthernetType)
			assert.Equal(t, "MACControl", eth.EthernetType.String())
			assert.Equal(t, pfc.DstMAC, eth.DstMAC)
			assert.Equal(t, srcMAC, eth.SrcMAC)

			assert.Equal(t, v.opcode, p.Opcode)
			assert.Equal(t, pfc.PriorityVector(v.enable), p.EnableVector)
			assert.Equal(t, v.quanta, p.Quanta)
			assert.Len(t, p.Contents, pfc.ControlLen)
			assert.Empty(t, p.Payload)
			assert.Equal(t, gopacket.LayerTypeZero, p.NextLayerType())
			assert.Nil(t, pfc.CheckFrame(eth, p))
			assert.Nil(t, p.Validate())

			// Re-serialising the decoded layers gives the same bytes.
			buf := gopacket.NewSerializeBuffer()
			require.NoError(t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, eth, p))
			assert.Equal(t, frame, buf.Bytes())
		})
	}
}

func TestKnownFrames(t *testing.T) {
	frame, err := pfc.New(srcMAC, 0x21, [8]uint16{0: 0xffff, 5: 0x0100})
	require.NoError(t, err)
	assert.Equal(t, knownPFC, hex.EncodeToString(frame))

	frame, err = pfc.NewPause(srcMAC, 0x1234)
	require.NoError(t, err)
	assert.Equal(t, knownPause, hex.EncodeToString(frame))

	var p pfc.PFC
	require.NoError(t, p.DecodeFromBytes(mustHex(t, knownPFC)[14:], gopacket.NilDecodeFeedback))
	assert.Equal(t, pfc.OpcodePFC, p.Opcode)
	assert.Equal(t, pfc.PriorityVector(0x0021), p.EnableVector)
	assert.Equal(t, [8]uint16{0: 0xffff, 5: 0x0100}, p.Quanta)
	assert.Len(t, p.Pad, 26)
	mask, q := p.Request()
	assert.Equal(t, uint8(0x21), mask)
	assert.Equal(t, [8]uint16{0: 0xffff, 5: 0x0100}, q)

	require.NoError(t, p.DecodeFromBytes(mustHex(t, knownPause)[14:], gopacket.NilDecodeFeedback))
	assert.Equal(t, pfc.OpcodePause, p.Opcode)
	assert.Equal(t, pfc.PriorityVector(0), p.EnableVector)
	assert.Equal(t, [8]uint16{0x1234}, p.Quanta)
	assert.Len(t, p.Pad, 42)
	mask, q = p.Request()
	assert.Equal(t, uint8(0xff), mask)
	assert.Equal(t, [8]uint16{0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234, 0x1234}, q)
}

func TestRequestIgnoresDisabledAndReserved(t *testing.T) {
	p := pfc.PFC{Opcode: pfc.OpcodePFC, EnableVector: 0xff02, Quanta: [8]uint16{1, 2, 3, 4, 5, 6, 7, 8}}
	mask, q := p.Request()
	assert.Equal(t, uint8(0x02), mask)
	assert.Equal(t, [8]uint16{1: 2}, q)

	p = pfc.PFC{Opcode: 0x0002}
	mask, q = p.Request()
	assert.Zero(t, mask)
	assert.Zero(t, q)
}

// TestTsharkOracle writes frames built by this package (and the hand-written
// known frames) to a pcap file and checks that Wireshark's MAC Control
// dissector reads back the values we encoded, and flags the same rule
// violations as CheckFrame.
func TestTsharkOracle(t *testing.T) {
	tshark := oracle.Tshark(t)

	type row struct {
		frame  []byte
		op     pfc.MACControlOpcode
		enable uint16
		quanta [8]uint16
	}
	var rows []row
	for _, v := range vectors {
		rows = append(rows, row{build(t, v), v.opcode, uint16(v.enable), v.quanta})
	}
	rows = append(rows,
		row{mustHex(t, knownPFC), pfc.OpcodePFC, 0x0021, [8]uint16{0: 0xffff, 5: 0x0100}},
		row{mustHex(t, knownPause), pfc.OpcodePause, 0, [8]uint16{0x1234}},
	)
	// Malformed PFC frames, to compare tshark's expert info with CheckFrame.
	reserved := serialize(t, pfc.DstMAC, &pfc.PFC{Opcode: pfc.OpcodePFC, EnableVector: 0x12a5, Quanta: [8]uint16{9, 8, 7, 6, 5, 4, 3, 2}})
	rows = append(rows, row{reserved, pfc.OpcodePFC, 0x12a5, [8]uint16{9, 8, 7, 6, 5, 4, 3, 2}})
	wrongDst := serialize(t, net.HardwareAddr{0x02, 0, 0, 0, 0, 9}, &pfc.PFC{Opcode: pfc.OpcodePFC, EnableVector: 0x01, Quanta: [8]uint16{77}})
	rows = append(rows, row{wrongDst, pfc.OpcodePFC, 0x01, [8]uint16{77}})

	file := filepath.Join(t.TempDir(), "pfc.pcap")
	f, err := os.Create(file)
	require.NoError(t, err)
	w := pcapgo.NewWriter(f)
	require.NoError(t, w.WriteFileHeader(65536, layers.LinkTypeEthernet))
	ts := time.Unix(1700000000, 0)
	for i, r := range rows {
		ci := gopacket.CaptureInfo{Timestamp: ts.Add(time.Duration(i) * time.Millisecond), CaptureLength: len(r.frame), Length: len(r.frame)}
		require.NoError(t, w.WritePacket(ci, r.frame))
	}
	require.NoError(t, f.Close())

	args := []string{"-n", "-r", file, "-T", "fields", "-E", "separator=,",
		"-e", "macc.opcode", "-e", "macc.cbfc.enbv"}
	for k := 0; k < 8; k++ {
		args = append(args, "-e", fmt.Sprintf("macc.cbfc.pause_time.c%d", k))
	}
	args = append(args, "-e", "macc.pause_time", "-e", "_ws.expert.message") // keep expert last: it may hold commas
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, tshark, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "tshark: %s", stderr.String())

	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	require.Len(t, lines, len(rows), "tshark output:\n%s", out)
	for i, r := range rows {
		got := strings.SplitN(lines[i], ",", 12)
		require.Len(t, got, 12, "line %d: %q", i, lines[i])
		want := make([]string, 11)
		want[0] = fmt.Sprintf("0x%04x", uint16(r.op))
		if r.op == pfc.OpcodePFC {
			want[1] = fmt.Sprintf("0x%04x", r.enable)
			for k := 0; k < 8; k++ {
				want[2+k] = fmt.Sprint(r.quanta[k])
			}
		} else {
			want[10] = fmt.Sprint(r.quanta[0])
		}
		assert.Equal(t, want, got[:11], "frame %d (%x)", i, r.frame)

		// Expert info versus our problems.
		pkt := gopacket.NewPacket(r.frame, layers.LayerTypeEthernet, gopacket.Default)
		eth, _ := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
		p, _ := pkt.Layer(pfc.LayerTypePFC).(*pfc.PFC)
		require.NotNil(t, eth)
		require.NotNil(t, p)
		codes := map[string]bool{}
		for _, pr := range pfc.CheckFrame(eth, p) {
			codes[pr.Code] = true
		}
		expert := got[11]
		assert.Equal(t, strings.Contains(expert, "8 MSbs of ENBV must be 0"), codes[pfc.CodeEnableReserved], "frame %d: expert %q, codes %v", i, expert, codes)
		assert.Equal(t, strings.Contains(expert, "Destination address must be 01-80-C2-00-00-01"), codes[pfc.CodeDstMAC], "frame %d: expert %q, codes %v", i, expert, codes)
	}
}

func serialize(t testing.TB, dst net.HardwareAddr, p *pfc.PFC) []byte {
	t.Helper()
	eth := &layers.Ethernet{SrcMAC: srcMAC, DstMAC: dst, EthernetType: pfc.EtherType}
	buf := gopacket.NewSerializeBuffer()
	require.NoError(t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, eth, p))
	return buf.Bytes()
}

func TestTruncated(t *testing.T) {
	pfcFrame := mustHex(t, knownPFC)[14:]
	pauseFrame := mustHex(t, knownPause)[14:]
	cases := []struct {
		name string
		data []byte
	}{
		{"nil", nil},
		{"empty", []byte{}},
		{"half-opcode", []byte{0x01}},
		{"pfc-opcode-only", pfcFrame[:2]},
		{"pfc-half-vector", pfcFrame[:3]},
		{"pfc-no-quanta", pfcFrame[:4]},
		{"pfc-half-quanta", pfcFrame[:5]},
		{"pfc-seven-quanta", pfcFrame[:18]},
		{"pfc-one-byte-short", pfcFrame[:19]},
		{"pause-opcode-only", pauseFrame[:2]},
		{"pause-half-time", pauseFrame[:3]},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := pfc.PFC{Opcode: pfc.OpcodePFC, EnableVector: 0xff, Quanta: [8]uint16{1, 2, 3}, Pad: []byte{1}}
			var err error
			require.NotPanics(t, func() { err = p.DecodeFromBytes(c.data, gopacket.NilDecodeFeedback) })
			require.Error(t, err)
			assert.ErrorIs(t, err, pfc.ErrTruncated)
			assert.Contains(t, err.Error(), "truncated")
			assert.Equal(t, pfc.PFC{}, p, "fields must be reset on error")

			// The same bytes behind an Ethernet header, through both decoders.
			// (gopacket does not call the next decoder for an empty payload.)
			if len(c.data) == 0 {
				return
			}
			frame := append(mustHex(t, knownPFC)[:14:14], c.data...)
			var pkt gopacket.Packet
			require.NotPanics(t, func() { pkt = gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default) })
			require.NotNil(t, pkt.ErrorLayer())
			assert.ErrorIs(t, pkt.ErrorLayer().Error(), pfc.ErrTruncated)

			var eth layers.Ethernet
			var q pfc.PFC
			parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &q)
			var decoded []gopacket.LayerType
			require.NotPanics(t, func() { err = parser.DecodeLayers(frame, &decoded) })
			assert.ErrorIs(t, err, pfc.ErrTruncated)
		})
	}
}

func TestProblems(t *testing.T) {
	good := mustHex(t, knownPFC)
	goodPause := mustHex(t, knownPause)
	mod := func(base []byte, f func(b []byte) []byte) []byte {
		return f(bytes.Clone(base))
	}
	cases := []struct {
		name  string
		frame []byte
		codes []string
	}{
		{"valid-pfc", good, nil},
		{"valid-pause", goodPause, nil},
		{"pause-unicast-dst", mod(goodPause, func(b []byte) []byte { b[0] = 0x02; return b }), nil},
		{"pause-broadcast-dst", mod(goodPause, func(b []byte) []byte { copy(b, layers.EthernetBroadcast); return b }), []string{pfc.CodeDstMAC}},
		{"pfc-unicast-dst", mod(good, func(b []byte) []byte { b[0] = 0x02; return b }), []string{pfc.CodeDstMAC}},
		{"pfc-reserved", mod(good, func(b []byte) []byte { b[16] = 0x80; return b }), []string{pfc.CodeEnableReserved}},
		{"pfc-pad", mod(good, func(b []byte) []byte { b[59] = 1; return b }), []string{pfc.CodePadNonZero}},
		{"pause-pad", mod(goodPause, func(b []byte) []byte { b[18] = 1; return b }), []string{pfc.CodePadNonZero}},
		{"pfc-short", good[:34], []string{pfc.CodeShortFrame}},
		{"pfc-short-by-one", good[:59], []string{pfc.CodeShortFrame}},
		{"pause-short", goodPause[:18], []string{pfc.CodeShortFrame}},
		{"unknown-opcode", mod(good, func(b []byte) []byte { b[15] = 0x02; return b }), []string{pfc.CodeUnknownOpcode}},
		{"everything", mod(good, func(b []byte) []byte {
			b[0], b[16], b[40] = 0x03, 0x01, 0xff
			return b[:50]
		}), []string{pfc.CodeDstMAC, pfc.CodeEnableReserved, pfc.CodePadNonZero, pfc.CodeShortFrame}},
		{"with-fcs-is-fine", append(bytes.Clone(good), 1, 2, 3, 4), nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pkt := gopacket.NewPacket(c.frame, layers.LayerTypeEthernet, gopacket.Default)
			require.Nil(t, pkt.ErrorLayer())
			eth := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet)
			p := pkt.Layer(pfc.LayerTypePFC).(*pfc.PFC)
			var codes []string
			for _, pr := range pfc.CheckFrame(eth, p) {
				codes = append(codes, pr.Code)
				assert.NotEmpty(t, pr.Message)
				assert.Equal(t, pr.Code+": "+pr.Message, pr.String())
			}
			assert.Equal(t, c.codes, codes)
		})
	}

	// EtherType is only checked when the Ethernet header is given.
	var eth layers.Ethernet
	var p pfc.PFC
	require.NoError(t, eth.DecodeFromBytes(good, gopacket.NilDecodeFeedback))
	require.NoError(t, p.DecodeFromBytes(eth.Payload, gopacket.NilDecodeFeedback))
	eth.EthernetType = layers.EthernetTypeDot1Q
	assert.Equal(t, []string{pfc.CodeEtherType}, codesOf(pfc.CheckFrame(&eth, &p)))
	assert.Nil(t, p.Validate())
	// Reusing a buffer does not allocate.
	buf := make([]pfc.Problem, 0, 8)
	allocs := testing.AllocsPerRun(100, func() { buf = pfc.AppendProblems(buf[:0], &eth, &p) })
	assert.Zero(t, allocs)
}

func codesOf(ps []pfc.Problem) []string {
	var s []string
	for _, p := range ps {
		s = append(s, p.Code)
	}
	return s
}

func TestTrailingBytes(t *testing.T) {
	frame := append(mustHex(t, knownPFC), 0xde, 0xad, 0xbe, 0xef) // e.g. an FCS
	pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	require.Nil(t, pkt.ErrorLayer())
	p := pkt.Layer(pfc.LayerTypePFC).(*pfc.PFC)
	assert.Len(t, p.Contents, pfc.ControlLen)
	assert.Equal(t, []byte{0xde, 0xad, 0xbe, 0xef}, p.Payload)
	assert.Equal(t, gopacket.LayerTypePayload, p.NextLayerType())
	require.NotNil(t, pkt.ApplicationLayer())
	assert.Equal(t, []byte{0xde, 0xad, 0xbe, 0xef}, pkt.ApplicationLayer().Payload())
}

func TestDecodeAllocs(t *testing.T) {
	frame := mustHex(t, knownPFC)
	var eth layers.Ethernet
	var p pfc.PFC
	parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &p)
	decoded := make([]gopacket.LayerType, 0, 4)
	var err error
	allocs := testing.AllocsPerRun(1000, func() {
		err = parser.DecodeLayers(frame, &decoded)
	})
	require.NoError(t, err)
	assert.Zero(t, allocs)
	assert.Equal(t, []gopacket.LayerType{layers.LayerTypeEthernet, pfc.LayerTypePFC}, decoded)
	assert.Equal(t, pfc.PriorityVector(0x21), p.EnableVector)
	assert.Equal(t, &frame[14], &p.Contents[0], "Contents must alias the input")

	allocs = testing.AllocsPerRun(1000, func() {
		if pfc.CheckFrame(&eth, &p) != nil {
			panic("unexpected problem")
		}
	})
	assert.Zero(t, allocs, "validating a good frame must not allocate")
}

func TestSerialize(t *testing.T) {
	bad := []pfc.PFC{
		{Opcode: pfc.OpcodePause, EnableVector: 1},
		{Opcode: pfc.OpcodePause, Quanta: [8]uint16{1, 2}},
		{Opcode: 0x0002, Quanta: [8]uint16{1}},
		{Opcode: 0x0002, EnableVector: 1},
	}
	for i := range bad {
		buf := gopacket.NewSerializeBuffer()
		assert.Error(t, bad[i].SerializeTo(buf, gopacket.SerializeOptions{}), "case %d", i)
	}

	// Garbage left in a reused buffer must not leak into the pad.
	buf := gopacket.NewSerializeBuffer()
	junk, err := buf.PrependBytes(100)
	require.NoError(t, err)
	for i := range junk {
		junk[i] = 0xee
	}
	require.NoError(t, buf.Clear())
	p := pfc.PFC{Opcode: pfc.OpcodePFC, EnableVector: 1, Quanta: [8]uint16{5}}
	require.NoError(t, p.SerializeTo(buf, gopacket.SerializeOptions{}))
	assert.Equal(t, mustHex(t, "01010001"+"0005"+strings.Repeat("0000", 7)+strings.Repeat("00", 26)), buf.Bytes())

	// Unknown opcode: opcode, then Pad verbatim, then zeros.
	buf = gopacket.NewSerializeBuffer()
	p = pfc.PFC{Opcode: 0x0002, Pad: []byte{1, 2, 3}}
	require.NoError(t, p.SerializeTo(buf, gopacket.SerializeOptions{}))
	assert.Equal(t, mustHex(t, "0002010203"+strings.Repeat("00", 41)), buf.Bytes())

	// A payload already in the buffer counts towards the 46 bytes.
	buf = gopacket.NewSerializeBuffer()
	require.NoError(t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{},
		&pfc.PFC{Opcode: pfc.OpcodePause, Quanta: [8]uint16{1}}, gopacket.Payload(bytes.Repeat([]byte{9}, 40))))
	assert.Len(t, buf.Bytes(), pfc.ControlLen)
	assert.Equal(t, mustHex(t, "00010001"+"0000"+strings.Repeat("09", 40)), buf.Bytes())
}

func TestQuantaToCycles(t *testing.T) {
	cases := []struct {
		quanta uint16
		width  int
		want   uint64
	}{
		{0, 64, 0},
		{1, 64, 8},
		{0xffff, 64, 0xffff * 8},
		{1, 128, 4},
		{1, 256, 2},
		{0, 512, 0},
		{1, 512, 1},
		{0xffff, 512, 0xffff},
		{0, 1024, 0},
		{1, 1024, 1}, // 0.5 rounded up
		{2, 1024, 1},
		{3, 1024, 2}, // 1.5 rounded up
		{0xffff, 1024, 0x8000},
		{1, 96, 6},   // 5.33 rounded up
		{3, 96, 16},  // exactly 16
		{1, 8, 64},   // one byte per cycle
		{1, 2048, 1}, // quarter beat rounded up
	}
	for _, c := range cases {
		assert.Equal(t, c.want, pfc.QuantaToCycles(c.quanta, c.width), "QuantaToCycles(%d, %d)", c.quanta, c.width)
	}
	assert.Panics(t, func() { pfc.QuantaToCycles(1, 0) })
	assert.Panics(t, func() { pfc.QuantaToCycles(1, -64) })
}

func TestStrings(t *testing.T) {
	assert.Equal(t, "PFC", pfc.OpcodePFC.String())
	assert.Equal(t, "PAUSE", pfc.OpcodePause.String())
	assert.Equal(t, "MACControlOpcode(0x0002)", pfc.MACControlOpcode(2).String())
	assert.True(t, pfc.OpcodePFC.Known())
	assert.False(t, pfc.MACControlOpcode(0).Known())

	assert.Equal(t, "none", pfc.PriorityVector(0).String())
	assert.Equal(t, "P0|P2|P5|P7", pfc.PriorityVector(0xa5).String())
	assert.Equal(t, "P0|P1|P2|P3|P4|P5|P6|P7", pfc.PriorityVector(0xff).String())
	assert.Equal(t, "P3|reserved=0x01", pfc.PriorityVector(0x0108).String())
	assert.Equal(t, "none|reserved=0xab", pfc.PriorityVector(0xab00).String())
	v := pfc.PriorityVector(0x0105)
	assert.True(t, v.Enabled(0))
	assert.False(t, v.Enabled(1))
	assert.True(t, v.Enabled(2))
	assert.False(t, v.Enabled(8), "reserved bits are not priorities")
	assert.False(t, v.Enabled(-1))
	assert.Equal(t, uint8(0x05), v.Priorities())
	assert.Equal(t, uint8(0x01), v.Reserved())
}

func TestNewErrors(t *testing.T) {
	_, err := pfc.New(net.HardwareAddr{1, 2, 3}, 1, [8]uint16{})
	assert.Error(t, err)
	_, err = pfc.NewPause(nil, 1)
	assert.Error(t, err)
}

// FuzzPFCDecode feeds arbitrary bytes after the Ethernet header. Decoding must
// never panic, must only fail by truncation, and a decoded frame must
// re-serialise to the bytes it was decoded from (plus zero padding).
func FuzzPFCDecode(f *testing.F) {
	for _, s := range []string{knownPFC, knownPause} {
		b, _ := hex.DecodeString(s)
		f.Add(b[14:])
		f.Add(b[14:30])
	}
	f.Add([]byte{})
	f.Add([]byte{0x01})
	f.Add([]byte{0x00, 0x02, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		var p pfc.PFC
		err := p.DecodeFromBytes(data, gopacket.NilDecodeFeedback)
		if err != nil {
			if !errors.Is(err, pfc.ErrTruncated) {
				t.Fatalf("unexpected error kind: %v", err)
			}
			if len(data) >= 20 {
				t.Fatalf("%d bytes must always decode, got %v", len(data), err)
			}
			if !isZero(&p) {
				t.Fatalf("fields not reset on error: %+v", p)
			}
		} else {
			n := min(len(data), pfc.ControlLen)
			if !bytes.Equal(p.Contents, data[:n]) || !bytes.Equal(p.Payload, data[n:]) {
				t.Fatalf("bad split: contents %x payload %x", p.Contents, p.Payload)
			}
			if !bytes.HasSuffix(p.Contents, p.Pad) {
				t.Fatalf("pad %x is not the tail of contents %x", p.Pad, p.Contents)
			}
			_ = p.Validate()
			_, _ = p.Request()
			_ = p.EnableVector.String()
			_ = p.Opcode.String()

			buf := gopacket.NewSerializeBuffer()
			if err := p.SerializeTo(buf, gopacket.SerializeOptions{}); err != nil {
				t.Fatalf("re-serialise: %v", err)
			}
			out := buf.Bytes()
			if len(out) != max(pfc.ControlLen, len(p.Contents)) || !bytes.Equal(out[:len(p.Contents)], p.Contents) {
				t.Fatalf("re-serialised %x, decoded from %x", out, p.Contents)
			}
			if bytes.Count(out[len(p.Contents):], []byte{0}) != len(out)-len(p.Contents) {
				t.Fatalf("padding not zero: %x", out)
			}
			var q pfc.PFC
			if err := q.DecodeFromBytes(out, gopacket.NilDecodeFeedback); err != nil {
				t.Fatalf("decode of re-serialised frame: %v", err)
			}
			if q.Opcode != p.Opcode || q.EnableVector != p.EnableVector || q.Quanta != p.Quanta {
				t.Fatalf("round trip changed fields: %+v vs %+v", q, p)
			}
		}

		// The same bytes as a whole frame, through both gopacket decoders.
		frame := append(mustHex(t, knownPFC)[:14:14], data...)
		pkt := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
		if eth, ok := pkt.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); ok {
			if q, ok := pkt.Layer(pfc.LayerTypePFC).(*pfc.PFC); ok {
				_ = pfc.CheckFrame(eth, q)
			}
		}
		var eth layers.Ethernet
		var q pfc.PFC
		parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &q)
		parser.IgnoreUnsupported = true
		var decoded []gopacket.LayerType
		if err := parser.DecodeLayers(frame, &decoded); err != nil && !errors.Is(err, pfc.ErrTruncated) {
			t.Fatalf("parser: %v", err)
		}
	})
}

func isZero(p *pfc.PFC) bool {
	return p.Opcode == 0 && p.EnableVector == 0 && p.Quanta == [8]uint16{} &&
		p.Pad == nil && p.Contents == nil && p.Payload == nil
}

func BenchmarkDecode(b *testing.B) {
	frame, err := hex.DecodeString(knownPFC)
	if err != nil {
		b.Fatal(err)
	}
	var eth layers.Ethernet
	var p pfc.PFC
	parser := gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet, &eth, &p)
	decoded := make([]gopacket.LayerType, 0, 4)
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		if err := parser.DecodeLayers(frame, &decoded); err != nil {
			b.Fatal(err)
		}
	}
}
