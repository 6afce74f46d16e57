package pcapio

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"strconv"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
)

// DefaultClockPeriodPS is the default simulation clock period in
// picoseconds: 6.4 ns, one cycle of a 156.25 MHz clock.
const DefaultClockPeriodPS = 6400

// DefaultApplication is the pcapng shb_userappl value written by default.
const DefaultApplication = "cosim"

// cycleCommentPrefix starts the packet comment that carries the cycle.
const cycleCommentPrefix = "cycle="

// maxOptionLen is the largest pcapng option value (16-bit length field).
const maxOptionLen = math.MaxUint16

// LinkWriterOptions configures a LinkWriter. The zero value gives the
// defaults.
type LinkWriterOptions struct {
	// ClockPeriodPS is the simulation clock period in picoseconds used to
	// turn cycles into timestamps; 0 means DefaultClockPeriodPS.
	ClockPeriodPS uint64
	// Application is written as the section's shb_userappl option; ""
	// means DefaultApplication.
	Application string
	// SectionComment, if not empty, is written as the section's comment.
	SectionComment string
}

// LinkWriter writes a pcapng file with link type Ethernet and one interface
// per simulated link. Every frame is written with timestamp
// cycle × ClockPeriodPS (rounded down to a nanosecond, counted from the Unix
// epoch) and the packet comment "cycle=N".
//
// Output is buffered: call Flush to push written frames to the underlying
// writer, and Close when done. The output depends only on the options, the
// link names and the frames, never on the host or the wall clock.
// A LinkWriter is not safe for concurrent use.
//
// The blocks are built here, straight into one reused buffer, rather than
// through gopacket's pcapgo.NgWriter: that writer costs an allocation per
// option per frame and a 4 KiB buffer (a system call every few dozen small
// frames), which showed as a quarter of the harness's time per frame. The
// bytes are the same as pcapgo's (writer_test.go compares them).
type LinkWriter struct {
	w        io.Writer
	buf      []byte // blocks not yet written to w
	file     output // owned file (CreateLinkFile), closed by Close
	lender   lender // file, when it lends its buffer (direct_linux.go)
	periodPS uint64
	links    int
	closed   bool
	err      error // the first write error; every later call returns it
	digits   cycleDigits
}

// cycleDigits formats the cycle comments' numbers. Frames come in nearly
// cycle order, so most differ from the one before in the last two digits
// only: it patches those and formats the whole number otherwise, which
// cost a third of a small frame's capture.
type cycleDigits struct {
	cycle uint64
	buf   [20]byte
	n     int // digits in buf; 0 before the first number
}

// twoDigits holds "00" to "99".
const twoDigits = "00010203040506070809" + "10111213141516171819" + "20212223242526272829" +
	"30313233343536373839" + "40414243444546474849" + "50515253545556575859" +
	"60616263646566676869" + "70717273747576777879" + "80818283848586878889" + "90919293949596979899"

// format returns cycle in decimal, valid until the next call.
func (d *cycleDigits) format(cycle uint64) []byte {
	if d.n == 0 || cycle < 100 || cycle/100 != d.cycle/100 {
		d.n = len(strconv.AppendUint(d.buf[:0], cycle, 10))
	} else {
		r := cycle % 100
		copy(d.buf[d.n-2:d.n], twoDigits[2*r:2*r+2])
	}
	d.cycle = cycle
	return d.buf[:d.n]
}

// flushAt is how much output LinkWriter gathers before one Write: big
// enough that small frames cost a system call per thousands of frames.
const flushAt = 256 << 10

// pcapng block types, option codes and constants (draft-ietf-opsawg-pcapng).
const (
	blockSHB      = 0x0A0D0D0A
	blockIDB      = 1
	blockEPB      = 6
	byteOrder     = 0x1A2B3C4D
	optEnd        = 0
	optComment    = 1
	optUserAppl   = 4 // shb_userappl
	optIfName     = 2 // if_name
	optIfTSResol  = 9 // if_tsresol
	tsResolNanos  = 9 // if_tsresol value: 10^-9 s
	linkEthernet  = 1
	epbFixedLen   = 28 // type, length, interface, timestamp (2), lengths (2)
	blockTrailLen = 4  // the block length repeated at the end
)

var errWriterClosed = errors.New("pcapio: link writer is closed")

