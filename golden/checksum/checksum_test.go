package checksum

import (
	"encoding/binary"
	"math/rand/v2"
	"strconv"
	"testing"
)

// referenceSum is RFC 1071 as written, slowly: big-endian 16-bit words
// (an odd last byte padded with zero) added one at a time to s, each carry
// out of bit 15 added back at once. Sum and Fold must agree with it.
func referenceSum(s uint16, b []byte) uint16 {
	for i := 0; i < len(b); i += 2 {
		w := uint32(b[i]) << 8
		if i+1 < len(b) {
			w |= uint32(b[i+1])
		}
		t := uint32(s) + w
		if t > 0xFFFF {
			t -= 0xFFFF
		}
		s = uint16(t)
	}
	return s
}

// referenceFold is s modulo 0xFFFF as one's complement writes it: a
// non-zero multiple of 0xFFFF is 0xFFFF (minus zero), and only 0 is 0.
func referenceFold(s uint64) uint16 {
	if s == 0 {
		return 0
	}
	return uint16((s-1)%0xFFFF + 1)
}

// randomBytes draws n bytes, all 0xFF one time in five: the carries'
// worst case.
func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	ff := rng.IntN(5) == 0
	for i := range b {
		if ff {
			b[i] = 0xFF
		} else {
			b[i] = byte(rng.Uint32())
		}
	}
	return b
}

// sink keeps the compiler from dropping what the tests and benchmarks
// compute.
var sink uint16

// checkAgainstReference fails t unless Sum from s0 over b is the
// reference's sum from s0, whole and cut at an even length, and Fold(s0)
// is the reference's fold.
func checkAgainstReference(t *testing.T, s0 uint64, b []byte, cut int) {
	t.Helper()
	if got, want := Fold(s0), referenceFold(s0); got != want {
		t.Fatalf("Fold(%#x) = %#04x, reference %#04x", s0, got, want)
	}
	want := referenceSum(referenceFold(s0), b)
	if got := Sum(s0, b); got != want {
		t.Fatalf("Sum(%#x, % x) = %#04x, reference %#04x", s0, b, got, want)
	}
	cut = min(cut&^1, len(b))
	if got := Sum(uint64(Sum(s0, b[:cut])), b[cut:]); got != want {
		t.Fatalf("Sum(%#x) chained at %d over % x: %#04x, reference %#04x", s0, cut, b, got, want)
	}
}

// TestSumMatchesReference: every length up to 300 bytes, several times,
// from zero and from random running sums (0, multiples of 0xFFFF and all
// ones among them).
func TestSumMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	starts := []uint64{0, 1, 0xFFFF, 0x1FFFE, 0xFFFFFFFF, ^uint64(0)}
	for n := range 300 {
		for k := range 20 {
			s0 := rng.Uint64()
			if k < len(starts) {
				s0 = starts[k]
			}
			checkAgainstReference(t, s0, randomBytes(rng, n), rng.IntN(n+1))
		}
	}
}

// TestKnownValues: the example of RFC 1071 section 3, a sum that is a
// multiple of 0xFFFF but not zero, and an IPv4 header with its checksum.
func TestKnownValues(t *testing.T) {
	// RFC 1071 section 3: 0001 + f203 + f4f5 + f6f7 = ddf2 after the
	// carries.
	if got := Sum(0, []byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7}); got != 0xddf2 {
		t.Errorf("RFC 1071 example: %#04x, want 0xddf2", got)
	}
	if got := Sum(0, []byte{0x12, 0x34, 0xed, 0xcb}); got != 0xFFFF {
		t.Errorf("x + ~x: %#04x, want 0xffff (minus zero, never plus zero)", got)
	}
	if got := Sum(0, make([]byte, 40)); got != 0 {
		t.Errorf("zeros: %#04x, want 0", got)
	}
	h := []byte{0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0xb8, 0x61, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7}
	if got := Checksum(h); got != 0 {
		t.Errorf("valid IPv4 header: Checksum %#04x, want 0", got)
	}
	h[10], h[11] = 0, 0
	if got := Checksum(h); got != 0xb861 {
		t.Errorf("IPv4 header: Checksum %#04x, want 0xb861", got)
	}
}

// TestUpdate: the example of RFC 1624 section 4 (where equation 2 gives
// 0xFFFF and equation 3 the right 0x0000), then random IPv4 headers one
// of whose words changes: the update equals a full recomputation.
func TestUpdate(t *testing.T) {
	if got := Update(0xDD2F, 0x5555, 0x3285); got != 0x0000 {
		t.Errorf("RFC 1624 example: %#04x, want 0x0000", got)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		h := randomBytes(rng, 20)
		h[10], h[11] = 0, 0
		binary.BigEndian.PutUint16(h[10:], Checksum(h))
		at := 2 * rng.IntN(9)
		if at >= 10 {
			at += 2 // every word but the checksum
		}
		old := binary.BigEndian.Uint16(h[at:])
		binary.BigEndian.PutUint16(h[at:], uint16(rng.Uint32()))
		got := Update(binary.BigEndian.Uint16(h[10:]), old, binary.BigEndian.Uint16(h[at:]))
		h[10], h[11] = 0, 0
		if want := Checksum(h); got != want {
			t.Fatalf("header % x, word %d was %#04x: update %#04x, recomputed %#04x", h, at, old, got, want)
		}
	}
}

// TestZeroAllocs: the checksum paths run per frame in the switch model,
// framegen and the TAP offload, which must not allocate.
func TestZeroAllocs(t *testing.T) {
	b := randomBytes(rand.New(rand.NewPCG(5, 6)), 1500)
	allocs := testing.AllocsPerRun(100, func() {
		sink += Checksum(b) + Sum(0xABCD, b[:777]) + Update(sink, 1, 2)
	})
	if allocs != 0 {
		t.Errorf("%.1f allocations per run", allocs)
	}
}

// FuzzSum: Sum and Fold agree with the references for any bytes, running
// sum and even cut.
func FuzzSum(f *testing.F) {
	f.Add(uint64(0), []byte{}, 0)
	f.Add(uint64(0), []byte{0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7}, 4)
	f.Add(^uint64(0), []byte{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}, 8)
	f.Add(uint64(0x1_0000_0000), make([]byte, 37), 32)
	f.Fuzz(func(t *testing.T, s0 uint64, b []byte, cut int) {
		checkAgainstReference(t, s0, b, max(cut, 0))
	})
}

// BenchmarkChecksum: an IPv4 header, a small and a large frame, and the
// largest RoCEv2 payload.
func BenchmarkChecksum(b *testing.B) {
	for _, n := range []int{20, 64, 1500, 4096} {
		buf := randomBytes(rand.New(rand.NewPCG(7, 8)), n)
		b.Run(strconv.Itoa(n)+"B", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				sink += Checksum(buf)
			}
		})
	}
}

// BenchmarkUpdate is the switch's ECN mark.
func BenchmarkUpdate(b *testing.B) {
	for b.Loop() {
		sink = Update(sink, 0x4502, 0x4503)
	}
}
