package roce

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// CNPLen is the size of the CNP body that follows its BTH.
const CNPLen = 16

// CNP is the body of a RoCEv2 Congestion Notification Packet (annex
// A17.9.3): 16 reserved bytes, zero when sent. Its BTH carries opcode 0x81,
// BECN set, P_Key 0xFFFF, the congested flow's sender QPN as DestQP and PSN 0
// (IBA annex A17.9).
type CNP struct {
	layers.BaseLayer
	Reserved [CNPLen]byte
}

func (c *CNP) LayerType() gopacket.LayerType     { return LayerTypeCNP }
func (c *CNP) CanDecode() gopacket.LayerClass    { return LayerTypeCNP }
func (c *CNP) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes the 16 reserved bytes; the rest becomes Payload.
func (c *CNP) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < CNPLen {
		*c = CNP{}
		df.SetTruncated()
		return truncated("CNP", CNPLen, len(data))
	}
	copy(c.Reserved[:], data)
	c.BaseLayer = layers.BaseLayer{Contents: data[:CNPLen], Payload: data[CNPLen:]}
	return nil
}

// SerializeTo prepends the body.
func (c *CNP) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(CNPLen)
	if err != nil {
		return err
	}
	copy(buf, c.Reserved[:])
	return nil
}
