package pcapio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"

	"github.com/rocesim/cosim/harness/inputfile"
	"github.com/rocesim/cosim/harness/internal/slab"
)

// Format is the container format of a capture file.
type Format int

// Container formats recognised by Open.
const (
	FormatPcap   Format = iota + 1 // classic libpcap format
	FormatPcapNG                   // pcapng
)

// String returns "pcap" or "pcapng".
func (f Format) String() string {
	switch f {
	case FormatPcap:
		return "pcap"
	case FormatPcapNG:
		return "pcapng"
	default:
		return "Format(" + strconv.Itoa(int(f)) + ")"
	}
}

// Packet is one captured frame.
type Packet struct {
	// Index is the 1-based position of the packet in the file.
	Index int
	// Data holds the captured bytes. They are the caller's: no other
	// packet shares them, and the caller may keep or modify them.
	Data []byte
	// Timestamp is the capture time in UTC. For files written by
	// LinkWriter it is cycle × clock period since the Unix epoch.
	Timestamp time.Time
	// CaptureLength is len(Data); OriginalLength is the length of the frame
	// on the wire. CaptureLength < OriginalLength means the capture was
	// snapped (see Truncated).
	CaptureLength  int
	OriginalLength int
	// LinkType is the link type of the packet's interface; always
	// layers.LinkTypeEthernet for packets returned without error.
	LinkType layers.LinkType
	// Interface is the pcapng interface id within its section (0 for
	// classic pcap); InterfaceName is that interface's if_name option, if
	// any (for LinkWriter files, the link name).
	Interface     int
	InterfaceName string
	// Comment holds the pcapng packet comments joined by "\n"; empty for
	// classic pcap or when the packet has none.
	Comment string
	// Cycle is the simulation cycle parsed from a "cycle=N" packet comment,
	// as written by LinkWriter; HasCycle reports whether one was present.
	Cycle    uint64
	HasCycle bool
}

// Truncated reports whether fewer bytes were captured than were on the wire.
func (p *Packet) Truncated() bool { return p.CaptureLength < p.OriginalLength }

// Reader reads packets from a pcap or pcapng file. It is not safe for
// concurrent use.
type Reader struct {
	path   string
	f      *os.File
	size   int64
	format Format

	// classic pcap (classic.go)
	pcap  *classic
	order binary.ByteOrder

	// pcapng
	ng *pcapgo.NgReader

	n   int   // packets returned so far
	err error // sticky error, io.EOF at the end

	slab slab.Slab // packet data is cut from it: one allocation for many small packets
}

var errReaderClosed = errors.New("pcapio: reader is closed")

const pcapFileHeaderLen, pcapRecordHeaderLen = 24, 16

// Open opens a capture file and reads its header. The format is detected
// from the magic number: classic pcap (0xa1b2c3d4 or 0xa1b23c4d, either
// byte order) or pcapng (0x0a0d0d0a).
//
// A file that cannot be opened, or is not a regular file (a FIFO would
// block), yields an *fs.PathError; a file whose contents are not a
// readable Ethernet capture yields a *FormatError.
func Open(path string) (*Reader, error) {
	f, err := inputfile.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := newReader(path, f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func newReader(path string, f *os.File) (*Reader, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("is a directory, not a capture file")}
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: errors.New("not a regular file")}
	}
	r := &Reader{path: path, f: f, size: st.Size()}
	if r.size == 0 {
		return nil, r.formatErr("empty file, no capture header", nil)
	}
	if r.size < 4 {
		return nil, r.formatErr(fmt.Sprintf("truncated header (file has only %d bytes)", r.size), io.ErrUnexpectedEOF)
	}
	var m [4]byte
	if _, err := f.ReadAt(m[:], 0); err != nil {
		return nil, err
	}
	switch magic := binary.BigEndian.Uint32(m[:]); magic {
	case 0xA1B2C3D4, 0xA1B23C4D:
		r.format, r.order = FormatPcap, binary.BigEndian
	case 0xD4C3B2A1, 0x4D3CB2A1:
		r.format, r.order = FormatPcap, binary.LittleEndian
	case ngBlockSection:
		r.format = FormatPcapNG
	default:
		reason := fmt.Sprintf("not a pcap or pcapng file (magic 0x%08x)", magic)
		if m[0] == 0x1f && m[1] == 0x8b {
			reason += "; it looks gzip-compressed, decompress it first"
		}
		return nil, r.formatErr(reason, nil)
	}
	if r.format == FormatPcap {
		return r, r.openPcap()
	}
	return r, r.openNg()
}