// NewLinkWriter writes a pcapng section header and an Ethernet interface
// named link (interface 0) to w, and returns a writer for its frames.
// Close flushes but does not close w.
func NewLinkWriter(w io.Writer, link string, opts LinkWriterOptions) (*LinkWriter, error) {
	if opts.ClockPeriodPS == 0 {
		opts.ClockPeriodPS = DefaultClockPeriodPS
	}
	if opts.Application == "" {
		opts.Application = DefaultApplication
	}
	if len(opts.Application) > maxOptionLen || len(opts.SectionComment) > maxOptionLen {
		return nil, errors.New("pcapio: section option longer than 65535 bytes")
	}
	if len(link) > maxOptionLen {
		return nil, errors.New("pcapio: link name longer than 65535 bytes")
	}
	lw := &LinkWriter{w: w, buf: make([]byte, 0, flushAt+4096), periodPS: opts.ClockPeriodPS}
	// Hardware and OS options are left out on purpose: they would make the
	// output host-specific.
	opt := []option{{optUserAppl, opts.Application}}
	if opts.SectionComment != "" {
		opt = append(opt, option{optComment, opts.SectionComment})
	}
	lw.buf = appendSHB(lw.buf, opt)
	lw.buf = appendIDB(lw.buf, link)
	lw.links = 1
	return lw, nil
}

// CreateLinkFile creates (or truncates) the file at path and returns a
// LinkWriter for it, as NewLinkWriter. Close flushes and closes the file.
// On Linux the file is written around the page cache (direct_linux.go).
func CreateLinkFile(path, link string, opts LinkWriterOptions) (*LinkWriter, error) {
	f, err := createOutput(path)
	if err != nil {
		return nil, err
	}
	lw, err := NewLinkWriter(f, link, opts) // buffers by itself
	if err != nil {
		f.Close()
		return nil, err
	}
	lw.file = f
	lw.lender, _ = f.(lender)
	return lw, nil
}

// lender is an output that lets a LinkWriter build a block straight into
// its own buffer: a frame is then copied once, not into LinkWriter's
// buffer and again into the output's (the second copy took 6 % of the
// harness's CPU with link captures of 1500-byte frames).
type lender interface {
	// Lend returns n bytes to fill before the next call, as if written
	// with Write; nil when n bytes do not fit (Write them).
	Lend(n int) ([]byte, error)
}

// option is one pcapng string option.
type option struct {
	code  uint16
	value string
}

// optionsLen is the room options take in a block: each a 4-byte header
// and its value padded to 4 bytes, then the end-of-options marker; nothing
// when there are none.
func optionsLen(opts []option) int {
	if len(opts) == 0 {
		return 0
	}
	n := 4
	for _, o := range opts {
		n += 4 + pad4(len(o.value))
	}
	return n
}

func pad4(n int) int { return (n + 3) &^ 3 }

func appendOption(b []byte, code uint16, value string) []byte {
	b = binary.LittleEndian.AppendUint16(b, code)
	b = binary.LittleEndian.AppendUint16(b, uint16(len(value)))
	b = append(b, value...)
	return appendZeros(b, pad4(len(value))-len(value))
}

func appendZeros(b []byte, n int) []byte {
	var zero [4]byte
	return append(b, zero[:n]...)
}

func appendOptions(b []byte, opts []option) []byte {
	if len(opts) == 0 {
		return b
	}
	for _, o := range opts {
		b = appendOption(b, o.code, o.value)
	}
	return binary.LittleEndian.AppendUint32(b, optEnd) // code 0, length 0
}

// appendSHB appends a section header block of unspecified section length.
func appendSHB(b []byte, opts []option) []byte {
	n := uint32(24 + optionsLen(opts) + blockTrailLen)
	b = binary.LittleEndian.AppendUint32(b, blockSHB)
	b = binary.LittleEndian.AppendUint32(b, n)
	b = binary.LittleEndian.AppendUint32(b, byteOrder)
	b = binary.LittleEndian.AppendUint16(b, 1) // version 1.0
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint64(b, math.MaxUint64) // section length unknown
	b = appendOptions(b, opts)
	return binary.LittleEndian.AppendUint32(b, n)
}

// appendIDB appends an Ethernet interface description block with no snap
// length limit, nanosecond timestamps and, if not empty, a name.
func appendIDB(b []byte, name string) []byte {
	var opts []option
	if name != "" {
		opts = append(opts, option{optIfName, name})
	}
	// if_tsresol's one-byte value, padded: written by hand below.
	n := uint32(16 + optionsLen(opts) + 8 + blockTrailLen)
	if len(opts) == 0 {
		n += 4 // the end-of-options marker optionsLen did not count
	}
	b = binary.LittleEndian.AppendUint32(b, blockIDB)
	b = binary.LittleEndian.AppendUint32(b, n)
	b = binary.LittleEndian.AppendUint16(b, linkEthernet)
	b = binary.LittleEndian.AppendUint16(b, 0) // reserved
	b = binary.LittleEndian.AppendUint32(b, 0) // snap length: unlimited
	for _, o := range opts {
		b = appendOption(b, o.code, o.value)
	}
	b = binary.LittleEndian.AppendUint16(b, optIfTSResol)
	b = binary.LittleEndian.AppendUint16(b, 1)
	b = append(b, tsResolNanos, 0, 0, 0)
	b = binary.LittleEndian.AppendUint32(b, optEnd)
	return binary.LittleEndian.AppendUint32(b, n)
}

