package pcapio

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/gopacket/gopacket/layers"
)

// pcapng block types (pcapng specification, section 11.1).
const (
	ngBlockSection    = 0x0A0D0D0A
	ngBlockInterface  = 0x00000001
	ngBlockPacket     = 0x00000002 // obsolete Packet Block
	ngBlockSimple     = 0x00000003
	ngBlockNames      = 0x00000004
	ngBlockStatistics = 0x00000005
	ngBlockEnhanced   = 0x00000006
	ngBlockSecrets    = 0x0000000A
	ngByteOrderMagic  = 0x1A2B3C4D
)

func ngBlockName(typ uint32) string {
	switch typ {
	case ngBlockSection:
		return "section header block"
	case ngBlockInterface:
		return "interface description block"
	case ngBlockNames:
		return "name resolution block"
	case ngBlockStatistics:
		return "interface statistics block"
	case ngBlockSecrets:
		return "decryption secrets block"
	default:
		return fmt.Sprintf("block of type 0x%08x", typ)
	}
}

func isNgPacketBlock(typ uint32) bool {
	return typ == ngBlockEnhanced || typ == ngBlockSimple || typ == ngBlockPacket
}

// ngScan is the result of walking the block structure of a pcapng file.
type ngScan struct {
	// ifaces are the link types of the interfaces of the current section,
	// in interface-id order.
	ifaces []layers.LinkType
	// packets counts the complete packet blocks before the stop point.
	packets int
	// defect describes the first structural problem ("" if none); it
	// follows packets complete packet blocks. truncated reports that the
	// defect is the file ending inside a block.
	defect    string
	truncated bool
}

// scanNg walks the pcapng block structure (block lengths, trailers, byte
// order) without decoding packets, so that a failure reported by pcapgo
// can be explained precisely. With stopAtPacket it stops at the first
// packet block (after checking that block's framing). The returned error is
// an I/O error only; format problems are reported in ngScan.defect.
func scanNg(ra io.ReaderAt, size int64, stopAtPacket bool) (ngScan, error) {
	var res ngScan
	br := bufio.NewReaderSize(io.NewSectionReader(ra, 0, size), 64<<10)
	var order binary.ByteOrder = binary.LittleEndian
	var buf [28]byte
	var off int64
	for off < size {
		rem := size - off
		// where names the block for messages once its type is known.
		where := func(typ uint32) string {
			if isNgPacketBlock(typ) {
				return fmt.Sprintf("packet %d", res.packets+1)
			}
			if off == 0 && typ == ngBlockSection {
				return "pcapng section header"
			}
			return fmt.Sprintf("%s at offset %d", ngBlockName(typ), off)
		}
		if rem < 8 {
			if off == 0 {
				res.defect = fmt.Sprintf("truncated pcapng section header (file has only %d bytes)", rem)
			} else {
				res.defect = fmt.Sprintf("truncated block header at offset %d after packet %d (file ends after %d of 8 bytes)", off, res.packets, rem)
			}
			res.truncated = true
			return res, nil
		}
		if _, err := io.ReadFull(br, buf[:8]); err != nil {
			return res, err
		}
		consumed := int64(8)
		if binary.LittleEndian.Uint32(buf[0:4]) == ngBlockSection { // palindromic
			if rem < 12 {
				res.defect = fmt.Sprintf("%s: truncated block (file ends after %d of at least 28 bytes)", where(ngBlockSection), rem)
				res.truncated = true
				return res, nil
			}
			if _, err := io.ReadFull(br, buf[8:12]); err != nil {
				return res, err
			}
			consumed = 12
			switch {
			case binary.BigEndian.Uint32(buf[8:12]) == ngByteOrderMagic:
				order = binary.BigEndian
			case binary.LittleEndian.Uint32(buf[8:12]) == ngByteOrderMagic:
				order = binary.LittleEndian
			default:
				res.defect = fmt.Sprintf("%s: invalid byte-order magic 0x%08x", where(ngBlockSection), binary.BigEndian.Uint32(buf[8:12]))
				return res, nil
			}
			res.ifaces = res.ifaces[:0]
		} else if off == 0 {
			res.defect = fmt.Sprintf("pcapng file does not start with a section header (block type 0x%08x)", binary.BigEndian.Uint32(buf[0:4]))
			return res, nil
		}
		typ := order.Uint32(buf[0:4])
		length := int64(order.Uint32(buf[4:8]))
		minLen := int64(12)
		switch typ {
		case ngBlockSection:
			minLen = 28
		case ngBlockInterface:
			minLen = 20
		case ngBlockEnhanced, ngBlockPacket:
			minLen = 32
		case ngBlockSimple:
			minLen = 16
		}
		if length < minLen || length%4 != 0 {
			res.defect = fmt.Sprintf("%s: invalid block length %d", where(typ), length)
			return res, nil
		}
		if length > rem {
			res.defect = fmt.Sprintf("%s: truncated %s (file ends after %d of %d bytes)", where(typ), recordWord(typ), rem, length)
			res.truncated = true
			return res, nil
		}
		switch typ {
		case ngBlockInterface:
			if _, err := io.ReadFull(br, buf[8:10]); err != nil {
				return res, err
			}
			consumed += 2
			res.ifaces = append(res.ifaces, layers.LinkType(order.Uint16(buf[8:10])))
		case ngBlockEnhanced, ngBlockPacket:
			if _, err := io.ReadFull(br, buf[8:28]); err != nil {
				return res, err
			}
			consumed += 20
			capLen := int64(order.Uint32(buf[20:24]))
			if need := 28 + (capLen+3)&^3 + 4; need > length {
				res.defect = fmt.Sprintf("%s: captured length %d does not fit in a block of %d bytes", where(typ), capLen, length)
				return res, nil
			}
		}
		if _, err := br.Discard(int(length - 4 - consumed)); err != nil {
			return res, err
		}
		if _, err := io.ReadFull(br, buf[:4]); err != nil {
			return res, err
		}
		if trailer := int64(order.Uint32(buf[:4])); trailer != length {
			res.defect = fmt.Sprintf("%s: block length mismatch (%d at start, %d at end)", where(typ), length, trailer)
			return res, nil
		}
		off += length
		if isNgPacketBlock(typ) {
			res.packets++
			if stopAtPacket {
				return res, nil
			}
		}
	}
	return res, nil
}

func recordWord(typ uint32) string {
	if isNgPacketBlock(typ) {
		return "record"
	}
	return "block"
}

// err returns the error to wrap in a FormatError for the defect.
func (s *ngScan) err() error {
	if s.truncated {
		return io.ErrUnexpectedEOF
	}
	return nil
}
