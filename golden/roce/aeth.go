package roce

import (
	"encoding/binary"
	"fmt"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// AETHLen is the size of the ACK Extended Transport Header.
const AETHLen = 4

// Offsets of the AETH fields.
const (
	aethSyndrome = 0
	aethMSN      = 1 // 3 bytes
)

// AETH is the ACK Extended Transport Header (IBA 9.3.6): the syndrome and the
// responder's Message Sequence Number.
//
//	+---------------+-----------------------------------------------+
//	|   Syndrome    |                      MSN                      |
//	+---------------+-----------------------------------------------+
type AETH struct {
	layers.BaseLayer
	Syndrome AETHSyndrome
	MSN      uint32 // 24 bits
}

func (a *AETH) LayerType() gopacket.LayerType     { return LayerTypeAETH }
func (a *AETH) CanDecode() gopacket.LayerClass    { return LayerTypeAETH }
func (a *AETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes the 4 header bytes; the rest becomes Payload.
func (a *AETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < AETHLen {
		*a = AETH{}
		df.SetTruncated()
		return truncated("AETH", AETHLen, len(data))
	}
	a.Syndrome = AETHSyndrome(data[aethSyndrome])
	a.MSN = get24(data[aethMSN:])
	a.BaseLayer = layers.BaseLayer{Contents: data[:AETHLen], Payload: data[AETHLen:]}
	return nil
}

// SerializeTo prepends the header.
func (a *AETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(AETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(buf, uint32(a.Syndrome)<<24|a.MSN&0xFFFFFF)
	return nil
}

// AETHSyndrome is the AETH syndrome byte: bits 6:5 give the kind, bits 4:0
// the credit count, RNR timer or NAK code (IBA 9.7.5.1, table 45).
type AETHSyndrome uint8

// AckKind is the kind of an AETH syndrome (bits 6:5).
type AckKind uint8

const (
	KindACK      AckKind = 0
	KindRNRNAK   AckKind = 1
	KindReserved AckKind = 2
	KindNAK      AckKind = 3
)

func (k AckKind) String() string {
	switch k {
	case KindACK:
		return "ACK"
	case KindRNRNAK:
		return "RNR_NAK"
	case KindNAK:
		return "NAK"
	}
	return "RESERVED"
}

// NAKCode is the code of a NAK syndrome (bits 4:0 when the kind is NAK).
type NAKCode uint8

const (
	NAKPSNSequenceError     NAKCode = 0
	NAKInvalidRequest       NAKCode = 1
	NAKRemoteAccessError    NAKCode = 2
	NAKRemoteOperationalErr NAKCode = 3
	NAKInvalidRDRequest     NAKCode = 4
)

func (c NAKCode) String() string {
	switch c {
	case NAKPSNSequenceError:
		return "PSN_SEQUENCE_ERROR"
	case NAKInvalidRequest:
		return "INVALID_REQUEST"
	case NAKRemoteAccessError:
		return "REMOTE_ACCESS_ERROR"
	case NAKRemoteOperationalErr:
		return "REMOTE_OPERATIONAL_ERROR"
	case NAKInvalidRDRequest:
		return "INVALID_RD_REQUEST"
	}
	return fmt.Sprintf("NAKCode(%d)", uint8(c))
}

// Syndromes in common use.
const (
	// SyndromeACKUnlimited is an ACK with credit code 0x1F (unlimited), what
	// rxe always sends.
	SyndromeACKUnlimited AETHSyndrome = 0x1F
	SyndromeNAKPSNSeq    AETHSyndrome = 0x60
	SyndromeNAKInvalid   AETHSyndrome = 0x61
	SyndromeNAKAccess    AETHSyndrome = 0x62
	SyndromeNAKOperation AETHSyndrome = 0x63
)

// ACKSyndrome returns an ACK syndrome with the given credit code (0..31).
func ACKSyndrome(credit uint8) AETHSyndrome { return AETHSyndrome(credit & 0x1F) }

// RNRNAKSyndrome returns an RNR NAK syndrome with the given timer code (0..31).
func RNRNAKSyndrome(timer uint8) AETHSyndrome { return AETHSyndrome(0x20 | timer&0x1F) }

// NAKSyndrome returns a NAK syndrome with the given code.
func NAKSyndrome(c NAKCode) AETHSyndrome { return AETHSyndrome(0x60 | uint8(c)&0x1F) }

// Kind returns bits 6:5.
func (s AETHSyndrome) Kind() AckKind { return AckKind(s>>5) & 3 }

// Value returns bits 4:0: the credit code, RNR timer code or NAK code.
func (s AETHSyndrome) Value() uint8 { return uint8(s) & 0x1F }

// NAKCode returns the NAK code; meaningful when Kind is KindNAK.
func (s AETHSyndrome) NAKCode() NAKCode { return NAKCode(s.Value()) }

// Reserved reports whether bit 7 or a reserved kind is set.
func (s AETHSyndrome) Reserved() bool { return s&0x80 != 0 || s.Kind() == KindReserved }

// String is e.g. "ACK(credit=31)", "RNR_NAK(timer=14)" or
// "NAK(PSN_SEQUENCE_ERROR)".
func (s AETHSyndrome) String() string {
	if s&0x80 != 0 {
		return fmt.Sprintf("AETHSyndrome(%#02x)", uint8(s))
	}
	switch s.Kind() {
	case KindACK:
		return fmt.Sprintf("ACK(credit=%d)", s.Value())
	case KindRNRNAK:
		return fmt.Sprintf("RNR_NAK(timer=%d)", s.Value())
	case KindNAK:
		return "NAK(" + s.NAKCode().String() + ")"
	}
	return fmt.Sprintf("AETHSyndrome(%#02x)", uint8(s))
}