// AddLink adds another Ethernet interface named name and returns its id for
// WriteFrameOn. Interface 0 is the link given to NewLinkWriter.
func (w *LinkWriter) AddLink(name string) (int, error) {
	if w.closed {
		return 0, errWriterClosed
	}
	if len(name) > maxOptionLen {
		return 0, errors.New("pcapio: link name longer than 65535 bytes")
	}
	if w.err != nil {
		return 0, fmt.Errorf("pcapio: adding link %q: %w", name, w.err)
	}
	w.buf = appendIDB(w.buf, name)
	w.links++
	return w.links - 1, nil
}

// WriteFrame writes one Ethernet frame seen on link 0 at the given cycle.
func (w *LinkWriter) WriteFrame(cycle uint64, frame []byte) error {
	return w.WriteFrameOn(0, cycle, frame)
}

// WriteFrameOn writes one Ethernet frame seen on the given link at the
// given cycle. Each note is written as an additional packet comment after
// "cycle=N". The frame is copied into the output buffer before returning.
// Frames are written in call order; cycles are not required to increase.
// It allocates nothing.
func (w *LinkWriter) WriteFrameOn(link int, cycle uint64, frame []byte, notes ...string) error {
	if w.closed {
		return errWriterClosed
	}
	if link < 0 || link >= w.links {
		return fmt.Errorf("pcapio: link %d does not exist (have %d)", link, w.links)
	}
	if uint64(len(frame)) > math.MaxUint32-64 {
		return fmt.Errorf("pcapio: frame of %d bytes is too large", len(frame))
	}
	ns, err := cycleNanos(cycle, w.periodPS)
	if err != nil {
		return err
	}
	num := w.digits.format(cycle) // the "cycle=N" comment's number
	comment := len(cycleCommentPrefix) + len(num)
	opts := 4 + (4 + pad4(comment)) // end marker, the cycle comment
	for _, n := range notes {
		if len(n) > maxOptionLen {
			return errors.New("pcapio: packet note longer than 65535 bytes")
		}
		opts += 4 + pad4(len(n))
	}
	if w.err != nil {
		return fmt.Errorf("pcapio: writing frame at cycle %d: %w", cycle, w.err)
	}
	size := epbFixedLen + pad4(len(frame)) + opts + blockTrailLen
	if w.lender != nil {
		// Straight into the file's buffer, after what waits here (the
		// blocks of AddLink), so that the order holds.
		if err := w.write(); err != nil {
			return fmt.Errorf("pcapio: writing frame at cycle %d: %w", cycle, err)
		}
		dst, err := w.lender.Lend(size)
		if err != nil {
			w.err = err
			return fmt.Errorf("pcapio: writing frame at cycle %d: %w", cycle, err)
		}
		if dst != nil {
			if b := appendEPB(dst[:0], size, link, ns, frame, num, notes); len(b) != size {
				w.err = fmt.Errorf("pcapio: internal error: a block of %d bytes in %d lent", len(b), size)
				return w.err
			}
			return nil
		}
	}
	w.buf = appendEPB(w.buf, size, link, ns, frame, num, notes)
	if len(w.buf) >= flushAt {
		if err := w.write(); err != nil {
			return fmt.Errorf("pcapio: writing frame at cycle %d: %w", cycle, err)
		}
	}
	return nil
}

// appendEPB appends an enhanced packet block of size bytes: frame on link
// at ns, with the comment "cycle=" + num and the notes.
func appendEPB(b []byte, size, link int, ns uint64, frame, num []byte, notes []string) []byte {
	comment := len(cycleCommentPrefix) + len(num)
	b = binary.LittleEndian.AppendUint32(b, blockEPB)
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	b = binary.LittleEndian.AppendUint32(b, uint32(link))
	b = binary.LittleEndian.AppendUint32(b, uint32(ns>>32))
	b = binary.LittleEndian.AppendUint32(b, uint32(ns))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(frame))) // captured
	b = binary.LittleEndian.AppendUint32(b, uint32(len(frame))) // on the wire
	b = append(b, frame...)
	b = appendZeros(b, pad4(len(frame))-len(frame))
	b = binary.LittleEndian.AppendUint16(b, optComment)
	b = binary.LittleEndian.AppendUint16(b, uint16(comment))
	b = append(b, cycleCommentPrefix...)
	b = append(b, num...)
	b = appendZeros(b, pad4(comment)-comment)
	for _, n := range notes {
		b = appendOption(b, optComment, n)
	}
	b = binary.LittleEndian.AppendUint32(b, optEnd)
	return binary.LittleEndian.AppendUint32(b, uint32(size))
}

