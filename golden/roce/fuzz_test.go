package roce_test

import (
	"bytes"
	"encoding/hex"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
)

// rtOurs tells whether a stack trace runs through the package under test
// (not its tests: those are package roce_test).
func rtOurs(stack string) bool { return strings.Contains(stack, "cosim/golden/roce.") }

// rtSeedFrames are valid frames of every opcode class and encapsulation.
func rtSeedFrames(tb testing.TB) [][]byte {
	var seeds [][]byte
	for i, op := range rtKnownOpCodes() {
		n := rtNets[i%len(rtNets)]
		pl := 0
		if op.Payload() != roce.PayloadNone {
			pl = i % 9
		}
		seeds = append(seeds, rtSimpleFrame(tb, n, op, pl).Data)
	}
	scapy, err := hex.DecodeString(rtScapyACK)
	require.NoError(tb, err)
	return append(seeds, scapy)
}

// rtExtContents returns the bytes each implied extension header of b
// decoded, in wire order.
func rtExtContents(b *roce.BTH) []byte {
	h := b.OpCode.Headers()
	var out []byte
	for _, e := range []struct {
		bit roce.Header
		c   []byte
	}{
		{roce.HasDETH, b.DETH.Contents},
		{roce.HasRETH, b.RETH.Contents},
		{roce.HasAtomicETH, b.AtomicETH.Contents},
		{roce.HasAETH, b.AETH.Contents},
		{roce.HasAtomicAckETH, b.AtomicAckETH.Contents},
		{roce.HasImmDt, b.ImmDt.Contents},
		{roce.HasIETH, b.IETH.Contents},
		{roce.HasCNP, b.CNP.Contents},
	} {
		if h&e.bit != 0 {
			out = append(out, e.c...)
		}
	}
	return out
}

// FuzzBTHDecode decodes arbitrary UDP payloads. What decodes must
// re-serialise, without FixLengths and ComputeChecksums, to the same bytes.
func FuzzBTHDecode(f *testing.F) {
	for _, fr := range rtSeedFrames(f) {
		start, end, err := roce.IPPacket(fr)
		require.NoError(f, err)
		udp := fr[start:end][int(fr[start]&0xF)*4+8:]
		if fr[start]>>4 == 6 {
			udp = fr[start:end][48:]
		}
		f.Add(bytes.Clone(udp))
	}
	f.Add([]byte{})
	f.Add([]byte{0x04, 0x30, 0xFF, 0xFF, 0, 0, 0, 1, 0, 0, 0, 2, 0xEE, 1, 2, 3, 4})             // PadCnt 3, 1 byte
	f.Add([]byte{0x15, 0x00, 0xFF, 0xFF, 0, 0, 0, 1, 0x80, 0, 0, 2, 9, 8, 7, 6, 5, 1, 2, 3, 4}) // unknown opcode
	f.Add([]byte{0x0C, 0x00, 0xFF, 0xFF, 0, 0, 0, 1, 0x80, 0, 0, 2, 1, 2, 3, 4})                // READ, RETH missing

	f.Fuzz(func(t *testing.T, data []byte) {
		var b roce.BTH
		err := b.DecodeFromBytes(data, gopacket.NilDecodeFeedback)
		if err != nil {
			var te *roce.TruncatedError
			require.ErrorAs(t, err, &te)
			require.Equal(t, len(data), te.Have)
			require.Greater(t, te.Need, te.Have)
			return
		}
		require.GreaterOrEqual(t, len(data), roce.BTHLen+b.OpCode.Headers().HeaderLen()+roce.ICRCLen)
		parts := append(append(append(append(bytes.Clone(b.Contents), rtExtContents(&b)...), b.Payload...), b.Pad...), b.ICRC.Contents...)
		require.Equal(t, data, parts, "Contents+ext+payload+pad+ICRC")
		if len(b.Pad) < int(b.PadCnt) {
			// Fewer bytes than PadCnt after the headers: all of them are pad.
			require.Empty(t, b.Payload)
		} else {
			require.Len(t, b.Pad, int(b.PadCnt))
		}
		buf := gopacket.NewSerializeBuffer()
		require.NoError(t, gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, &b, gopacket.Payload(b.Payload)))
		require.Equal(t, data, buf.Bytes(), "re-serialised")
	})
}

