package framegen_test

import (
	"fmt"
	"testing"

	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/framegen"
)

// BenchmarkWriteL2 is the switch campaigns' frame source: random bytes,
// headers and one IPv4 header checksum per frame.
func BenchmarkWriteL2(b *testing.B) {
	for _, n := range []int{64, 1500} {
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			rng := newRNG(1)
			s := framegen.L2Spec{Dst: [6]byte{2, 0, 0, 0, 0, 1}, Src: [6]byte{2, 0, 0, 0, 0, 2}, IPv4: true, DSCP: 26, ECN: 2, Len: n}
			f := make([]byte, n)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				framegen.WriteL2(rng, s, f)
			}
		})
	}
}

// BenchmarkBuild serialises RoCEv2 frames through gopacket and
// roce.SerializeLayers, which recomputes the UDP checksum over the whole
// datagram after the ICRC.
func BenchmarkBuild(b *testing.B) {
	for _, c := range []struct {
		encap framegen.Encap
		n     int
	}{{framegen.IPv4, 0}, {framegen.IPv4, 4096}, {framegen.IPv6, 4096}} {
		b.Run(fmt.Sprintf("%s/%dB", c.encap, c.n), func(b *testing.B) {
			rng := newRNG(2)
			s := framegen.Spec{OpCode: roce.RCSendOnly, Encap: c.encap, PayloadLen: c.n}
			b.SetBytes(int64(c.n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := framegen.Build(rng, s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
