//go:build unix

package tb_test

// Tests of the NIC's receive front end, rtl/nic/nic_rx_parse.sv, through the
// real model program of sim/tops/nic_rx_top.sv (nic_rx_64, nic_rx_512).
// Every frame's decision record is held against golden/rc Node.Receive (the
// class: which counter the frame moves) and golden/roce Frame.Decode (the
// fields and the payload copied out of the receive buffer), at exactly
// D = L + RX_LATENCY; the host frames against the rule of nic_rx_parse's
// header, to the cycle; the counters read by CSR against golden's at the end.
//
// The models are built by make build (or make -f sim/build.mk
// build/models/nic_rx_64/Vnic_rx_top); a missing one skips the tests, or
// fails them under COSIM_REQUIRE_MODELS=1.

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"net"
	"net/netip"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/stretchr/testify/require"

	"github.com/rocesim/cosim/cosim"
	"github.com/rocesim/cosim/cosim/modeltest"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

var (
	nicRxFrames = flag.Int("nicrx.frames", 20000, "frames per model in TestNICRxModelGolden (-short: a tenth)")
	nicRxSeed   = flag.Uint64("nicrx.seed", 1, "seed of the nic_rx model tests' frames")
)

// Timing constants of rtl/nic/nic_rx_parse.sv (rtl/nic/README.md "Timing").
const (
	nicRxLatency     = 2 // a frame's last beat taken at L, its decision at D = L + 2
	nicRxHostLatency = 1 // a host frame's first beat at D + 1 when the host FIFO is empty
)

// Shape of the built models (sim/build.mk nic_rx_*).
const (
	nicRxQPS      = 16
	nicRxBufBytes = 16384
	nicRxRecLen   = 64 // bytes of a record before its payload
)

// Record classes (nic_rx_parse rec_class).
const (
	rxRC = iota
	rxCNP
	rxNotRoCE
	rxMalformed
	rxBadICRC
	rxWrongAddress
	rxBadHeader
	rxUnknownQP
	rxBufferFull
	rxBadFrame
	rxPFC // MAC Control, consumed (rtl/nic README "PFC")
	rxPause
	rxMACControl
)

var rxClassNames = [...]string{"RC", "CNP", "NOT_ROCE", "MALFORMED", "BAD_ICRC", "WRONG_ADDRESS",
	"BAD_HEADER", "UNKNOWN_QP", "BUFFER_FULL", "BAD_FRAME", "PFC", "PAUSE", "MAC_CONTROL"}

func rxClassName(c int) string {
	if c >= 0 && c < len(rxClassNames) {
		return rxClassNames[c]
	}
	return fmt.Sprintf("class(%d)", c)
}

// CSR map of sim/tops/nic_rx_top.sv.
const (
	rxRegID      = 0x0000
	rxRegShape   = 0x0004
	rxRegBuf     = 0x0008
	rxRegHeld    = 0x000C
	rxRegCtrl    = 0x0010
	rxRegMACLo   = 0x0014
	rxRegMACHi   = 0x0018
	rxRegIP      = 0x001C
	rxRegRelease = 0x0020
	rxCtrlHold   = 1
	rxQPState    = 0x7C
)

func rxQPAddr(slot int) uint32 { return 0x1000 + 0x80*uint32(slot) }

// rxCounters lists the top's counters: name, address, and the golden/rc
// counters whose sum it must equal (none: not in golden).
var rxCounters = []struct {
	name   string
	addr   uint32
	golden []rc.Counter
}{
	{"rx_not_roce", 0x4000, []rc.Counter{rc.RxNotRoCE}},
	{"rx_malformed", 0x4004, []rc.Counter{rc.RxMalformed}},
	{"rx_bad_icrc", 0x4008, []rc.Counter{rc.RxBadICRC}},
	{"rx_wrong_address", 0x400C, []rc.Counter{rc.RxWrongAddress}},
	{"rx_bad_header", 0x4010, []rc.Counter{rc.RxBadHeader}},
	{"rx_unknown_qp", 0x4014, []rc.Counter{rc.RxUnknownQP}},
	{"rc", 0x4018, []rc.Counter{rc.RxPackets, rc.RxQPError}},
	{"rx_cnp", 0x402C, []rc.Counter{rc.RxCNP}},
	{"rx_buffer_full", 0x4100, nil},
	{"rx_bad_frame", 0x4104, nil},
	{"host_rx_frames", 0x4108, nil},
	{"host_rx_overflow", 0x410C, nil},
}

// rxGoldenClass maps the golden counter a frame moves to the record class.
var rxGoldenClass = map[rc.Counter]int{
	rc.RxNotRoCE: rxNotRoCE, rc.RxMalformed: rxMalformed, rc.RxBadICRC: rxBadICRC,
	rc.RxWrongAddress: rxWrongAddress, rc.RxBadHeader: rxBadHeader, rc.RxUnknownQP: rxUnknownQP,
	rc.RxPackets: rxRC, rc.RxQPError: rxRC, rc.RxCNP: rxCNP,
}

// ---- the model ----

func nicRxModel(t *testing.T, width int) string {
	t.Helper()
	path := filepath.Join(modeltest.Dir(modeltest.DirEnv), fmt.Sprintf("nic_rx_%d", width), "Vnic_rx_top")
	modeltest.NeedBinary(t, path)
	return path
}

// rxRun is one nic_rx model and everything it has answered so far.
type rxRun struct {
	t       *testing.T
	m       *cosim.Model
	width   int
	accepts map[uint32]cosim.Accept // by input seq
	recs    []cosim.Frame           // port 0
	hosts   []cosim.Frame           // port 1
}

func startNICRx(t *testing.T, width int, ack cosim.HelloAck) *rxRun {
	t.Helper()
	m, err := cosim.Start(context.Background(), cosim.Config{
		Name:     fmt.Sprintf("nicrx%d", width),
		Path:     nicRxModel(t, width),
		Timeouts: cosim.Timeouts{Start: 10 * time.Second, Step: 120 * time.Second, Close: 5 * time.Second},
	})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	h, err := m.Handshake(context.Background(), ack)
	require.NoError(t, err)
	require.EqualValues(t, 1, h.InPorts)
	require.EqualValues(t, 2, h.OutPorts)
	require.EqualValues(t, width, h.DataWidth)
	return &rxRun{t: t, m: m, width: width, accepts: map[uint32]cosim.Accept{}}
}

func (r *rxRun) step(w cosim.Window) cosim.Reply {
	r.t.Helper()
	rep, err := r.m.Step(context.Background(), w)
	require.NoError(r.t, err)
	for _, a := range rep.Accepts {
		r.accepts[a.Seq] = a
	}
	for _, f := range rep.Frames {
		if f.Port == 0 {
			r.recs = append(r.recs, f)
		} else {
			r.hosts = append(r.hosts, f)
		}
	}
	return rep
}

func (r *rxRun) drain() {
	r.t.Helper()
	for i := 0; ; i++ {
		require.Less(r.t, i, 10000, "the model drains")
		if rep := r.step(cosim.Window{Target: r.m.Cycle() + 4096}); !rep.Done.Busy {
			return
		}
	}
}