// FuzzFrameDecode decodes arbitrary Ethernet frames with NewPacket and a
// DecodingLayerParser: no panic in this package, and both agree on the BTH.
func FuzzFrameDecode(f *testing.F) {
	for _, fr := range rtSeedFrames(f) {
		f.Add(fr)
	}
	f.Add([]byte{})
	f.Add(make([]byte, 14))

	p := rtNewParser()
	f.Fuzz(func(t *testing.T, data []byte) {
		pkt := gopacket.NewPacket(data, layers.LayerTypeEthernet, gopacket.Default)
		if df, ok := pkt.ErrorLayer().(*gopacket.DecodeFailure); ok && rtOurs(df.Dump()) {
			t.Fatalf("NewPacket panicked in golden/roce: %v\n%s", df.Error(), df.Dump())
		}

		func() {
			defer func() {
				if r := recover(); r != nil {
					if st := string(debug.Stack()); rtOurs(st) {
						t.Fatalf("DecodeLayers panicked in golden/roce: %v\n%s", r, st)
					}
					p.decoded = p.decoded[:0] // a gopacket layer panicked: not ours
				}
			}()
			_ = p.decode(data) // errors are fine; panics are not
		}()

		bth, _ := pkt.Layer(roce.LayerTypeBTH).(*roce.BTH)
		var dlpBTH bool
		for _, lt := range p.decoded {
			dlpBTH = dlpBTH || lt == roce.LayerTypeBTH
		}
		if bth != nil && dlpBTH {
			require.Equal(t, rtNormal(bth, false), rtNormal(&p.bth, false))
			require.Equal(t, bth.ICRC.Value, p.bth.ICRC.Value)
			require.Equal(t, []byte(bth.Payload), []byte(p.bth.Payload))
		}

		// IPPacket and VerifyICRC never panic either.
		if start, end, err := roce.IPPacket(data); err == nil {
			_, _, _, _ = roce.VerifyICRC(data[start:end])
		}
	})
}

// FuzzICRC: ComputeICRC and ReferenceICRC fail together and agree when they
// succeed; VerifyICRC agrees with ComputeICRC.
func FuzzICRC(f *testing.F) {
	for _, fr := range rtSeedFrames(f) {
		start, end, err := roce.IPPacket(fr)
		require.NoError(f, err)
		f.Add(bytes.Clone(fr[start:end]))
	}
	f.Add([]byte{})
	f.Add([]byte{0x45})
	f.Add(append([]byte{0x46}, make([]byte, 44+4)...))
	f.Add(append([]byte{0x60, 0, 0, 0, 0, 0, 17}, make([]byte, 60)...))
	f.Add(append([]byte{0x60, 0, 0, 0, 0, 0, 6}, make([]byte, 60)...))

	f.Fuzz(func(t *testing.T, pkt []byte) {
		fast, errFast := roce.ComputeICRC(pkt)
		ref, errRef := roce.ReferenceICRC(pkt)
		require.Equal(t, errFast == nil, errRef == nil, "%v / %v", errFast, errRef)
		if errFast == nil {
			require.Equal(t, ref, fast)
		}
		if len(pkt) >= 4 {
			ok, got, want, err := roce.VerifyICRC(pkt)
			c, cerr := roce.ComputeICRC(pkt[:len(pkt)-4])
			require.Equal(t, cerr == nil, err == nil)
			if err == nil {
				require.Equal(t, c, want)
				require.Equal(t, got == want, ok)
			}
		}
	})
}
