package roce

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// AtomicAckETHLen is the size of the Atomic Acknowledge Extended Transport Header.
const AtomicAckETHLen = 8

// AtomicAckETH is the Atomic Acknowledge Extended Transport Header (IBA
// 9.3.7): the original value of the target, returned after the AETH of an
// ATOMIC ACKNOWLEDGE.
type AtomicAckETH struct {
	layers.BaseLayer
	OrigData uint64
}

func (a *AtomicAckETH) LayerType() gopacket.LayerType     { return LayerTypeAtomicAckETH }
func (a *AtomicAckETH) CanDecode() gopacket.LayerClass    { return LayerTypeAtomicAckETH }
func (a *AtomicAckETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes the 8 header bytes; the rest becomes Payload.
func (a *AtomicAckETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < AtomicAckETHLen {
		*a = AtomicAckETH{}
		df.SetTruncated()
		return truncated("AtomicAckETH", AtomicAckETHLen, len(data))
	}
	a.OrigData = binary.BigEndian.Uint64(data)
	a.BaseLayer = layers.BaseLayer{Contents: data[:AtomicAckETHLen], Payload: data[AtomicAckETHLen:]}
	return nil
}

// SerializeTo prepends the header.
func (a *AtomicAckETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(AtomicAckETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(buf, a.OrigData)
	return nil
}
