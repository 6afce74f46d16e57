package pfc

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

const (
	// EtherType is the MAC Control EtherType carried by PFC and PAUSE frames.
	EtherType = layers.EthernetType(0x8808)
	// FrameLen is the length of a MAC Control frame without FCS: the
	// minimum Ethernet frame of 64 bytes less the 4-byte FCS.
	FrameLen = 60
	// ControlLen is the part of the frame owned by the PFC layer (everything
	// after the 14-byte Ethernet header): opcode, parameters and zero pad.
	ControlLen = FrameLen - 14
	// NumPriorities is the number of priorities (traffic classes) PFC covers.
	NumPriorities = 8
	// QuantumBits is the length of one pause quantum in bit times.
	QuantumBits = 512
)

// Lengths of the opcode and of the opcode plus its parameters.
const (
	opcodeLen = 2
	pauseLen  = opcodeLen + 2                   // opcode, pause_time
	pfcLen    = opcodeLen + 2 + 2*NumPriorities // opcode, enable vector, 8 times
)

// dstMAC is the reserved multicast address of MAC Control frames; checks use
// this copy so that changing the exported DstMAC cannot change the rules.
var dstMAC = [6]byte{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01}

// DstMAC is the destination address of PFC frames (and of multicast PAUSE
// frames), 01:80:C2:00:00:01. Treat it as read-only.
var DstMAC = net.HardwareAddr{0x01, 0x80, 0xC2, 0x00, 0x00, 0x01}

// ErrTruncated is wrapped by the error DecodeFromBytes returns when the data
// ends before the opcode or its parameters are complete.
var ErrTruncated = errors.New("pfc: truncated MAC control frame")

// MACControlOpcode is the 16-bit opcode of a MAC Control frame.
type MACControlOpcode uint16

const (
	// OpcodePause is the IEEE 802.3x PAUSE opcode (one pause time for the
	// whole link).
	OpcodePause MACControlOpcode = 0x0001
	// OpcodePFC is the IEEE 802.1Qbb Priority-based Flow Control opcode
	// (called CBFC, class-based flow control, by Wireshark).
	OpcodePFC MACControlOpcode = 0x0101
)

// Known reports whether the opcode is one this package decodes the
// parameters of (PAUSE or PFC).
func (o MACControlOpcode) Known() bool { return o == OpcodePause || o == OpcodePFC }

// String returns "PAUSE", "PFC" or "MACControlOpcode(0x....)".
func (o MACControlOpcode) String() string {
	switch o {
	case OpcodePause:
		return "PAUSE"
	case OpcodePFC:
		return "PFC"
	}
	return fmt.Sprintf("MACControlOpcode(0x%04x)", uint16(o))
}

// PriorityVector is the 16-bit priority-enable vector of a PFC frame. Bit k
// of the low byte enables the pause time of priority k; the high byte is
// reserved and must be transmitted as zero.
type PriorityVector uint16

// Enabled reports whether priority prio (0..7) is enabled. It is false for
// out-of-range priorities.
func (v PriorityVector) Enabled(prio int) bool {
	return prio >= 0 && prio < NumPriorities && v&(1<<uint(prio)) != 0
}

// Priorities returns the low byte: the enable bits of priorities 0..7.
func (v PriorityVector) Priorities() uint8 { return uint8(v) }

// Reserved returns the reserved high byte (zero in a valid frame).
func (v PriorityVector) Reserved() uint8 { return uint8(v >> 8) }

// String lists the enabled priorities, e.g. "P0|P3|P7", or "none"; a
// non-zero reserved byte is appended as "|reserved=0x12".
func (v PriorityVector) String() string {
	b := make([]byte, 0, 40)
	for k := 0; k < NumPriorities; k++ {
		if v.Enabled(k) {
			if len(b) > 0 {
				b = append(b, '|')
			}
			b = append(b, 'P', byte('0'+k))
		}
	}
	if len(b) == 0 {
		b = append(b, "none"...)
	}
	if r := v.Reserved(); r != 0 {
		b = append(b, "|reserved=0x"...)
		if r < 0x10 {
			b = append(b, '0')
		}
		b = strconv.AppendUint(b, uint64(r), 16)
	}
	return string(b)
}

