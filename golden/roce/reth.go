package roce

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// RETHLen is the size of the RDMA Extended Transport Header.
const RETHLen = 16

// Offsets of the RETH fields.
const (
	rethVA     = 0 // 8 bytes
	rethRKey   = 8 // 4 bytes
	rethDMALen = 12
)

// RETH is the RDMA Extended Transport Header (IBA 9.3.3; rxe_hdr.h). It
// follows the BTH of RDMA WRITE FIRST/ONLY and RDMA READ requests; DMALen is
// the length of the whole message.
//
//	 0                   1                   2                   3
//	 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     Virtual Address (63:32)                   |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                     Virtual Address (31:0)                    |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                             R_Key                             |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//	|                          DMA Length                           |
//	+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
type RETH struct {
	layers.BaseLayer
	VA     uint64
	RKey   uint32
	DMALen uint32
}

func (r *RETH) LayerType() gopacket.LayerType     { return LayerTypeRETH }
func (r *RETH) CanDecode() gopacket.LayerClass    { return LayerTypeRETH }
func (r *RETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes the 16 header bytes; the rest becomes Payload.
func (r *RETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < RETHLen {
		*r = RETH{}
		df.SetTruncated()
		return truncated("RETH", RETHLen, len(data))
	}
	r.VA = binary.BigEndian.Uint64(data[rethVA:])
	r.RKey = binary.BigEndian.Uint32(data[rethRKey:])
	r.DMALen = binary.BigEndian.Uint32(data[rethDMALen:])
	r.BaseLayer = layers.BaseLayer{Contents: data[:RETHLen], Payload: data[RETHLen:]}
	return nil
}

// SerializeTo prepends the header.
func (r *RETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(RETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint64(buf[rethVA:], r.VA)
	binary.BigEndian.PutUint32(buf[rethRKey:], r.RKey)
	binary.BigEndian.PutUint32(buf[rethDMALen:], r.DMALen)
	return nil
}
