// Package checksum is the Internet checksum (RFC 1071): the 16-bit
// one's-complement sum that IPv4 headers, UDP and TCP carry, and its
// incremental update when one header word changes (RFC 1624).
//
// Sum adds bytes to a running sum and returns it folded to 16 bits, so that
// the pieces of a pseudo-header and a segment can be added one after the
// other, plain numbers (protocol, length) between them. Checksum is the
// complement of the sum of one slice, which is what a header stores:
//
//	h[10], h[11] = 0, 0
//	binary.BigEndian.PutUint16(h[10:], checksum.Checksum(h)) // IPv4 header
//
// and over a header whose checksum is in place, Checksum is 0 when it
// verifies.
package checksum

import (
	"encoding/binary"
	"math/bits"
)

// Sum adds b, as big-endian 16-bit words, to the running sum s and returns
// the one's-complement sum folded to 16 bits; an odd last byte is padded
// with zero, so only the last piece of a chain may have an odd length.
// Start from 0, or from an earlier result with plain numbers added (any
// uint64 works).
//
// It adds eight bytes at a time with carries: 2^16 is 1 modulo 2^16-1, so
// a sum of 64-bit words folds to the same 16 bits as a sum of 16-bit ones
// (RFC 1071 section 2, "byte order independence" and "parallel summation").
// Folding here, inside the one call, keeps Checksum small enough to inline.
func Sum(s uint64, b []byte) uint16 {
	var c uint64
	for len(b) >= 32 {
		s, c = bits.Add64(s, binary.BigEndian.Uint64(b), c)
		s, c = bits.Add64(s, binary.BigEndian.Uint64(b[8:]), c)
		s, c = bits.Add64(s, binary.BigEndian.Uint64(b[16:]), c)
		s, c = bits.Add64(s, binary.BigEndian.Uint64(b[24:]), c)
		b = b[32:]
	}
	for len(b) >= 8 {
		s, c = bits.Add64(s, binary.BigEndian.Uint64(b), c)
		b = b[8:]
	}
	// At most 7 bytes are left: their words, each in the low bits, add up
	// to less than 2^33, so adding the last carry cannot overflow.
	var tail uint64
	if len(b) >= 4 {
		tail = uint64(binary.BigEndian.Uint32(b))
		b = b[4:]
	}
	if len(b) >= 2 {
		tail += uint64(binary.BigEndian.Uint16(b))
		b = b[2:]
	}
	if len(b) == 1 {
		tail += uint64(b[0]) << 8
	}
	s, c = bits.Add64(s, tail, c)
	return Fold(s + c)
}

// Fold reduces a running sum to 16 bits, end-around carries included: for
// a sum of Sum's results and plain numbers that is to be stored, not
// complemented. It is 0 only when s is: one's-complement addition of
// anything non-zero never gives +0.
func Fold(s uint64) uint16 {
	s = s>>32 + s&0xFFFFFFFF
	s = s>>32 + s&0xFFFFFFFF
	s = s>>16 + s&0xFFFF
	s = s>>16 + s&0xFFFF
	return uint16(s)
}

// Checksum returns the one's complement of the one's-complement sum of b:
// the value to store in a checksum field that is zero in b, or 0 when b
// holds a checksum that verifies.
func Checksum(b []byte) uint16 { return ^Sum(0, b) }

// Update returns the checksum hc after a 16-bit word it covers changes
// from oldWord (m) to newWord (m'): RFC 1624 equation 3,
// HC' = ~(~HC + ~m + m'), which unlike equation 2 gives the 0x0000 a full
// recomputation gives, never 0xFFFF.
func Update(hc, oldWord, newWord uint16) uint16 {
	s := uint32(^hc) + uint32(^oldWord) + uint32(newWord)
	s = s>>16 + s&0xFFFF
	s = s>>16 + s&0xFFFF
	return ^uint16(s)
}
