package rc

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/oracle"
	"github.com/rocesim/cosim/golden/roce"
)

// describe turns a frame a node sent back into the Packet that makes it,
// with roce's decoder (not build's layout), and puts its payload into mem
// at addr.
func describe(t *testing.T, f []byte, mem Memory, addr uint64) Packet {
	t.Helper()
	var fr roce.Frame
	require.NoError(t, fr.Decode(f))
	b := &fr.BTH
	p := Packet{UDPSrcPort: uint16(fr.SrcPort), TOS: f[ipOff+1], DestQP: b.DestQP, OpCode: b.OpCode, PSN: b.PSN,
		AckReq: b.AckReq, BECN: b.BECN, Addr: addr, PayloadLen: len(b.Payload)}
	copy(p.DstMAC[:], f[0:6])
	copy(p.SrcMAC[:], f[6:12])
	copy(p.SrcIP[:], f[ipOff+12:ipOff+16])
	copy(p.DstIP[:], f[ipOff+16:ipOff+20])
	h := b.OpCode.Headers()
	if h&roce.HasRETH != 0 {
		p.VA, p.RKey, p.DMALen = b.RETH.VA, b.RETH.RKey, b.RETH.DMALen
	}
	if h&roce.HasAETH != 0 {
		p.Syndrome, p.MSN = b.AETH.Syndrome, b.AETH.MSN
	}
	if h&roce.HasImmDt != 0 {
		p.Imm = b.ImmDt.Imm
	}
	mem.Write(addr, b.Payload)
	return p
}

// Every frame two nodes send in a lossy, congested run (data of every
// operation, ACKs, NAKs, READ responses, retransmissions, CNPs) is what
// BuildFrame makes of its description: BuildFrame is the node's builder,
// so the RTL tests that compare against it compare against the node.
func TestBuildFrameIsWhatNodesSend(t *testing.T) {
	s := newPair(t, 4, 7, nil, func(c *NodeConfig) {
		c.DCQCN = dcqcn.DefaultConfig(10_000_000_000, testClock)
		c.CNPInterval = dcqcn.DefaultCNPInterval(testClock)
	})
	s.faults = faults{lossPPM: 10_000, cePPM: 20_000, dupPPM: 5_000}
	rng := rand.New(rand.NewPCG(7, 8))
	mem := NewSparseMemory()
	seen := map[roce.OpCode]int{}
	nak := 0
	var buf []byte
	s.onSend = func(from int, f []byte, now uint64) {
		addr := rng.Uint64N(1<<40) + 1 // any alignment
		p := describe(t, f, mem, addr)
		buf = BuildFrame(buf, &p, mem)
		require.Equal(t, f, buf, "side %d cycle %d: %v", from, now, p.OpCode)
		seen[p.OpCode]++
		if p.OpCode == roce.RCAcknowledge && p.Syndrome.Kind() != roce.KindACK {
			nak++
		}
	}
	w := newWorkload(t, s, 4, 300, mix{ops: allOps, maxSize: 10_000, zero: 0.05}, rand.New(rand.NewPCG(7, 9)))
	w.run(1 << 50)
	w.checkMemory()
	t.Logf("frames by opcode: %v; NAKs %d", seen, nak)
	for _, op := range []roce.OpCode{roce.RCSendFirst, roce.RCSendMiddle, roce.RCSendLast, roce.RCSendLastImm,
		roce.RCSendOnly, roce.RCSendOnlyImm, roce.RCWriteFirst, roce.RCWriteMiddle, roce.RCWriteLast,
		roce.RCWriteLastImm, roce.RCWriteOnly, roce.RCWriteOnlyImm, roce.RCReadRequest, roce.RCReadResponseFirst,
		roce.RCReadResponseMiddle, roce.RCReadResponseLast, roce.RCReadResponseOnly, roce.RCAcknowledge,
		roce.CNPOpCode} {
		require.NotZero(t, seen[op], "the run sent no %v", op)
	}
	require.NotZero(t, nak, "the run sent no NAK")
}

// randomPacket is a packet of opcode op with random fields and a payload
// of n bytes at a random address of mem (filled with random bytes).
func randomPacket(rng *rand.Rand, op roce.OpCode, n int, mem Memory) Packet {
	p := Packet{UDPSrcPort: uint16(0xC000 | rng.IntN(0x4000)), TOS: uint8(rng.IntN(256)),
		DestQP: roce.QPN(rng.IntN(1 << 24)), OpCode: op, PSN: roce.PSN(rng.IntN(1 << 24)), AckReq: rng.IntN(2) == 1,
		VA: rng.Uint64(), RKey: rng.Uint32(), DMALen: rng.Uint32(), Syndrome: roce.AETHSyndrome(rng.IntN(128)),
		MSN: uint32(rng.IntN(1 << 24)), Imm: rng.Uint32(), Addr: rng.Uint64N(1 << 48), PayloadLen: n}
	for i := range 6 {
		p.DstMAC[i], p.SrcMAC[i] = byte(rng.IntN(256)), byte(rng.IntN(256))
	}
	p.DstMAC[0] &^= 1 // unicast
	p.SrcMAC[0] &^= 1
	for i := range 4 {
		p.SrcIP[i], p.DstIP[i] = byte(rng.IntN(256)), byte(rng.IntN(256))
	}
	if op == roce.CNPOpCode {
		p.BECN, p.PSN, p.AckReq = true, 0, false
	}
	data := make([]byte, n)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	mem.Write(p.Addr, data)
	return p
}