func (r *rxRun) csr(writes []cosim.CSR, reads ...uint32) []uint32 {
	r.t.Helper()
	rep := r.step(cosim.Window{
		Target:    r.m.Cycle() + uint64(len(writes)+2*len(reads)+2),
		CSRWrites: writes,
		CSRReads:  reads,
	})
	require.Len(r.t, rep.CSRData, len(reads))
	vals := make([]uint32, len(reads))
	for i, c := range rep.CSRData {
		vals[i] = c.Data
	}
	return vals
}

// counters reads every counter of the top, by name.
func (r *rxRun) counters() map[string]uint32 {
	r.t.Helper()
	addrs := make([]uint32, len(rxCounters))
	for i, c := range rxCounters {
		addrs[i] = c.addr
	}
	vals := r.csr(nil, addrs...)
	m := map[string]uint32{}
	for i, c := range rxCounters {
		m[c.name] = vals[i]
	}
	return m
}

// ---- the node both sides are configured as ----

type rxNode struct {
	mac    [6]byte
	ip     [4]byte
	qpns   [nicRxQPS]uint32
	valid  [nicRxQPS]bool
	slotOf map[uint32]int // valid QPN -> lowest slot
}

func newRxNode(r *rand.Rand) *rxNode {
	n := &rxNode{mac: [6]byte{0x02, 0x00, 0x5e, 0x10, 0x00, 0x02}, ip: [4]byte{10, 0, 0, 2}, slotOf: map[uint32]int{}}
	seen := map[uint32]bool{}
	for s := range nicRxQPS {
		q := r.Uint32() & 0xFFFFFF
		for seen[q] {
			q = r.Uint32() & 0xFFFFFF
		}
		seen[q] = true
		n.qpns[s] = q
		n.valid[s] = s < 12 // slots 12..15 hold a QPN but are not set up
		if n.valid[s] {
			n.slotOf[q] = s
		}
	}
	return n
}

// configure writes the node into the model.
func (n *rxNode) configure(r *rxRun) {
	w := []cosim.CSR{
		{Addr: rxRegMACLo, Data: binary.BigEndian.Uint32(n.mac[2:6])},
		{Addr: rxRegMACHi, Data: uint32(binary.BigEndian.Uint16(n.mac[0:2]))},
		{Addr: rxRegIP, Data: binary.BigEndian.Uint32(n.ip[:])},
	}
	for s := range nicRxQPS {
		v := uint32(0)
		if n.valid[s] {
			v = 1
		}
		w = append(w, cosim.CSR{Addr: rxQPAddr(s), Data: n.qpns[s]}, cosim.CSR{Addr: rxQPAddr(s) + rxQPState, Data: v})
	}
	r.csr(w)
}

// golden returns an rc.Node with the same address and QPs.
func (n *rxNode) golden(t *testing.T) *rc.Node {
	node, err := rc.NewNode(rc.NodeConfig{MAC: n.mac, IP: netip.AddrFrom4(n.ip), ClockHz: 250_000_000},
		rc.NewSparseMemory())
	require.NoError(t, err)
	for s := range nicRxQPS {
		if !n.valid[s] || n.slotOf[n.qpns[s]] != s {
			continue
		}
		require.NoError(t, node.AddQP(rc.QPConfig{
			QPN: roce.QPN(n.qpns[s]), RemoteQPN: roce.QPN(0x100 + s), RemoteMAC: [6]byte{2, 0, 0, 0, 0, 1},
			RemoteIP: netip.AddrFrom4([4]byte{10, 0, 0, 1}), PMTU: 4096, UDPSrcPort: 0xC000,
			Access: rc.AccessRemoteWrite | rc.AccessRemoteRead,
		}))
	}
	return node
}

// ---- frames ----

// rxPkt is a RoCEv2 packet to build with golden/roce.
type rxPkt struct {
	dst, src     [6]byte
	vlan         bool
	tci          uint16
	v6           bool
	dstIP, srcIP [4]byte
	tos          uint8
	sport, dport uint16
	bth          roce.BTH
	payload      []byte
}

func (p *rxPkt) build() []byte {
	eth := &layers.Ethernet{SrcMAC: net.HardwareAddr(p.src[:]), DstMAC: net.HardwareAddr(p.dst[:])}
	et := layers.EthernetTypeIPv4
	if p.v6 {
		et = layers.EthernetTypeIPv6
	}
	ls := []gopacket.SerializableLayer{eth}
	if p.vlan {
		eth.EthernetType = layers.EthernetTypeDot1Q
		ls = append(ls, &layers.Dot1Q{Priority: uint8(p.tci >> 13), DropEligible: p.tci&0x1000 != 0,
			VLANIdentifier: p.tci & 0xFFF, Type: et})
	} else {
		eth.EthernetType = et
	}
	udp := &layers.UDP{SrcPort: layers.UDPPort(p.sport), DstPort: layers.UDPPort(p.dport)}
	if p.v6 {
		src := net.IP{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, p.srcIP[0], p.srcIP[1], p.srcIP[2], p.srcIP[3]}
		dst := net.IP{0xfd, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, p.dstIP[0], p.dstIP[1], p.dstIP[2], p.dstIP[3]}
		ip := &layers.IPv6{Version: 6, TrafficClass: p.tos, HopLimit: 64, NextHeader: layers.IPProtocolUDP,
			SrcIP: src, DstIP: dst}
		if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
			panic(err)
		}
		ls = append(ls, ip)
	} else {
		ip := &layers.IPv4{Version: 4, TOS: p.tos, TTL: 64, Flags: layers.IPv4DontFragment,
			Protocol: layers.IPProtocolUDP, SrcIP: net.IP(p.srcIP[:]), DstIP: net.IP(p.dstIP[:])}
		if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
			panic(err)
		}
		ls = append(ls, ip)
	}
	bth := p.bth
	ls = append(ls, udp, &bth, gopacket.Payload(p.payload))
	buf := gopacket.NewSerializeBuffer()
	if err := roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		panic(err)
	}
	return append([]byte(nil), buf.Bytes()...)
}

// rxIPOff is where the IP header of an Ethernet frame starts (one 0x8100 tag at most).
func rxIPOff(f []byte) int {
	if len(f) >= 14 && binary.BigEndian.Uint16(f[12:]) == 0x8100 {
		return 18
	}
	return 14
}

// rxFixIPv4 recomputes the IPv4 header checksum (over IHL*4 bytes) of f.
func rxFixIPv4(f []byte) {
	off := rxIPOff(f)
	if len(f) < off+20 {
		return
	}
	n := int(f[off]&0x0F) * 4
	if n < 20 || len(f) < off+n {
		n = 20
	}
	f[off+10], f[off+11] = 0, 0
	var sum uint32
	for i := 0; i+1 < n; i += 2 {
		sum += uint32(binary.BigEndian.Uint16(f[off+i:]))
	}
	for sum > 0xFFFF {
		sum = sum&0xFFFF + sum>>16
	}
	binary.BigEndian.PutUint16(f[off+10:], ^uint16(sum))
}

