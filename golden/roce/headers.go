package roce

// Offsets and sizes of the Ethernet, 802.1Q, IPv4, IPv6 and UDP fields this
// package reads or writes in place, each from the first byte of its own
// header (IEEE 802.3 and 802.1Q, RFC 791, RFC 8200, RFC 768). The BTH and
// extension header offsets are in the files of those headers.
const (
	ethType   = 12 // EtherType, or the TPID of a first tag; 2 bytes
	ethHeader = 14

	dot1QType = 2 // EtherType after the tag control information; 2 bytes
	dot1QLen  = 4

	ipVersion = 0 // the high nibble, in IPv4 and IPv6 alike

	ipv4IHL       = 0 // low nibble: the header length in 32-bit words
	ipv4TOS       = 1
	ipv4TotalLen  = 2 // 2 bytes
	ipv4TTL       = 8
	ipv4Protocol  = 9
	ipv4Checksum  = 10 // 2 bytes
	ipv4SrcAddr   = 12
	ipv4DstAddr   = 16
	ipv4AddrLen   = 4
	ipv4MinHeader = 20
	ipv4MaxHeader = 60 // IHL 15

	ipv6TrafficClass = 0 // low nibble of byte 0, high nibble of byte 1; the flow label's 20 bits follow
	ipv6PayloadLen   = 4 // 2 bytes
	ipv6NextHeader   = 6
	ipv6HopLimit     = 7
	ipv6SrcAddr      = 8
	ipv6DstAddr      = 24
	ipv6AddrLen      = 16
	ipv6Header       = 40

	udpSrcPort  = 0 // 2 bytes
	udpDstPort  = 2 // 2 bytes
	udpChecksum = 6 // 2 bytes
	udpHeader   = 8
)
