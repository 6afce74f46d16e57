package dcqcn

import (
	"math"
	"math/bits"
	"strconv"
)

// rateFracBits is the number of fraction bits of a Rate.
const rateFracBits = 16

// RateOne is a rate of exactly one byte per cycle.
const RateOne Rate = 1 << 16

// MaxRate is the largest representable rate, just under 65536 bytes per
// cycle.
const MaxRate Rate = math.MaxUint32

// Rate is a sending rate in bytes per clock cycle, unsigned Q16.16 fixed
// point: the value 65536 (RateOne) is one byte per cycle, 1 is 1/65536 byte
// per cycle. At 250 MHz, 100 Gb/s is 50 bytes per cycle, 3276800; the
// smallest step, 1, is about 30.5 kb/s.
//
// Every rate the DCQCN model keeps (current rate, target rate, the additive
// and hyper steps) is a Rate, so the RTL holds them in 32-bit registers and
// does the same integer arithmetic.
type Rate uint32

// RateFromBitsPerSecond converts bps bits per second, at a clock of clockHz
// cycles per second, to a Rate:
//
//	floor(bps * 65536 / (8 * clockHz)) = floor(bps * 8192 / clockHz)
//
// Rounding is toward zero, so a converted rate never exceeds the requested
// one; a result above MaxRate saturates to MaxRate. clockHz 0 gives 0. The
// product is computed in 128 bits, so no input overflows.
func RateFromBitsPerSecond(bps, clockHz uint64) Rate {
	if clockHz == 0 {
		return 0
	}
	hi, lo := bits.Mul64(bps, 8192)
	if hi >= clockHz { // quotient would not fit in 64 bits
		return MaxRate
	}
	q, _ := bits.Div64(hi, lo, clockHz)
	if q > uint64(MaxRate) {
		return MaxRate
	}
	return Rate(q)
}

// BitsPerSecond converts r back to bits per second at a clock of clockHz
// cycles per second: floor(r * clockHz / 8192), rounded toward zero and
// saturating at math.MaxUint64.
func (r Rate) BitsPerSecond(clockHz uint64) uint64 {
	hi, lo := bits.Mul64(uint64(r), clockHz)
	if hi >= 8192 {
		return math.MaxUint64
	}
	q, _ := bits.Div64(hi, lo, 8192)
	return q
}

// String formats r in bytes per cycle with four decimals, truncated:
// RateOne prints as "1.0000 B/cycle", 1 as "0.0000 B/cycle".
func (r Rate) String() string {
	whole := uint64(r) >> rateFracBits
	frac := (uint64(r) & (uint64(RateOne) - 1)) * 10000 >> rateFracBits
	b := make([]byte, 0, 24)
	b = strconv.AppendUint(b, whole, 10)
	b = append(b, '.')
	if frac < 1000 {
		b = append(b, '0')
	}
	if frac < 100 {
		b = append(b, '0')
	}
	if frac < 10 {
		b = append(b, '0')
	}
	b = strconv.AppendUint(b, frac, 10)
	b = append(b, " B/cycle"...)
	return string(b)
}

// Cycles returns how many cycles sending bytes bytes takes at rate r:
//
//	ceil(bytes * 65536 / r)
//
// rounded up so that a pacer that waits this long never exceeds r. It is 0
// for bytes <= 0, math.MaxUint64 when r is 0 (never), and saturates at
// math.MaxUint64. A requester paces a QP by allowing its next packet
// Cycles(len) cycles after the start of the previous one.
func (r Rate) Cycles(bytes int) uint64 {
	if bytes <= 0 {
		return 0
	}
	if r == 0 {
		return math.MaxUint64
	}
	n := uint64(bytes)
	hi, lo := n>>(64-rateFracBits), n<<rateFracBits
	if hi >= uint64(r) {
		return math.MaxUint64
	}
	q, rem := bits.Div64(hi, lo, uint64(r))
	if rem != 0 {
		if q == math.MaxUint64 {
			return q
		}
		q++
	}
	return q
}
