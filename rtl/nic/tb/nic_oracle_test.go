//go:build unix

package tb_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/oracle"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
	"github.com/rocesim/cosim/harness/device/nicdev"
	tb "github.com/rocesim/cosim/harness/testbench"
)

// scapyRequest is one request of testdata/nic_scapy.py's SPEC.
type scapyRequest struct {
	Name    string `json:"name"`
	Op      string `json:"op"`
	DestQP  uint32 `json:"dqpn"`
	SrcQP   uint32 `json:"sqpn"`
	PSN     uint32 `json:"psn"`
	EPSN    uint32 `json:"epsn"`
	AckReq  int    `json:"ackreq"`
	VA      uint64 `json:"va"`
	RKey    uint32 `json:"rkey"`
	Len     uint32 `json:"len"`
	Imm     uint32 `json:"imm"`
	Payload string `json:"payload"`
	Memory  string `json:"memory"`
	Expect  string `json:"expect"`
}

// scapySetup is the NIC of TestNICScapyRequests, as the model tests set
// it up (startNIC, seed 1 at 64 bits): two QPs, here of path MTU 1024, to
// the peer, the regions of the model tests, and READ sources of random
// bytes, which it returns.
func scapySetup() (nicdev.Setup, []byte) {
	rng := rand.New(rand.NewPCG(1, 64))
	src, _ := nicSources(rng)
	qps, _ := nicQPPairs(rng, 2, func(q int, d, p *rc.QPConfig) { d.PMTU, p.PMTU = 1024, 1024 })
	s := nicdev.Setup{Node: nicNodeConfig(nicDUTMAC, nicDUTIP), MRs: nicMRs(), QPs: qps}
	for off := 0; off < len(src); off += 0x8000 {
		s.Init = append(s.Init, nicdev.MemBlock{Addr: nicReadBase + uint64(off), Data: src[off : off+0x8000]})
	}
	return s, src
}

