package tap

import (
	"fmt"
	"testing"
)

// BenchmarkSplit cuts a 64000-byte IPv4 super-packet into 1448-byte
// segments: a header checksum and a TCP checksum over every segment.
func BenchmarkSplit(b *testing.B) {
	pkt, h := superPacket(b, false, payloadOf(64000), 1448, nil)
	var s splitter
	b.SetBytes(int64(len(pkt)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.split(pkt, h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompleteCsum fills in the TCP checksum a host left to the
// device, for a small and a full-sized segment.
func BenchmarkCompleteCsum(b *testing.B) {
	for _, n := range []int{64, 1448} {
		b.Run(fmt.Sprintf("%dB", n), func(b *testing.B) {
			pkt, h := superPacket(b, false, payloadOf(n), 1448, nil)
			h.gsoType, h.gsoSize = 0, 0
			orig := append([]byte(nil), pkt...)
			b.SetBytes(int64(len(pkt)))
			b.ReportAllocs()
			for b.Loop() {
				copy(pkt, orig)
				if err := completeCsum(pkt, h); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkJoin merges 44 full segments back into one super-packet: an
// IPv4 header checksum and the pseudo-header's sum.
func BenchmarkJoin(b *testing.B) {
	frames := segments(b, false, 64000, 1448, nil)
	n, a := runLen(frames, 1518)
	dst := join(nil, frames[:n], a)
	b.SetBytes(int64(len(dst)))
	b.ReportAllocs()
	for b.Loop() {
		dst = join(dst, frames[:n], a)
	}
}
