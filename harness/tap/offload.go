package tap

// Segmentation offload through the TAP's virtio-net header.
//
// With Config.Offload every frame on the descriptor carries a
// virtio_net_hdr (IFF_VNET_HDR), and the TAP tells the host's kernel that
// it may hand over TCP super-packets and leave checksums to the device
// (TUNSETOFFLOAD CSUM|TSO4|TSO6): what a real NIC's TSO and checksum
// offload allow. Read splits a super-packet into the wire frames such a NIC
// would send and fills in the checksums; WriteFrames joins runs of
// consecutive segments of one TCP flow into one super-packet for the
// receiving host, as GRO does. The simulation sees the same MSS-sized wire
// frames either way; the hosts' kernels handle them dozens at a time.
//
// Sources of the rules (read, not copied):
//   - include/uapi/linux/virtio_net.h: struct virtio_net_hdr, 10 bytes;
//     a TAP uses the CPU's byte order unless told otherwise (TUNSETVNETLE).
//   - net/ipv4/tcp_offload.c tcp_gso_segment: sequence numbers step by the
//     MSS, CWR only on the first segment, FIN and PSH only on the last.
//   - net/ipv4/af_inet.c inet_gso_segment: the IPv4 ID steps by one per
//     segment; total length and header checksum per segment.
//   - tcp_gro_receive (same file as tcp_gso_segment): a segment joins only
//     with the same flags word (flags and window), ACK and options, at the
//     next sequence number, no longer than the first; PSH ends a run.
//   - RFC 1071 (the Internet checksum), RFC 793 and RFC 8200 section 8.1
//     (the TCP pseudo-headers for IPv4 and IPv6).

import (
	"encoding/binary"
	"errors"

	"github.com/rocesim/cosim/golden/checksum"
)

// vnetHdrLen is sizeof(struct virtio_net_hdr): no num_buffers, since the
// TAP is never given TUNSETVNETHDRSZ 12.
const vnetHdrLen = 10

// virtio_net_hdr flags and gso_type values.
const (
	vnetNeedsCsum = 1 // checksum from CsumStart to the end, stored at CsumStart+CsumOffset

	gsoNone  = 0
	gsoTCPv4 = 1
	gsoTCPv6 = 4
	gsoECN   = 0x80
)

// offloadFeatures is what the TAP offers the host (TUNSETOFFLOAD): TCP
// segmentation for both IP versions and checksums. Not TSO_ECN, so the
// host never hands over a super-packet whose CWR must be treated apart,
// and not UFO/USO: UDP stays one datagram a frame.
const offloadFeatures = 0x01 | 0x02 | 0x04 // TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6

// maxJoined bounds a super-packet written to the host: the IPv4 total
// length field, less room for the headers.
const maxJoined = 65535 - 128

type vnetHdr struct {
	flags      uint8
	gsoType    uint8
	hdrLen     uint16
	gsoSize    uint16
	csumStart  uint16
	csumOffset uint16
}

func parseVnetHdr(b []byte) vnetHdr {
	e := binary.NativeEndian
	return vnetHdr{flags: b[0], gsoType: b[1], hdrLen: e.Uint16(b[2:]), gsoSize: e.Uint16(b[4:]),
		csumStart: e.Uint16(b[6:]), csumOffset: e.Uint16(b[8:])}
}

func (h vnetHdr) put(b []byte) {
	e := binary.NativeEndian
	b[0], b[1] = h.flags, h.gsoType
	e.PutUint16(b[2:], h.hdrLen)
	e.PutUint16(b[4:], h.gsoSize)
	e.PutUint16(b[6:], h.csumStart)
	e.PutUint16(b[8:], h.csumOffset)
}

// errOffload reports a packet from the host that its virtio-net header
// does not describe truthfully (or describes something never offered).
var errOffload = errors.New("malformed offload packet")

// completeCsum fills in a checksum the host left to the device
// (NEEDS_CSUM without GSO): the field holds the pseudo-header's sum, and
// the checksum covers everything from CsumStart on.
func completeCsum(pkt []byte, h vnetHdr) error {
	start, at := int(h.csumStart), int(h.csumStart)+int(h.csumOffset)
	if start >= len(pkt) || at+2 > len(pkt) {
		return errOffload
	}
	c := checksum.Checksum(pkt[start:])
	if c == 0 {
		c = 0xffff // for UDP 0 means "no checksum"; for TCP both are the same value
	}
	binary.BigEndian.PutUint16(pkt[at:], c)
	return nil
}

// splitter cuts TCP super-packets into wire frames, in a buffer it reuses.
type splitter struct {
	buf    []byte
	frames [][]byte
}

