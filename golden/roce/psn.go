package roce

import "fmt"

// PSN is a 24-bit packet sequence number. Comparisons are modulo 2^24: a is
// after b when (a-b) mod 2^24 lies in [1, 2^23) (IBA 9.7.1; rxe psn_compare).
// Windows must therefore stay below 2^23 packets.
type PSN uint32

const (
	// PSNMask keeps the 24 bits of a PSN.
	PSNMask = 1<<24 - 1
	psnHalf = 1 << 23
)

// Add returns p+n modulo 2^24; n may be negative.
func (p PSN) Add(n int) PSN { return PSN(uint32(int64(p)+int64(n)) & PSNMask) }

// Diff returns the signed distance p-q in [-2^23, 2^23).
func (p PSN) Diff(q PSN) int {
	d := int32((uint32(p)-uint32(q))<<8) >> 8 // sign-extend the 24-bit difference
	return int(d)
}

// Less reports whether p comes before q, that is q is after p. PSNs exactly
// 2^23 apart are neither (rxe's psn_compare would call each less than the
// other).
func (p PSN) Less(q PSN) bool { return q.Diff(p) > 0 }

// InWindow reports whether p lies in [start, start+size) modulo 2^24.
func (p PSN) InWindow(start PSN, size int) bool {
	d := p.Diff(start)
	return d >= 0 && d < size
}

func (p PSN) String() string { return fmt.Sprintf("0x%06x", uint32(p)) }

// QPN is a 24-bit queue pair number.
type QPN uint32

func (q QPN) String() string { return fmt.Sprintf("0x%06x", uint32(q)) }
