package behaviour

// Reports for runners: frames decoded field by field with gopacket, so a
// failure says which header field differs, not only which byte.

import (
	"bytes"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

// DiffFrames compares the frames a subject sent with the ones wanted, in
// order, and returns "" when they are the same, else a report that starts
// with where and lists every frame: ok, missing, extra, or differing field
// by field with the first differing byte.
func DiffFrames(where string, got, want [][]byte) string {
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = bytes.Equal(got[i], want[i])
	}
	if same {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: sent %d frames, want %d", where, len(got), len(want))
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			fmt.Fprintf(&b, "\n  frame %d missing: want %s", i, Summary(want[i]))
		case i >= len(want):
			fmt.Fprintf(&b, "\n  frame %d extra:   got  %s", i, Summary(got[i]))
		case bytes.Equal(got[i], want[i]):
			fmt.Fprintf(&b, "\n  frame %d ok:      %s", i, Summary(got[i]))
		default:
			fmt.Fprintf(&b, "\n  frame %d differs:\n    got  %s\n    want %s", i, Summary(got[i]), Summary(want[i]))
			g, w := fields(got[i]), fields(want[i])
			for _, f := range w {
				if gv, ok := lookup(g, f.name); gv != f.value {
					if !ok {
						gv = "(absent)"
					}
					fmt.Fprintf(&b, "\n      %-14s got %s, want %s", f.name, gv, f.value)
				}
			}
			for _, f := range g {
				if _, ok := lookup(w, f.name); !ok {
					fmt.Fprintf(&b, "\n      %-14s got %s, want (absent)", f.name, f.value)
				}
			}
			if j := FirstDiff(got[i], want[i]); j >= 0 {
				fmt.Fprintf(&b, "\n      first differing byte at offset %d", j)
			}
		}
	}
	return b.String()
}

// List prints one completion or event (any value) a line, for reports.
func List[E any](l []E) string {
	if len(l) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  %+v", e)
	}
	return b.String()
}

// FirstDiff returns the first offset where a and b differ, or -1.
func FirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// Summary is a one-line decode of a frame.
func Summary(frame []byte) string {
	fs := fields(frame)
	v := func(name string) string { s, _ := lookup(fs, name); return s }
	op := v("bth.opcode")
	if op == "" {
		return fmt.Sprintf("undecodable %d-byte frame %x", len(frame), frame)
	}
	s := fmt.Sprintf("%s psn=%s qp=%s", op, v("bth.psn"), v("bth.destqp"))
	if v("bth.ackreq") == "true" {
		s += " ackreq"
	}
	if v("bth.becn") == "true" {
		s += " becn"
	}
	if _, ok := lookup(fs, "reth.va"); ok {
		s += fmt.Sprintf(" reth(va=%s rkey=%s len=%s)", v("reth.va"), v("reth.rkey"), v("reth.dmalen"))
	}
	if _, ok := lookup(fs, "aeth.syndrome"); ok {
		s += fmt.Sprintf(" aeth(%s msn=%s)", v("aeth.syndrome"), v("aeth.msn"))
	}
	if _, ok := lookup(fs, "immdt"); ok {
		s += " imm=" + v("immdt")
	}
	return s + fmt.Sprintf(" payload %s, tos %s, %d bytes", v("payload"), v("ip.tos"), len(frame))
}

type field struct{ name, value string }

func lookup(fs []field, name string) (string, bool) {
	for _, f := range fs {
		if f.name == name {
			return f.value, true
		}
	}
	return "", false
}

