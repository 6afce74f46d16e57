package roce

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// IETHLen is the size of the Invalidate Extended Transport Header.
const IETHLen = 4

// IETH is the Invalidate Extended Transport Header (IBA 9.3.8) of SEND
// LAST/ONLY with invalidate: the R_Key the responder invalidates.
type IETH struct {
	layers.BaseLayer
	RKey uint32
}

func (i *IETH) LayerType() gopacket.LayerType     { return LayerTypeIETH }
func (i *IETH) CanDecode() gopacket.LayerClass    { return LayerTypeIETH }
func (i *IETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes the 4 header bytes; the rest becomes Payload.
func (i *IETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < IETHLen {
		*i = IETH{}
		df.SetTruncated()
		return truncated("IETH", IETHLen, len(data))
	}
	i.RKey = binary.BigEndian.Uint32(data)
	i.BaseLayer = layers.BaseLayer{Contents: data[:IETHLen], Payload: data[IETHLen:]}
	return nil
}

// SerializeTo prepends the header.
func (i *IETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(IETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(buf, i.RKey)
	return nil
}
