package roce_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
)

// BenchmarkFrameDecodeVerify is the fast path: Frame.Decode (fixed offsets,
// no gopacket layer machinery) plus VerifyICRC, per frame size.
func BenchmarkFrameDecodeVerify(b *testing.B) {
	for _, size := range rtFrameSizes {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			data := rtSizedFrame(b, size).Data
			var f roce.Frame
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := f.Decode(data); err != nil {
					b.Fatal(err)
				}
				if ok, _, _, err := roce.VerifyICRC(f.IPPacket(data)); !ok || err != nil {
					b.Fatal("ICRC", err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
		})
	}
}

// TestFrameDecodeAgreesWithGopacket: the fast path decodes every round-trip
// frame to the same BTH and IP packet as the DecodingLayerParser path, and
// allocates nothing.
func TestFrameDecodeAgreesWithGopacket(t *testing.T) {
	frames := rtSeedFrames(t)
	require.NotEmpty(t, frames)
	var f roce.Frame
	for _, data := range frames {
		err := f.Decode(data)
		start, end, ipErr := roce.IPPacket(data)
		p := rtNewParser()
		if perr := p.decode(data); perr != nil || ipErr != nil {
			assert.Error(t, err)
			continue
		}
		require.NoError(t, err)
		assert.Equal(t, start, f.IPStart)
		assert.Equal(t, end, f.IPEnd)
		assert.Equal(t, rtNormal(&p.bth, false), rtNormal(&f.BTH, false))
		assert.Zero(t, testing.AllocsPerRun(100, func() { _ = f.Decode(data) }))
	}
	// Not RoCE: an ARP frame, and UDP to another port.
	arp := make([]byte, 60)
	arp[12], arp[13] = 0x08, 0x06
	assert.ErrorIs(t, f.Decode(arp), roce.ErrNotRoCE)
	udp := append([]byte{}, frames[0]...)
	udp[14+20+2] = 0 // destination port high byte of an untagged IPv4 frame
	if err := f.Decode(udp); !errors.Is(err, roce.ErrNotRoCE) {
		t.Logf("first seed frame is not untagged IPv4: %v", err)
	}
	// Every prefix of a frame is an error, never a panic.
	for n := range len(frames[0]) {
		assert.NotPanics(t, func() { _ = f.Decode(frames[0][:n]) })
	}
}