// sentOpCodes are the opcodes a node sends.
var sentOpCodes = []roce.OpCode{
	roce.RCSendFirst, roce.RCSendMiddle, roce.RCSendLast, roce.RCSendLastImm, roce.RCSendOnly, roce.RCSendOnlyImm,
	roce.RCWriteFirst, roce.RCWriteMiddle, roce.RCWriteLast, roce.RCWriteLastImm, roce.RCWriteOnly,
	roce.RCWriteOnlyImm, roce.RCReadRequest, roce.RCReadResponseFirst, roce.RCReadResponseMiddle,
	roce.RCReadResponseLast, roce.RCReadResponseOnly, roce.RCAcknowledge, roce.CNPOpCode,
}

// Wireshark's InfiniBand dissector reads random BuildFrame frames of every
// opcode a node sends, payload lengths 0 to 4096, a third of them with an
// 802.1Q tag, with the fields they were built from, a good IPv4 checksum
// and the UDP length; our decoder finds each ICRC good (tshark does not
// check it).
func TestTsharkReadsBuildFrame(t *testing.T) {
	tshark := oracle.Tshark(t)
	rng := rand.New(rand.NewPCG(11, 12))
	mem := NewSparseMemory()
	path := filepath.Join(t.TempDir(), "build.pcap")
	out, err := os.Create(path)
	require.NoError(t, err)
	w := pcapgo.NewWriter(out)
	require.NoError(t, w.WriteFileHeader(MaxFrameLen, layers.LinkTypeEthernet))
	var want []string
	for i := range 400 {
		op := sentOpCodes[i%len(sentOpCodes)]
		n := 0
		if op.Payload() != roce.PayloadNone && op != roce.CNPOpCode {
			n = rng.IntN(4097)
		}
		p := randomPacket(rng, op, n, mem)
		if i%3 == 0 {
			p.Tagged, p.TCI = true, uint16(rng.IntN(1<<16))&^0x1000 // DEI 0
		}
		f := BuildFrame(nil, &p, mem)
		require.NoError(t, w.WritePacket(gopacket.CaptureInfo{Timestamp: time.Unix(int64(i), 0), CaptureLength: len(f),
			Length: len(f)}, f))
		var fr roce.Frame
		require.NoError(t, fr.Decode(f))
		ok, _, _, err := roce.VerifyICRC(fr.IPPacket(f))
		require.NoError(t, err)
		require.True(t, ok, "frame %d: ICRC", i)
		row := []string{fmt.Sprint(uint8(op)), fmt.Sprintf("0x%06x", uint32(p.DestQP)), fmt.Sprint(uint32(p.PSN)),
			fmt.Sprint(boolInt(p.AckReq)), fmt.Sprint(-n & 3), "", "", "", "", ""}
		if op.Headers()&roce.HasRETH != 0 {
			row[5], row[6], row[7] = fmt.Sprintf("0x%016x", p.VA), fmt.Sprintf("0x%08x", p.RKey), fmt.Sprint(p.DMALen)
		}
		if op.Headers()&roce.HasAETH != 0 {
			row[8], row[9] = fmt.Sprint(uint8(p.Syndrome)), fmt.Sprint(p.MSN)
		}
		l2, pcp, vid := ethLen, "", ""
		if p.Tagged {
			l2, pcp, vid = ethLen+tagLen, fmt.Sprint(p.TCI>>13), fmt.Sprint(p.TCI&0xFFF)
		}
		row = append(row, "1", fmt.Sprint(len(f)-l2-ipv4Len), fmt.Sprint(p.TOS>>2), pcp, vid)
		want = append(want, strings.Join(row, ","))
	}
	require.NoError(t, out.Close())

	fields := []string{"infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn", "infiniband.bth.a",
		"infiniband.bth.padcnt", "infiniband.reth.va", "infiniband.reth.r_key", "infiniband.reth.dmalen",
		"infiniband.aeth.syndrome", "infiniband.aeth.msn", "ip.checksum.status", "udp.length", "ip.dsfield.dscp",
		"vlan.priority", "vlan.id"}
	args := []string{"-r", path, "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "separator=,"}
	for _, f := range fields {
		args = append(args, "-e", f)
	}
	require.Equal(t, want, oracle.Run(t, tshark, args...))
}

// BuildFrame allocates nothing when buf has room for the frame.
func TestBuildFrameAllocs(t *testing.T) {
	mem := NewSparseMemory()
	p := randomPacket(rand.New(rand.NewPCG(1, 2)), roce.RCWriteOnlyImm, 4096, mem)
	buf := make([]byte, MaxFrameLen)
	require.Zero(t, testing.AllocsPerRun(100, func() { BuildFrame(buf, &p, mem) }))
}
