// Package wirecheck validates Ethernet frames the way the golden codecs see
// them: RoCEv2 packets (ICRC, IPv4 checksum, IP and UDP lengths, BTH and
// payload rules) and MAC Control frames (802.1Qbb PFC and 802.3x PAUSE).
// Anything else is listed as such and is not an error. A frame is RoCEv2
// when Wireshark would dissect it so (UDP to or from port 4791, behind IPv6
// extension headers, or a fragment of such a datagram); a check that cannot
// apply to it is listed in Result.Unchecked with the reason. It is what
// `cosim check` runs on every packet of a capture.
package wirecheck

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
)

// Kind says what a frame carries.
type Kind uint8

const (
	KindOther      Kind = iota // neither RoCEv2 nor MAC Control: listed, not checked
	KindRoCE                   // UDP to or from port 4791, as Wireshark dissects it
	KindMACControl             // EtherType 0x8808: PFC or PAUSE
)

func (k Kind) String() string {
	switch k {
	case KindRoCE:
		return "roce"
	case KindMACControl:
		return "mac-control"
	}
	return "other"
}

// Problem codes. PFC problems keep the code of golden/pfc with a "pfc-"
// prefix.
const (
	CodeTruncated     = "truncated" // a header is cut short
	CodeICRC          = "bad-icrc"  // ICRC does not match
	CodeIPv4Checksum  = "bad-ipv4-checksum"
	CodeIPLength      = "ip-length"      // IP length disagrees with the frame
	CodeUDPLength     = "udp-length"     // UDP length disagrees with the IP length
	CodePadCount      = "pad-count"      // PadCnt inconsistent with the payload rules
	CodePayloadLength = "payload-length" // payload size not allowed for the opcode
	CodeTVer          = "tver"           // BTH transport header version is not 0
	CodeUnknownOpCode = "unknown-opcode"
	CodeUDPPort       = "udp-port" // RoCEv2 from port 4791 to another
)

// Codes of checks a frame did not get, with the reason (Result.Unchecked).
const (
	UncheckedICRC     = "icrc"     // the ICRC rule does not cover the frame's headers
	UncheckedFragment = "fragment" // one IP fragment: checked as far as it goes, not reassembled
)

// Problem is one rule a frame breaks.
type Problem struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (p Problem) String() string { return p.Code + ": " + p.Message }

// Result is the verdict on one frame. It points into the Checker that made
// it and stays valid until the next Check.
type Result struct {
	Kind     Kind
	Problems []Problem
	// Unchecked lists the checks a RoCEv2 frame did not get and why: they
	// are not problems, and not silently skipped either.
	Unchecked []Problem
	c         *Checker
}

// OK reports whether the frame breaks no rule.
func (r Result) OK() bool { return len(r.Problems) == 0 }

// BTH returns the decoded BTH of a RoCEv2 frame, or nil.
func (r Result) BTH() *roce.BTH {
	if r.Kind != KindRoCE || !r.c.has(roce.LayerTypeBTH) {
		return nil
	}
	return &r.c.bth
}

// PFC returns the decoded MAC Control frame, or nil.
func (r Result) PFC() *pfc.PFC {
	if r.Kind != KindMACControl || !r.c.has(pfc.LayerTypePFC) {
		return nil
	}
	return &r.c.pfc
}

