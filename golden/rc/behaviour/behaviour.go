// Package behaviour is the behaviour table of golden/rc: one scripted case
// per rule of rc's doc.go, written as data so that more than one subject
// can play it. golden/rc's TestBehaviour plays every case against an
// rc.Node; rtl/nic/tb's TestNICBehaviour plays the same cases against the NIC
// RTL (rtl/nic), through its ports and CSRs.
//
// A case is a node (the subject, NodeEnd) with one QP facing a scripted
// peer (PeerEnd) whose frames are built here, with gopacket and the roce
// layers, independently of the model's own builder. Each Step happens at a
// cycle of the case: a work request is posted (Post, PostRecv), a peer
// frame arrives (In), the host writes its memory (Poke), or the subject is
// polled until it has nothing more to send (Expect). An Expect step lists
// the frames that poll sends, in order, and the completions made since the
// previous Expect step; it may also check NextEvent and the DCQCN rate. At
// the end of a case come the QP's counters (every counter not listed must
// be 0), the OnEvent reports, the error state, the host memory and the
// responder queue's high-water mark.
//
// Runners compare frames byte for byte with Build's output for the Step's
// frames (Build(NodeEnd, PeerEnd, f)) and report with DiffFrames.
package behaviour

import (
	"encoding/binary"
	"net"
	"net/netip"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

// The setting shared by every case. A case changes it through its Node and
// QP functions.
const (
	Clock = 250_000_000 // NodeConfig.ClockHz, 250 MHz: TimeoutCycles(2) is 4096 cycles, RNRCycles(1) 2500

	QPN     roce.QPN = 0x000011 // the QP under test
	PeerQPN roce.QPN = 0x000022 // its remote QP (the scripted peer)

	sendPSN roce.PSN = 0x000100 // first PSN the node's requester sends
	recvPSN roce.PSN = 0x000200 // first PSN the node's responder expects

	pmtu      = 256
	timeout   = 2 // local ACK timeout code
	retryCnt  = 2
	rnrRetry  = 1
	rnrCode   = 3 // the RNR timer code the node's responder sends
	sport     = 0xC0DE
	peerSport = 0xD00D
	dscp      = 26
	cnpDSCP   = 48

	// Regions of the node's memory that the peer reaches.
	rwBase = 0x10000 // read and write
	rwLen  = 0x4000
	rwKey  = 0x0000A001
	roBase = 0x20000 // read only
	roLen  = 0x1000
	roKey  = 0x0000B002

	recvBuf   = 0x30000 // node buffers for receive WQEs
	localBuf  = 0x40000 // node buffers for send WQEs
	remoteVA  = 0x90000 // what the node's WRITEs and READs address at the peer
	remoteKey = 0x00005151

	// A full-PMTU SEND MIDDLE on the wire: Ethernet, IPv4, UDP, BTH, payload, ICRC.
	segFrameLen = 14 + 20 + 8 + roce.BTHLen + pmtu + roce.ICRCLen
)

// End is one end of the link.
type End struct {
	MAC   net.HardwareAddr
	IP    net.IP
	SPort uint16 // UDP source port of its QP
	QPN   roce.QPN
}

// NodeEnd is the subject of every case, PeerEnd the scripted peer.
var (
	NodeEnd = End{net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}, net.IP{10, 0, 0, 1}, sport, QPN}
	PeerEnd = End{net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}, net.IP{10, 0, 0, 2}, peerSport, PeerQPN}
)

// MRs are the memory regions of the node, registered before the QP.
func MRs() []rc.MemoryRegion {
	return []rc.MemoryRegion{
		{Base: rwBase, Length: rwLen, RKey: rwKey, Access: rc.AccessRemoteRead | rc.AccessRemoteWrite},
		{Base: roBase, Length: roLen, RKey: roKey, Access: rc.AccessRemoteRead},
	}
}

// Config returns the node's and the QP's configuration for c: the shared
// setting, then c.Node and c.QP. Fields the shared setting leaves 0 (the
// QP's Window, MaxReads, SQDepth, RQDepth) take rc's defaults.
func (c *Case) Config() (rc.NodeConfig, rc.QPConfig) {
	nc := rc.NodeConfig{MAC: [6]byte(NodeEnd.MAC), IP: netip.AddrFrom4([4]byte(NodeEnd.IP)), ClockHz: Clock,
		DSCP: dscp, CNPDSCP: cnpDSCP}
	if c.Node != nil {
		c.Node(&nc)
	}
	qc := rc.QPConfig{QPN: QPN, RemoteQPN: PeerQPN, RemoteMAC: [6]byte(PeerEnd.MAC),
		RemoteIP: netip.AddrFrom4([4]byte(PeerEnd.IP)), SendPSN: sendPSN, RecvPSN: recvPSN, PMTU: pmtu,
		Timeout: timeout, RetryCnt: retryCnt, RNRRetry: rnrRetry, MinRNRTimer: rnrCode, UDPSrcPort: sport,
		Access: rc.AccessRemoteRead | rc.AccessRemoteWrite}
	if c.QP != nil {
		c.QP(&qc)
	}
	return nc, qc
}

