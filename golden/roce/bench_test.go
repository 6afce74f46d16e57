package roce_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
)

// rtSizedFrame returns an IPv4 RC SEND ONLY frame of exactly size bytes.
// Ethernet, IPv4, UDP, BTH and ICRC take 58 bytes and the payload plus pad
// a multiple of 4, so up to 3 bytes of Ethernet padding follow the IP packet
// (as a MAC pads short frames).
func rtSizedFrame(tb testing.TB, size int) rtFrame {
	tb.Helper()
	const overhead = 14 + 20 + 8 + roce.BTHLen + roce.ICRCLen
	r := rand.New(rand.NewPCG(uint64(size), 1))
	bth := rtRandomBTH(r, roce.RCSendOnly)
	f := rtBuild(tb, r, rtIPv4, bth, rtRandomBytes(r, (size-overhead)&^3))
	f.Data = append(f.Data[:f.IPEnd:f.IPEnd], make([]byte, size-f.IPEnd)...)
	require.Len(tb, f.Data, size)
	return f
}

// rtDecodeVerify is one receive step: parse the frame, find the IP packet
// and check its ICRC.
func rtDecodeVerify(p *rtParser, frame []byte) (bool, error) {
	if err := p.decode(frame); err != nil {
		return false, err
	}
	start, end, err := roce.IPPacket(frame)
	if err != nil {
		return false, err
	}
	ok, _, _, err := roce.VerifyICRC(frame[start:end])
	return ok, err
}

// TestZeroAllocs: a reused DecodingLayerParser and the ICRC functions
// allocate nothing.
func TestZeroAllocs(t *testing.T) {
	frames := []rtFrame{
		rtSimpleFrame(t, rtIPv4, roce.RCSendOnly, 64),
		rtSimpleFrame(t, rtIPv6, roce.RCSendOnly, 64),
		rtSimpleFrame(t, rtVLANIPv4, roce.RCSendOnly, 64),
		rtSimpleFrame(t, rtVLANIPv6, roce.RCSendLastImm, 3),
		rtSimpleFrame(t, rtIPv4, roce.RCWriteOnly, 1024),
		rtSimpleFrame(t, rtIPv6, roce.RCWriteOnlyImm, 0),
		rtSimpleFrame(t, rtIPv4, roce.RCReadRequest, 0),
		rtSimpleFrame(t, rtIPv4, roce.RCAcknowledge, 0),
		rtSimpleFrame(t, rtVLANIPv4, roce.RCReadResponseLast, 100),
		rtSimpleFrame(t, rtIPv6, roce.RCAtomicAcknowledge, 0),
		rtSimpleFrame(t, rtIPv4, roce.RCCompareSwap, 0),
		rtSimpleFrame(t, rtIPv4, roce.UDSendOnlyImm, 17),
		rtSimpleFrame(t, rtIPv4, roce.CNPOpCode, 0),
		rtSizedFrame(t, 4200),
	}
	p := rtNewParser()
	p.parser.IgnorePanic = false // the default: DecodeLayers defers a recover
	for _, f := range frames {
		name := fmt.Sprintf("%v/%v/%d", f.Net, f.BTH.OpCode, len(f.Payload))
		ip := f.IP()
		require.NoError(t, p.decode(f.Data), name)
		assert.Zero(t, testing.AllocsPerRun(200, func() {
			if err := p.decode(f.Data); err != nil {
				panic(err)
			}
		}), "DecodeLayers %s", name)
		assert.Zero(t, testing.AllocsPerRun(200, func() {
			if ok, _, _, err := roce.VerifyICRC(ip); !ok || err != nil {
				panic("ICRC")
			}
		}), "VerifyICRC %s", name)
		assert.Zero(t, testing.AllocsPerRun(200, func() {
			if _, err := roce.ComputeICRC(ip[:len(ip)-4]); err != nil {
				panic(err)
			}
		}), "ComputeICRC %s", name)
		assert.Zero(t, testing.AllocsPerRun(200, func() {
			if _, _, err := roce.IPPacket(f.Data); err != nil {
				panic(err)
			}
		}), "IPPacket %s", name)
		assert.Zero(t, testing.AllocsPerRun(200, func() {
			if ok, err := rtDecodeVerify(p, f.Data); !ok || err != nil {
				panic("decode and verify")
			}
		}), "decode and verify %s", name)
		var b roce.BTH
		udp := f.UDPPayload()
		assert.Zero(t, testing.AllocsPerRun(200, func() {
			if err := b.DecodeFromBytes(udp, gopacket.NilDecodeFeedback); err != nil {
				panic(err)
			}
		}), "BTH.DecodeFromBytes %s", name)
	}
}

var rtFrameSizes = []int{64, 256, 1500, 4096, 4200}

// BenchmarkDecodeVerify: DecodingLayerParser decode, IPPacket and
// VerifyICRC per frame, all reused.
func BenchmarkDecodeVerify(b *testing.B) {
	for _, size := range rtFrameSizes {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			f := rtSizedFrame(b, size)
			p := rtNewParser()
			p.parser.IgnorePanic = false
			b.SetBytes(int64(len(f.Data)))
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := rtDecodeVerify(p, f.Data); !ok || err != nil {
					b.Fatal("decode and verify failed", err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
		})
	}
}

// BenchmarkICRC: ComputeICRC over IPv4 packets of the given length.
func BenchmarkICRC(b *testing.B) {
	for _, size := range []int{64, 128, 256, 512, 1024, 1500, 2048, 4096} {
		b.Run(fmt.Sprint(size), func(b *testing.B) {
			pkt := rtRandomIPPacket(rand.New(rand.NewPCG(uint64(size), 2)), false, 5, size)
			b.SetBytes(int64(size))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := roce.ComputeICRC(pkt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkNewPacket: the convenient gopacket.NewPacket path, for
// comparison (decode only, no ICRC check).
func BenchmarkNewPacket(b *testing.B) {
	for _, size := range rtFrameSizes {
		for _, o := range []struct {
			name string
			opts gopacket.DecodeOptions
		}{{"Default", gopacket.Default}, {"NoCopy", gopacket.NoCopy}} {
			b.Run(fmt.Sprintf("%d/%s", size, o.name), func(b *testing.B) {
				f := rtSizedFrame(b, size)
				b.SetBytes(int64(len(f.Data)))
				b.ReportAllocs()
				for b.Loop() {
					p := gopacket.NewPacket(f.Data, layers.LayerTypeEthernet, o.opts)
					if p.ErrorLayer() != nil {
						b.Fatal(p.ErrorLayer().Error())
					}
				}
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "pkts/s")
			})
		}
	}
}