// Summary is one line about the frame, e.g.
// "RC RDMA_WRITE_FIRST qp=0x000012 psn=0x9dbe5d len=1024".
func (r Result) Summary() string {
	c := r.c
	if b := r.BTH(); b != nil {
		var s strings.Builder
		if b.OpCode.Known() && b.OpCode != roce.CNPOpCode {
			fmt.Fprintf(&s, "%s %s", b.OpCode.Transport(), b.OpCode.Operation())
		} else {
			s.WriteString(b.OpCode.String())
		}
		fmt.Fprintf(&s, " qp=%s psn=%s len=%d", b.DestQP, b.PSN, len(b.Payload))
		h := b.OpCode.Headers()
		if h&roce.HasRETH != 0 {
			fmt.Fprintf(&s, " va=%#x rkey=%#x dmalen=%d", b.RETH.VA, b.RETH.RKey, b.RETH.DMALen)
		}
		if h&roce.HasAETH != 0 {
			fmt.Fprintf(&s, " %s msn=%d", b.AETH.Syndrome, b.AETH.MSN)
		}
		if h&roce.HasImmDt != 0 {
			fmt.Fprintf(&s, " imm=%#08x", b.ImmDt.Imm)
		}
		if b.AckReq {
			s.WriteString(" ackreq")
		}
		if b.FECN || b.BECN {
			fmt.Fprintf(&s, " fecn=%t becn=%t", b.FECN, b.BECN)
		}
		return s.String()
	}
	if p := r.PFC(); p != nil {
		if p.Opcode == pfc.OpcodePFC {
			return fmt.Sprintf("PFC src=%s enable=%s quanta=%v", c.eth.SrcMAC, p.EnableVector, p.Quanta)
		}
		if p.Opcode == pfc.OpcodePause {
			return fmt.Sprintf("PAUSE src=%s quanta=%d", c.eth.SrcMAC, p.Quanta[0])
		}
		return fmt.Sprintf("MAC Control %s src=%s", p.Opcode, c.eth.SrcMAC)
	}
	prefix := "not RoCE: "
	switch {
	case r.Kind == KindRoCE && c.chain.fragment:
		prefix = fmt.Sprintf("RoCEv2, IP fragment at byte %d: ", c.chain.offset)
	case r.Kind == KindRoCE:
		prefix = "RoCEv2, BTH cut short: "
	case c.chain.fragment:
		prefix = fmt.Sprintf("not RoCE, IP fragment at byte %d: ", c.chain.offset)
	}
	names := make([]string, 0, len(c.decoded)+1)
	for _, t := range c.decoded {
		names = append(names, t.String())
	}
	if c.next != gopacket.LayerTypeZero && c.next != gopacket.LayerTypePayload {
		names = append(names, c.next.String())
	}
	if len(names) == 0 {
		return prefix + "undecodable"
	}
	return prefix + strings.Join(names, "/")
}

// Checker decodes and checks frames. It reuses its layers and allocates
// nothing for a valid frame. Not safe for concurrent use.
type Checker struct {
	eth     layers.Ethernet
	dot1q   layers.Dot1Q
	ip4     layers.IPv4
	ip6     layers.IPv6
	udp     layers.UDP
	bth     roce.BTH
	pfc     pfc.PFC
	payload gopacket.Payload
	parser  *gopacket.DecodingLayerParser
	decoded []gopacket.LayerType
	next    gopacket.LayerType
	probs   []Problem
	notes   []Problem
	pfcBuf  []pfc.Problem
	chain   ipChain // between the IP header and UDP
	l4      []byte  // the bytes after chain: the UDP header, if any
	frags   fragments
}

// NewChecker returns a Checker.
func NewChecker() *Checker {
	c := &Checker{decoded: make([]gopacket.LayerType, 0, 8)}
	c.parser = gopacket.NewDecodingLayerParser(layers.LayerTypeEthernet,
		&c.eth, &c.dot1q, &c.ip4, &c.ip6, &c.udp, &c.bth, &c.pfc, &c.payload)
	c.parser.IgnoreUnsupported = true
	return c
}

func (c *Checker) has(t gopacket.LayerType) bool { return indexOf(c.decoded, t) >= 0 }

func (c *Checker) add(code, format string, args ...any) {
	c.probs = append(c.probs, Problem{Code: code, Message: fmt.Sprintf(format, args...)})
}

func (c *Checker) note(code, format string, args ...any) {
	c.notes = append(c.notes, Problem{Code: code, Message: fmt.Sprintf(format, args...)})
}

// ipv6HeaderLen is the fixed IPv6 header (RFC 8200 section 3).
const ipv6HeaderLen = 40

// offsetIn returns where sub, a slice of frame as the decoders hand them
// on, starts in frame.
func offsetIn(frame, sub []byte) int { return cap(frame) - cap(sub) }

func indexOf(ts []gopacket.LayerType, t gopacket.LayerType) int {
	for i, d := range ts {
		if d == t {
			return i
		}
	}
	return -1
}