// rxFixICRC rewrites the ICRC where golden/roce finds it; frames it cannot
// place are left alone. It leaves the UDP checksum at 0 (any value is legal).
func rxFixICRC(f []byte) {
	off := rxIPOff(f)
	if len(f) >= off+20 && f[off]>>4 == 4 {
		udp := off + int(f[off]&0x0F)*4
		if udp+8 <= len(f) {
			f[udp+6], f[udp+7] = 0, 0
		}
	}
	_ = roce.FixICRC(f)
}

// rxGen makes the test frames.
type rxGen struct {
	r    *rand.Rand
	node *rxNode
}

// rxItem is one input frame and what it was meant to be.
type rxItem struct {
	data []byte
	bad  bool
	kind string
}

func (g *rxGen) intn(n int) int { return g.r.IntN(n) }
func (g *rxGen) chance(p float64) bool {
	return g.r.Float64() < p
}

func (g *rxGen) bytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(g.r.Uint32())
	}
	return b
}

// payloadLen picks a payload size in 0..4096, edges often.
func (g *rxGen) payloadLen() int {
	switch g.intn(6) {
	case 0:
		return g.intn(9)
	case 1:
		edges := []int{0, 1, 2, 3, 4, 5, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 2048, 4095, 4096}
		return edges[g.intn(len(edges))]
	case 2:
		return g.intn(128)
	default:
		return g.intn(4097)
	}
}

// validQPN is a QPN of a set-up slot.
func (g *rxGen) validQPN() uint32 {
	for {
		s := g.intn(nicRxQPS)
		if g.node.valid[s] {
			return g.node.qpns[s]
		}
	}
}

// rcOpcodes are the RC opcodes golden knows, and unknown RC ones (no headers).
var rcOpcodes = []roce.OpCode{
	roce.RCSendFirst, roce.RCSendMiddle, roce.RCSendLast, roce.RCSendLastImm, roce.RCSendOnly, roce.RCSendOnlyImm,
	roce.RCWriteFirst, roce.RCWriteMiddle, roce.RCWriteLast, roce.RCWriteLastImm, roce.RCWriteOnly,
	roce.RCWriteOnlyImm, roce.RCReadRequest, roce.RCReadResponseFirst, roce.RCReadResponseMiddle,
	roce.RCReadResponseLast, roce.RCReadResponseOnly, roce.RCAcknowledge, roce.RCAtomicAcknowledge,
	roce.RCCompareSwap, roce.RCFetchAdd, roce.RCSendLastInv, roce.RCSendOnlyInv,
	0x15, 0x18, 0x19, 0x1A, 0x1B, 0x1C, 0x1D, 0x1E, 0x1F,
}

// pkt is a valid packet to this node with opcode op and n payload bytes.
func (g *rxGen) pkt(op roce.OpCode, n int) *rxPkt {
	p := &rxPkt{
		dst: g.node.mac, src: [6]byte{0x02, 0, 0, 0, 0, byte(g.intn(256))},
		dstIP: g.node.ip, srcIP: [4]byte{10, 0, byte(g.intn(4)), byte(1 + g.intn(250))},
		tos: uint8(g.intn(64))<<2 | 0b10, sport: 0xC000 | uint16(g.intn(0x4000)), dport: uint16(roce.UDPPort),
		payload: g.bytes(n),
	}
	if g.chance(0.3) {
		p.vlan, p.tci = true, uint16(g.r.Uint32())
	}
	if g.chance(0.2) {
		p.tos |= 0b11 // CE, as a switch marks it (with the IPv4 checksum fixed)
	}
	b := &p.bth
	b.OpCode, b.PKey, b.DestQP = op, roce.DefaultPKey, roce.QPN(g.validQPN())
	b.SolicitedEvent, b.MigReq, b.AckReq = g.chance(0.3), g.chance(0.3), g.chance(0.5)
	b.PSN = roce.PSN(g.r.Uint32() & roce.PSNMask)
	b.FECN, b.BECN = g.chance(0.1), g.chance(0.1)
	b.RETH = roce.RETH{VA: g.r.Uint64(), RKey: g.r.Uint32(), DMALen: g.r.Uint32()}
	b.AETH = roce.AETH{Syndrome: roce.AETHSyndrome(g.r.Uint32()), MSN: g.r.Uint32() & 0xFFFFFF}
	b.ImmDt = roce.ImmDt{Imm: g.r.Uint32()}
	b.IETH = roce.IETH{RKey: g.r.Uint32()}
	b.AtomicETH = roce.AtomicETH{VA: g.r.Uint64(), RKey: g.r.Uint32(), SwapAdd: g.r.Uint64(), Compare: g.r.Uint64()}
	b.AtomicAckETH = roce.AtomicAckETH{OrigData: g.r.Uint64()}
	b.DETH = roce.DETH{QKey: g.r.Uint32(), SrcQP: roce.QPN(g.r.Uint32() & 0xFFFFFF)}
	return p
}

func (g *rxGen) rcPkt() *rxPkt {
	op := rcOpcodes[g.intn(len(rcOpcodes))]
	n := g.payloadLen()
	if op.Payload() == roce.PayloadNone && g.chance(0.8) {
		n = 0
	}
	return g.pkt(op, n)
}

func (g *rxGen) cnp() *rxPkt {
	p := g.pkt(roce.CNPOpCode, 0)
	p.bth.BECN, p.bth.PSN, p.bth.AckReq = true, 0, false
	return p
}

// header boundaries of a built RoCEv2 frame (IPv4), to cut at.
func rxBoundaries(f []byte) []int {
	off := rxIPOff(f)
	udp := off + 20
	bth := udp + 8
	op := roce.OpCode(f[bth])
	ext := bth + 12 + op.Headers().HeaderLen()
	end := off + int(binary.BigEndian.Uint16(f[off+2:]))
	return []int{1, 6, 12, 13, 14, 15, 16, 17, 18, off + 1, off + 2, off + 19, off + 20, udp + 1, udp + 2, udp + 4,
		udp + 7, udp + 8, bth + 1, bth + 11, bth + 12, bth + 13, ext - 1, ext, ext + 1, end - 5, end - 4, end - 1, end}
}

