package testbench

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/checksum"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/scoreboard"
)

// Match decides whether a frame that came is the one an expectation
// wants. Exact, NewMask, Ignoring, Where, OneOf and Any make them; a test
// may write its own.
type Match interface {
	// Match reports whether got is wanted and, when not, the fields
	// that differ, for the report (none for a predicate).
	Match(got []byte) (ok bool, diffs []scoreboard.FieldDiff)
	// Want is the frame a report shows beside the one that came; nil
	// when there is none (a predicate).
	Want() []byte
	// String names what is wanted in messages.
	String() string
}

// Exact wants exactly frame, byte for byte.
func Exact(frame []byte) Match { return exact{bytes.Clone(frame)} }

type exact struct{ want []byte }

func (e exact) Match(got []byte) (bool, []scoreboard.FieldDiff) {
	if bytes.Equal(e.want, got) {
		return true, nil
	}
	return false, scoreboard.Diff(e.want, got)
}

func (e exact) Want() []byte   { return e.want }
func (e exact) String() string { return fmt.Sprintf("exact %d B", len(e.want)) }

// Any wants any frame at all.
func Any() Match { return where{"any frame", func([]byte) bool { return true }} }

// Where wants a frame for which pred holds; desc names it in messages.
func Where(desc string, pred func(frame []byte) bool) Match { return where{desc, pred} }

type where struct {
	desc string
	pred func([]byte) bool
}

func (w where) Match(got []byte) (bool, []scoreboard.FieldDiff) {
	if w.pred(got) {
		return true, nil
	}
	return false, []scoreboard.FieldDiff{{Field: "predicate", Want: w.desc, Got: "false"}}
}

func (w where) Want() []byte   { return nil }
func (w where) String() string { return w.desc }

// OneOf wants a frame any of ms wants (PTF users' "accept any of these
// packets"). A report lists each alternative's differences.
func OneOf(ms ...Match) Match { return oneOf(ms) }

type oneOf []Match

func (o oneOf) Match(got []byte) (bool, []scoreboard.FieldDiff) {
	var all []scoreboard.FieldDiff
	for i, m := range o {
		ok, diffs := m.Match(got)
		if ok {
			return true, nil
		}
		for _, d := range diffs {
			d.Field = fmt.Sprintf("alternative %d: %s", i+1, d.Field)
			all = append(all, d)
		}
	}
	return false, all
}

func (o oneOf) Want() []byte {
	if len(o) == 0 {
		return nil
	}
	return o[0].Want()
}

func (o oneOf) String() string {
	s := make([]string, len(o))
	for i, m := range o {
		s[i] = m.String()
	}
	return "one of [" + strings.Join(s, "; ") + "]"
}

func (o oneOf) err() error {
	var errs []error
	for _, m := range o {
		errs = append(errs, matchErr(m))
	}
	return errors.Join(errs...)
}

// matchErr is what is wrong with a Match as built (a field the frame
// lacks), nil when nothing is.
func matchErr(m Match) error {
	if e, ok := m.(interface{ err() error }); ok {
		return e.err()
	}
	if m == nil {
		return errors.New("no Match")
	}
	return nil
}

// Field is a header field an expectation may leave out of the comparison
// (Mask.Ignore): bits Bit..Bit+Bits-1 of a layer, counted from the
// layer's first byte, most significant bit first (as on the wire).
type Field struct {
	Layer gopacket.LayerType
	Name  string
	Bit   int
	Bits  int
	// check, when set, still holds the field to a rule of its own in the
	// frame that came (a checksum must still be right for it); locate,
	// when set, finds a field at no fixed place in a layer.
	check  func(frame []byte) error
	locate func(frame []byte) (bit int, err error)
}

func (f Field) String() string { return f.Layer.String() + "." + f.Name }