// Frame is a RoCEv2 packet of a case, field by field. The End that sends
// it fixes the MACs, IPs, UDP source port and DestQP; data packets and
// ACKs go ECT(0) with the node's DSCP, CNPs Not-ECT with the CNP DSCP.
type Frame struct {
	Op     roce.OpCode
	PSN    roce.PSN
	AckReq bool
	BECN   bool
	CE     bool // IPv4 ECN CE (a switch marked it), IPv4 checksum fixed

	VA     uint64 // RETH, when the opcode has one
	RKey   uint32
	DMALen uint32

	Syn roce.AETHSyndrome // AETH, when the opcode has one
	MSN uint32

	Imm uint32 // ImmDt, when the opcode has one

	Payload []byte
}

// Build serialises f as sent from one end to the other with gopacket and
// the roce layers, then zeroes the UDP checksum (rxe and the model send 0;
// the ICRC masks it, so it stays valid). Frames carry no FCS: the IP packet,
// then zeros up to 60 bytes when it is shorter (Ethernet padding, IEEE 802.3
// 4.2.3.3), whatever padding gopacket added.
func Build(from, to End, f Frame) []byte {
	tos := uint8(dscp<<2 | 0b10) // ECT(0)
	switch {
	case f.Op == roce.CNPOpCode:
		tos = cnpDSCP << 2 // Not-ECT
	case f.CE:
		tos = dscp<<2 | 0b11
	}
	ip := &layers.IPv4{
		Version: 4, TOS: tos, Id: 0, Flags: layers.IPv4DontFragment, TTL: 64,
		Protocol: layers.IPProtocolUDP, SrcIP: from.IP, DstIP: to.IP,
	}
	udp := &layers.UDP{SrcPort: layers.UDPPort(from.SPort), DstPort: roce.UDPPort}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		panic(err)
	}
	bth := &roce.BTH{
		OpCode: f.Op, PKey: roce.DefaultPKey, BECN: f.BECN, DestQP: to.QPN, AckReq: f.AckReq, PSN: f.PSN,
		RETH:  roce.RETH{VA: f.VA, RKey: f.RKey, DMALen: f.DMALen},
		AETH:  roce.AETH{Syndrome: f.Syn, MSN: f.MSN},
		ImmDt: roce.ImmDt{Imm: f.Imm},
	}
	ls := []gopacket.SerializableLayer{
		&layers.Ethernet{SrcMAC: from.MAC, DstMAC: to.MAC, EthernetType: layers.EthernetTypeIPv4},
		ip, udp, bth,
	}
	if len(f.Payload) > 0 {
		ls = append(ls, gopacket.Payload(f.Payload))
	}
	buf := gopacket.NewSerializeBuffer()
	if err := roce.SerializeLayers(buf, gopacket.SerializeOptions{FixLengths: true, ComputeChecksums: true}, ls...); err != nil {
		panic(err)
	}
	b := buf.Bytes()
	const ethLen, udpCsum = 14, 14 + 20 + 6
	const minFrame = 60
	ipEnd := ethLen + int(binary.BigEndian.Uint16(b[ethLen+2:]))
	frame := make([]byte, max(ipEnd, minFrame))
	copy(frame, b[:ipEnd])
	frame[udpCsum], frame[udpCsum+1] = 0, 0
	return frame
}

// Chunk is a stretch of the node's memory.
type Chunk struct {
	Addr uint64
	Data []byte
}

// StepKind says what a Step does.
type StepKind uint8

// Step kinds.
const (
	Post     StepKind = iota // PostSend(QPN, WR)
	PostRecv                 // PostRecv(QPN, RR)
	In                       // Receive the peer frame In (Build(PeerEnd, NodeEnd, In))
	Poke                     // the host writes Poke to its memory
	Expect                   // poll until nothing is left, then compare
)

func (k StepKind) String() string {
	switch k {
	case Post:
		return "post"
	case PostRecv:
		return "recv"
	case In:
		return "in"
	case Poke:
		return "poke"
	case Expect:
		return "expect"
	}
	return "step?"
}

// NextCheck says what an Expect step checks of NextEvent after its polls.
type NextCheck uint8

// NextEvent checks.
const (
	NextUnchecked NextCheck = iota
	NextAt                  // NextEvent is (NextAt, true)
	NextNone                // NextEvent is (_, false): nothing happens without input
)

// Step is one step of a case, at cycle At; Kind says which fields count.
type Step struct {
	At   uint64
	Kind StepKind
	WR   rc.WorkRequest
	RR   rc.RecvRequest
	In   Frame
	Poke Chunk

	Out    []Frame         // Expect: the frames the polls at At return, in order
	Comps  []rc.Completion // Expect: the completions since the previous Expect step
	Next   NextCheck       // Expect: the NextEvent check
	NextAt uint64
	Rate   dcqcn.Rate // Expect: the QP's rate (rc.Node.Rate), when not 0
}

// Done sets the completions an Expect step wants.
func (s Step) Done(c ...rc.Completion) Step { s.Comps = c; return s }