// PFC is a MAC Control frame (the part after the Ethernet header): an IEEE
// 802.1Qbb PFC frame, an IEEE 802.3x PAUSE frame, or a frame with another
// opcode, whose parameters are then left undecoded in Pad.
//
// PFC (opcode 0x0101), IEEE 802.1Qbb clause 36 / IEEE 802.3 annex 31D:
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|      Opcode = 0x0101          |  Reserved = 0 |E7 E6 E5 .. E0 |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|     Pause time, priority 0    |     Pause time, priority 1    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|     Pause time, priority 2    |     Pause time, priority 3    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|     Pause time, priority 4    |     Pause time, priority 5    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|     Pause time, priority 6    |     Pause time, priority 7    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                 Pad: 26 zero bytes (to 60-byte frame)         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// PAUSE (opcode 0x0001), IEEE 802.3 annex 31B:
//
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|      Opcode = 0x0001          |          Pause time           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                 Pad: 42 zero bytes (to 60-byte frame)         |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
// Pause times are big-endian counts of 512-bit-time quanta; 0 means XON.
//
// After DecodeFromBytes, Contents is the first ControlLen (46) bytes of the
// data (fewer if the frame is short), Pad aliases the part of Contents after
// the parameters, and Payload holds any bytes beyond ControlLen (e.g. an
// FCS); none of them are copies.
type PFC struct {
	layers.BaseLayer

	// Opcode selects the frame kind.
	Opcode MACControlOpcode
	// EnableVector is the PFC priority-enable vector. Always zero for
	// PAUSE and unknown opcodes (they have no such field).
	EnableVector PriorityVector
	// Quanta are the pause times in quanta, priority 0 first. For PFC all
	// eight are on the wire; for PAUSE only Quanta[0] is used and holds the
	// single pause time; for unknown opcodes all are zero.
	Quanta [NumPriorities]uint16
	// Pad is what follows the opcode parameters inside the 46 bytes owned
	// by the layer (for unknown opcodes: everything after the opcode). It is
	// all zeros in a valid frame. When serialising, Pad is written verbatim
	// and then zeros are added up to ControlLen; leave it nil for a standard
	// frame, or set it to produce a malformed one.
	Pad []byte
}

// LayerType returns LayerTypePFC.
func (p *PFC) LayerType() gopacket.LayerType { return LayerTypePFC }

// CanDecode returns LayerTypePFC.
func (p *PFC) CanDecode() gopacket.LayerClass { return LayerTypePFC }

// NextLayerType returns gopacket.LayerTypeZero (nothing follows a MAC Control
// frame) unless bytes remain after the 46 bytes the layer owns, in which case
// it returns gopacket.LayerTypePayload for them.
func (p *PFC) NextLayerType() gopacket.LayerType {
	if len(p.Payload) > 0 {
		return gopacket.LayerTypePayload
	}
	return gopacket.LayerTypeZero
}

// paramsLen is the length of the opcode and its parameters.
func paramsLen(op MACControlOpcode) int {
	switch op {
	case OpcodePFC:
		return pfcLen
	case OpcodePause:
		return pauseLen
	}
	return opcodeLen
}

// DecodeFromBytes decodes the bytes following the Ethernet header. It resets
// every field first, does not copy data, and returns an error wrapping
// ErrTruncated if data is too short for the opcode and its parameters. A
// frame that only lacks (some of) its pad decodes; Validate reports it.
func (p *PFC) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*p = PFC{}
	if len(data) < opcodeLen {
		return fmt.Errorf("%w: %d bytes, need %d for the opcode", ErrTruncated, len(data), opcodeLen)
	}
	op := MACControlOpcode(binary.BigEndian.Uint16(data[0:2]))
	need := paramsLen(op)
	if len(data) < need {
		return fmt.Errorf("%w: %v needs %d bytes after the Ethernet header, have %d", ErrTruncated, op, need, len(data))
	}
	p.Opcode = op
	switch op {
	case OpcodePFC:
		p.EnableVector = PriorityVector(binary.BigEndian.Uint16(data[2:4]))
		for k := range p.Quanta {
			p.Quanta[k] = binary.BigEndian.Uint16(data[4+2*k:])
		}
	case OpcodePause:
		p.Quanta[0] = binary.BigEndian.Uint16(data[2:4])
	}
	end := min(len(data), ControlLen)
	p.Contents = data[:end:end]
	p.Pad = data[need:end:end]
	p.Payload = data[end:]
	return nil
}

