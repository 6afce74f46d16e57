package pcapio

import (
	"fmt"
	"io"
	"strings"

	"github.com/gopacket/gopacket/layers"
)

// FormatError reports a capture file whose contents cannot be read: an
// empty file, an unknown magic number, a truncated header or record, a
// malformed block, or an unsupported link type.
//
// Reason is a short human-readable description; when the problem concerns
// one packet it starts with "packet N: " (N is 1-based). Err, if not nil,
// is the underlying error (often from pcapgo). Truncation reasons carry
// io.ErrUnexpectedEOF in Err, which Error does not repeat.
type FormatError struct {
	Path   string
	Reason string
	Err    error
}

// Error returns "PATH: REASON" followed by ": ERR" when Err adds information,
// e.g. "capture.pcap: not a pcap or pcapng file (magic 0x47415242)".
func (e *FormatError) Error() string {
	var b strings.Builder
	if e.Path != "" {
		b.WriteString(e.Path)
		b.WriteString(": ")
	}
	b.WriteString(e.Reason)
	if e.Err != nil && e.Err != io.ErrUnexpectedEOF {
		b.WriteString(": ")
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns Err.
func (e *FormatError) Unwrap() error { return e.Err }

// linkTypeNames holds the tcpdump LINKTYPE_ names of link types likely to
// show up by mistake; others fall back to gopacket's name.
var linkTypeNames = map[layers.LinkType]string{
	0:   "NULL",
	1:   "ETHERNET",
	101: "RAW",
	105: "IEEE802_11",
	113: "LINUX_SLL",
	127: "IEEE802_11_RADIOTAP",
	228: "IPV4",
	229: "IPV6",
	276: "LINUX_SLL2",
}

// LinkTypeName returns a short name for a link type, e.g. "IEEE802_11" for
// 105 or "USER0" for 147, or "unknown".
func LinkTypeName(lt layers.LinkType) string {
	if n, ok := linkTypeNames[lt]; ok {
		return n
	}
	if lt >= 147 && lt <= 162 {
		return fmt.Sprintf("USER%d", lt-147)
	}
	if s := lt.String(); s != "" && s != "UnknownLinkType" {
		return s
	}
	return "unknown"
}

func unsupportedLinkType(lt layers.LinkType) string {
	return fmt.Sprintf("unsupported link type %d (%s); only Ethernet (%d) is supported",
		uint32(lt), LinkTypeName(lt), uint32(layers.LinkTypeEthernet))
}