// split returns the wire frames of a super-packet the host handed over
// with GSO. They stay valid until the next split.
func (s *splitter) split(pkt []byte, h vnetHdr) ([][]byte, error) {
	l3, ethType := l3Offset(pkt)
	var v6 bool
	switch {
	case h.gsoType&gsoECN != 0:
		return nil, errOffload
	case h.gsoType == gsoTCPv4 && ethType == 0x0800:
	case h.gsoType == gsoTCPv6 && ethType == 0x86dd:
		v6 = true
	default:
		return nil, errOffload
	}
	l4, ok := tcpOffset(pkt, l3, v6)
	if !ok || h.gsoSize == 0 {
		return nil, errOffload
	}
	hlen := l4 + int(pkt[l4+12]>>4)*4
	ipLen := int(binary.BigEndian.Uint16(pkt[l3+2:]))
	if v6 {
		ipLen = int(binary.BigEndian.Uint16(pkt[l3+4:])) + 40
	}
	// The IP length must cover the packet exactly: a read cut short by
	// the buffer, or a jumbogram, does not.
	if hlen < l4+20 || hlen > len(pkt) || l3+ipLen != len(pkt) {
		return nil, errOffload
	}
	payload, mss := pkt[hlen:], int(h.gsoSize)
	n := max(1, (len(payload)+mss-1)/mss)
	need := len(payload) + n*hlen
	if cap(s.buf) < need {
		s.buf = make([]byte, need)
	}
	buf := s.buf[:need]
	s.frames = s.frames[:0]
	seq := binary.BigEndian.Uint32(pkt[l4+4:])
	flags := pkt[l4+13]
	var id uint16
	if !v6 {
		id = binary.BigEndian.Uint16(pkt[l3+4:])
	}
	for i := range n {
		chunk := payload[min(i*mss, len(payload)):min((i+1)*mss, len(payload))]
		f := buf[:hlen+len(chunk)]
		buf = buf[len(f):]
		copy(f, pkt[:hlen])
		copy(f[hlen:], chunk)
		binary.BigEndian.PutUint32(f[l4+4:], seq+uint32(i*mss))
		fl := flags
		if i > 0 {
			fl &^= 0x80 // CWR
		}
		if i < n-1 {
			fl &^= 0x01 | 0x08 // FIN, PSH
		}
		f[l4+13] = fl
		if v6 {
			binary.BigEndian.PutUint16(f[l3+4:], uint16(len(f)-l3-40))
		} else {
			binary.BigEndian.PutUint16(f[l3+2:], uint16(len(f)-l3))
			binary.BigEndian.PutUint16(f[l3+4:], id+uint16(i))
			setIPv4Csum(f[l3:l4])
		}
		setTCPCsum(f, l3, l4, v6)
		s.frames = append(s.frames, f)
	}
	return s.frames, nil
}

// l3Offset skips the Ethernet header and at most one VLAN tag.
func l3Offset(f []byte) (int, uint16) {
	if len(f) < HeaderLen {
		return len(f), 0
	}
	t := binary.BigEndian.Uint16(f[12:])
	if (t == 0x8100 || t == 0x88a8) && len(f) >= HeaderLen+TagLen {
		return HeaderLen + TagLen, binary.BigEndian.Uint16(f[16:])
	}
	return HeaderLen, t
}

// tcpOffset finds the TCP header after an IPv4 header (any options, not a
// fragment) or a bare IPv6 header, with room for its fixed part.
func tcpOffset(f []byte, l3 int, v6 bool) (int, bool) {
	if v6 {
		l4 := l3 + 40
		return l4, len(f) >= l4+20 && f[l3]>>4 == 6 && f[l3+6] == 6
	}
	if len(f) < l3+20 || f[l3]>>4 != 4 || f[l3+9] != 6 || binary.BigEndian.Uint16(f[l3+6:])&0x3fff != 0 {
		return 0, false
	}
	l4 := l3 + int(f[l3]&0x0f)*4
	return l4, l4 >= l3+20 && len(f) >= l4+20
}

// setIPv4Csum rewrites the header checksum of the IPv4 header h.
func setIPv4Csum(h []byte) {
	h[10], h[11] = 0, 0
	binary.BigEndian.PutUint16(h[10:], checksum.Checksum(h))
}

// pseudoSum is the TCP pseudo-header's sum for a segment of tcpLen bytes.
func pseudoSum(f []byte, l3 int, v6 bool, tcpLen int) uint64 {
	addrs := f[l3+12 : l3+20]
	if v6 {
		addrs = f[l3+8 : l3+40]
	}
	return uint64(checksum.Sum(0, addrs)) + 6 + uint64(tcpLen)
}

// setTCPCsum computes the checksum of the TCP segment at l4, to the end
// of f (which must not be padded).
func setTCPCsum(f []byte, l3, l4 int, v6 bool) {
	f[l4+16], f[l4+17] = 0, 0
	s := pseudoSum(f, l3, v6, len(f)-l4)
	binary.BigEndian.PutUint16(f[l4+16:], ^checksum.Sum(s, f[l4:]))
}

// segment describes a frame that may join a super-packet: an untagged
// TCP segment in IPv4 without options or fragmentation, or in bare IPv6,
// carrying data and nothing but ACK (and PSH), with no padding.
type segment struct {
	v6       bool
	l4, hlen int
	seq      uint32
	payload  int
	psh      bool
}