// SerializeTo writes the opcode, its parameters, Pad and enough zeros that
// the layer plus anything already in b is at least ControlLen bytes, so the
// Ethernet frame is FrameLen bytes. Fields that the opcode cannot carry
// (EnableVector or Quanta[1:] for PAUSE; EnableVector or Quanta for unknown
// opcodes) must be zero. A non-zero reserved byte in EnableVector is written
// as is, so that invalid frames can be produced for tests.
func (p *PFC) SerializeTo(b gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	switch p.Opcode {
	case OpcodePFC:
	case OpcodePause:
		if p.EnableVector != 0 {
			return fmt.Errorf("pfc: PAUSE frame has no enable vector (got %#04x)", uint16(p.EnableVector))
		}
		for k := 1; k < NumPriorities; k++ {
			if p.Quanta[k] != 0 {
				return fmt.Errorf("pfc: PAUSE frame carries only Quanta[0], got Quanta[%d]=%d", k, p.Quanta[k])
			}
		}
	default:
		if p.EnableVector != 0 || p.Quanta != [NumPriorities]uint16{} {
			return fmt.Errorf("pfc: opcode %v has no enable vector or pause times", p.Opcode)
		}
	}
	n := paramsLen(p.Opcode)
	fill := max(0, ControlLen-n-len(p.Pad)-len(b.Bytes()))
	bytes, err := b.PrependBytes(n + len(p.Pad) + fill)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint16(bytes[0:2], uint16(p.Opcode))
	switch p.Opcode {
	case OpcodePFC:
		binary.BigEndian.PutUint16(bytes[2:4], uint16(p.EnableVector))
		for k, q := range p.Quanta {
			binary.BigEndian.PutUint16(bytes[4+2*k:], q)
		}
	case OpcodePause:
		binary.BigEndian.PutUint16(bytes[2:4], p.Quanta[0])
	}
	copy(bytes[n:], p.Pad)
	clear(bytes[n+len(p.Pad):]) // PrependBytes does not zero
	return nil
}

// Request returns what the frame asks its receiver to do: for every priority
// k whose bit is set in mask, (re)load the pause timer of k with quanta[k]
// (0 = XON, resume). Entries of priorities not in mask are 0.
//
//   - PFC: mask is the low byte of EnableVector; the reserved high byte is
//     ignored on receipt, as IEEE 802.1Qbb requires.
//   - PAUSE: the whole link is paused, so mask is 0xFF and every entry is
//     Quanta[0].
//   - other opcodes: mask is 0.
func (p *PFC) Request() (mask uint8, quanta [NumPriorities]uint16) {
	switch p.Opcode {
	case OpcodePFC:
		mask = p.EnableVector.Priorities()
		for k := range quanta {
			if mask&(1<<uint(k)) != 0 {
				quanta[k] = p.Quanta[k]
			}
		}
	case OpcodePause:
		mask = 0xFF
		for k := range quanta {
			quanta[k] = p.Quanta[0]
		}
	}
	return mask, quanta
}

// QuantaToCycles converts a pause time in quanta to clock cycles of a
// datapath that moves one dataWidth-bit beat per cycle: quanta*512/dataWidth
// cycles, i.e. 8 cycles per quantum at 64 bits and 1 at 512. The division is
// rounded up over the whole pause (not per quantum), so the pause is never
// shorter than its wire time: at 1024 bits, 1 quantum is 1 cycle and 3 quanta
// are 2 cycles. Zero quanta (XON) is zero cycles. dataWidth must be positive;
// QuantaToCycles panics otherwise, as that is a programming error.
func QuantaToCycles(quanta uint16, dataWidth int) uint64 {
	if dataWidth <= 0 {
		panic("pfc: QuantaToCycles: dataWidth must be positive, got " + strconv.Itoa(dataWidth))
	}
	bits := uint64(quanta) * QuantumBits
	w := uint64(dataWidth)
	return (bits + w - 1) / w
}

// New returns a complete FrameLen-byte PFC frame from src to DstMAC that
// enables the priorities whose bits are set in enable, with pause times
// quanta (priority 0 first). Pause times of priorities not enabled are
// encoded as given; receivers ignore them.
func New(src net.HardwareAddr, enable uint8, quanta [NumPriorities]uint16) ([]byte, error) {
	return serialize(src, &PFC{Opcode: OpcodePFC, EnableVector: PriorityVector(enable), Quanta: quanta})
}

// NewPause returns a complete FrameLen-byte IEEE 802.3x PAUSE frame from src
// to DstMAC with the given pause time in quanta.
func NewPause(src net.HardwareAddr, quanta uint16) ([]byte, error) {
	return serialize(src, &PFC{Opcode: OpcodePause, Quanta: [NumPriorities]uint16{quanta}})
}

func serialize(src net.HardwareAddr, p *PFC) ([]byte, error) {
	eth := &layers.Ethernet{
		SrcMAC:       src,
		DstMAC:       dstMAC[:],
		EthernetType: EtherType,
	}
	buf := gopacket.NewSerializeBufferExpectedSize(FrameLen, 0)
	if err := gopacket.SerializeLayers(buf, gopacket.SerializeOptions{}, eth, p); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