// Check decodes frame (Ethernet, no FCS) and returns every problem found.
func (c *Checker) Check(frame []byte) Result {
	c.probs, c.notes = c.probs[:0], c.notes[:0]
	c.chain, c.l4 = ipChain{}, nil
	c.next = gopacket.LayerTypeZero
	err := c.parser.DecodeLayers(frame, &c.decoded)
	if n := len(c.decoded); n > 0 {
		c.next = c.layer(c.decoded[n-1]).NextLayerType()
	}
	if e := c.decodeIPChain(frame); e != nil {
		err = e
	} else if e := c.decodeBTH(); e != nil {
		err = e
	}
	r := Result{Kind: KindOther, c: c}
	switch {
	case c.has(layers.LayerTypeEthernet) && c.eth.EthernetType == pfc.EtherType:
		r.Kind = KindMACControl
	case c.has(layers.LayerTypeUDP) && (c.udp.DstPort == roce.UDPPort || c.udp.SrcPort == roce.UDPPort):
		r.Kind = KindRoCE
	case c.isRoCEStub() || c.frags.later(c):
		r.Kind = KindRoCE
	}
	if r.Kind == KindOther {
		// Not ours to judge; a failure to decode it is not an error either.
		return r
	}
	switch r.Kind {
	case KindMACControl:
		if err != nil {
			c.add(CodeTruncated, "%v", err)
		}
		if c.has(pfc.LayerTypePFC) {
			c.pfcBuf = pfc.AppendProblems(c.pfcBuf[:0], &c.eth, &c.pfc)
			for _, p := range c.pfcBuf {
				c.probs = append(c.probs, Problem{Code: "pfc-" + p.Code, Message: p.Message})
			}
		}
	case KindRoCE:
		c.checkRoCE(frame, err)
	}
	r.Problems, r.Unchecked = c.probs, c.notes
	return r
}

// checkRoCE checks a RoCEv2 frame; err is what decoding it left.
func (c *Checker) checkRoCE(frame []byte, err error) {
	if c.chain.fragment {
		c.frags.first(c)
		if c.has(layers.LayerTypeIPv4) {
			c.checkIPv4Checksum()
		}
		which := "the last"
		if c.chain.more {
			which = "more follow"
		}
		c.note(UncheckedFragment, "IP fragment at byte %d of its datagram (%s): "+
			"the datagram is not reassembled, so its lengths, ICRC and BTH are not checked", c.chain.offset, which)
		return
	}
	if err != nil {
		c.add(CodeTruncated, "%v", err)
	}
	if c.has(layers.LayerTypeUDP) && c.udp.DstPort != roce.UDPPort {
		// IBA Annex A17 (RoCEv2): the destination port 4791 marks the BTH;
		// the source port is flow entropy. Wireshark dissects either way.
		c.add(CodeUDPPort, "UDP port %d to %d: RoCEv2 packets go to destination port %d", c.udp.SrcPort, c.udp.DstPort, roce.UDPPort)
	}
	c.checkIP(frame)
	if c.has(roce.LayerTypeBTH) {
		c.checkBTH()
	} else if err == nil {
		c.add(CodeTruncated, "the UDP datagram ends before the %d-byte BTH", roce.BTHLen)
	}
}

