package roce

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// AtomicETHLen is the size of the Atomic Extended Transport Header.
const AtomicETHLen = 28

// Offsets of the AtomicETH fields.
const (
	atomicVA      = 0  // 8 bytes
	atomicRKey    = 8  // 4 bytes
	atomicSwapAdd = 12 // 8 bytes
	atomicCompare = 20 // 8 bytes
)

// AtomicETH is the Atomic Extended Transport Header (IBA 9.3.5) of COMPARE
// SWAP and FETCH ADD requests.
//
//	+--------------------------------+
//	| Virtual Address          (64)  |
//	| R_Key                    (32)  |
//	| Swap (or Add) Data       (64)  |
//	| Compare Data             (64)  |
//	+--------------------------------+
type AtomicETH struct {
	layers.BaseLayer
	VA      uint64
	RKey    uint32
	SwapAdd uint64
	Compare uint64
}

func (a *AtomicETH) LayerType() gopacket.LayerType     { return LayerTypeAtomicETH }
func (a *AtomicETH) CanDecode() gopacket.LayerClass    { return LayerTypeAtomicETH }
func (a *AtomicETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes the 28 header bytes; the rest becomes Payload.
func (a *AtomicETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < AtomicETHLen {
		*a = AtomicETH{}
		df.SetTruncated()
		return truncated("AtomicETH", AtomicETHLen, len(data))
	}
	a.VA = binary.BigEndian.Uint64(data[atomicVA:])
	a.RKey = binary.BigEndian.Uint32(data[atomicRKey:])
	a.SwapAdd = binary.BigEndian.Uint64(data[atomicSwapAdd:])
	a.Compare = binary.BigEndian.Uint64(data[atomicCompare:])
	a.BaseLayer = layers.BaseLayer{Contents: data[:AtomicETHLen], Payload: data[AtomicETHLen:]}
	return nil
}

// SerializeTo prepends the header.
func (a *AtomicETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(AtomicETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(buf[atomicVA:], a.VA)
	binary.BigEndian.PutUint32(buf[atomicRKey:], a.RKey)
	binary.BigEndian.PutUint64(buf[atomicSwapAdd:], a.SwapAdd)
	binary.BigEndian.PutUint64(buf[atomicCompare:], a.Compare)
	return nil
}
