package rc

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/oracle"
	"github.com/rocesim/cosim/golden/roce"
)

// Wireshark's InfiniBand dissector reads every frame of testdata/pair.pcap
// (the model's own output: data, ACKs, NAKs, READ responses,
// retransmissions) with the header fields the model meant, and finds each
// IPv4 checksum good. The ICRC itself is checked by our decoder (tshark does
// not verify it) and, on the same codec, by scapy in golden/roce.
func TestTsharkReadsModelFrames(t *testing.T) {
	tshark := oracle.Tshark(t)
	fields := []string{"infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.a",
		"infiniband.bth.padcnt", "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
		"infiniband.aeth.syndrome", "infiniband.aeth.msn", "ip.checksum.status", "udp.length"}
	args := []string{"-r", capturePath, "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "separator=,"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	rows := oracle.Run(t, tshark, args...)

	f, err := os.Open(capturePath)
	require.NoError(t, err)
	defer f.Close()
	r, err := pcapgo.NewReader(f)
	require.NoError(t, err)
	var want []string
	for {
		data, _, err := r.ReadPacketData()
		if err != nil {
			break
		}
		var fr roce.Frame
		require.NoError(t, fr.Decode(data))
		ok, _, _, err := roce.VerifyICRC(fr.IPPacket(data))
		require.NoError(t, err)
		require.True(t, ok, "frame %d: ICRC", len(want)+1)
		b := &fr.BTH
		row := []string{fmt.Sprint(uint8(b.OpCode)), fmt.Sprintf("0x%06x", uint32(b.DestQP)), fmt.Sprint(uint32(b.PSN)),
			fmt.Sprint(boolInt(b.AckReq)), fmt.Sprint(b.PadCnt), "", "", "", "", ""}
		if b.OpCode.Headers()&roce.HasRETH != 0 {
			row[5], row[6], row[7] = fmt.Sprintf("0x%016x", b.RETH.VA), fmt.Sprintf("0x%08x", b.RETH.RKey), fmt.Sprint(b.RETH.DMALen)
		}
		if b.OpCode.Headers()&roce.HasAETH != 0 {
			row[8], row[9] = fmt.Sprint(uint8(b.AETH.Syndrome)), fmt.Sprint(b.AETH.MSN)
		}
		row = append(row, "1", fmt.Sprint(fr.IPEnd-fr.IPStart-20)) // checksum good; UDP length
		want = append(want, strings.Join(row, ","))
	}
	require.Greater(t, len(want), 100)
	require.Equal(t, want, rows)
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
