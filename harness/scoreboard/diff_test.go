package scoreboard_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/framegen"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// build returns one frame drawn from a fresh generator: the same seed gives
// the same header fields whatever the encapsulation and payload length.
func build(t *testing.T, seed uint64, op roce.OpCode, enc framegen.Encap, payload int) []byte {
	t.Helper()
	f, err := framegen.Build(rand.New(rand.NewPCG(seed, 1)), framegen.Spec{OpCode: op, Encap: enc, PayloadLen: payload})
	require.NoError(t, err)
	return f
}

func fields(ds []scoreboard.FieldDiff) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Field
	}
	return out
}

func TestFieldDiffString(t *testing.T) {
	d := scoreboard.FieldDiff{Field: "BTH.PSN", Want: "0x000001", Got: "0x000002"}
	assert.Equal(t, "BTH.PSN want 0x000001 got 0x000002", d.String())
}

func TestDiffIdentical(t *testing.T) {
	f := build(t, 1, roce.RCSendOnly, framegen.IPv4, 40)
	assert.Nil(t, scoreboard.Diff(f, f))
	assert.Nil(t, scoreboard.Diff(f, bytes.Clone(f)), "same bytes in another slice")
	assert.Nil(t, scoreboard.Diff(nil, nil))
	assert.Nil(t, scoreboard.Diff([]byte{}, nil))
	p, err := pfc.New(net.HardwareAddr{2, 0, 0, 0, 0, 1}, 3, [8]uint16{1, 2})
	require.NoError(t, err)
	assert.Nil(t, scoreboard.Diff(p, bytes.Clone(p)))
}

func TestDiffPSN(t *testing.T) {
	for _, enc := range framegen.Encaps {
		t.Run(enc.String(), func(t *testing.T) {
			want := build(t, 2, roce.RCWriteOnly, enc, 100)
			psn := psnOf(t, want)
			got := withPSN(t, want, psn^0x800001, true)
			assert.Equal(t, []scoreboard.FieldDiff{
				{Field: "BTH.PSN", Want: fmt.Sprintf("0x%06x", psn), Got: fmt.Sprintf("0x%06x", psn^0x800001)},
				{Field: "ICRC.Value", Want: fmt.Sprintf("%#x", icrcOf(want)), Got: fmt.Sprintf("%#x", icrcOf(got))},
			}, scoreboard.Diff(want, got))

			// Without the ICRC fixed the PSN alone differs.
			stale := withPSN(t, want, psn^0x800001, false)
			assert.Equal(t, []string{"BTH.PSN"}, fields(scoreboard.Diff(want, stale)))
		})
	}
}

func TestDiffWireOrder(t *testing.T) {
	want := build(t, 3, roce.RCSendOnly, framegen.IPv4, 32)
	got := withPSN(t, want, psnOf(t, want)^0x42, false)
	got[0] ^= 0x01 // destination MAC
	require.NoError(t, roce.FixICRC(got))
	assert.Equal(t, []string{"Ethernet.DstMAC", "BTH.PSN", "ICRC.Value"}, fields(scoreboard.Diff(want, got)))
}

func TestDiffExtensionHeader(t *testing.T) {
	want := build(t, 4, roce.RCWriteOnly, framegen.IPv6, 64)
	got := bytes.Clone(want)
	got[bthOffset(t, got)+roce.BTHLen+8] ^= 0xff // first RKey byte of the RETH
	require.NoError(t, roce.FixICRC(got))
	assert.Equal(t, []string{"RETH.RKey", "ICRC.Value"}, fields(scoreboard.Diff(want, got)))
}

func TestDiffIPv4VsIPv6(t *testing.T) {
	v4 := build(t, 5, roce.RCSendOnly, framegen.IPv4, 40)
	v6 := build(t, 5, roce.RCSendOnly, framegen.IPv6, 40)
	ds := scoreboard.Diff(v4, v6)
	require.NotEmpty(t, ds)
	assert.Equal(t, scoreboard.FieldDiff{Field: "frame.length", Want: fmt.Sprint(len(v4)), Got: fmt.Sprint(len(v6))}, ds[0])
	assert.Contains(t, ds, scoreboard.FieldDiff{Field: "Ethernet.EthernetType", Want: "IPv4", Got: "IPv6"})
	assert.Equal(t, scoreboard.FieldDiff{Field: "layer[1]", Want: "IPv4", Got: "IPv6"}, ds[len(ds)-1], "stops at the first different layer")

	ds = scoreboard.Diff(v6, v4)
	assert.Equal(t, scoreboard.FieldDiff{Field: "layer[1]", Want: "IPv6", Got: "IPv4"}, ds[len(ds)-1])
}

func TestDiffVLAN(t *testing.T) {
	plain := build(t, 6, roce.RCSendOnly, framegen.IPv4, 40)
	tagged := build(t, 6, roce.RCSendOnly, framegen.VLANIPv4, 40)
	ds := scoreboard.Diff(plain, tagged)
	require.NotEmpty(t, ds)
	assert.Equal(t, scoreboard.FieldDiff{Field: "layer[1]", Want: "IPv4", Got: "Dot1Q"}, ds[len(ds)-1])
}