// mutate applies one corruption to a valid IPv4 RoCEv2 frame f.
func (g *rxGen) mutate(f []byte) ([]byte, string) {
	off := rxIPOff(f)
	udp := off + 20
	bth := udp + 8
	end := off + int(binary.BigEndian.Uint16(f[off+2:]))
	switch g.intn(33) {
	case 30, 31, 32:
		return g.faults(f), "multi-fault"
	case 0:
		f[end-4+g.intn(4)] ^= 1 << g.intn(8)
		return f, "icrc"
	case 1:
		i := bth + g.intn(end-4-bth)
		if i == bth+4 { // masked: would not change the ICRC
			i = bth
		}
		f[i] ^= 1 << g.intn(8)
		return f, "covered-bit"
	case 2:
		f[off+10+g.intn(2)] ^= 1 << g.intn(8)
		return f, "ipv4-checksum"
	case 3:
		f[off+1] ^= byte(1 + g.intn(255))
		return f, "tos-no-checksum"
	case 4:
		f[off+1] |= 3
		f[off+8] = byte(g.intn(256))
		rxFixIPv4(f)
		return f, "ce-ttl"
	case 5:
		f[g.intn(6)] ^= byte(1 + g.intn(255))
		f[0] &^= 1
		return f, "mac-unicast"
	case 6:
		copy(f, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
		return f, "mac-broadcast"
	case 7:
		copy(f, []byte{0x01, 0x00, 0x5e, byte(g.intn(128)), byte(g.intn(256)), byte(g.intn(256))})
		return f, "mac-multicast"
	case 8:
		f[off+16+g.intn(4)] ^= byte(1 + g.intn(255))
		rxFixIPv4(f)
		rxFixICRC(f)
		return f, "ip-other"
	case 9:
		f[off+16+g.intn(4)] ^= byte(1 + g.intn(255))
		rxFixIPv4(f)
		return f, "ip-other-icrc"
	case 10:
		f[bth+1] = f[bth+1]&0xF0 | byte(1+g.intn(15))
		rxFixICRC(f)
		return f, "tver"
	case 11:
		binary.BigEndian.PutUint16(f[bth+2:], uint16(g.intn(0xFFFF)))
		rxFixICRC(f)
		return f, "pkey"
	case 12:
		q := g.r.Uint32() & 0xFFFFFF
		if g.chance(0.5) {
			q = g.node.qpns[12+g.intn(4)]
		}
		f[bth+5], f[bth+6], f[bth+7] = byte(q>>16), byte(q>>8), byte(q)
		rxFixICRC(f)
		return f, "qp-unknown"
	case 13:
		f[bth+1] = f[bth+1]&0xCF | byte(g.intn(4))<<4
		rxFixICRC(f)
		return f, "padcnt"
	case 14:
		f[bth+4] = byte(g.intn(256))
		f[udp+6], f[udp+7] = byte(g.intn(256)), byte(g.intn(256))
		return f, "masked-fields"
	case 15:
		binary.BigEndian.PutUint16(f[udp:], uint16(g.intn(0x10000)))
		binary.BigEndian.PutUint16(f[udp+4:], uint16(g.intn(0x10000)))
		rxFixICRC(f)
		return f, "udp-sport-length"
	case 16, 17:
		k := 1 + g.intn(40)
		binary.BigEndian.PutUint16(f[off+2:], uint16(end-off-k))
		rxFixIPv4(f)
		if g.chance(0.6) {
			rxFixICRC(f)
		}
		return f, "iplen-short"
	case 18:
		k := 1 + g.intn(8)
		if g.chance(0.3) {
			k = 1 + g.intn(3000)
		}
		binary.BigEndian.PutUint16(f[off+2:], uint16(end-off+k))
		rxFixIPv4(f)
		if g.chance(0.5) {
			rxFixICRC(f)
		}
		return f, "iplen-long"
	case 19, 20:
		b := rxBoundaries(f)
		return f[:min(len(f), max(1, b[g.intn(len(b))]))], "cut-boundary"
	case 21:
		return f[:1+g.intn(len(f)-1)], "cut"
	case 22, 23:
		return g.options(f), "ipv4-options"
	case 24:
		f[off] = f[off]&0xF0 | byte(g.intn(5))
		rxFixIPv4(f)
		return f, "ihl-below-5"
	case 25:
		f[off] = f[off]&0x0F | byte(g.intn(16))<<4
		if f[off]>>4 == 4 {
			f[off] ^= 0x10
		}
		return f, "ip-version"
	case 26:
		f[off+9] = []byte{1, 6, 47, 132, 255, 0, byte(g.intn(256))}[g.intn(7)]
		if f[off+9] == 17 {
			f[off+9] = 6
		}
		rxFixIPv4(f)
		return f, "ip-protocol"
	case 27:
		p := uint16(g.intn(0x10000))
		if p == uint16(roce.UDPPort) {
			p++
		}
		binary.BigEndian.PutUint16(f[udp+2:], p)
		if g.chance(0.3) {
			f = f[:udp+2+g.intn(8)]
		}
		return f, "udp-port"
	case 28:
		et := []uint16{0x0806, 0x88A8, 0x8100, 0x86DD, 0x0801, 0x88CC, uint16(g.intn(0x10000))}[g.intn(7)]
		binary.BigEndian.PutUint16(f[off-2:], et)
		return f, "ethertype"
	default:
		i := g.intn(min(len(f), 100))
		f[i] = byte(g.intn(256))
		if g.chance(0.5) {
			rxFixIPv4(f)
			rxFixICRC(f)
		}
		return f, "random-byte"
	}
}

// faults gives a valid frame two or three faults that golden checks after
// the ICRC (so their order decides the class), keeping the ICRC right
// mostly.
func (g *rxGen) faults(f []byte) []byte {
	off := rxIPOff(f)
	bth := off + 28
	csum := false
	for _, k := range g.r.Perm(8)[:2+g.intn(2)] {
		switch k {
		case 0:
			csum = true
		case 1:
			f[1+g.intn(5)] ^= 0x10
		case 2:
			f[off+16+g.intn(4)] ^= 1
		case 3:
			f[bth+1] |= 0x30
		case 4:
			f[bth+1] |= byte(1 + g.intn(15))
		case 5:
			f[bth+2] ^= 0x80
		case 6:
			f[bth+5] ^= byte(1 + g.intn(255))
		case 7:
			f[bth] = []byte{0x81, 0x64, 0x24, 0x40, 0x80, 0xC0, 0x15}[g.intn(7)]
		}
	}
	rxFixIPv4(f)
	if csum {
		f[off+10] ^= 1
	}
	if g.chance(0.9) {
		rxFixICRC(f)
	}
	return f
}

// options inserts 4..40 bytes of IPv4 options (IHL 6..15) into f.
func (g *rxGen) options(f []byte) []byte {
	off := rxIPOff(f)
	words := 1 + g.intn(10)
	opt := make([]byte, 4*words)
	for i := range opt {
		opt[i] = 1 // NOP
	}
	opt[len(opt)-1] = 0 // end of options
	out := append(append(append([]byte(nil), f[:off+20]...), opt...), f[off+20:]...)
	out[off] = 0x40 | byte(5+words)
	binary.BigEndian.PutUint16(out[off+2:], binary.BigEndian.Uint16(out[off+2:])+uint16(len(opt)))
	rxFixIPv4(out)
	if g.chance(0.7) {
		rxFixICRC(out)
	}
	return out
}

// other makes a frame that is not RoCEv2 (or is RoCEv2 over IPv6), or a runt.
func (g *rxGen) other() ([]byte, string) {
	dsts := [][6]byte{g.node.mac, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, {0x01, 0x00, 0x5e, 0, 0, 0xfb},
		{0x02, 0x11, 0x22, 0x33, 0x44, 0x55}, {0x33, 0x33, 0, 0, 0, 1}}
	dst := dsts[g.intn(len(dsts))]
	switch g.intn(11) {
	case 10:
		return g.macControl(), "mac-control"
	case 0:
		f := make([]byte, 42)
		copy(f, dst[:])
		copy(f[6:], []byte{2, 0, 0, 0, 0, 9})
		copy(f[12:], []byte{0x08, 0x06, 0, 1, 8, 0, 6, 4, 0, 1})
		copy(f[32:], g.node.ip[:])
		if g.chance(0.5) {
			f = append(f, make([]byte, 18)...)
		}
		return f, "arp"
	case 1, 2:
		n := 14 + g.intn(1500)
		if g.chance(0.05) {
			n = 9000
		}
		f := g.bytes(n)
		copy(f, dst[:])
		binary.BigEndian.PutUint16(f[12:], []uint16{0x88B5, 0x88CC, 0x0800, 0x86DD, 0x8100}[g.intn(5)])
		return f, "random-ethertype"
	case 3:
		return g.bytes(1 + g.intn(13)), "runt"
	case 4, 5:
		// IPv4 UDP to another port, or TCP / ICMP
		p := g.pkt(roce.RCSendOnly, g.intn(200))
		p.dst = dst
		f := p.build()
		off := rxIPOff(f)
		if g.chance(0.5) {
			binary.BigEndian.PutUint16(f[off+20+2:], []uint16{53, 67, 123, 4790, 4792, 49152}[g.intn(6)])
			return f, "udp-other-port"
		}
		f[off+9] = []byte{1, 6}[g.intn(2)]
		rxFixIPv4(f)
		return f, "ipv4-not-udp"
	default:
		// RoCEv2 over IPv6: golden counts it rx_bad_header (or truncated)
		p := g.rcPkt()
		p.v6 = true
		f := p.build()
		switch g.intn(4) {
		case 0:
			return f[:1+g.intn(len(f)-1)], "ipv6-cut"
		case 1:
			off := rxIPOff(f)
			f[off+6] = 6
			return f, "ipv6-tcp"
		}
		return f, "ipv6-roce"
	}
}

// macControl makes a MAC Control frame (EtherType 0x8808): PFC, PAUSE or
// another opcode, to the reserved address mostly, cut short at times
// (rtl/nic README "PFC").
func (g *rxGen) macControl() []byte {
	f := g.bytes(60)
	copy(f, []byte{0x01, 0x80, 0xC2, 0, 0, 1})
	if g.chance(0.2) {
		copy(f, g.node.mac[:])
	}
	binary.BigEndian.PutUint16(f[12:], 0x8808)
	binary.BigEndian.PutUint16(f[14:], []uint16{0x0101, 0x0101, 0x0001, 0x0002, uint16(g.intn(0x10000))}[g.intn(5)])
	if g.chance(0.3) {
		f = f[:14+g.intn(26)]
	}
	return f
}

// next makes one frame of the mix.
func (g *rxGen) next() rxItem {
	switch k := g.intn(100); {
	case k < 40:
		return rxItem{data: g.rcPkt().build(), kind: "rc"}
	case k < 45:
		p := g.cnp()
		if g.chance(0.2) {
			p.bth.DestQP = roce.QPN(g.r.Uint32() & 0xFFFFFF)
		}
		return rxItem{data: p.build(), kind: "cnp"}
	case k < 50:
		// other transports: UC, RD, UD, CNP-range codes that are not 0x81, above
		ops := []roce.OpCode{roce.UDSendOnly, roce.UDSendOnlyImm, roce.UC(roce.RCSendOnly),
			roce.UC(roce.RCWriteOnlyImm), roce.OpCode(0x20 + g.intn(32)), roce.OpCode(0x40 + g.intn(32)),
			roce.OpCode(0x60 + g.intn(32)), 0x80, 0x82, roce.OpCode(0x83 + g.intn(29)), roce.OpCode(0xA0 + g.intn(96))}
		return rxItem{data: g.pkt(ops[g.intn(len(ops))], g.intn(300)).build(), kind: "other-transport"}
	case k < 80:
		var f []byte
		switch {
		case g.chance(0.1):
			f = g.cnp().build()
		case g.chance(0.2):
			f = g.pkt(rcOpcodes[g.intn(len(rcOpcodes))], g.intn(3)).build()
		default:
			f = g.rcPkt().build()
		}
		f, kind := g.mutate(f)
		return rxItem{data: f, kind: kind}
	case k < 98:
		f, kind := g.other()
		return rxItem{data: f, kind: kind}
	default:
		return rxItem{data: g.rcPkt().build(), bad: true, kind: "tuser-bad"}
	}
}

// sweeps cuts a few frames at every length, and gives one every IPv4
// total length from 0 to 8 past the frame (checksum and ICRC fixed).
func (g *rxGen) sweeps() []rxItem {
	var items []rxItem
	base := func(op roce.OpCode, n int, vlan, v6 bool) []byte {
		p := g.pkt(op, n)
		p.vlan, p.v6 = vlan, v6
		if op == roce.CNPOpCode {
			p.bth.BECN, p.bth.PSN = true, 0
		}
		return p.build()
	}
	for _, f := range [][]byte{
		base(roce.RCSendOnly, 5, false, false), base(roce.RCWriteOnlyImm, 9, true, false),
		base(roce.RCCompareSwap, 0, false, false), base(roce.RCAtomicAcknowledge, 0, true, false),
		base(roce.CNPOpCode, 0, false, false), base(roce.RCSendOnly, 7, true, true),
	} {
		for n := 1; n < len(f); n++ {
			items = append(items, rxItem{data: append([]byte(nil), f[:n]...), kind: "sweep-cut"})
		}
	}
	for _, f := range [][]byte{base(roce.RCSendOnly, 20, false, false), base(roce.RCReadRequest, 0, true, false)} {
		off := rxIPOff(f)
		for l := 0; l <= len(f)-off+8; l++ {
			c := append([]byte(nil), f...)
			binary.BigEndian.PutUint16(c[off+2:], uint16(l))
			rxFixIPv4(c)
			rxFixICRC(c)
			items = append(items, rxItem{data: c, kind: "sweep-iplen"})
		}
	}
	// Ethernet padding after a whole packet: 1..64 bytes of it
	for k := 1; k <= 64; k++ {
		f := base(roce.RCSendLast, k, k%2 == 0, false)
		items = append(items, rxItem{data: append(f, g.bytes(k)...), kind: "sweep-eth-pad"})
	}
	return items
}

// ---- records ----

// rxFields is a record's fixed part (comparable); rxRecord adds the payload.
type rxFields struct {
	Class                                    int
	Held, CE, AckReq, SE, MigReq, FECN, BECN bool
	Host, HostDrop, Copied                   bool
	Pad, OpCode, Slot, Syndrome              uint8
	DestQP, PSN, MSN, RKey, DMALen, Imm      uint32
	VA, AtomicA, AtomicB                     uint64
	PayLen, PayAddr, FrameLen                int
	D                                        uint32
}

type rxRecord struct {
	rxFields
	Payload []byte
}

func parseRxRecord(b []byte) (rxRecord, error) {
	if len(b) < nicRxRecLen {
		return rxRecord{}, fmt.Errorf("record of %d bytes", len(b))
	}
	le16 := func(i int) uint32 { return uint32(binary.LittleEndian.Uint16(b[i:])) }
	le24 := func(i int) uint32 { return le16(i) | uint32(b[i+2])<<16 }
	le32 := func(i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }
	le64 := func(i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
	r := rxRecord{Payload: b[nicRxRecLen:]}
	r.rxFields = rxFields{
		Class: int(b[0]),
		Held:  b[1]&1 != 0, CE: b[1]&2 != 0, AckReq: b[1]&4 != 0, SE: b[1]&8 != 0, MigReq: b[1]&16 != 0,
		FECN: b[1]&32 != 0, BECN: b[1]&64 != 0, Host: b[1]&128 != 0,
		Pad: b[2] & 3, HostDrop: b[2]&16 != 0, Copied: b[2]&32 != 0,
		OpCode: b[3], DestQP: le24(4), Slot: b[7], PSN: le24(8), Syndrome: b[11], MSN: le24(12),
		VA: le64(16), RKey: le32(24), DMALen: le32(28), Imm: le32(32),
		PayLen: int(le16(36)), PayAddr: int(le16(38)), AtomicA: le64(40), AtomicB: le64(48),
		FrameLen: int(le32(56)), D: le32(60),
	}
	want := nicRxRecLen
	if r.Copied {
		want += r.PayLen
	}
	if len(b) != want {
		return r, fmt.Errorf("record of %d bytes, want %d (copied %v, payload %d)", len(b), want, r.Copied, r.PayLen)
	}
	return r, nil
}

// rxExpect is what a record must hold for a frame golden classed as class
// (decoded as f when it is RC or CNP); slot is the QP's slot.
func rxExpect(frame []byte, class int, f *roce.Frame, slot int) rxRecord {
	var w rxRecord
	w.Class, w.FrameLen = class, min(len(frame), 1<<17-1)
	if class != rxRC && class != rxCNP && class != rxBufferFull {
		return w
	}
	b := &f.BTH
	w.Slot, w.OpCode, w.DestQP, w.PSN = uint8(slot), uint8(b.OpCode), uint32(b.DestQP), uint32(b.PSN)
	w.AckReq, w.SE, w.MigReq, w.FECN, w.BECN, w.Pad = b.AckReq, b.SolicitedEvent, b.MigReq, b.FECN, b.BECN, b.PadCnt
	w.CE = frame[f.IPStart+1]&3 == 3
	if class == rxCNP {
		return w
	}
	h := b.OpCode.Headers()
	if h&roce.HasRETH != 0 {
		w.VA, w.RKey, w.DMALen = b.RETH.VA, b.RETH.RKey, b.RETH.DMALen
	}
	if h&roce.HasAtomicETH != 0 {
		w.VA, w.RKey, w.AtomicA, w.AtomicB = b.AtomicETH.VA, b.AtomicETH.RKey, b.AtomicETH.SwapAdd, b.AtomicETH.Compare
	}
	if h&roce.HasAETH != 0 {
		w.Syndrome, w.MSN = uint8(b.AETH.Syndrome), b.AETH.MSN
	}
	if h&roce.HasAtomicAckETH != 0 {
		w.AtomicA = b.AtomicAckETH.OrigData
	}
	if h&roce.HasImmDt != 0 {
		w.Imm = b.ImmDt.Imm
	}
	if h&roce.HasIETH != 0 {
		w.RKey = b.IETH.RKey
	}
	w.PayLen = len(b.Payload)
	w.Held = class == rxRC && w.PayLen > 0
	w.Payload = b.Payload
	return w
}

// sameRecord compares the decided fields (not the buffer address, the host
// flags or D, which the caller checks).
func sameRecord(want, got rxRecord) string {
	g := got.rxFields
	g.PayAddr, g.Host, g.HostDrop, g.D, g.Copied = 0, false, false, 0, false
	w := want.rxFields
	if w != g {
		return fmt.Sprintf("record fields\n got %+v\nwant %+v", g, w)
	}
	if got.Copied && !bytes.Equal(want.Payload, got.Payload) {
		return fmt.Sprintf("payload copied from the receive buffer at %#x differs (%d bytes)", got.PayAddr, len(got.Payload))
	}
	return ""
}

// ---- the check of a whole run ----

// rxCheck holds the golden side of a run.
type rxCheck struct {
	t        *testing.T
	node     *rxNode
	gold     *rc.Node
	stalls   bool // the sink stalls: host frame cycles are only bounded
	classes  map[string]int
	kinds    map[string]map[string]int // kind -> class -> count
	hostNext int
	hostLast uint64
	hostSent int
	bad      int
	frames   int
}

func newRxCheck(t *testing.T, node *rxNode, stalls bool) *rxCheck {
	return &rxCheck{t: t, node: node, gold: node.golden(t), stalls: stalls, classes: map[string]int{},
		kinds: map[string]map[string]int{}}
}

// golden asks golden/rc what it makes of frame at cycle d.
func (c *rxCheck) golden(frame []byte, d uint64) int {
	before, pb := c.gold.Counters(), c.gold.PauseCounters()
	c.gold.Receive(frame, d)
	after, pa := c.gold.Counters(), c.gold.PauseCounters()
	class, n := -1, 0
	for _, m := range []struct {
		cl            int
		before, after uint64
	}{{rxPFC, pb.RxPFC, pa.RxPFC}, {rxPause, pb.RxPause, pa.RxPause}, {rxMACControl, pb.RxMACControl, pa.RxMACControl}} {
		if m.after != m.before {
			class, n = m.cl, n+1
		}
	}
	for ctr, cl := range rxGoldenClass {
		switch after[ctr] - before[ctr] {
		case 0:
		case 1:
			class, n = cl, n+1
		default:
			n += 2
		}
	}
	require.Equal(c.t, 1, n, "golden moved exactly one receive counter for frame % x", frame)
	return class
}

// check verifies the records and host frames of items sent in r, in order
// from item index first (records and hosts of earlier items already checked).
func (c *rxCheck) check(r *rxRun, items []rxItem, seq0 uint32, rec0 int) {
	t := c.t
	require.Len(t, r.recs[rec0:], len(items), "one record per frame")
	for i, it := range items {
		seq := seq0 + uint32(i)
		a, ok := r.accepts[seq]
		require.True(t, ok, "frame %d accepted", seq)
		out := r.recs[rec0+i]
		rec, err := parseRxRecord(out.Data)
		require.NoError(t, err, "frame %d (%s)", seq, it.kind)
		d := a.LastCycle + nicRxLatency
		require.Equal(t, uint32(d), rec.D, "frame %d (%s, %d bytes, last beat %d): decided at L+%d",
			seq, it.kind, len(it.data), a.LastCycle, nicRxLatency)
		require.GreaterOrEqual(t, out.Cycle, d, "frame %d: its record leaves at or after D", seq)

		class := rxBadFrame
		var f roce.Frame
		slot := 0
		if !it.bad {
			class = c.golden(it.data, d)
			if class == rxRC || class == rxCNP {
				require.NoError(t, f.Decode(it.data))
				slot = c.node.slotOf[uint32(f.BTH.DestQP)]
			}
		} else {
			c.bad++
		}
		want := rxExpect(it.data, class, &f, slot)
		if msg := sameRecord(want, rec); msg != "" {
			t.Fatalf("frame %d (%s, %d bytes, golden %s, got %s) decided at %d: %s\nframe % x", seq, it.kind,
				len(it.data), rxClassName(class), rxClassName(rec.Class), d, msg, it.data)
		}
		require.Equal(t, want.Held, rec.Copied, "frame %d: a held frame's payload is copied (HOLD off)", seq)

		// host frames: not RoCEv2, or RoCEv2 to a group MAC that is not ours
		host := class == rxNotRoCE ||
			(class == rxWrongAddress && [6]byte(it.data[0:6]) != c.node.mac && it.data[0]&1 != 0)
		require.Equal(t, host, rec.Host, "frame %d (%s, %s): host frame", seq, it.kind, rxClassName(class))
		if host && !rec.HostDrop {
			require.Less(t, c.hostNext, len(r.hosts), "frame %d: host frame out", seq)
			h := r.hosts[c.hostNext]
			c.hostNext++
			c.hostSent++
			require.Equal(t, it.data, h.Data, "frame %d: host frame, whole", seq)
			beats := uint64((len(it.data) + r.width/8 - 1) / (r.width / 8))
			first := max(d+nicRxHostLatency, c.hostLast+1)
			if c.stalls {
				require.GreaterOrEqual(t, h.Cycle, first, "frame %d: host frame first beat", seq)
			} else {
				require.Equal(t, first, h.Cycle, "frame %d: host frame first beat (D %d)", seq, d)
				require.Equal(t, first+beats-1, h.LastCycle, "frame %d: host frame back to back", seq)
			}
			c.hostLast = h.LastCycle
		}
		if rec.HostDrop {
			require.True(t, c.stalls, "frame %d: a host frame dropped with no stalls", seq)
		}
		name := rxClassName(class)
		c.classes[name]++
		if c.kinds[it.kind] == nil {
			c.kinds[it.kind] = map[string]int{}
		}
		c.kinds[it.kind][name]++
		c.frames++
	}
}

// counters compares the model's counters with golden's.
func (c *rxCheck) counters(r *rxRun, bufferFull int) {
	t := c.t
	got := r.counters()
	gold := c.gold.Counters()
	for _, ctr := range rxCounters {
		var want uint64
		switch ctr.name {
		case "rx_buffer_full":
			want = uint64(bufferFull)
		case "rx_bad_frame":
			want = uint64(c.bad)
		case "host_rx_frames":
			want = uint64(c.hostSent)
		case "host_rx_overflow":
			want = uint64(got[ctr.name]) // checked through the records' HostDrop flags
			if !c.stalls {
				want = 0
			}
		default:
			for _, g := range ctr.golden {
				want += gold[g]
			}
		}
		require.Equal(t, uint32(want), got[ctr.name], "counter %s", ctr.name)
	}
	require.Equal(t, len(r.hosts), c.hostNext, "no host frame beyond those expected")
}

func (c *rxCheck) log() {
	var names []string
	for k := range c.kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	c.t.Logf("%d frames, %d host frames out; by golden class: %v", c.frames, c.hostSent, c.classes)
	for _, k := range names {
		c.t.Logf("  %-18s %v", k, c.kinds[k])
	}
}

// send offers items in windows of chunk frames, a few back to back and the
// rest after small gaps, then drains the model.
func (r *rxRun) send(g *rxGen, items []rxItem) (seq0 uint32, rec0 int) {
	seq0 = uint32(len(r.accepts))
	rec0 = len(r.recs)
	const chunk = 256
	for i := 0; i < len(items); i += chunk {
		cur := r.m.Cycle()
		var fs []cosim.Frame
		for _, it := range items[i:min(i+chunk, len(items))] {
			if g.chance(0.3) {
				cur += uint64(g.intn(40))
			}
			fs = append(fs, cosim.Frame{Port: 0, Cycle: cur, Data: it.data, Bad: it.bad})
		}
		r.step(cosim.Window{Target: cur + 1, Frames: fs})
	}
	r.drain()
	return seq0, rec0
}

func nicRxWidths(t *testing.T, f func(t *testing.T, width int)) {
	for _, w := range []int{64, 512} {
		t.Run(fmt.Sprintf("nic_rx_%d", w), func(t *testing.T) { f(t, w) })
	}
}

// ---- the tests ----

// TestNICRxModelGolden: tens of thousands of frames, every record against
// golden/rc and golden/roce, the host frames to the cycle, the counters.
func TestNICRxModelGolden(t *testing.T) {
	nicRxWidths(t, func(t *testing.T, width int) {
		n := *nicRxFrames
		if testing.Short() {
			n /= 10
		}
		r := startNICRx(t, width, cosim.HelloAck{Seed: 1})
		v := r.csr(nil, rxRegID, rxRegShape, rxRegBuf)
		require.Equal(t, []uint32{0x4E520001, nicRxQPS | uint32(width/8)<<16, nicRxBufBytes}, v, "ID, SHAPE, BUF")

		g := &rxGen{r: rand.New(rand.NewPCG(*nicRxSeed, uint64(width)))}
		g.node = newRxNode(g.r)
		g.node.configure(r)
		c := newRxCheck(t, g.node, false)

		// First every RC opcode with payloads 0..8 and 4096, with and
		// without a tag, then the random mix.
		var items []rxItem
		for _, op := range rcOpcodes {
			for _, n := range []int{0, 1, 2, 3, 4, 5, 8, 4096} {
				p := g.pkt(op, n)
				p.vlan = n%2 == 1
				items = append(items, rxItem{data: p.build(), kind: "rc-" + op.String()})
			}
		}
		items = append(items, g.sweeps()...)
		for len(items) < n {
			items = append(items, g.next())
		}
		start := time.Now()
		seq0, rec0 := r.send(g, items)
		t.Logf("%d frames through the model in %d cycles, %v", len(items), r.m.Cycle(), time.Since(start).Round(time.Millisecond))
		c.check(r, items, seq0, rec0)
		c.counters(r, 0)
		require.Equal(t, []uint32{0}, r.csr(nil, rxRegHeld), "every held frame was released")
		c.log()
	})
}

// TestNICRxModelStalls: the same mix with both outputs stalling half the
// time: records and host frames keep their order and contents, a host frame
// that finds the host FIFO full is dropped, flagged and counted.
func TestNICRxModelStalls(t *testing.T) {
	nicRxWidths(t, func(t *testing.T, width int) {
		r := startNICRx(t, width, cosim.HelloAck{Seed: 7, SinkStallPct: 50})
		g := &rxGen{r: rand.New(rand.NewPCG(*nicRxSeed+1, uint64(width)))}
		g.node = newRxNode(g.r)
		g.node.configure(r)
		c := newRxCheck(t, g.node, true)
		var items []rxItem
		for range 1500 {
			items = append(items, g.next())
		}
		// a burst of large host frames to fill the host FIFO
		for range 12 {
			f := g.bytes(3000)
			copy(f, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
			binary.BigEndian.PutUint16(f[12:], 0x88B5)
			items = append(items, rxItem{data: f, kind: "host-burst"})
		}
		seq0, rec0 := r.send(g, items)
		c.check(r, items, seq0, rec0)
		drops := 0
		for _, f := range r.recs[rec0:] {
			if rec, _ := parseRxRecord(f.Data); rec.HostDrop {
				drops++
			}
		}
		c.counters(r, 0)
		require.Equal(t, uint32(drops), r.counters()["host_rx_overflow"], "host_rx_overflow")
		require.Positive(t, drops, "the burst overflowed the host FIFO")
		t.Logf("%d host frames sent, %d dropped", c.hostSent, drops)
		c.log()
	})
}

// TestNICRxModelBufferFull: with HOLD set no frame is released, so RC
// packets with payload fill the receive buffer; the ones that find no room
// are BUFFER_FULL (exactly those a word count predicts), everything else is
// decided as golden decides; RELEASE then empties it.
func TestNICRxModelBufferFull(t *testing.T) {
	nicRxWidths(t, func(t *testing.T, width int) {
		r := startNICRx(t, width, cosim.HelloAck{Seed: 1})
		g := &rxGen{r: rand.New(rand.NewPCG(*nicRxSeed+2, uint64(width)))}
		g.node = newRxNode(g.r)
		g.node.configure(r)
		r.csr([]cosim.CSR{{Addr: rxRegCtrl, Data: rxCtrlHold}})
		gold := g.node.golden(t)
		kw := width / 8
		words := nicRxBufBytes / kw

		var items []rxItem
		for range 60 {
			if g.chance(0.7) {
				items = append(items, rxItem{data: g.pkt(roce.RCWriteMiddle, 200+g.intn(1800)).build(), kind: "rc"})
			} else {
				items = append(items, g.next())
			}
		}
		seq0, rec0 := r.send(g, items)
		require.Len(t, r.recs[rec0:], len(items))
		used, held, full := 0, 0, 0
		for i, it := range items {
			a := r.accepts[seq0+uint32(i)]
			rec, err := parseRxRecord(r.recs[rec0+i].Data)
			require.NoError(t, err)
			require.Equal(t, uint32(a.LastCycle+nicRxLatency), rec.D)
			class := rxBadFrame
			if !it.bad {
				c := &rxCheck{t: t, gold: gold}
				class = c.golden(it.data, a.LastCycle+nicRxLatency)
			}
			if class == rxRC {
				var f roce.Frame
				require.NoError(t, f.Decode(it.data))
				if len(f.BTH.Payload) > 0 {
					w := (len(it.data) + kw - 1) / kw
					if used+w <= words {
						used += w
						held++
						require.True(t, rec.Held, "frame %d: %d words fit beside %d", i, w, used-w)
					} else {
						full++
						class = rxBufferFull
					}
				}
			}
			require.Equal(t, rxClassName(class), rxClassName(rec.Class), "frame %d (%s)", i, it.kind)
			require.False(t, rec.Copied, "HOLD: no payload copied")
		}
		require.Positive(t, full, "the buffer filled up")
		require.Equal(t, []uint32{uint32(held)}, r.csr(nil, rxRegHeld), "frames held")
		require.Equal(t, uint32(full), r.counters()["rx_buffer_full"])

		// Release them all, leave HOLD: a new packet is kept, copied and released.
		rel := make([]cosim.CSR, held)
		for i := range rel {
			rel[i] = cosim.CSR{Addr: rxRegRelease}
		}
		r.csr(rel)
		r.drain()
		require.Equal(t, []uint32{0}, r.csr(nil, rxRegHeld), "all released")
		r.csr([]cosim.CSR{{Addr: rxRegCtrl, Data: 0}})
		p := g.pkt(roce.RCSendOnly, 3000)
		frame := p.build()
		seq0, rec0 = r.send(g, []rxItem{{data: frame, kind: "rc"}})
		rec, err := parseRxRecord(r.recs[rec0].Data)
		require.NoError(t, err)
		require.Equal(t, rxClassName(rxRC), rxClassName(rec.Class))
		require.True(t, rec.Copied)
		require.Equal(t, p.payload, rec.Payload, "payload from the buffer (address %#x)", rec.PayAddr)
		require.Equal(t, uint32(r.accepts[seq0].LastCycle+nicRxLatency), rec.D)
		require.Equal(t, []uint32{0}, r.csr(nil, rxRegHeld))
		t.Logf("%d frames held (%d of %d words), %d found the buffer full", held, used, words, full)
	})
}

// TestNICRxModelCSRTiming: a register written in cycle t applies to the
// decisions of t+1 on (rtl/nic/README.md "CSR map"): a frame decided in
// the cycle of a MAC write still sees the old MAC, one decided a cycle
// later the new one.
func TestNICRxModelCSRTiming(t *testing.T) {
	nicRxWidths(t, func(t *testing.T, width int) {
		r := startNICRx(t, width, cosim.HelloAck{Seed: 1})
		g := &rxGen{r: rand.New(rand.NewPCG(*nicRxSeed+3, uint64(width)))}
		g.node = newRxNode(g.r)
		g.node.configure(r)
		r.drain()
		for _, delta := range []uint64{0, 1} {
			g.node.configure(r) // the old MAC again
			r.drain()
			p := g.pkt(roce.RCSendOnly, 100)
			frame := p.build()
			beats := uint64((len(frame) + width/8 - 1) / (width / 8))
			s0 := r.m.Cycle()
			// the last beat comes at s0+beats-1; the write lands in cycle
			// w = s0+beats+delta, the decision is D = s0+beats+1
			r.step(cosim.Window{Target: s0 + beats + delta, Frames: []cosim.Frame{{Port: 0, Cycle: s0, Data: frame}}})
			a, ok := r.accepts[uint32(len(r.accepts)-1)]
			require.True(t, ok)
			require.Equal(t, s0+beats-1, a.LastCycle, "the frame went in without a gap")
			newMAC := binary.BigEndian.Uint32(g.node.mac[2:6]) ^ 0x00FF0000
			r.step(cosim.Window{Target: r.m.Cycle() + 1, CSRWrites: []cosim.CSR{{Addr: rxRegMACLo, Data: newMAC}}})
			r.drain()
			rec, err := parseRxRecord(r.recs[len(r.recs)-1].Data)
			require.NoError(t, err)
			d := a.LastCycle + nicRxLatency
			w := s0 + beats + delta
			require.Equal(t, uint32(d), rec.D)
			want := rxRC // written in D: the old MAC
			if w < d {
				want = rxWrongAddress // written in D-1: the new MAC
			}
			require.Equal(t, rxClassName(want), rxClassName(rec.Class), "MAC written in %d, decided in %d", w, d)
		}
	})
}
