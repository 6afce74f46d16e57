package pcapio

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/gopacket/gopacket/layers"
)

// Classic pcap is read without pcapgo: it made two reads and a copy per
// record, which cost more than the rest of loading a capture of small
// frames. Records are parsed in place from chunks read whole, and a
// packet's Data is a piece of its chunk (capacity capped, so no packet
// reaches another). Format: the libpcap file format,
// https://www.ietf.org/archive/id/draft-ietf-opsawg-pcap-04.html.

// chunkSize is how much of the file one read takes.
const chunkSize = 1 << 20

// pcapMaxCapture bounds a record's captured length when the header's
// snap length is smaller; pcapgo accepted the same.
const pcapMaxCapture = 256 << 10

// classic is the state of a classic pcap file being read.
type classic struct {
	nanos   bool   // nanosecond time stamps (magic 0xa1b23c4d)
	snaplen uint32 // from the file header
	chunk   []byte // read, not yet parsed: chunk[pos:]
	pos     int
	read    int64 // file offset of the end of chunk
	eof     bool  // the file has no more bytes past chunk
}

func (r *Reader) openPcap() error {
	if r.size < pcapFileHeaderLen {
		return r.formatErr(fmt.Sprintf("truncated pcap file header (file has only %d of %d bytes)", r.size, pcapFileHeaderLen), io.ErrUnexpectedEOF)
	}
	var h [pcapFileHeaderLen]byte
	if _, err := r.f.ReadAt(h[:], 0); err != nil {
		return err
	}
	if major, minor := r.order.Uint16(h[4:6]), r.order.Uint16(h[6:8]); major != 2 || minor != 4 {
		return r.formatErr("invalid pcap file header", fmt.Errorf("version %d.%d, want 2.4", major, minor))
	}
	// The link type is the low 16 bits; the high ones may carry FCS facts.
	if lt := layers.LinkType(r.order.Uint32(h[20:24]) & 0xffff); lt != layers.LinkTypeEthernet {
		return r.formatErr(unsupportedLinkType(lt), nil)
	}
	if _, err := r.f.Seek(pcapFileHeaderLen, io.SeekStart); err != nil {
		return err
	}
	r.pcap = &classic{
		nanos:   r.order.Uint32(h[0:4]) == 0xA1B23C4D,
		snaplen: r.order.Uint32(h[16:20]),
		read:    pcapFileHeaderLen,
	}
	return nil
}

// take returns the next n bytes of the file as a piece of a chunk, or
// fewer at the end of the file.
func (r *Reader) take(n int) ([]byte, error) {
	c := r.pcap
	if len(c.chunk)-c.pos < n && !c.eof {
		// A new chunk, starting with what is left of the old one (packets
		// already returned keep the old chunk), no bigger than the rest
		// of the file: a small capture takes no whole chunk.
		// A record's length comes from the file: the chunk never exceeds
		// what the file holds, or a few corrupt bytes could ask for 4 GiB.
		left, rest := len(c.chunk)-c.pos, int(max(r.size-c.read, 0))
		want := min(n-left, rest)
		next := make([]byte, left+max(want, min(chunkSize, rest)))
		copy(next, c.chunk[c.pos:])
		got, err := io.ReadAtLeast(r.f, next[left:], want)
		switch {
		case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
			c.eof = true
		case err != nil:
			return nil, err
		case want < n-left:
			c.eof = true
		}
		c.chunk, c.pos = next[:left+got], 0
		c.read += int64(got)
	}
	n = min(n, len(c.chunk)-c.pos)
	b := c.chunk[c.pos : c.pos+n : c.pos+n]
	c.pos += n
	return b, nil
}

func (r *Reader) nextPcap() (Packet, error) {
	c := r.pcap
	idx := r.n + 1
	h, err := r.take(pcapRecordHeaderLen)
	if err != nil {
		return Packet{}, fmt.Errorf("reading packet %d: %w", idx, err) // an *fs.PathError
	}
	if len(h) == 0 {
		return Packet{}, io.EOF
	}
	if len(h) < pcapRecordHeaderLen {
		return Packet{}, r.formatErr(fmt.Sprintf("packet %d: truncated record header (file ends after %d of %d bytes)", idx, len(h), pcapRecordHeaderLen), io.ErrUnexpectedEOF)
	}
	sec, frac := int64(r.order.Uint32(h[0:4])), int64(r.order.Uint32(h[4:8]))
	capLen, origLen := r.order.Uint32(h[8:12]), r.order.Uint32(h[12:16])
	if capLen > max(c.snaplen, pcapMaxCapture) {
		return Packet{}, r.formatErr(fmt.Sprintf("packet %d: malformed record", idx), fmt.Errorf("captured length %d exceeds the snap length %d", capLen, c.snaplen))
	}
	if capLen > origLen {
		return Packet{}, r.formatErr(fmt.Sprintf("packet %d: malformed record", idx), fmt.Errorf("captured length %d exceeds the length on the wire %d", capLen, origLen))
	}
	data, err := r.take(int(capLen))
	if err != nil {
		return Packet{}, fmt.Errorf("reading packet %d: %w", idx, err)
	}
	if len(data) < int(capLen) {
		total := pcapRecordHeaderLen + int(capLen)
		return Packet{}, r.formatErr(fmt.Sprintf("packet %d: truncated record (file ends after %d of %d bytes)", idx, pcapRecordHeaderLen+len(data), total), io.ErrUnexpectedEOF)
	}
	if !c.nanos {
		frac *= 1000
	}
	return Packet{
		Index:          idx,
		Data:           data,
		Timestamp:      time.Unix(sec, frac).UTC(),
		CaptureLength:  int(capLen),
		OriginalLength: int(origLen),
		LinkType:       layers.LinkTypeEthernet,
	}, nil
}
