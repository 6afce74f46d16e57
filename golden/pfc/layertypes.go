package pfc

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// LayerTypePFC is the gopacket layer type of MAC Control frames (PFC, PAUSE
// and unknown opcodes), decoded into *PFC. Layer type number 1100 belongs to
// this package; 1000-1099 are used by golden/roce.
var LayerTypePFC = gopacket.RegisterLayerType(1100, gopacket.LayerTypeMetadata{
	Name:    "PFC",
	Decoder: gopacket.DecodeFunc(decodePFC),
})

func init() {
	// gopacket/layers knows no decoder for the MAC Control EtherType; plug ours
	// in so that Ethernet.NextLayerType and NewPacket hand 0x8808 to PFC.
	layers.EthernetTypeMetadata[EtherType] = layers.EnumMetadata{
		DecodeWith: gopacket.DecodeFunc(decodePFC),
		Name:       "MACControl",
		LayerType:  LayerTypePFC,
	}
}

// decodePFC is the gopacket.Decoder behind LayerTypePFC.
func decodePFC(data []byte, pb gopacket.PacketBuilder) error {
	p := &PFC{}
	if err := p.DecodeFromBytes(data, pb); err != nil {
		return err
	}
	pb.AddLayer(p)
	next := p.NextLayerType()
	if next == gopacket.LayerTypeZero {
		return nil
	}
	return pb.NextDecoder(next)
}