// Fields that a device may change on the way and a test may leave out. A
// checksum left out is not compared with the wanted frame's, but must be
// right for the frame that came: it is recomputed.
var (
	IPv4TOS      = Field{Layer: layers.LayerTypeIPv4, Name: "TOS", Bit: 8, Bits: 8}
	IPv4ECN      = Field{Layer: layers.LayerTypeIPv4, Name: "ECN", Bit: 14, Bits: 2} // RFC 3168: the TOS byte's low 2 bits
	IPv4ID       = Field{Layer: layers.LayerTypeIPv4, Name: "Id", Bit: 32, Bits: 16}
	IPv4TTL      = Field{Layer: layers.LayerTypeIPv4, Name: "TTL", Bit: 64, Bits: 8}
	IPv4Checksum = Field{Layer: layers.LayerTypeIPv4, Name: "Checksum", Bit: 80, Bits: 16, check: ipv4ChecksumRight}
	IPv6HopLimit = Field{Layer: layers.LayerTypeIPv6, Name: "HopLimit", Bit: 56, Bits: 8}
	IPv6Flow     = Field{Layer: layers.LayerTypeIPv6, Name: "FlowLabel", Bit: 12, Bits: 20}
	UDPSrcPort   = Field{Layer: layers.LayerTypeUDP, Name: "SrcPort", Bit: 0, Bits: 16}
	// UDPChecksum is not recomputed: RoCEv2 sends 0 (IBTA Annex A17),
	// and the ICRC covers what it would.
	UDPChecksum = Field{Layer: layers.LayerTypeUDP, Name: "Checksum", Bit: 48, Bits: 16}
	BTHPSN      = Field{Layer: roce.LayerTypeBTH, Name: "PSN", Bit: 72, Bits: 24}
	BTHFECNBECN = Field{Layer: roce.LayerTypeBTH, Name: "FECN/BECN", Bit: 32, Bits: 2}
	// ICRC is the RoCEv2 invariant CRC, the IP packet's last 4 bytes: it
	// must be right for the frame that came.
	ICRC = Field{Layer: roce.LayerTypeBTH, Name: "ICRC", Bits: 32, check: icrcRight, locate: icrcBit}
)

// Mask wants a frame equal to a given one except in the bits it leaves
// out, as PTF's Mask does (ptf/mask.py: set_do_not_care_packet,
// set_do_not_care). NewMask makes one that compares every bit.
type Mask struct {
	want   []byte
	care   []byte // 1 bits are compared
	fields []Field
	errs   []error
}

// NewMask wants frame, every bit compared until the methods leave some out.
func NewMask(frame []byte) *Mask {
	m := &Mask{want: bytes.Clone(frame), care: bytes.Repeat([]byte{0xFF}, len(frame))}
	return m
}

// Masked wants frame in the bits set in mask (a byte for each of frame's;
// 1 bits are compared).
func Masked(frame, mask []byte) *Mask {
	m := NewMask(frame)
	if len(mask) != len(frame) {
		m.errs = append(m.errs, fmt.Errorf("Masked: the mask has %d bytes, the frame %d", len(mask), len(frame)))
		return m
	}
	copy(m.care, mask)
	return m
}

// Ignoring wants frame in every field but those named.
func Ignoring(frame []byte, fields ...Field) *Mask { return NewMask(frame).Ignore(fields...) }

// Ignore leaves fields out of the comparison, each found in the wanted
// frame's layers.
func (m *Mask) Ignore(fields ...Field) *Mask {
	for _, f := range fields {
		bit, err := fieldBit(m.want, f)
		if err != nil {
			m.errs = append(m.errs, fmt.Errorf("Ignore(%s): %w", f, err))
			continue
		}
		m.IgnoreBits(bit, f.Bits)
		m.fields = append(m.fields, f)
	}
	return m
}

// IgnoreBytes leaves bytes off..off+n-1 of the frame out.
func (m *Mask) IgnoreBytes(off, n int) *Mask { return m.IgnoreBits(8*off, 8*n) }