func parseSegment(f []byte) (segment, bool) {
	l3, ethType := l3Offset(f)
	if l3 != HeaderLen || (ethType != 0x0800 && ethType != 0x86dd) {
		return segment{}, false
	}
	v6 := ethType == 0x86dd
	l4, ok := tcpOffset(f, l3, v6)
	if !ok || (!v6 && l4 != l3+20) {
		return segment{}, false
	}
	ipLen := int(binary.BigEndian.Uint16(f[l3+4:])) + 40
	if !v6 {
		ipLen = int(binary.BigEndian.Uint16(f[l3+2:]))
	}
	hlen := l4 + int(f[l4+12]>>4)*4
	flags := f[l4+13]
	if l3+ipLen != len(f) || hlen < l4+20 || hlen >= len(f) || flags&^0x08 != 0x10 {
		return segment{}, false
	}
	return segment{v6: v6, l4: l4, hlen: hlen, seq: binary.BigEndian.Uint32(f[l4+4:]),
		payload: len(f) - hlen, psh: flags&0x08 != 0}, true
}

// joins reports whether next may follow prev in a run that first began:
// the same flow and headers (but for what changes per segment), the next
// sequence number, and prev neither short nor pushed.
func joins(first, prev, next []byte, a, p, n segment) bool {
	if a.v6 != n.v6 || a.hlen != n.hlen || p.psh || p.payload != a.payload || n.payload > a.payload ||
		n.seq != p.seq+uint32(p.payload) {
		return false
	}
	l3 := HeaderLen
	same := func(from, to int) bool { return string(first[from:to]) == string(next[from:to]) }
	if !same(0, HeaderLen) {
		return false
	}
	if n.v6 {
		// Version, traffic class (ECN too), flow label; next header, hop
		// limit and both addresses.
		if !same(l3, l3+4) || !same(l3+6, l3+40) {
			return false
		}
	} else if !same(l3, l3+2) || first[l3+6] != next[l3+6] || !same(l3+8, l3+10) || !same(l3+12, l3+20) {
		// Version, header length and TOS (ECN too); DF; TTL and protocol;
		// both addresses.
		return false
	}
	l4 := n.l4
	// Ports; ACK, data offset; window; options. Flags differ at most by
	// PSH, which parseSegment leaves as the only other one.
	return same(l4, l4+4) && same(l4+8, l4+13) && same(l4+14, l4+16) && same(l4+20, n.hlen)
}

// join writes the super-packet of a run into dst (virtio-net header
// first) and returns it. The run's frames passed joins.
func join(dst []byte, run [][]byte, a segment) []byte {
	first, last := run[0], run[len(run)-1]
	total := a.hlen
	for _, f := range run {
		total += len(f) - a.hlen
	}
	if cap(dst) < vnetHdrLen+total {
		dst = make([]byte, vnetHdrLen+total)
	}
	dst = dst[:vnetHdrLen+total]
	p := dst[vnetHdrLen:]
	copy(p, first[:a.hlen])
	at := a.hlen
	for _, f := range run {
		at += copy(p[at:], f[a.hlen:])
	}
	l3, l4 := HeaderLen, a.l4
	gso := uint8(gsoTCPv4)
	if a.v6 {
		gso = gsoTCPv6
		binary.BigEndian.PutUint16(p[l3+4:], uint16(total-l3-40))
	} else {
		binary.BigEndian.PutUint16(p[l3+2:], uint16(total-l3))
		setIPv4Csum(p[l3:l4])
	}
	p[l4+13] = last[l4+13] // PSH, if the last segment had it
	// CHECKSUM_PARTIAL: the field holds the pseudo-header's sum and the
	// receiving kernel takes the segments' checksums as verified; each
	// crossed the simulation byte-for-byte checked against golden.
	binary.BigEndian.PutUint16(p[l4+16:], checksum.Fold(pseudoSum(p, l3, a.v6, total-l4)))
	vnetHdr{flags: vnetNeedsCsum, gsoType: gso, hdrLen: uint16(a.hlen), gsoSize: uint16(a.payload),
		csumStart: uint16(l4), csumOffset: 16}.put(dst)
	return dst
}

// runLen is how many frames from frames[0] on join into one super-packet
// (1: none; frames[0] goes alone). Frames longer than limit never join:
// they are refused one by one.
func runLen(frames [][]byte, limit int) (int, segment) {
	a, ok := parseSegment(frames[0])
	if !ok || a.psh || len(frames[0]) > limit {
		return 1, a
	}
	p, total := a, len(frames[0])
	n := 1
	for ; n < len(frames); n++ {
		s, ok := parseSegment(frames[n])
		if !ok || len(frames[n]) > limit || total+s.payload > maxJoined || !joins(frames[0], frames[n-1], frames[n], a, p, s) {
			break
		}
		p, total = s, total+s.payload
	}
	return n, a
}
