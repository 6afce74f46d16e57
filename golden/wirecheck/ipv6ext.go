package wirecheck

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket/layers"
)

// ipChain is what lies between an IP header and its upper layer: IPv6
// extension headers, or the fragmentation state of an IPv4 packet.
type ipChain struct {
	n        int               // bytes of IPv6 extension headers
	headers  int               // how many
	first    layers.IPProtocol // the first of them, for messages
	upper    layers.IPProtocol // the header after them
	fragment bool              // the packet is one fragment of a larger one
	offset   int               // its fragment offset in bytes
	more     bool              // more fragments follow
	id       uint32            // the fragment's datagram identification
}

// whole reports whether the upper layer starts right after the chain:
// no fragment, or the first one.
func (ch ipChain) whole() bool { return !ch.fragment || ch.offset == 0 }

// describe names the chain for messages, e.g. "8 bytes of IPv6 extension
// headers (IPv6HopByHop and 1 more)".
func (ch ipChain) describe() string {
	s := fmt.Sprintf("%d bytes of IPv6 extension headers (%s", ch.n, ch.first.LayerType())
	if ch.headers > 1 {
		s += fmt.Sprintf(" and %d more", ch.headers-1)
	}
	return s + ")"
}

// ipv6Extension reports whether p is an extension header the checker walks
// over (RFC 8200 section 4: Hop-by-Hop, Routing, Fragment, Destination
// Options). The others (AH, ESP, No Next Header) end the walk.
func ipv6Extension(p layers.IPProtocol) bool {
	switch p {
	case layers.IPProtocolIPv6HopByHop, layers.IPProtocolIPv6Routing,
		layers.IPProtocolIPv6Fragment, layers.IPProtocolIPv6Destination:
		return true
	}
	return false
}

// walkIPv6 walks the extension headers at the start of b, the IPv6 payload,
// starting with next (the IPv6 Next Header). Each is 8 bytes; Hop-by-Hop,
// Routing and Destination Options add 8 times their Hdr Ext Len (RFC 8200
// sections 4.3 to 4.6). It fails when a header runs past b.
func walkIPv6(next layers.IPProtocol, b []byte) (ipChain, error) {
	ch := ipChain{first: next}
	for ipv6Extension(next) {
		if len(b)-ch.n < 8 {
			return ch, fmt.Errorf("IPv6 %s header cut short: %d of 8 bytes", next.LayerType(), len(b)-ch.n)
		}
		h := b[ch.n:]
		size := 8
		if next == layers.IPProtocolIPv6Fragment {
			// Fragment Offset in 8-byte units, then two reserved bits and M.
			fo := binary.BigEndian.Uint16(h[2:4])
			// Offset 0 with M clear is an atomic fragment: the whole datagram.
			ch.offset, ch.more = int(fo>>3)*8, fo&1 == 1
			ch.fragment = ch.offset != 0 || ch.more
			ch.id = binary.BigEndian.Uint32(h[4:8])
		} else {
			size += 8 * int(h[1])
		}
		if len(b)-ch.n < size {
			return ch, fmt.Errorf("IPv6 %s header of %d bytes cut short at %d", next.LayerType(), size, len(b)-ch.n)
		}
		next = layers.IPProtocol(h[0])
		ch.n += size
		ch.headers++
	}
	ch.upper = next
	return ch, nil
}

// fragments remembers the RoCEv2 datagrams whose first fragment the checker
// saw, so that their later fragments count as RoCEv2 too: Wireshark
// reassembles them and dissects the datagram at its last fragment.
type fragments struct{ seen map[fragmentKey]struct{} }

// fragmentKey names a datagram (RFC 791 and RFC 8200 section 4.5: source,
// destination and identification; the protocol is UDP here).
type fragmentKey struct {
	src, dst [16]byte
	id       uint32
}

// maxFragments bounds the memory a capture of unfinished datagrams takes.
const maxFragments = 4096

func (f *fragments) key(c *Checker) fragmentKey {
	var k fragmentKey
	if c.has(layers.LayerTypeIPv4) {
		copy(k.src[:], c.ip4.SrcIP)
		copy(k.dst[:], c.ip4.DstIP)
		k.id = uint32(c.ip4.Id)
	} else {
		copy(k.src[:], c.ip6.SrcIP)
		copy(k.dst[:], c.ip6.DstIP)
		k.id = c.chain.id
	}
	return k
}

// first records the first fragment of a RoCEv2 datagram.
func (f *fragments) first(c *Checker) {
	if c.chain.offset != 0 {
		return
	}
	if f.seen == nil || len(f.seen) >= maxFragments {
		f.seen = make(map[fragmentKey]struct{})
	}
	f.seen[f.key(c)] = struct{}{}
}

// later reports whether the frame is a later fragment of a datagram whose
// first fragment was RoCEv2; the last one forgets it.
func (f *fragments) later(c *Checker) bool {
	if !c.chain.fragment || c.chain.offset == 0 || len(f.seen) == 0 {
		return false
	}
	k := f.key(c)
	if _, ok := f.seen[k]; !ok {
		return false
	}
	if !c.chain.more {
		delete(f.seen, k)
	}
	return true
}