func TestDiffLength(t *testing.T) {
	short := build(t, 7, roce.RCSendOnly, framegen.IPv4, 40)
	long := build(t, 7, roce.RCSendOnly, framegen.IPv4, 44)
	require.Equal(t, len(short)+4, len(long))
	ds := scoreboard.Diff(short, long)
	require.NotEmpty(t, ds)
	assert.Equal(t, scoreboard.FieldDiff{Field: "frame.length", Want: fmt.Sprint(len(short)), Got: fmt.Sprint(len(long))}, ds[0])
	assert.Contains(t, ds, scoreboard.FieldDiff{Field: "IPv4.Length", Want: "0x54", Got: "0x58"})
	assert.Contains(t, ds, scoreboard.FieldDiff{Field: "UDP.Length", Want: "0x40", Got: "0x44"})
	assert.Contains(t, ds, scoreboard.FieldDiff{Field: "Payload.length", Want: "40", Got: "44"})
	assert.Contains(t, fields(ds), "ICRC.Value")
}

func TestDiffTruncated(t *testing.T) {
	f := build(t, 8, roce.RCSendOnly, framegen.IPv6, 200)
	for _, n := range []int{0, 10, 14, 40, 70, len(f) - 1} {
		ds := scoreboard.Diff(f, f[:n])
		require.NotEmpty(t, ds, "cut at %d", n)
		assert.Equal(t, scoreboard.FieldDiff{Field: "frame.length", Want: fmt.Sprint(len(f)), Got: fmt.Sprint(n)}, ds[0], "cut at %d", n)
	}
}

func TestDiffPFCvsRoCE(t *testing.T) {
	p, err := pfc.New(net.HardwareAddr{2, 0, 0, 0, 0, 1}, 0x81, [8]uint16{7: 0xffff})
	require.NoError(t, err)
	r := build(t, 9, roce.RCSendOnly, framegen.IPv4, 8)
	ds := scoreboard.Diff(p, r)
	require.NotEmpty(t, ds)
	assert.Contains(t, ds, scoreboard.FieldDiff{Field: "Ethernet.EthernetType", Want: "MACControl", Got: "IPv4"})
	assert.Equal(t, scoreboard.FieldDiff{Field: "layer[1]", Want: "PFC", Got: "IPv4"}, ds[len(ds)-1])

	ds = scoreboard.Diff(r, p)
	assert.Equal(t, scoreboard.FieldDiff{Field: "layer[1]", Want: "IPv4", Got: "PFC"}, ds[len(ds)-1])
}

func TestDiffPFCFields(t *testing.T) {
	src := net.HardwareAddr{2, 0, 0, 0, 0, 1}
	a, err := pfc.New(src, 0x03, [8]uint16{1, 2})
	require.NoError(t, err)
	b, err := pfc.New(src, 0x03, [8]uint16{1, 3})
	require.NoError(t, err)
	assert.Equal(t, []scoreboard.FieldDiff{{Field: "PFC.Quanta", Want: "[1 2 0 0 0 0 0 0]", Got: "[1 3 0 0 0 0 0 0]"}}, scoreboard.Diff(a, b))
}

func TestDiffPayloadByte(t *testing.T) {
	const payload, at = 40, 5
	want := build(t, 10, roce.RCSendOnly, framegen.IPv4, payload)
	got := bytes.Clone(want)
	start := len(got) - roce.ICRCLen - payload // no pad: 40 is a multiple of 4
	got[start+at] ^= 0x5a

	// The ICRC left as it was: the payload byte is the only difference,
	// named by its offset in the payload.
	assert.Equal(t, []scoreboard.FieldDiff{
		{Field: fmt.Sprintf("Payload[%d]", at), Want: fmt.Sprintf("%#02x", want[start+at]), Got: fmt.Sprintf("%#02x", got[start+at])},
	}, scoreboard.Diff(want, got))

	require.NoError(t, roce.FixICRC(got))
	assert.Equal(t, []string{"Payload[5]", "ICRC.Value"}, fields(scoreboard.Diff(want, got)))
}

func TestDiffNotDecodable(t *testing.T) {
	// Short garbage: no field explains it, the first differing byte does.
	assert.Equal(t, []scoreboard.FieldDiff{{Field: "frame[2]", Want: "0x03", Got: "0x04"}},
		scoreboard.Diff([]byte{1, 2, 3}, []byte{1, 2, 4}))

	// Ethernet padding after the IP packet is not a field either.
	f := build(t, 11, roce.RCSendOnly, framegen.IPv4, 8)
	padded := append(bytes.Clone(f), 0, 0, 0, 0)
	g := bytes.Clone(padded)
	g[len(g)-1] = 0xee
	assert.Equal(t, []scoreboard.FieldDiff{{Field: fmt.Sprintf("frame[%d]", len(g)-1), Want: "0x00", Got: "0xee"}},
		scoreboard.Diff(padded, g))
}

func TestDiffRegressions(t *testing.T) {
	t.Run("trailing bytes give frame.length twice", func(t *testing.T) {
		f := build(t, 12, roce.RCSendOnly, framegen.IPv4, 8)
		ds := scoreboard.Diff(f, append(bytes.Clone(f), 0, 0, 0, 0))
		var n int
		for _, d := range ds {
			if strings.HasPrefix(d.Field, "frame.length") {
				n++
			}
		}
		assert.Equal(t, 1, n, "%v", ds)
	})
}