// fields decodes a frame with gopacket into named fields.
func fields(frame []byte) []field {
	var fs []field
	add := func(name, format string, v ...any) { fs = append(fs, field{name, fmt.Sprintf(format, v...)}) }
	add("frame.len", "%d", len(frame))
	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	if e, ok := p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); ok {
		add("eth.dst", "%v", e.DstMAC)
		add("eth.src", "%v", e.SrcMAC)
		add("eth.type", "%v", e.EthernetType)
	}
	if ip, ok := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
		add("ip.tos", "%#02x", ip.TOS)
		add("ip.len", "%d", ip.Length)
		add("ip.id", "%d", ip.Id)
		add("ip.flags", "%v", ip.Flags)
		add("ip.ttl", "%d", ip.TTL)
		add("ip.checksum", "%#04x", ip.Checksum)
		add("ip.src", "%v", ip.SrcIP)
		add("ip.dst", "%v", ip.DstIP)
	}
	if u, ok := p.Layer(layers.LayerTypeUDP).(*layers.UDP); ok {
		add("udp.sport", "%d", u.SrcPort)
		add("udp.dport", "%d", u.DstPort)
		add("udp.len", "%d", u.Length)
		add("udp.checksum", "%#04x", u.Checksum)
	}
	if b, ok := p.Layer(roce.LayerTypeBTH).(*roce.BTH); ok {
		add("bth.opcode", "%v", b.OpCode)
		add("bth.se", "%v", b.SolicitedEvent)
		add("bth.migreq", "%v", b.MigReq)
		add("bth.padcnt", "%d", b.PadCnt)
		add("bth.tver", "%d", b.TVer)
		add("bth.pkey", "%#04x", b.PKey)
		add("bth.fecn", "%v", b.FECN)
		add("bth.becn", "%v", b.BECN)
		add("bth.resv6", "%#x", b.Resv6)
		add("bth.destqp", "%v", b.DestQP)
		add("bth.ackreq", "%v", b.AckReq)
		add("bth.resv7", "%#x", b.Resv7)
		add("bth.psn", "%v", b.PSN)
		h := b.OpCode.Headers()
		if h&roce.HasRETH != 0 {
			add("reth.va", "%#x", b.RETH.VA)
			add("reth.rkey", "%#08x", b.RETH.RKey)
			add("reth.dmalen", "%d", b.RETH.DMALen)
		}
		if h&roce.HasAETH != 0 {
			add("aeth.syndrome", "%v", b.AETH.Syndrome)
			add("aeth.msn", "%d", b.AETH.MSN)
		}
		if h&roce.HasImmDt != 0 {
			add("immdt", "%#08x", b.ImmDt.Imm)
		}
		if h&roce.HasCNP != 0 {
			add("cnp.reserved", "%x", b.CNP.Reserved)
		}
		add("payload", "%d bytes, crc32 %08x", len(b.Payload), crc32.ChecksumIEEE(b.Payload))
		add("pad", "%x", b.Pad)
		add("icrc", "%#08x", b.ICRC.Value)
	}
	if el := p.ErrorLayer(); el != nil {
		add("decode.error", "%v", el.Error())
	}
	return fs
}

// DiffPlanner compares what n plans with what Expect step s wants: its
// next event (the case's cycle plus offset, which maps case cycles to the
// subject's) and the QP's DCQCN rate. It returns "" when they agree, else
// one line per difference, each starting with where.
func DiffPlanner(where string, n *rc.Node, s Step, offset uint64) string {
	var d []string
	ne, ok := n.NextEvent()
	switch s.Next {
	case NextAt:
		if want := s.NextAt + offset; !ok || ne != want {
			d = append(d, fmt.Sprintf("%s: NextEvent = %d, %v; want %d, true (case cycle %d)", where, ne, ok, want, s.NextAt))
		}
	case NextNone:
		if ok {
			d = append(d, fmt.Sprintf("%s: NextEvent = %d, true; want nothing pending", where, ne))
		}
	}
	if s.Rate != 0 {
		if got := dcqcn.Rate(n.Rate(QPN)); got != s.Rate {
			d = append(d, fmt.Sprintf("%s: rate %d (%v), want %d (%v)", where, got, got, s.Rate, s.Rate))
		}
	}
	return strings.Join(d, "\n")
}
