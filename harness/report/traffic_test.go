package report

import (
	"net"
	"path/filepath"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/pfc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/engine"
	"github.com/rocesim/cosim/harness/pcapio"
)

// packet builds a RoCEv2 packet to QP qp of 10.0.0.2, ECN CE if ce.
func packet(t *testing.T, op roce.OpCode, qp uint32, psn uint32, payload int, ce bool) []byte {
	t.Helper()
	tos := uint8(0x02) // ECT(0)
	if ce {
		tos = 0x03
	}
	ip := &layers.IPv4{Version: 4, TOS: tos, TTL: 64, Protocol: layers.IPProtocolUDP,
		SrcIP: net.IPv4(10, 0, 0, 1).To4(), DstIP: net.IPv4(10, 0, 0, 2).To4()}
	udp := &layers.UDP{SrcPort: 49152, DstPort: roce.UDPPort}
	require.NoError(t, udp.SetNetworkLayerForChecksum(ip))
	b := &roce.BTH{OpCode: op, PKey: roce.DefaultPKey, DestQP: roce.QPN(qp), PSN: roce.PSN(psn)}
	b.AETH = roce.AETH{Syndrome: roce.SyndromeACKUnlimited}
	if op == roce.RCAcknowledge && payload < 0 {
		b.AETH.Syndrome, payload = roce.SyndromeNAKPSNSeq, 0
	}
	ls := []gopacket.SerializableLayer{&layers.Ethernet{SrcMAC: net.HardwareAddr{2, 0, 0, 0, 0, 1}, DstMAC: net.HardwareAddr{2, 0, 0, 0, 0, 2},
		EthernetType: layers.EthernetTypeIPv4}, ip, udp, b}
	if payload > 0 {
		ls = append(ls, gopacket.Payload(make([]byte, payload)))
	}
	buf := gopacket.NewSerializeBuffer()
	require.NoError(t, roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...))
	return append([]byte(nil), buf.Bytes()...)
}

type stamped struct {
	cycle uint64
	data  []byte
}

func capture(t *testing.T, dir, link string, frames ...stamped) {
	t.Helper()
	w, err := pcapio.CreateLinkFile(filepath.Join(dir, link+".pcapng"), link, pcapio.LinkWriterOptions{})
	require.NoError(t, err)
	for _, f := range frames {
		require.NoError(t, w.WriteFrame(f.cycle, f.data))
	}
	require.NoError(t, w.Close())
}

func TestTraffic(t *testing.T) {
	dir := t.TempDir()
	xoff, err := pfc.New(net.HardwareAddr{2, 0, 0, 0, 0, 9}, 1<<3, [8]uint16{3: 100})
	require.NoError(t, err)
	xon, err := pfc.New(net.HardwareAddr{2, 0, 0, 0, 0, 9}, 1<<3, [8]uint16{})
	require.NoError(t, err)
	// The NIC sends PSNs 1, 2, 3, then 2 again (a retransmission), gets a NAK and a CNP.
	capture(t, dir, "nic0.out0--sw.in0",
		stamped{10, packet(t, roce.RCSendOnly, 0x12, 1, 100, false)},
		stamped{20, packet(t, roce.RCSendOnly, 0x12, 2, 100, false)},
		stamped{30, packet(t, roce.RCSendOnly, 0x12, 3, 100, false)},
		stamped{500, packet(t, roce.RCSendOnly, 0x12, 2, 100, false)},
		stamped{600, packet(t, roce.RCAcknowledge, 0x13, 7, -1, false)},
		stamped{700, packet(t, roce.CNPOpCode, 0x13, 0, 16, false)})
	// The switch marks one frame CE and pauses priority 3 twice: 100 quanta
	// at 64 bits is 800 cycles; the second pause ends early with an XON.
	capture(t, dir, "sw.out1--nic1.in0",
		stamped{15, packet(t, roce.RCSendOnly, 0x12, 1, 100, true)},
		stamped{100, xoff},
		stamped{2000, xoff},
		stamped{2300, xon})
	sum := &engine.Summary{Cycles: 10_000, ClockMHz: 100,
		Models: map[string]engine.ModelInfo{"nic0": {Top: "nic", DataWidth: 64}, "sw": {Top: "switch4", DataWidth: 64}}}
	tr, err := readTraffic(dir, sum)
	require.NoError(t, err)
	assert.Equal(t, uint64(100), tr.width)

	require.Len(t, tr.links, 2)
	assert.Equal(t, "nic0.out0--sw.in0", tr.links[0].name)
	assert.Equal(t, 6, tr.links[0].frames)
	assert.Equal(t, 1.0, tr.links[1].ce[0], "one CE mark in the first bin")
	assert.Equal(t, []pause{{"sw.out1--nic1.in0", 3, 100, 900}, {"sw.out1--nic1.in0", 3, 2000, 2300}}, tr.pauses)

	require.Len(t, tr.qps, 2, "only what the NIC sent: the switch's copy is not counted again")
	data, ctl := tr.qps[0], tr.qps[1]
	assert.Equal(t, "10.0.0.2 qp 0x000012", data.key)
	assert.Equal(t, [4]int{400, 0, 0, 1}, data.totals, "bytes, CNPs, NAKs, retransmissions")
	assert.Equal(t, 1.0, data.retry[5])
	assert.Equal(t, [4]int{0, 1, 1, 0}, ctl.totals, "a CNP carries no data")
}

func TestIsRequest(t *testing.T) {
	for op, want := range map[roce.OpCode]bool{
		roce.RCSendFirst: true, roce.RCSendOnly: true, roce.RCWriteOnly: true, roce.RCReadRequest: true,
		roce.RCReadResponseOnly: false, roce.RCAcknowledge: false, roce.CNPOpCode: false,
		roce.RCCompareSwap: true, roce.RCFetchAdd: true, roce.RCAtomicAcknowledge: false,
	} {
		assert.Equal(t, want, isRequest(op), "%s", op)
	}
}