// decodeIPChain finds what follows the IP header: IPv4 fragmentation, or
// IPv6 extension headers, behind which it decodes UDP and the BTH itself
// (gopacket skips a Hop-by-Hop header only and drops it from the payload).
func (c *Checker) decodeIPChain(frame []byte) error {
	switch {
	case c.has(layers.LayerTypeIPv4):
		more := c.ip4.Flags&layers.IPv4MoreFragments != 0
		c.chain = ipChain{upper: c.ip4.Protocol, fragment: more || c.ip4.FragOffset != 0,
			offset: int(c.ip4.FragOffset) * 8, more: more}
		c.l4 = c.ip4.Payload
		return nil
	case !c.has(layers.LayerTypeIPv6):
		return nil
	case !ipv6Extension(c.ip6.NextHeader):
		c.chain.upper, c.l4 = c.ip6.NextHeader, c.ip6.Payload
		return nil
	}
	c.decoded = c.decoded[:indexOf(c.decoded, layers.LayerTypeIPv6)+1]
	start := offsetIn(frame, c.ip6.Contents) + ipv6HeaderLen
	end := start + int(c.ip6.Length)
	if end > len(frame) || c.ip6.Length == 0 {
		end = len(frame)
	}
	ch, err := walkIPv6(c.ip6.NextHeader, frame[start:end])
	c.chain = ch
	if err != nil {
		c.next = gopacket.LayerTypeZero
		return err
	}
	c.l4, c.next = frame[start+ch.n:end], ch.upper.LayerType()
	if !ch.whole() {
		c.next = gopacket.LayerTypeFragment
		return nil
	}
	if ch.upper != layers.IPProtocolUDP {
		return nil
	}
	if err := c.udp.DecodeFromBytes(c.l4, gopacket.NilDecodeFeedback); err != nil {
		return err
	}
	c.decoded, c.next = append(c.decoded, layers.LayerTypeUDP), c.udp.NextLayerType()
	return nil
}

// decodeBTH decodes the BTH after a UDP header to or from port 4791 that
// the parser left alone: it goes by the destination port first, so UDP
// from 4791 to a port with a decoder of its own (53) stops there.
func (c *Checker) decodeBTH() error {
	if n := len(c.decoded); n == 0 || c.decoded[n-1] != layers.LayerTypeUDP || c.chain.more ||
		(c.udp.SrcPort != roce.UDPPort && c.udp.DstPort != roce.UDPPort) {
		return nil
	}
	if err := c.bth.DecodeFromBytes(c.udp.Payload, gopacket.NilDecodeFeedback); err != nil {
		return err
	}
	c.decoded, c.next = append(c.decoded, roce.LayerTypeBTH), c.bth.NextLayerType()
	return nil
}

// isRoCEStub catches a RoCEv2 frame cut inside its UDP header, or the first
// fragment of one: the IP header says UDP and the port bytes, as far as
// present, say 4791.
func (c *Checker) isRoCEStub() bool {
	if c.chain.upper != layers.IPProtocolUDP || c.has(layers.LayerTypeUDP) || !c.chain.whole() {
		return false
	}
	const srcPort, dstPort = 0, 2 // offsets in the UDP header, 2 bytes each
	port := func(off int) bool {
		return len(c.l4) >= off+2 && layers.UDPPort(binary.BigEndian.Uint16(c.l4[off:])) == roce.UDPPort
	}
	return port(dstPort) || port(srcPort)
}

func (c *Checker) layer(t gopacket.LayerType) gopacket.DecodingLayer {
	switch t {
	case layers.LayerTypeEthernet:
		return &c.eth
	case layers.LayerTypeDot1Q:
		return &c.dot1q
	case layers.LayerTypeIPv4:
		return &c.ip4
	case layers.LayerTypeIPv6:
		return &c.ip6
	case layers.LayerTypeUDP:
		return &c.udp
	case roce.LayerTypeBTH:
		return &c.bth
	case pfc.LayerTypePFC:
		return &c.pfc
	}
	return &c.payload
}

