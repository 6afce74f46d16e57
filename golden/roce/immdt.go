package roce

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// ImmDtLen is the size of the Immediate Data extended header.
const ImmDtLen = 4

// ImmDt is the Immediate Data extended header (IBA 9.3.4) of SEND and RDMA
// WRITE LAST/ONLY with immediate: 32 bits handed to the receiver's
// completion, big-endian on the wire.
type ImmDt struct {
	layers.BaseLayer
	Imm uint32
}

func (i *ImmDt) LayerType() gopacket.LayerType     { return LayerTypeImmDt }
func (i *ImmDt) CanDecode() gopacket.LayerClass    { return LayerTypeImmDt }
func (i *ImmDt) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes the 4 header bytes; the rest becomes Payload.
func (i *ImmDt) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < ImmDtLen {
		*i = ImmDt{}
		df.SetTruncated()
		return truncated("ImmDt", ImmDtLen, len(data))
	}
	i.Imm = binary.BigEndian.Uint32(data)
	i.BaseLayer = layers.BaseLayer{Contents: data[:ImmDtLen], Payload: data[ImmDtLen:]}
	return nil
}

// SerializeTo prepends the header.
func (i *ImmDt) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(ImmDtLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(buf, i.Imm)
	return nil
}