// NextEvent makes an Expect step check that NextEvent reports cycle c.
func (s Step) NextEvent(c uint64) Step { s.Next, s.NextAt = NextAt, c; return s }

// Idle makes an Expect step check that nothing is pending: no frame, no timer.
func (s Step) Idle() Step { s.Next = NextNone; return s }

// WithRate makes an Expect step check the QP's DCQCN rate.
func (s Step) WithRate(r dcqcn.Rate) Step { s.Rate = r; return s }

// Case is one row of the table.
type Case struct {
	Name    string
	Node    func(*rc.NodeConfig) // changes to the shared node setting
	QP      func(*rc.QPConfig)   // changes to the shared QP setting
	Mem     []Chunk              // host memory before the first step
	Steps   []Step               // in order of At (non-decreasing)
	WantMem []Chunk              // host memory after the last step
	// Counters are every non-zero counter of the QP at the end; the
	// node's own counters (frames dropped before a QP is known) stay 0.
	Counters map[rc.Counter]uint64
	Events   []rc.Event // every OnEvent report, in order
	InError  bool       // the QP ends in the error state
	RespHigh int        // when not 0, the most responder jobs ever queued at once
}

// Cases returns the table, responder cases first, then requester and
// congestion cases. Each call builds it anew: runners may keep or change
// what they get.
func Cases() []Case {
	var cs []Case
	cs = append(cs, responderCases()...)
	cs = append(cs, requesterCases()...)
	cs = append(cs, congestionCases()...)
	return cs
}

// kit holds the step, frame and completion constructors the table is
// written with.
type kit struct{}

func (kit) post(at uint64, wr rc.WorkRequest) Step { return Step{At: at, Kind: Post, WR: wr} }

func (kit) recv(at uint64, id, addr uint64, n uint32) Step {
	return Step{At: at, Kind: PostRecv, RR: rc.RecvRequest{ID: id, Addr: addr, Length: n}}
}

func (kit) in(at uint64, f Frame) Step { return Step{At: at, Kind: In, In: f} }

func (kit) poke(at uint64, addr uint64, data []byte) Step {
	return Step{At: at, Kind: Poke, Poke: Chunk{addr, data}}
}

func (kit) expect(at uint64, out ...Frame) Step { return Step{At: at, Kind: Expect, Out: out} }

func (kit) ack(psn roce.PSN, msn uint32) Frame {
	return Frame{Op: roce.RCAcknowledge, PSN: psn, Syn: roce.SyndromeACKUnlimited, MSN: msn}
}

func (kit) nak(psn roce.PSN, syn roce.AETHSyndrome, msn uint32) Frame {
	return Frame{Op: roce.RCAcknowledge, PSN: psn, Syn: syn, MSN: msn}
}

func (kit) rnrNak(psn roce.PSN, code uint8, msn uint32) Frame {
	return Frame{Op: roce.RCAcknowledge, PSN: psn, Syn: roce.RNRNAKSyndrome(code), MSN: msn}
}

func (kit) cnp() Frame { return Frame{Op: roce.CNPOpCode, BECN: true} }

// readResp is a READ response packet; the AETH is ignored by opcodes
// without one (MIDDLE).
func (kit) readResp(op roce.OpCode, psn roce.PSN, msn uint32, data []byte) Frame {
	return Frame{Op: op, PSN: psn, Syn: roce.SyndromeACKUnlimited, MSN: msn, Payload: data}
}

// sent is a successful send completion of wr.
func (kit) sent(at uint64, wr rc.WorkRequest) rc.Completion {
	return rc.Completion{Cycle: at, QPN: QPN, ID: wr.ID, Op: wr.Op, Bytes: wr.Length}
}

// failed is a send completion of wr with an error status.
func (kit) failed(at uint64, wr rc.WorkRequest, st rc.Status) rc.Completion {
	return rc.Completion{Cycle: at, QPN: QPN, ID: wr.ID, Op: wr.Op, Status: st}
}

// got is a successful receive completion.
func (kit) got(at uint64, id uint64, op rc.Op, n uint32) rc.Completion {
	return rc.Completion{Cycle: at, QPN: QPN, Recv: true, ID: id, Op: op, Bytes: n}
}

// gotImm is a successful receive completion with an immediate.
func (kit) gotImm(at uint64, id uint64, op rc.Op, n, imm uint32) rc.Completion {
	return rc.Completion{Cycle: at, QPN: QPN, Recv: true, ID: id, Op: op, Bytes: n, HasImm: true, Imm: imm}
}

// recvErr is a receive completion with an error status.
func (kit) recvErr(at uint64, id uint64, st rc.Status, n uint32) rc.Completion {
	return rc.Completion{Cycle: at, QPN: QPN, Recv: true, ID: id, Status: st, Bytes: n}
}

func (kit) ev(at uint64, kind rc.Counter, psn roce.PSN) rc.Event {
	return rc.Event{Cycle: at, QPN: QPN, Kind: kind, PSN: psn}
}

// pattern returns n bytes of a pattern that differs with seed and offset.
func pattern(seed byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed*37 + byte(i) ^ byte(i>>8)*0x5B
	}
	return b
}