// IgnoreBits leaves bits bit..bit+n-1 of the frame out, counted from the
// first byte's most significant bit (PTF's set_do_not_care).
func (m *Mask) IgnoreBits(bit, n int) *Mask {
	if bit < 0 || n < 0 || bit+n > 8*len(m.want) {
		m.errs = append(m.errs, fmt.Errorf("IgnoreBits(%d, %d): the frame has %d bits", bit, n, 8*len(m.want)))
		return m
	}
	for i := bit; i < bit+n; i++ {
		m.care[i/8] &^= 0x80 >> (i % 8)
	}
	return m
}

func (m *Mask) err() error { return errors.Join(m.errs...) }

func (m *Mask) Want() []byte { return m.want }

func (m *Mask) String() string {
	if len(m.fields) == 0 {
		return fmt.Sprintf("masked %d B", len(m.want))
	}
	names := make([]string, len(m.fields))
	for i, f := range m.fields {
		names[i] = f.String()
	}
	return fmt.Sprintf("%d B but %s", len(m.want), strings.Join(names, ", "))
}

// Match compares the bits the mask keeps, then holds every checksum left
// out to its rule in got. The differences are the decoded fields of the
// wanted frame with got's bits where the mask leaves them out, against got.
func (m *Mask) Match(got []byte) (bool, []scoreboard.FieldDiff) {
	ok := len(got) == len(m.want)
	if ok {
		for i := range got {
			if (got[i]^m.want[i])&m.care[i] != 0 {
				ok = false
				break
			}
		}
	}
	var diffs []scoreboard.FieldDiff
	if !ok {
		w := bytes.Clone(m.want)
		for i := range min(len(w), len(got)) {
			w[i] = w[i]&m.care[i] | got[i]&^m.care[i]
		}
		diffs = scoreboard.Diff(w, got)
	}
	for _, f := range m.fields {
		if f.check == nil {
			continue
		}
		if err := f.check(got); err != nil {
			ok = false
			diffs = append(diffs, scoreboard.FieldDiff{Field: f.String(), Want: "right for the frame that came", Got: err.Error()})
		}
	}
	return ok, diffs
}

// fieldBit finds where a field starts in frame, in bits.
func fieldBit(frame []byte, f Field) (int, error) {
	if f.locate != nil {
		return f.locate(frame)
	}
	off, err := layerOffset(frame, f.Layer)
	if err != nil {
		return 0, err
	}
	return 8*off + f.Bit, nil
}

// layerOffset is where a layer starts in an Ethernet frame, decoded with
// the golden codecs.
func layerOffset(frame []byte, t gopacket.LayerType) (int, error) {
	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.NoCopy)
	off := 0
	for _, l := range p.Layers() {
		if l.LayerType() == t {
			return off, nil
		}
		off += len(l.LayerContents())
	}
	return 0, fmt.Errorf("the frame has no %s layer", t)
}

func ipv4ChecksumRight(frame []byte) error {
	off, err := layerOffset(frame, layers.LayerTypeIPv4)
	if err != nil {
		return err
	}
	ihl := int(frame[off]&0x0F) * 4
	if ihl < 20 || off+ihl > len(frame) {
		return fmt.Errorf("IHL %d", ihl/4)
	}
	if c := checksum.Checksum(frame[off : off+ihl]); c != 0 {
		h := bytes.Clone(frame[off : off+ihl])
		h[10], h[11] = 0, 0
		return fmt.Errorf("%#04x, should be %#04x", binary.BigEndian.Uint16(frame[off+10:]), checksum.Checksum(h))
	}
	return nil
}

func icrcBit(frame []byte) (int, error) {
	_, end, err := roce.IPPacket(frame)
	if err != nil {
		return 0, err
	}
	if _, err := layerOffset(frame, roce.LayerTypeBTH); err != nil {
		return 0, err
	}
	return 8 * (end - roce.ICRCLen), nil
}

func icrcRight(frame []byte) error {
	start, end, err := roce.IPPacket(frame)
	if err != nil {
		return err
	}
	ok, got, want, err := roce.VerifyICRC(frame[start:end])
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%#08x, should be %#08x", got, want)
	}
	return nil
}
