package roce

import (
	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// UDPPort is the IANA port of RoCEv2 (IBA annex A17).
const UDPPort layers.UDPPort = 4791

// Layer type numbers 1000-1099 belong to this package (golden/pfc uses 1100).
var (
	LayerTypeBTH          = gopacket.RegisterLayerType(1000, gopacket.LayerTypeMetadata{Name: "BTH", Decoder: gopacket.DecodeFunc(decodeBTH)})
	LayerTypeRETH         = gopacket.RegisterLayerType(1001, gopacket.LayerTypeMetadata{Name: "RETH", Decoder: gopacket.DecodeFunc(decodeStandalone[RETH])})
	LayerTypeAETH         = gopacket.RegisterLayerType(1002, gopacket.LayerTypeMetadata{Name: "AETH", Decoder: gopacket.DecodeFunc(decodeStandalone[AETH])})
	LayerTypeImmDt        = gopacket.RegisterLayerType(1003, gopacket.LayerTypeMetadata{Name: "ImmDt", Decoder: gopacket.DecodeFunc(decodeStandalone[ImmDt])})
	LayerTypeAtomicETH    = gopacket.RegisterLayerType(1004, gopacket.LayerTypeMetadata{Name: "AtomicETH", Decoder: gopacket.DecodeFunc(decodeStandalone[AtomicETH])})
	LayerTypeAtomicAckETH = gopacket.RegisterLayerType(1005, gopacket.LayerTypeMetadata{Name: "AtomicAckETH", Decoder: gopacket.DecodeFunc(decodeStandalone[AtomicAckETH])})
	LayerTypeIETH         = gopacket.RegisterLayerType(1006, gopacket.LayerTypeMetadata{Name: "IETH", Decoder: gopacket.DecodeFunc(decodeStandalone[IETH])})
	LayerTypeDETH         = gopacket.RegisterLayerType(1007, gopacket.LayerTypeMetadata{Name: "DETH", Decoder: gopacket.DecodeFunc(decodeStandalone[DETH])})
	LayerTypeCNP          = gopacket.RegisterLayerType(1008, gopacket.LayerTypeMetadata{Name: "CNP", Decoder: gopacket.DecodeFunc(decodeStandalone[CNP])})
	LayerTypeICRC         = gopacket.RegisterLayerType(1009, gopacket.LayerTypeMetadata{Name: "ICRC", Decoder: gopacket.DecodeFunc(decodeStandalone[ICRC])})
)

func init() {
	layers.RegisterUDPPortLayerType(UDPPort, LayerTypeBTH)
}
