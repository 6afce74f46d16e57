package roce

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// BTHLen is the size of the Base Transport Header.
const BTHLen = 12

// Offsets of the BTH fields; each byte that packs several is named after
// its first.
const (
	bthOpCode = 0
	bthSE     = 1 // SE, M, PadCnt, TVer
	bthPKey   = 2 // 2 bytes
	bthFECN   = 4 // FECN, BECN, Resv6
	bthDestQP = 5 // 3 bytes
	bthAckReq = 8 // AckReq, Resv7
	bthPSN    = 9 // 3 bytes
)

// BTH is the InfiniBand Base Transport Header (IBA 9.2; rxe_hdr.h), the
// first header inside the UDP datagram of RoCEv2, together with what its
// opcode implies about the rest of the datagram: the extension headers, the
// pad and the ICRC trailer.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|    OpCode     |S|M|Pad|  TVer |            P_Key              |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|F|B|   Resv6   |               Destination QP                  |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|A|    Resv7    |            Packet Sequence Number             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	| extension headers (OpCode.Headers) | payload | pad | ICRC (LE) |
//
// Contents is the 12 BTH bytes; Payload is the message data alone, without
// extension headers, pad and ICRC.
type BTH struct {
	layers.BaseLayer
	OpCode         OpCode
	SolicitedEvent bool
	MigReq         bool  // MigReq; ignored on receive
	PadCnt         uint8 // 0..3 pad bytes after the payload
	TVer           uint8 // transport header version, must be 0
	PKey           uint16
	FECN           bool
	BECN           bool
	Resv6          uint8 // 6 reserved bits of byte 4
	DestQP         QPN
	AckReq         bool
	Resv7          uint8 // 7 reserved bits of byte 8
	PSN            PSN

	// Extension headers: each is meaningful only when OpCode.Headers() has
	// it. Decoding fills them; serialising writes them.
	DETH         DETH
	RETH         RETH
	AtomicETH    AtomicETH
	AETH         AETH
	AtomicAckETH AtomicAckETH
	ImmDt        ImmDt
	IETH         IETH
	CNP          CNP

	// Pad holds the bytes between payload and ICRC as decoded. It is
	// shorter than PadCnt when the packet has fewer bytes after its headers.
	Pad  []byte
	ICRC ICRC
}

// DefaultPKey is the default partition key.
const DefaultPKey = 0xFFFF

func (b *BTH) LayerType() gopacket.LayerType  { return LayerTypeBTH }
func (b *BTH) CanDecode() gopacket.LayerClass { return LayerTypeBTH }

// NextLayerType is gopacket.LayerTypePayload when the packet carries data.
func (b *BTH) NextLayerType() gopacket.LayerType {
	if len(b.Payload) == 0 {
		return gopacket.LayerTypeZero
	}
	return gopacket.LayerTypePayload
}

// DecodeFromBytes decodes a UDP payload: the BTH, the extension headers its
// opcode implies, the payload, the pad and the ICRC. It fails only when the
// datagram is too short for those headers; rule violations (PadCnt, TVer,
// unknown opcode) are left to golden/wirecheck. An unknown opcode has no
// extension headers: everything between BTH and ICRC is payload and pad.
func (b *BTH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	*b = BTH{}
	if len(data) < BTHLen {
		df.SetTruncated()
		return truncated("BTH", BTHLen, len(data))
	}
	b.OpCode = OpCode(data[bthOpCode])
	b.SolicitedEvent = data[bthSE]&0x80 != 0
	b.MigReq = data[bthSE]&0x40 != 0
	b.PadCnt = data[bthSE] >> 4 & 3
	b.TVer = data[bthSE] & 0x0F
	b.PKey = binary.BigEndian.Uint16(data[bthPKey:])
	b.FECN = data[bthFECN]&0x80 != 0
	b.BECN = data[bthFECN]&0x40 != 0
	b.Resv6 = data[bthFECN] & 0x3F
	b.DestQP = QPN(get24(data[bthDestQP:]))
	b.AckReq = data[bthAckReq]&0x80 != 0
	b.Resv7 = data[bthAckReq] & 0x7F
	b.PSN = PSN(get24(data[bthPSN:]))
	b.Contents = data[:BTHLen]

	h := b.OpCode.Headers()
	if need := BTHLen + h.HeaderLen() + ICRCLen; len(data) < need {
		df.SetTruncated()
		return truncated(b.OpCode.String()+" headers and ICRC", need, len(data))
	}
	end := len(data) - ICRCLen
	if err := b.ICRC.DecodeFromBytes(data[end:], df); err != nil {
		return err
	}
	off := BTHLen
	for _, e := range extOrder {
		if h&e.bit == 0 {
			continue
		}
		if err := b.ext(e.bit).DecodeFromBytes(data[off:end], df); err != nil {
			return err
		}
		off += e.size
	}
	rest := data[off:end]
	pad := int(b.PadCnt)
	if pad > len(rest) {
		pad = len(rest)
	}
	b.Payload = rest[:len(rest)-pad]
	b.Pad = rest[len(rest)-pad:]
	return nil
}