func (r *Reader) openNg() error {
	// Check the framing and the interfaces up to the first packet; pcapgo
	// reads no interface before the first packet when mixed link types are
	// allowed, and its own errors are terse.
	sc, err := scanNg(r.f, r.size, true)
	if err != nil {
		return err
	}
	if sc.defect != "" {
		return r.formatErr(sc.defect, sc.err())
	}
	for i, lt := range sc.ifaces {
		if lt != layers.LinkTypeEthernet {
			return r.formatErr(fmt.Sprintf("interface %d: %s", i, unsupportedLinkType(lt)), nil)
		}
	}
	// WantMixedLinkType makes pcapgo report every packet with its own
	// interface's link type instead of silently dropping packets whose
	// interface differs from the first one; Next rejects non-Ethernet ones.
	ng, err := pcapgo.NewNgReader(r.f, pcapgo.NgReaderOptions{WantMixedLinkType: true})
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return err
		}
		return r.formatErr("invalid pcapng section header", err)
	}
	r.ng = ng
	return nil
}

// Path returns the path given to Open.
func (r *Reader) Path() string { return r.path }

// Format reports whether the file is classic pcap or pcapng.
func (r *Reader) Format() Format { return r.format }

// Next returns the next packet. At the clean end of the file it returns
// io.EOF. Any other error means the rest of the file cannot be read: a
// *FormatError (truncated or malformed record, unsupported link type) or an
// I/O error. Once Next has returned an error it keeps returning it.
func (r *Reader) Next() (Packet, error) {
	if r.err != nil {
		return Packet{}, r.err
	}
	var (
		p   Packet
		err error
	)
	if r.pcap != nil {
		p, err = r.nextPcap()
	} else {
		p, err = r.nextNg()
	}
	if err != nil {
		r.err = err
		return Packet{}, err
	}
	r.n = p.Index
	return p, nil
}

func (r *Reader) nextNg() (Packet, error) {
	data, ci, opts, err := r.ng.ZeroCopyReadPacketDataWithOptions()
	if err != nil {
		if err == io.EOF { // pcapgo returns io.EOF only at a block boundary
			return Packet{}, io.EOF
		}
		return Packet{}, r.ngRecordErr(err)
	}
	idx := r.n + 1
	lt := layers.LinkTypeEthernet
	if len(ci.AncillaryData) > 0 {
		if l, ok := ci.AncillaryData[0].(layers.LinkType); ok {
			lt = l
		}
	}
	if lt != layers.LinkTypeEthernet {
		return Packet{}, r.formatErr(fmt.Sprintf("packet %d: interface %d: %s", idx, ci.InterfaceIndex, unsupportedLinkType(lt)), nil)
	}
	p := Packet{
		Index:          idx,
		Data:           r.slab.Copy(data),
		Timestamp:      ci.Timestamp,
		CaptureLength:  ci.CaptureLength,
		OriginalLength: ci.Length,
		LinkType:       lt,
		Interface:      ci.InterfaceIndex,
		Comment:        strings.Join(opts.Comments, "\n"),
	}
	if intf, err := r.ng.Interface(ci.InterfaceIndex); err == nil {
		p.InterfaceName = intf.Name
	}
	p.Cycle, p.HasCycle = parseCycle(opts.Comments)
	return p, nil
}

// ngRecordErr explains a failure reported by pcapgo after r.n packets by
// re-walking the block structure of the file.
func (r *Reader) ngRecordErr(err error) error {
	idx := r.n + 1
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("reading packet %d: %w", idx, err)
	}
	if sc, serr := scanNg(r.f, r.size, false); serr == nil && sc.defect != "" && sc.packets == r.n {
		return r.formatErr(sc.defect, sc.err())
	}
	if err == io.ErrUnexpectedEOF {
		return r.formatErr(fmt.Sprintf("packet %d: truncated record", idx), err)
	}
	return r.formatErr(fmt.Sprintf("packet %d: malformed record", idx), err)
}

// parseCycle finds a "cycle=N" comment.
func parseCycle(comments []string) (uint64, bool) {
	for _, c := range comments {
		if v, ok := strings.CutPrefix(c, cycleCommentPrefix); ok {
			if n, err := strconv.ParseUint(v, 10, 64); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

// Close closes the file. Further calls to Next return an error; calling
// Close again returns nil.
func (r *Reader) Close() error {
	if r.f == nil {
		return nil
	}
	err := r.f.Close()
	r.f = nil
	if r.err == nil {
		r.err = errReaderClosed
	}
	return err
}

// ReadAll reads every packet of the file at path. On error it returns the
// packets read before the error together with the error.
func ReadAll(path string) ([]Packet, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var pkts []Packet
	for {
		p, err := r.Next()
		if err == io.EOF {
			return pkts, nil
		}
		if err != nil {
			return pkts, err
		}
		pkts = append(pkts, p)
	}
}

func (r *Reader) formatErr(reason string, err error) *FormatError {
	return &FormatError{Path: r.path, Reason: reason, Err: err}
}
