package roce

import (
	"encoding/binary"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
)

// DETHLen is the size of the Datagram Extended Transport Header.
const DETHLen = 8

// Offsets of the DETH fields.
const (
	dethQKey     = 0 // 4 bytes
	dethReserved = 4
	dethSrcQP    = 5 // 3 bytes
)

// DETH is the Datagram Extended Transport Header (IBA 9.3.2) of UD packets.
//
//	+---------------------------------------------------------------+
//	|                             Q_Key                             |
//	+---------------+-----------------------------------------------+
//	|   reserved    |                  Source QP                    |
//	+---------------+-----------------------------------------------+
type DETH struct {
	layers.BaseLayer
	QKey     uint32
	Reserved uint8
	SrcQP    QPN
}

func (d *DETH) LayerType() gopacket.LayerType     { return LayerTypeDETH }
func (d *DETH) CanDecode() gopacket.LayerClass    { return LayerTypeDETH }
func (d *DETH) NextLayerType() gopacket.LayerType { return gopacket.LayerTypePayload }

// DecodeFromBytes decodes the 8 header bytes; the rest becomes Payload.
func (d *DETH) DecodeFromBytes(data []byte, df gopacket.DecodeFeedback) error {
	if len(data) < DETHLen {
		*d = DETH{}
		df.SetTruncated()
		return truncated("DETH", DETHLen, len(data))
	}
	d.QKey = binary.BigEndian.Uint32(data[dethQKey:])
	d.Reserved = data[dethReserved]
	d.SrcQP = QPN(get24(data[dethSrcQP:]))
	d.BaseLayer = layers.BaseLayer{Contents: data[:DETHLen], Payload: data[DETHLen:]}
	return nil
}

// SerializeTo prepends the header.
func (d *DETH) SerializeTo(b gopacket.SerializeBuffer, _ gopacket.SerializeOptions) error {
	buf, err := b.PrependBytes(DETHLen)
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(buf[dethQKey:], d.QKey)
	buf[dethReserved] = d.Reserved
	put24(buf[dethSrcQP:], uint32(d.SrcQP))
	return nil
}

func put24(b []byte, v uint32) {
	b[0], b[1], b[2] = byte(v>>16), byte(v>>8), byte(v)
}

func get24(b []byte) uint32 {
	return uint32(b[0])<<16 | uint32(b[1])<<8 | uint32(b[2])
}