// checkIP checks the IPv4 checksum and the IP and UDP lengths, then the
// ICRC, which covers them.
func (c *Checker) checkIP(frame []byte) {
	var ipLen, ipHeader, start int
	switch {
	case c.has(layers.LayerTypeIPv4):
		ipLen, ipHeader, start = int(c.ip4.Length), len(c.ip4.Contents), offsetIn(frame, c.ip4.Contents)
		c.checkIPv4Checksum()
	case c.has(layers.LayerTypeIPv6):
		ipLen, ipHeader, start = ipv6HeaderLen+int(c.ip6.Length), ipv6HeaderLen+c.chain.n, offsetIn(frame, c.ip6.Contents)
	default:
		return
	}
	if present := len(frame) - start; present < ipLen {
		c.add(CodeIPLength, "IP length %d but only %d bytes of IP packet in the frame", ipLen, present)
		return
	}
	if ipLen < ipHeader {
		c.add(CodeIPLength, "IP length %d is shorter than its %d bytes of headers", ipLen, ipHeader)
		return
	}
	end := start + ipLen
	// Bytes after the IP packet are Ethernet padding up to 60 bytes; more
	// than that means the IP length is wrong.
	if len(frame) > end && len(frame) > 60 {
		c.add(CodeIPLength, "IP length %d leaves %d bytes of the frame unaccounted for", ipLen, len(frame)-end)
	}
	if c.has(layers.LayerTypeUDP) && int(c.udp.Length) != ipLen-ipHeader {
		c.add(CodeUDPLength, "UDP length %d, but the IP packet leaves %d bytes for UDP", c.udp.Length, ipLen-ipHeader)
	}
	if !c.has(roce.LayerTypeBTH) {
		return
	}
	if c.chain.n > 0 {
		// Linux rxe (rxe_icrc_hdr) computes the ICRC over an IPv6 header
		// followed by UDP, and scapy not at all for IPv6; routers may
		// rewrite Routing and Hop-by-Hop headers (RFC 8200 4.2, 4.4), which
		// an invariant CRC cannot cover unmasked. No rule, no verdict.
		c.note(UncheckedICRC, "%s precede UDP; the RoCEv2 ICRC is defined for an IPv6 header followed directly by UDP", c.chain.describe())
		return
	}
	ok, got, want, err := roce.VerifyICRC(frame[start:end])
	switch {
	case err != nil:
		c.add(CodeICRC, "cannot compute the ICRC: %v", err)
	case !ok:
		c.add(CodeICRC, "ICRC %#08x, want %#08x", got, want)
	}
}

func (c *Checker) checkIPv4Checksum() {
	if checksum.Checksum(c.ip4.Contents) != 0 {
		c.add(CodeIPv4Checksum, "IPv4 header checksum %#04x does not verify", c.ip4.Checksum)
	}
}

// checkBTH checks the BTH and the payload rules of its opcode
// (IBA 9.2 and 9.7.4).
func (c *Checker) checkBTH() {
	b := &c.bth
	if b.TVer != 0 {
		c.add(CodeTVer, "BTH TVer %d, must be 0", b.TVer)
	}
	if !b.OpCode.Known() {
		c.add(CodeUnknownOpCode, "opcode %#02x is not a RoCEv2 opcode this checker knows", uint8(b.OpCode))
		return
	}
	n := len(b.Payload)
	after := n + len(b.Pad) // bytes between the headers and the ICRC
	if len(b.Pad) < int(b.PadCnt) {
		c.add(CodePadCount, "PadCnt %d but only %d bytes follow the headers", b.PadCnt, after)
	} else if after%4 != 0 {
		c.add(CodePadCount, "PadCnt %d with %d payload bytes: payload and pad must fill whole 4-byte words", b.PadCnt, n)
	}
	const maxPMTU = 4096
	name := b.OpCode // formatted only when a problem is reported
	switch b.OpCode.Payload() {
	case roce.PayloadNone:
		if after != 0 {
			c.add(CodePayloadLength, "%s carries no payload, found %d bytes", name, after)
		}
	case roce.PayloadFull:
		if b.PadCnt != 0 {
			c.add(CodePadCount, "%s carries a full path MTU, PadCnt must be 0, is %d", name, b.PadCnt)
		}
		switch n {
		case 256, 512, 1024, 2048, 4096:
		default:
			c.add(CodePayloadLength, "%s carries %d bytes; FIRST and MIDDLE packets carry exactly one path MTU (256, 512, 1024, 2048 or 4096)", name, n)
		}
	case roce.PayloadLast:
		if n < 1 || n > maxPMTU {
			c.add(CodePayloadLength, "%s carries %d bytes; LAST packets carry 1 to 4096", name, n)
		}
	case roce.PayloadOnly:
		if n > maxPMTU {
			c.add(CodePayloadLength, "%s carries %d bytes; ONLY packets carry at most 4096", name, n)
		}
	}
}

// IPv4Checksum returns the header checksum to write into h, whose checksum
// field must be zero (RFC 791, RFC 1071); over a header whose checksum is
// in place it is 0 when the checksum verifies.
func IPv4Checksum(h []byte) uint16 { return checksum.Checksum(h) }
