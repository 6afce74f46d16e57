package pcapio

import (
	"bufio"
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
type LinkWriter struct {
	ng       *pcapgo.NgWriter
	file     *os.File // owned file (CreateLinkFile), closed by Close
	periodPS uint64
	links    int
	closed   bool
}

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
	// Hardware and OS are left empty on purpose: pcapgo's defaults
	// (runtime.GOARCH, runtime.GOOS) would make the output host-specific.
	ng, err := pcapgo.NewNgWriterInterface(w, ngInterface(link), pcapgo.NgWriterOptions{
		SectionInfo: pcapgo.NgSectionInfo{
			Application: opts.Application,
			Comment:     opts.SectionComment,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("pcapio: writing pcapng header: %w", err)
	}
	return &LinkWriter{ng: ng, periodPS: opts.ClockPeriodPS, links: 1}, nil
}

// CreateLinkFile creates (or truncates) the file at path and returns a
// LinkWriter for it, as NewLinkWriter. Close flushes and closes the file.
func CreateLinkFile(path, link string, opts LinkWriterOptions) (*LinkWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	// pcapgo buffers internally; no extra buffering needed.
	lw, err := NewLinkWriter(f, link, opts)
	if err != nil {
		f.Close()
		return nil, err
	}
	lw.file = f
	return lw, nil
}

func ngInterface(name string) pcapgo.NgInterface {
	// Built from scratch rather than from pcapgo.DefaultNgInterface, whose
	// OS field is runtime.GOOS.
	return pcapgo.NgInterface{
		Name:                name,
		LinkType:            layers.LinkTypeEthernet,
		SnapLength:          0, // unlimited
		TimestampResolution: 9, // pcapgo always writes nanoseconds
	}
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
	id, err := w.ng.AddInterface(ngInterface(name))
	if err != nil {
		return 0, fmt.Errorf("pcapio: adding link %q: %w", name, err)
	}
	w.links++
	return id, nil
}

// WriteFrame writes one Ethernet frame seen on link 0 at the given cycle.
func (w *LinkWriter) WriteFrame(cycle uint64, frame []byte) error {
	return w.WriteFrameOn(0, cycle, frame)
}

// WriteFrameOn writes one Ethernet frame seen on the given link at the
// given cycle. Each note is written as an additional packet comment after
// "cycle=N". The frame is copied into the output buffer before returning.
// Frames are written in call order; cycles are not required to increase.
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
	ts, err := CycleTime(cycle, w.periodPS)
	if err != nil {
		return err
	}
	comments := make([]string, 0, 1+len(notes))
	comments = append(comments, cycleCommentPrefix+strconv.FormatUint(cycle, 10))
	for _, n := range notes {
		if len(n) > maxOptionLen {
			return errors.New("pcapio: packet note longer than 65535 bytes")
		}
		comments = append(comments, n)
	}
	ci := gopacket.CaptureInfo{
		Timestamp:      ts,
		CaptureLength:  len(frame),
		Length:         len(frame),
		InterfaceIndex: link,
	}
	if err := w.ng.WritePacketWithOptions(ci, frame, pcapgo.NgPacketOptions{Comments: comments}); err != nil {
		return fmt.Errorf("pcapio: writing frame at cycle %d: %w", cycle, err)
	}
	return nil
}

// Flush writes buffered data to the underlying writer.
func (w *LinkWriter) Flush() error {
	if w.closed {
		return errWriterClosed
	}
	return w.ng.Flush()
}

// Close flushes buffered data and, for a writer from CreateLinkFile, closes
// the file. It does not close a writer passed to NewLinkWriter. Calling
// Close again returns nil; other methods then fail.
func (w *LinkWriter) Close() error {
	if w.closed {
		return nil
	}
	w.closed = true
	err := w.ng.Flush()
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
	// cycle*periodPS/1000 without overflowing the product.
	hi, lo := bits.Mul64(cycle, periodPS)
	if hi >= 1000 {
		return time.Time{}, fmt.Errorf("pcapio: cycle %d × %d ps overflows the timestamp", cycle, periodPS)
	}
	ns, _ := bits.Div64(hi, lo, 1000)
	if ns > math.MaxInt64 {
		return time.Time{}, fmt.Errorf("pcapio: cycle %d × %d ps overflows the timestamp", cycle, periodPS)
	}
	return time.Unix(0, int64(ns)).UTC(), nil
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