// write hands the buffered blocks to the underlying writer. A failed
// write is kept: the file lacks blocks from then on.
func (w *LinkWriter) write() error {
	if w.err != nil {
		return w.err
	}
	if len(w.buf) == 0 {
		return nil
	}
	_, w.err = w.w.Write(w.buf)
	w.buf = w.buf[:0]
	if cap(w.buf) > 4*flushAt {
		w.buf = make([]byte, 0, flushAt+4096) // one huge frame need not stay
	}
	return w.err
}

// output is the file CreateLinkFile writes.
type output interface {
	io.Writer
	io.Closer
}

// Flush writes buffered data to the underlying writer, and for a writer
// from CreateLinkFile to the file.
func (w *LinkWriter) Flush() error {
	if w.closed {
		return errWriterClosed
	}
	if err := w.write(); err != nil {
		return err
	}
	if f, ok := w.file.(interface{ Flush() error }); ok {
		if w.err = f.Flush(); w.err != nil {
			return w.err
		}
	}
	return nil
}

// Close flushes buffered data and, for a writer from CreateLinkFile, closes
// the file. It does not close a writer passed to NewLinkWriter. Calling
// Close again returns nil; other methods then fail.
func (w *LinkWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.write()
	if w.file != nil {
		if cerr := w.file.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// CycleTime returns the timestamp LinkWriter writes for cycle: cycle ×
// periodPS picoseconds after the Unix epoch, rounded down to a whole
// nanosecond, in UTC. It fails if the result does not fit in an int64
// nanosecond count.
func CycleTime(cycle, periodPS uint64) (time.Time, error) {
	ns, err := cycleNanos(cycle, periodPS)
	if err != nil {
		return time.Time{}, err
	}
	return time.Unix(0, int64(ns)).UTC(), nil
}

// cycleNanos is CycleTime as nanoseconds since the epoch.
func cycleNanos(cycle, periodPS uint64) (uint64, error) {
	// cycle*periodPS/1000 without overflowing the product.
	hi, lo := bits.Mul64(cycle, periodPS)
	if hi >= 1000 {
		return 0, fmt.Errorf("pcapio: cycle %d × %d ps overflows the timestamp", cycle, periodPS)
	}
	ns, _ := bits.Div64(hi, lo, 1000)
	if ns > math.MaxInt64 {
		return 0, fmt.Errorf("pcapio: cycle %d × %d ps overflows the timestamp", cycle, periodPS)
	}
	return ns, nil
}

// PcapSnapLength is the snap length written by WritePcap.
const PcapSnapLength = 262144

// WritePcap writes frames as a classic pcap file (little-endian,
// microsecond timestamps, link type Ethernet) at path, creating or
// truncating it. Frame i (0-based) gets timestamp i µs after the Unix
// epoch, so the output depends only on the frames.
func WritePcap(path string, frames [][]byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := WritePcapTo(f, frames); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WritePcapTo is WritePcap writing to w. All data is written (flushed)
// before it returns; w is not closed.
func WritePcapTo(w io.Writer, frames [][]byte) error {
	bw := bufio.NewWriter(w)
	pw := pcapgo.NewWriter(bw)
	if err := pw.WriteFileHeader(PcapSnapLength, layers.LinkTypeEthernet); err != nil {
		return fmt.Errorf("pcapio: writing pcap header: %w", err)
	}
	for i, fr := range frames {
		if len(fr) > PcapSnapLength {
			return fmt.Errorf("pcapio: frame %d has %d bytes, more than the snap length %d", i, len(fr), PcapSnapLength)
		}
		// A non-zero timestamp matters: pcapgo substitutes time.Now() for
		// the zero time.Time.
		ci := gopacket.CaptureInfo{
			Timestamp:     time.Unix(0, int64(i)*int64(time.Microsecond)).UTC(),
			CaptureLength: len(fr),
			Length:        len(fr),
		}
		if err := pw.WritePacket(ci, fr); err != nil {
			return fmt.Errorf("pcapio: writing frame %d: %w", i, err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("pcapio: writing pcap: %w", err)
	}
	return nil
}