// extHeader is what every extension header layer implements.
type extHeader interface {
	gopacket.DecodingLayer
	gopacket.SerializableLayer
	LayerContents() []byte
}

// ext returns the field that holds the extension header bit.
func (b *BTH) ext(bit Header) extHeader {
	switch bit {
	case HasDETH:
		return &b.DETH
	case HasRETH:
		return &b.RETH
	case HasAtomicETH:
		return &b.AtomicETH
	case HasAETH:
		return &b.AETH
	case HasAtomicAckETH:
		return &b.AtomicAckETH
	case HasImmDt:
		return &b.ImmDt
	case HasIETH:
		return &b.IETH
	}
	return &b.CNP
}

// SerializeTo writes the BTH and its extension headers in front of what is
// already in the buffer (the payload), and the pad and ICRC after it. With
// FixLengths it sets PadCnt from the payload length. The ICRC written is
// b.ICRC.Value, or a placeholder with ComputeChecksums: SerializeLayers and
// FixICRC fill it in once the IP and UDP headers exist.
func (b *BTH) SerializeTo(buf gopacket.SerializeBuffer, opts gopacket.SerializeOptions) error {
	pad, padBytes := int(b.PadCnt&3), []byte(nil)
	switch {
	case opts.FixLengths:
		b.PadCnt = uint8(-len(buf.Bytes()) & 3)
		pad = int(b.PadCnt)
	case b.Pad != nil:
		pad, padBytes = len(b.Pad), b.Pad // as decoded, possibly short of PadCnt
	}
	tail, err := buf.AppendBytes(pad + ICRCLen)
	if err != nil {
		return err
	}
	clear(tail[:pad])
	copy(tail, padBytes)
	icrc := b.ICRC.Value
	if opts.ComputeChecksums {
		icrc = 0
	}
	binary.LittleEndian.PutUint32(tail[pad:], icrc)

	h := b.OpCode.Headers()
	for i := len(extOrder) - 1; i >= 0; i-- {
		if h&extOrder[i].bit != 0 {
			if err := b.ext(extOrder[i].bit).SerializeTo(buf, opts); err != nil {
				return err
			}
		}
	}
	hdr, err := buf.PrependBytes(BTHLen)
	if err != nil {
		return err
	}
	hdr[bthOpCode] = uint8(b.OpCode)
	hdr[bthSE] = flag(b.SolicitedEvent, 0x80) | flag(b.MigReq, 0x40) | (b.PadCnt&3)<<4 | b.TVer&0x0F
	binary.BigEndian.PutUint16(hdr[bthPKey:], b.PKey)
	hdr[bthFECN] = flag(b.FECN, 0x80) | flag(b.BECN, 0x40) | b.Resv6&0x3F
	put24(hdr[bthDestQP:], uint32(b.DestQP))
	hdr[bthAckReq] = flag(b.AckReq, 0x80) | b.Resv7&0x7F
	put24(hdr[bthPSN:], uint32(b.PSN))
	return nil
}

func flag(set bool, bit uint8) uint8 {
	if set {
		return bit
	}
	return 0
}

// decodeBTH is the gopacket.Decoder for UDP port 4791: it adds the BTH, each
// extension header, the payload and the ICRC as layers, in wire order.
func decodeBTH(data []byte, p gopacket.PacketBuilder) error {
	b := &BTH{}
	if err := b.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(b)
	h := b.OpCode.Headers()
	for _, e := range extOrder {
		if h&e.bit != 0 {
			p.AddLayer(b.ext(e.bit).(gopacket.Layer))
		}
	}
	if len(b.Payload) > 0 {
		pl := gopacket.Payload(b.Payload)
		p.AddLayer(&pl)
		p.SetApplicationLayer(&pl)
	}
	p.AddLayer(&b.ICRC)
	return nil
}

// decodeStandalone decodes one extension header on its own, for a gopacket
// decoder started at that layer type.
func decodeStandalone[T any, PT interface {
	*T
	gopacket.DecodingLayer
	gopacket.Layer
}](data []byte, p gopacket.PacketBuilder) error {
	l := PT(new(T))
	if err := l.DecodeFromBytes(data, p); err != nil {
		return err
	}
	p.AddLayer(l)
	return p.NextDecoder(l.NextLayerType())
}
