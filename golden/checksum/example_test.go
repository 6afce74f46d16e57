package checksum_test

import (
	"encoding/binary"
	"fmt"

	"github.com/rocesim/cosim/golden/checksum"
)

// An IPv4 header's checksum is computed with the field zero, and a header
// that holds its checksum sums to 0.
func ExampleChecksum() {
	h := []byte{0x45, 0x00, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7}
	binary.BigEndian.PutUint16(h[10:], checksum.Checksum(h))
	fmt.Printf("%#04x %d\n", binary.BigEndian.Uint16(h[10:]), checksum.Checksum(h))
	// Output: 0xb861 0
}

// A UDP checksum over IPv4 starts from the pseudo-header: both addresses,
// the protocol and the UDP length (RFC 768).
func ExampleSum() {
	ip := []byte{0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7} // source, destination
	udp := []byte{0x30, 0x39, 0x12, 0xb7, 0x00, 0x0a, 0x00, 0x00, 'h', 'i'}
	s := uint64(checksum.Sum(0, ip)) + 17 + uint64(len(udp))
	c := ^checksum.Sum(s, udp)
	if c == 0 {
		c = 0xFFFF // 0 means "no checksum" in UDP
	}
	fmt.Printf("%#04x\n", c)
	// Output: 0xd267
}

// The switch marks ECN CE in the word that holds TOS and updates the
// header checksum for that word alone.
func ExampleUpdate() {
	h := []byte{0x45, 0x02, 0x00, 0x73, 0x00, 0x00, 0x40, 0x00, 0x40, 0x11,
		0x00, 0x00, 0xc0, 0xa8, 0x00, 0x01, 0xc0, 0xa8, 0x00, 0xc7}
	binary.BigEndian.PutUint16(h[10:], checksum.Checksum(h))
	old := binary.BigEndian.Uint16(h)
	h[1] |= 3
	binary.BigEndian.PutUint16(h[10:], checksum.Update(binary.BigEndian.Uint16(h[10:]), old, binary.BigEndian.Uint16(h)))
	fmt.Println(checksum.Checksum(h))
	// Output: 0
}