// Requests built by scapy (not by our codec) go to the RTL NIC, alone on a
// bench with its network port free: a WRITE ONLY into a registered region,
// a READ, a SEND with immediate, a PSN gap and a WRITE with a bad R_Key.
// Its answers must be what the RC rules demand, as scapy
// (testdata/nic_scapy.py, rules written there from the IBA spec) and
// tshark's InfiniBand dissector read them, and what the golden model
// predicts cycle for cycle (the bench checks every frame and counter);
// its host memory must be golden's. Memory and the receive completion are
// checked against the requests themselves.
func TestNICScapyRequests(t *testing.T) {
	py := oracle.Scapy(t)
	tshark := oracle.Tshark(t)
	b := tb.Model(t, "nic_64", tb.Name("nic"))
	setup, readSrc := scapySetup()
	host := b.SetUpNIC("nic", setup)
	a, q1 := setup.QPs[0], setup.QPs[1]
	start := host.Ready() + 8
	recv := rc.RecvRequest{ID: 0x5EED, Addr: nicRecvBase, Length: nicSlot}
	b.RunTo(start)
	host.PostRecv(a.QPN, recv)

	readData := readSrc[0x100 : 0x100+300]
	writeData, sendData := bytes.Repeat([]byte{0xA5, 0x01, 0x5A}, 34)[:100], []byte("scapy says hello to the RTL NIC, fifty bytes long!")
	e := uint32(a.RecvPSN)
	at := func(p roce.PSN, n int) uint32 { return uint32(p.Add(n)) }
	reqs := []scapyRequest{
		{Name: "write_only", Op: "RDMA_WRITE_ONLY", PSN: e, EPSN: e, AckReq: 1, VA: nicWriteBase + 0x40, RKey: nicWriteKey,
			Len: uint32(len(writeData)), Payload: hexOf(writeData), Expect: "ack"},
		{Name: "read", Op: "RDMA_READ_REQUEST", PSN: at(a.RecvPSN, 1), EPSN: at(a.RecvPSN, 1), AckReq: 1, VA: nicReadBase + 0x100,
			RKey: nicReadKey, Len: 300, Memory: hexOf(readData), Expect: "read"},
		{Name: "send_imm", Op: "SEND_ONLY_WITH_IMMEDIATE", PSN: at(a.RecvPSN, 2), EPSN: at(a.RecvPSN, 2), AckReq: 1,
			Imm: 0xCAFEBABE, Payload: hexOf(sendData), Expect: "ack"},
		{Name: "psn_gap", Op: "SEND_ONLY", PSN: at(a.RecvPSN, 5), EPSN: at(a.RecvPSN, 3), AckReq: 1, Payload: "0001020304050607",
			Expect: "nak_seq"},
	}
	for i := range reqs {
		reqs[i].DestQP, reqs[i].SrcQP = uint32(a.QPN), uint32(a.RemoteQPN)
	}
	reqs = append(reqs, scapyRequest{Name: "bad_rkey", Op: "RDMA_WRITE_ONLY", DestQP: uint32(q1.QPN), SrcQP: uint32(q1.RemoteQPN),
		PSN: uint32(q1.RecvPSN), EPSN: uint32(q1.RecvPSN), AckReq: 1, VA: nicWriteBase, RKey: nicBadKey, Len: 16,
		Payload: hexOf(make([]byte, 16)), Expect: "nak_access"})
	spec := map[string]any{"nic_mac": net.HardwareAddr(nicDUTMAC[:]).String(), "nic_ip": nicDUTIP.String(),
		"peer_mac": net.HardwareAddr(nicPeerMAC[:]).String(), "peer_ip": nicPeerIP.String(),
		"udp_sport": 0xC123, "pmtu": 1024, "requests": reqs}
	dir := t.TempDir()
	specPath, reqPath, respPath := filepath.Join(dir, "spec.json"), filepath.Join(dir, "requests.pcap"), filepath.Join(dir, "responses.pcap")
	js, err := json.Marshal(spec)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(specPath, js, 0o644))
	script := filepath.Join("testdata", "nic_scapy.py")
	oracle.Run(t, py, script, "build", specPath, reqPath)

	// One request every 400 cycles: each answered before the next comes.
	for i, f := range readPcap(t, reqPath) {
		b.Send("nic.in0", f, tb.At(start+100+400*uint64(i)))
	}
	b.RunUntilIdle(100_000)
	for _, m := range nicMemRegions(2) {
		host.CheckMemory(m.Addr, int(m.Length)) // every byte the NIC wrote is golden's
	}
	host.CheckQPStates() // the bad R_Key's QP as golden's

	resps := b.Out("nic.out0")
	require.Len(t, resps, len(reqs), "one response per request")
	writePcap(t, respPath, resps)
	lines := oracle.Run(t, py, script, "check", specPath, respPath)
	require.Equal(t, len(reqs)+1, len(lines), "%v", lines)
	for i, req := range reqs {
		assert.True(t, strings.HasPrefix(lines[i], "ok "+req.Name+":"), "scapy: %s", lines[i])
	}

	// tshark reads the same answers: opcode, PSN and AETH syndrome.
	rows := oracle.Run(t, tshark, "-r", respPath, "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "separator=,",
		"-e", "infiniband.bth.opcode", "-e", "infiniband.bth.psn", "-e", "infiniband.aeth.syndrome", "-e", "ip.checksum.status")
	want := []string{
		join(17, reqs[0].PSN, 0x1F), join(16, reqs[1].PSN, 0x1F), join(17, reqs[2].PSN, 0x1F),
		join(17, reqs[3].EPSN, 0x60), join(17, reqs[4].PSN, 0x62),
	}
	assert.Equal(t, want, rows)

	// The WRITE and the SEND landed where the requests said; the receive
	// completed with the SEND's length and immediate, the only completion.
	assert.Equal(t, writeData, host.ReadMemory(nicWriteBase+0x40, len(writeData)))
	assert.Equal(t, sendData, host.ReadMemory(nicRecvBase, len(sendData)))
	host.ExpectCompletion(rc.Completion{QPN: a.QPN, Recv: true, ID: recv.ID, Op: rc.OpSendImm,
		Bytes: uint32(len(sendData)), HasImm: true, Imm: 0xCAFEBABE})
	b.ExpectNone("nic.out1", tb.Any(), 0)
}

func hexOf(b []byte) string { return hex.EncodeToString(b) }

// join is a tshark row: opcode, PSN, AETH syndrome, IPv4 checksum good.
func join(op int, psn uint32, syn int) string { return fmt.Sprintf("%d,%d,%d,1", op, psn, syn) }

func readPcap(t *testing.T, path string) [][]byte {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	rd, err := pcapgo.NewReader(f)
	require.NoError(t, err)
	var out [][]byte
	for {
		data, _, err := rd.ReadPacketData()
		if err != nil {
			return out
		}
		out = append(out, data)
	}
}

func writePcap(t *testing.T, path string, frames []tb.Received) {
	t.Helper()
	f, err := os.Create(path)
	require.NoError(t, err)
	defer f.Close()
	w := pcapgo.NewWriter(f)
	require.NoError(t, w.WriteFileHeader(65535, layers.LinkTypeEthernet))
	for _, fr := range frames {
		ci := gopacket.CaptureInfo{Timestamp: time.Unix(0, int64(fr.Cycle)), CaptureLength: len(fr.Data), Length: len(fr.Data)}
		require.NoError(t, w.WritePacket(ci, fr.Data))
	}
}
