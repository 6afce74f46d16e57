package rc

import (
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/roce"
)

// Ethernet padding (IEEE 802.3 clause 4.2.3.3, no FCS on our links): a
// frame shorter than MinFrameLen leaves padded with zeros after its ICRC,
// or a switch drops it as a runt. The IP total length and the UDP length
// do not count the padding; Decode and the ICRC ignore it. Only packets
// with no extension header and no payload are short (58 bytes); every
// other kind keeps its length.
func TestBuildFramePadsToEthernetMinimum(t *testing.T) {
	mem := NewSparseMemory()
	mem.Write(0x1000, []byte{1, 2, 3, 4, 5, 6, 7, 8})
	base := Packet{
		DstMAC: [6]byte{2, 0, 0, 0, 0, 2}, SrcMAC: [6]byte{2, 0, 0, 0, 0, 1},
		SrcIP: [4]byte{10, 0, 0, 1}, DstIP: [4]byte{10, 0, 0, 2},
		UDPSrcPort: 0xC000, TOS: 0x02, DestQP: 0x12, PSN: 7, Addr: 0x1000,
	}
	cases := []struct {
		name    string
		op      roce.OpCode
		payload int
		ipEnd   int // 14 + the IP total length
		frame   int
	}{
		{"SEND ONLY 0 bytes", roce.RCSendOnly, 0, 58, 60},
		{"SEND LAST 0 bytes", roce.RCSendLast, 0, 58, 60},
		{"WRITE LAST 0 bytes", roce.RCWriteLast, 0, 58, 60},
		{"SEND ONLY 1 byte", roce.RCSendOnly, 1, 62, 62},
		{"SEND ONLY 2 bytes", roce.RCSendOnly, 2, 62, 62},
		{"SEND ONLY 4 bytes", roce.RCSendOnly, 4, 62, 62},
		{"SEND ONLY with immediate 0 bytes", roce.RCSendOnlyImm, 0, 62, 62},
		{"ACK", roce.RCAcknowledge, 0, 62, 62},
		{"WRITE ONLY 0 bytes", roce.RCWriteOnly, 0, 74, 74},
		{"READ request", roce.RCReadRequest, 0, 74, 74},
		{"READ RESPONSE ONLY 0 bytes", roce.RCReadResponseOnly, 0, 62, 62},
		{"CNP", roce.CNPOpCode, 0, 74, 74},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := base
			p.OpCode, p.PayloadLen = c.op, c.payload
			// a dirty buffer: the padding must be written, not assumed
			buf := make([]byte, MaxFrameLen)
			for i := range buf {
				buf[i] = 0xA5
			}
			f := BuildFrame(buf, &p, mem)
			require.Len(t, f, c.frame)
			require.GreaterOrEqual(t, len(f), MinFrameLen)
			require.Equal(t, uint16(c.ipEnd-ipOff), binary.BigEndian.Uint16(f[ipOff+2:]), "IP total length")
			require.Equal(t, uint16(c.ipEnd-udpOff), binary.BigEndian.Uint16(f[udpOff+4:]), "UDP length")
			require.Equal(t, make([]byte, c.frame-c.ipEnd), f[c.ipEnd:], "padding is zeros")

			var fr roce.Frame
			require.NoError(t, fr.Decode(f))
			require.Equal(t, c.ipEnd, fr.IPEnd, "Decode stops at the IP end")
			require.Equal(t, c.op, fr.BTH.OpCode)
			require.Len(t, fr.BTH.Payload, c.payload)
			ok, got, want, err := roce.VerifyICRC(fr.IPPacket(f))
			require.NoError(t, err)
			require.True(t, ok, "ICRC %#x, want %#x", got, want)

			// a fresh buffer gives the same frame
			require.Equal(t, f, BuildFrame(nil, &p, mem))
		})
	}
}
