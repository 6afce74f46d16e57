package rc

// TestBehaviour pins every rule of doc.go with one scripted case: a single
// Node under test faces a peer whose frames are built here, independently
// of the model's own builder (gopacket layers and the roce codecs). Each
// step happens at an exact cycle: a work request is posted, a peer frame
// arrives, the host writes its memory, or the node is polled until it has
// nothing more to send, and then every frame it sent is compared byte for
// byte with the expected ones (also built here), every completion field by
// field, and, where given, NextEvent and the DCQCN rate. At the end of a
// case the QP's counters (all of them), the OnEvent reports, the error
// state and the host memory are compared too.

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"

	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/roce"
)

// The setting shared by every case. A case changes it through its node and
// qp functions.
const (
	bhvClock = 250_000_000 // 250 MHz: TimeoutCycles(2) is 4096 cycles, RNRCycles(1) 2500

	bhvQPN     roce.QPN = 0x000011 // the QP under test
	bhvPeerQPN roce.QPN = 0x000022 // its remote QP (the scripted peer)
	bhvSendPSN roce.PSN = 0x000100 // first PSN the node's requester sends
	bhvRecvPSN roce.PSN = 0x000200 // first PSN the node's responder expects

	bhvPMTU      = 256
	bhvTimeout   = 2 // local ACK timeout code
	bhvRetryCnt  = 2
	bhvRNRRetry  = 1
	bhvRNRCode   = 3 // the RNR timer code the node's responder sends
	bhvSport     = 0xC0DE
	bhvPeerSport = 0xD00D
	bhvDSCP      = 26
	bhvCNPDSCP   = 48

	// Regions of the node's memory that the peer reaches.
	bhvRWBase = 0x10000 // read and write
	bhvRWLen  = 0x4000
	bhvRWKey  = 0x0000A001
	bhvROBase = 0x20000 // read only
	bhvROLen  = 0x1000
	bhvROKey  = 0x0000B002

	bhvRecvBuf   = 0x30000 // node buffers for receive WQEs
	bhvLocal     = 0x40000 // node buffers for send WQEs
	bhvRemoteVA  = 0x90000 // what the node's WRITEs and READs address at the peer
	bhvRemoteKey = 0x00005151

	// A full-PMTU SEND MIDDLE on the wire: Ethernet, IPv4, UDP, BTH, payload, ICRC.
	bhvSegFrameLen = 14 + 20 + 8 + roce.BTHLen + bhvPMTU + roce.ICRCLen
)

// bhvEnd is one end of the link.
type bhvEnd struct {
	mac   net.HardwareAddr
	ip    net.IP
	sport uint16
	qpn   roce.QPN
}

var (
	bhvNode = bhvEnd{net.HardwareAddr{0x02, 0, 0, 0, 0, 0x01}, net.IP{10, 0, 0, 1}, bhvSport, bhvQPN}
	bhvPeer = bhvEnd{net.HardwareAddr{0x02, 0, 0, 0, 0, 0x02}, net.IP{10, 0, 0, 2}, bhvPeerSport, bhvPeerQPN}
)

// bhvFrame is a RoCEv2 packet of a case, field by field. The end that sends
// it fixes the MACs, IPs, UDP source port and DestQP; data packets and
// ACKs go ECT(0) with DSCP bhvDSCP, CNPs Not-ECT with bhvCNPDSCP.
type bhvFrame struct {
	op     roce.OpCode
	psn    roce.PSN
	ackReq bool
	becn   bool
	ce     bool // IPv4 ECN CE (a switch marked it), IPv4 checksum fixed

	va     uint64 // RETH, when the opcode has one
	rkey   uint32
	dmaLen uint32

	syn roce.AETHSyndrome // AETH, when the opcode has one
	msn uint32

	imm uint32 // ImmDt, when the opcode has one

	payload []byte
}

// bhvBuild serialises f as sent from one end to the other with gopacket and
// the roce layers, then zeroes the UDP checksum (rxe and the model send 0;
// the ICRC masks it, so it stays valid). Frames carry no FCS: the IP packet,
// then zeros up to 60 bytes when it is shorter (Ethernet padding, IEEE 802.3
// 4.2.3.3), whatever padding gopacket added.
func bhvBuild(from, to bhvEnd, f bhvFrame) []byte {
	tos := uint8(bhvDSCP<<2 | 0b10) // ECT(0)
	switch {
	case f.op == roce.CNPOpCode:
		tos = bhvCNPDSCP << 2 // Not-ECT
	case f.ce:
		tos = bhvDSCP<<2 | 0b11
	}
	ip := &layers.IPv4{
		Version: 4, TOS: tos, Id: 0, Flags: layers.IPv4DontFragment, TTL: 64,
		Protocol: layers.IPProtocolUDP, SrcIP: from.ip, DstIP: to.ip,
	}
	udp := &layers.UDP{SrcPort: layers.UDPPort(from.sport), DstPort: roce.UDPPort}
	if err := udp.SetNetworkLayerForChecksum(ip); err != nil {
		panic(err)
	}
	bth := &roce.BTH{
		OpCode: f.op, PKey: roce.DefaultPKey, BECN: f.becn, DestQP: to.qpn, AckReq: f.ackReq, PSN: f.psn,
		RETH:  roce.RETH{VA: f.va, RKey: f.rkey, DMALen: f.dmaLen},
		AETH:  roce.AETH{Syndrome: f.syn, MSN: f.msn},
		ImmDt: roce.ImmDt{Imm: f.imm},
	}
	ls := []gopacket.SerializableLayer{
		&layers.Ethernet{SrcMAC: from.mac, DstMAC: to.mac, EthernetType: layers.EthernetTypeIPv4},
		ip, udp, bth,
	}
	if len(f.payload) > 0 {
		ls = append(ls, gopacket.Payload(f.payload))
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

// bhvChunk is a stretch of the node's memory.
type bhvChunk struct {
	addr uint64
	data []byte
}

type bhvStepKind uint8

const (
	bhvPost     bhvStepKind = iota // PostSend
	bhvPostRecv                    // PostRecv
	bhvIn                          // Receive a peer frame
	bhvPoke                        // the host writes its memory
	bhvExpect                      // Poll until false, then compare
)

// Checks of NextEvent after an expect step's polls.
const (
	bhvNextUnchecked = iota
	bhvNextAt        // NextEvent is (nextAt, true)
	bhvNextNone      // NextEvent is (_, false): nothing happens without input
)

// bhvStep is one step of a case, at cycle at.
type bhvStep struct {
	at   uint64
	kind bhvStepKind
	wr   WorkRequest
	rr   RecvRequest
	in   bhvFrame
	poke bhvChunk

	out      []bhvFrame   // the frames Poll returns at `at`, in order
	comps    []Completion // the completions since the last expect step
	next     int
	nextAt   uint64
	rateWant dcqcn.Rate // Node.Rate, when not 0
}

// done sets the completions an expect step wants.
func (s bhvStep) done(c ...Completion) bhvStep { s.comps = c; return s }

// nextEvent makes an expect step check that NextEvent reports cycle c.
func (s bhvStep) nextEvent(c uint64) bhvStep { s.next, s.nextAt = bhvNextAt, c; return s }

// idle makes an expect step check that nothing is pending: no frame, no timer.
func (s bhvStep) idle() bhvStep { s.next = bhvNextNone; return s }

// rate makes an expect step check the QP's DCQCN rate.
func (s bhvStep) rate(r dcqcn.Rate) bhvStep { s.rateWant = r; return s }

// bhvCase is one row of the table.
type bhvCase struct {
	name     string
	node     func(*NodeConfig)
	qp       func(*QPConfig)
	mem      []bhvChunk // host memory before the first step
	steps    []bhvStep
	wantMem  []bhvChunk         // host memory after the last step
	counters map[Counter]uint64 // every non-zero counter of the QP at the end
	events   []Event            // every OnEvent report, in order
	inError  bool               // the QP ends in the error state
	respHigh int                // when not 0, the most responder jobs ever queued at once
}

// bhvKit holds the step, frame and completion constructors the table is
// written with.
type bhvKit struct{}

func (bhvKit) post(at uint64, wr WorkRequest) bhvStep {
	return bhvStep{at: at, kind: bhvPost, wr: wr}
}

func (bhvKit) recv(at uint64, id, addr uint64, n uint32) bhvStep {
	return bhvStep{at: at, kind: bhvPostRecv, rr: RecvRequest{ID: id, Addr: addr, Length: n}}
}

func (bhvKit) in(at uint64, f bhvFrame) bhvStep { return bhvStep{at: at, kind: bhvIn, in: f} }

func (bhvKit) poke(at uint64, addr uint64, data []byte) bhvStep {
	return bhvStep{at: at, kind: bhvPoke, poke: bhvChunk{addr, data}}
}

func (bhvKit) expect(at uint64, out ...bhvFrame) bhvStep {
	return bhvStep{at: at, kind: bhvExpect, out: out}
}

func (bhvKit) ack(psn roce.PSN, msn uint32) bhvFrame {
	return bhvFrame{op: roce.RCAcknowledge, psn: psn, syn: roce.SyndromeACKUnlimited, msn: msn}
}

func (bhvKit) nak(psn roce.PSN, syn roce.AETHSyndrome, msn uint32) bhvFrame {
	return bhvFrame{op: roce.RCAcknowledge, psn: psn, syn: syn, msn: msn}
}

func (bhvKit) rnrNak(psn roce.PSN, code uint8, msn uint32) bhvFrame {
	return bhvFrame{op: roce.RCAcknowledge, psn: psn, syn: roce.RNRNAKSyndrome(code), msn: msn}
}

func (bhvKit) cnp() bhvFrame { return bhvFrame{op: roce.CNPOpCode, becn: true} }

// readResp is a READ response packet; the AETH is ignored by opcodes
// without one (MIDDLE).
func (bhvKit) readResp(op roce.OpCode, psn roce.PSN, msn uint32, data []byte) bhvFrame {
	return bhvFrame{op: op, psn: psn, syn: roce.SyndromeACKUnlimited, msn: msn, payload: data}
}

// sent is a successful send completion of wr.
func (bhvKit) sent(at uint64, wr WorkRequest) Completion {
	return Completion{Cycle: at, QPN: bhvQPN, ID: wr.ID, Op: wr.Op, Bytes: wr.Length}
}

// failed is a send completion of wr with an error status.
func (bhvKit) failed(at uint64, wr WorkRequest, st Status) Completion {
	return Completion{Cycle: at, QPN: bhvQPN, ID: wr.ID, Op: wr.Op, Status: st}
}

// got is a successful receive completion.
func (bhvKit) got(at uint64, id uint64, op Op, n uint32) Completion {
	return Completion{Cycle: at, QPN: bhvQPN, Recv: true, ID: id, Op: op, Bytes: n}
}

// gotImm is a successful receive completion with an immediate.
func (bhvKit) gotImm(at uint64, id uint64, op Op, n, imm uint32) Completion {
	return Completion{Cycle: at, QPN: bhvQPN, Recv: true, ID: id, Op: op, Bytes: n, HasImm: true, Imm: imm}
}

// recvErr is a receive completion with an error status.
func (bhvKit) recvErr(at uint64, id uint64, st Status, n uint32) Completion {
	return Completion{Cycle: at, QPN: bhvQPN, Recv: true, ID: id, Status: st, Bytes: n}
}

func (bhvKit) ev(at uint64, kind Counter, psn roce.PSN) Event {
	return Event{Cycle: at, QPN: bhvQPN, Kind: kind, PSN: psn}
}

// bhvData returns n bytes of a pattern that differs with seed and offset.
func bhvData(seed byte, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = seed*37 + byte(i) ^ byte(i>>8)*0x5B
	}
	return b
}

func TestBehaviour(t *testing.T) {
	var cases []bhvCase
	cases = append(cases, bhvResponderCases()...)
	cases = append(cases, bhvRequesterCases()...)
	cases = append(cases, bhvCongestionCases()...)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t) })
	}
}

func bhvResponderCases() []bhvCase {
	var k bhvKit
	const key = bhvRWKey
	return []bhvCase{
		func() bhvCase {
			a, b := bhvData(1, 100), bhvData(2, 37)
			return bhvCase{
				// doc.go Responder "Expected PSN": ACK 0x1F with the packet's PSN and MSN only on AckReq (PROTOCOL-NOTES 5).
				name: "resp_send_ack",
				steps: []bhvStep{
					k.recv(0, 1, bhvRecvBuf, 256),
					k.recv(0, 2, bhvRecvBuf+0x100, 256),
					k.in(10, bhvFrame{op: roce.RCSendOnly, psn: 0x200, ackReq: true, payload: a}),
					k.expect(10, k.ack(0x200, 1)).done(k.got(10, 1, OpSend, 100)),
					k.in(20, bhvFrame{op: roce.RCSendOnly, psn: 0x201, payload: b}), // no AckReq: no ACK
					k.expect(20).done(k.got(20, 2, OpSend, 37)).idle(),
				},
				wantMem:  []bhvChunk{{bhvRecvBuf, a}, {bhvRecvBuf + 0x100, b}},
				counters: map[Counter]uint64{RxPackets: 2, RespACK: 1, CompletionsSuccess: 2},
			}
		}(),
		func() bhvCase {
			d := bhvData(3, 612)
			return bhvCase{
				// doc.go Responder "Expected PSN": MSN + 1 at the end of the message, not per packet (rxe_resp.c execute).
				name: "resp_multi_packet_send",
				steps: []bhvStep{
					k.recv(0, 7, bhvRecvBuf, 1024),
					k.in(10, bhvFrame{op: roce.RCSendFirst, psn: 0x200, payload: d[:256]}),
					k.in(11, bhvFrame{op: roce.RCSendMiddle, psn: 0x201, payload: d[256:512]}),
					k.expect(11),
					k.in(12, bhvFrame{op: roce.RCSendLastImm, psn: 0x202, ackReq: true, imm: 0xDEADBEEF, payload: d[512:]}),
					k.expect(12, k.ack(0x202, 1)).done(k.gotImm(12, 7, OpSendImm, 612, 0xDEADBEEF)).idle(),
				},
				wantMem:  []bhvChunk{{bhvRecvBuf, d}},
				counters: map[Counter]uint64{RxPackets: 3, RespACK: 1, CompletionsSuccess: 1},
			}
		}(),
		func() bhvCase {
			d := bhvData(4, 600)
			return bhvCase{
				// doc.go Responder "Expected PSN": a WRITE lands at the RETH address, ACKed at its AckReq LAST (rxe_resp.c write_data_in).
				name: "resp_write",
				steps: []bhvStep{
					k.in(10, bhvFrame{op: roce.RCWriteFirst, psn: 0x200, va: bhvRWBase + 0x100, rkey: key, dmaLen: 600, payload: d[:256]}),
					k.in(11, bhvFrame{op: roce.RCWriteMiddle, psn: 0x201, payload: d[256:512]}),
					k.expect(11),
					k.in(12, bhvFrame{op: roce.RCWriteLast, psn: 0x202, ackReq: true, payload: d[512:]}),
					k.expect(12, k.ack(0x202, 1)).idle(),
				},
				wantMem:  []bhvChunk{{bhvRWBase + 0x100, d}},
				counters: map[Counter]uint64{RxPackets: 3, RespACK: 1},
			}
		}(),
		func() bhvCase {
			d := bhvData(5, 40)
			return bhvCase{
				// doc.go Responder "Expected PSN" and types.go OpWriteImm: WRITE with immediate consumes a receive WQE, data goes to the RETH address.
				name: "resp_write_imm",
				steps: []bhvStep{
					k.recv(0, 9, bhvRecvBuf, 64),
					k.in(10, bhvFrame{op: roce.RCWriteOnlyImm, psn: 0x200, ackReq: true, va: bhvRWBase + 0x200, rkey: key, dmaLen: 40,
						imm: 0x01020304, payload: d}),
					k.expect(10, k.ack(0x200, 1)).done(k.gotImm(10, 9, OpWriteImm, 40, 0x01020304)).idle(),
				},
				wantMem:  []bhvChunk{{bhvRWBase + 0x200, d}, {bhvRecvBuf, make([]byte, 64)}},
				counters: map[Counter]uint64{RxPackets: 1, RespACK: 1, CompletionsSuccess: 1},
			}
		}(),
		func() bhvCase {
			old, d, s := bhvData(6, 600), bhvData(7, 600), bhvData(8, 8)
			return bhvCase{
				// doc.go Responder "READ": FIRST/MIDDLE/LAST from the request's PSN, AETH on FIRST and LAST, data read at build time (rxe_resp.c read_reply).
				name: "resp_read",
				mem:  []bhvChunk{{bhvRWBase, old}},
				steps: []bhvStep{
					k.in(10, bhvFrame{op: roce.RCReadRequest, psn: 0x200, ackReq: true, va: bhvRWBase, rkey: key, dmaLen: 600}),
					k.poke(10, bhvRWBase, d), // the host changes the data before the responses are built
					k.expect(10,
						k.readResp(roce.RCReadResponseFirst, 0x200, 1, d[:256]),
						k.readResp(roce.RCReadResponseMiddle, 0x201, 0, d[256:512]),
						k.readResp(roce.RCReadResponseLast, 0x202, 1, d[512:])),
					k.recv(20, 1, bhvRecvBuf, 64),
					k.in(20, bhvFrame{op: roce.RCSendOnly, psn: 0x203, ackReq: true, payload: s}), // the READ took 3 PSNs and one MSN
					k.expect(20, k.ack(0x203, 2)).done(k.got(20, 1, OpSend, 8)).idle(),
				},
				counters: map[Counter]uint64{RxPackets: 2, RespReadResponses: 3, RespACK: 1, CompletionsSuccess: 1},
			}
		}(),
		func() bhvCase {
			a, b, c := bhvData(9, 16), bhvData(10, 16), bhvData(11, 16)
			return bhvCase{
				// doc.go Responder "PSN ahead": one NAK 0x60 with the expected PSN, then silence (PROTOCOL-NOTES 5, rxe_resp.c check_psn).
				name: "resp_psn_gap_one_nak",
				steps: []bhvStep{
					k.recv(0, 1, bhvRecvBuf, 64),
					k.recv(0, 2, bhvRecvBuf+0x40, 64),
					k.in(10, bhvFrame{op: roce.RCSendOnly, psn: 0x201, ackReq: true, payload: b}),
					k.expect(10, k.nak(0x200, roce.SyndromeNAKPSNSeq, 0)),
					k.in(20, bhvFrame{op: roce.RCSendOnly, psn: 0x202, ackReq: true, payload: c}),
					k.in(21, bhvFrame{op: roce.RCSendOnly, psn: 0x201, ackReq: true, payload: b}),
					k.expect(21),
					k.in(30, bhvFrame{op: roce.RCSendOnly, psn: 0x200, ackReq: true, payload: a}),
					k.expect(30, k.ack(0x200, 1)).done(k.got(30, 1, OpSend, 16)),
					k.in(31, bhvFrame{op: roce.RCSendOnly, psn: 0x201, ackReq: true, payload: b}),
					k.expect(31, k.ack(0x201, 2)).done(k.got(31, 2, OpSend, 16)),
					k.in(40, bhvFrame{op: roce.RCSendOnly, psn: 0x204, ackReq: true, payload: c}), // a new gap: a new NAK
					k.expect(40, k.nak(0x202, roce.SyndromeNAKPSNSeq, 2)).idle(),
				},
				wantMem: []bhvChunk{{bhvRecvBuf, a}, {bhvRecvBuf + 0x40, b}},
				counters: map[Counter]uint64{RxPackets: 6, RespOutOfSequence: 4, RespNAKSeq: 2, RespGapSilent: 2,
					RespACK: 2, CompletionsSuccess: 2},
			}
		}(),
		func() bhvCase {
			a, b, a2 := bhvData(12, 20), bhvData(13, 20), bhvData(14, 20)
			w, w2 := bhvData(15, 8), bhvData(16, 8)
			return bhvCase{
				// doc.go Responder "PSN behind": a duplicate SEND/WRITE is not executed and is ACKed with the last accepted PSN (rxe_resp.c duplicate_request).
				name: "resp_duplicate_send",
				steps: []bhvStep{
					k.recv(0, 1, bhvRecvBuf, 64),
					k.recv(0, 2, bhvRecvBuf+0x40, 64),
					k.recv(0, 3, bhvRecvBuf+0x80, 64),
					k.in(10, bhvFrame{op: roce.RCSendOnly, psn: 0x200, ackReq: true, payload: a}),
					k.expect(10, k.ack(0x200, 1)).done(k.got(10, 1, OpSend, 20)),
					k.in(20, bhvFrame{op: roce.RCSendOnly, psn: 0x201, payload: b}),
					k.expect(20).done(k.got(20, 2, OpSend, 20)),
					k.in(30, bhvFrame{op: roce.RCSendOnly, psn: 0x200, ackReq: true, payload: a2}), // consumes no WQE
					k.expect(30, k.ack(0x201, 2)),
					k.in(40, bhvFrame{op: roce.RCWriteOnly, psn: 0x202, ackReq: true, va: bhvRWBase, rkey: key, dmaLen: 8, payload: w}),
					k.expect(40, k.ack(0x202, 3)),
					k.in(50, bhvFrame{op: roce.RCWriteOnly, psn: 0x202, va: bhvRWBase, rkey: key, dmaLen: 8, payload: w2}), // ACKed without AckReq
					k.expect(50, k.ack(0x202, 3)).idle(),
				},
				wantMem: []bhvChunk{{bhvRecvBuf, a}, {bhvRecvBuf + 0x40, b}, {bhvRecvBuf + 0x80, make([]byte, 20)},
					{bhvRWBase, w}},
				counters: map[Counter]uint64{RxPackets: 5, RespDuplicate: 2, RespACK: 4, CompletionsSuccess: 2},
			}
		}(),
		func() bhvCase {
			d, s, s2 := bhvData(17, 1000), bhvData(18, 8), bhvData(19, 8)
			return bhvCase{
				// doc.go Responder "PSN behind": a duplicate READ from a middle PSN replays from that PSN with its own RETH (rxe_resp.c duplicate_request; MSN as prepare_ack_packet).
				name: "resp_duplicate_read_middle",
				mem:  []bhvChunk{{bhvRWBase, d}},
				steps: []bhvStep{
					k.in(10, bhvFrame{op: roce.RCReadRequest, psn: 0x200, ackReq: true, va: bhvRWBase, rkey: key, dmaLen: 1000}),
					k.expect(10,
						k.readResp(roce.RCReadResponseFirst, 0x200, 1, d[:256]),
						k.readResp(roce.RCReadResponseMiddle, 0x201, 0, d[256:512]),
						k.readResp(roce.RCReadResponseMiddle, 0x202, 0, d[512:768]),
						k.readResp(roce.RCReadResponseLast, 0x203, 1, d[768:])),
					k.recv(20, 1, bhvRecvBuf, 64),
					k.in(20, bhvFrame{op: roce.RCSendOnly, psn: 0x204, ackReq: true, payload: s}),
					k.expect(20, k.ack(0x204, 2)).done(k.got(20, 1, OpSend, 8)),
					k.in(30, bhvFrame{op: roce.RCReadRequest, psn: 0x202, ackReq: true, va: bhvRWBase + 512, rkey: key, dmaLen: 488}),
					k.expect(30,
						k.readResp(roce.RCReadResponseFirst, 0x202, 2, d[512:768]),
						k.readResp(roce.RCReadResponseLast, 0x203, 2, d[768:])),
					k.recv(40, 2, bhvRecvBuf+0x40, 64),
					k.in(40, bhvFrame{op: roce.RCSendOnly, psn: 0x205, ackReq: true, payload: s2}), // the replay moved neither PSN nor MSN
					k.expect(40, k.ack(0x205, 3)).done(k.got(40, 2, OpSend, 8)).idle(),
				},
				counters: map[Counter]uint64{RxPackets: 4, RespReadResponses: 6, RespDuplicateRead: 1, RespACK: 2,
					CompletionsSuccess: 2},
			}
		}(),
		func() bhvCase {
			d := bhvData(20, 256)
			return bhvCase{
				// doc.go Responder "Opcode sequence": a new message inside a SEND is NAK 0x61, QP to error (rxe_resp.c check_op_seq, do_class_ac_error).
				name: "resp_opcode_sequence",
				steps: []bhvStep{
					k.recv(0, 1, bhvRecvBuf, 1024),
					k.recv(0, 2, bhvRecvBuf+0x400, 1024),
					k.in(10, bhvFrame{op: roce.RCSendFirst, psn: 0x200, payload: d}),
					k.expect(10),
					k.in(20, bhvFrame{op: roce.RCWriteOnly, psn: 0x201, ackReq: true, va: bhvRWBase, rkey: key, dmaLen: 8, payload: bhvData(21, 8)}),
					k.expect(20, k.nak(0x201, roce.SyndromeNAKInvalid, 0)).
						done(k.recvErr(20, 1, StatusRemoteInvalidReq, 0), k.recvErr(20, 2, StatusFlushed, 0)).idle(),
					k.in(30, bhvFrame{op: roce.RCSendLast, psn: 0x202, ackReq: true, payload: bhvData(22, 8)}), // QP in error: dropped
					k.expect(30).idle(),
				},
				wantMem:  []bhvChunk{{bhvRecvBuf, d}, {bhvRWBase, make([]byte, 8)}},
				counters: map[Counter]uint64{RxPackets: 2, RespInvalidRequest: 1, RxQPError: 1, CompletionsError: 2},
				inError:  true,
			}
		}(),
		func() bhvCase {
			d := bhvData(23, 600)
			return bhvCase{
				// doc.go Responder "WRITE longer than its RETH": NAK 0x61 for that packet, QP to error (rxe_resp.c check_length / write_data_in).
				name: "resp_bad_length",
				steps: []bhvStep{
					k.recv(0, 5, bhvRecvBuf, 64),
					k.in(10, bhvFrame{op: roce.RCWriteFirst, psn: 0x200, va: bhvRWBase, rkey: key, dmaLen: 600, payload: d[:256]}),
					k.in(11, bhvFrame{op: roce.RCWriteMiddle, psn: 0x201, payload: d[256:512]}),
					k.in(12, bhvFrame{op: roce.RCWriteLast, psn: 0x202, ackReq: true, payload: bhvData(24, 100)}), // 88 bytes left
					k.expect(12, k.nak(0x202, roce.SyndromeNAKInvalid, 0)).done(k.recvErr(12, 5, StatusFlushed, 0)).idle(),
				},
				wantMem:  []bhvChunk{{bhvRWBase, d[:512]}, {bhvRWBase + 512, make([]byte, 100)}},
				counters: map[Counter]uint64{RxPackets: 3, RespInvalidRequest: 1, CompletionsError: 1},
				inError:  true,
			}
		}(),
		func() bhvCase {
			return bhvCase{
				// doc.go Responder "R_Key without the right": NAK 0x62, QP to error, nothing written (rxe_resp.c check_rkey).
				name: "resp_rkey_violation",
				steps: []bhvStep{
					k.recv(0, 5, bhvRecvBuf, 64),
					k.in(10, bhvFrame{op: roce.RCWriteOnly, psn: 0x200, ackReq: true, va: bhvROBase, rkey: bhvROKey, dmaLen: 16,
						payload: bhvData(25, 16)}),
					k.expect(10, k.nak(0x200, roce.SyndromeNAKAccess, 0)).done(k.recvErr(10, 5, StatusFlushed, 0)).idle(),
					k.in(20, bhvFrame{op: roce.RCWriteOnly, psn: 0x201, ackReq: true, va: bhvRWBase, rkey: key, dmaLen: 16,
						payload: bhvData(26, 16)}),
					k.expect(20).idle(),
				},
				wantMem:  []bhvChunk{{bhvROBase, make([]byte, 16)}, {bhvRWBase, make([]byte, 16)}},
				counters: map[Counter]uint64{RxPackets: 1, RespAccessError: 1, RxQPError: 1, CompletionsError: 1},
				inError:  true,
			}
		}(),
		func() bhvCase {
			return bhvCase{
				// doc.go Responder "range outside the region": a READ running 256 bytes past the region's end is NAK 0x62 (rxe_resp.c check_rkey, mr_check_range).
				name: "resp_out_of_range",
				steps: []bhvStep{
					k.in(10, bhvFrame{op: roce.RCReadRequest, psn: 0x200, ackReq: true, va: bhvRWBase + bhvRWLen - 256, rkey: key, dmaLen: 512}),
					k.expect(10, k.nak(0x200, roce.SyndromeNAKAccess, 0)).idle(),
				},
				counters: map[Counter]uint64{RxPackets: 1, RespAccessError: 1},
				inError:  true,
			}
		}(),
		func() bhvCase {
			return bhvCase{
				// doc.go Responder "zero-length operations need no key" (IBA C9-88; rxe_resp.c check_rkey skips a zero-length RETH).
				name: "resp_zero_length_no_key",
				steps: []bhvStep{
					k.recv(0, 1, bhvRecvBuf, 64),
					k.in(10, bhvFrame{op: roce.RCWriteOnly, psn: 0x200, ackReq: true, rkey: 0xDEADBEEF}),
					k.expect(10, k.ack(0x200, 1)),
					k.in(20, bhvFrame{op: roce.RCReadRequest, psn: 0x201, ackReq: true, rkey: 0xDEADBEEF}),
					k.expect(20, k.readResp(roce.RCReadResponseOnly, 0x201, 2, nil)),
					k.in(30, bhvFrame{op: roce.RCSendOnly, psn: 0x202, ackReq: true}),
					k.expect(30, k.ack(0x202, 3)).done(k.got(30, 1, OpSend, 0)).idle(),
				},
				counters: map[Counter]uint64{RxPackets: 3, RespACK: 2, RespReadResponses: 1, CompletionsSuccess: 1},
			}
		}(),
		func() bhvCase {
			a, b := bhvData(27, 16), bhvData(28, 16)
			return bhvCase{
				// doc.go Responder "no receive WQE": RNR NAK with the QP's timer code, PSN not advanced, the gap after it silent (rxe_resp.c check_resource).
				name: "resp_rnr",
				steps: []bhvStep{
					k.in(10, bhvFrame{op: roce.RCSendOnly, psn: 0x200, ackReq: true, payload: a}),
					k.expect(10, k.rnrNak(0x200, bhvRNRCode, 0)),
					k.in(11, bhvFrame{op: roce.RCSendOnly, psn: 0x201, ackReq: true, payload: b}),
					k.expect(11),
					k.recv(100, 1, bhvRecvBuf, 64),
					k.recv(100, 2, bhvRecvBuf+0x40, 64),
					k.in(200, bhvFrame{op: roce.RCSendOnly, psn: 0x200, ackReq: true, payload: a}),
					k.expect(200, k.ack(0x200, 1)).done(k.got(200, 1, OpSend, 16)),
					k.in(201, bhvFrame{op: roce.RCSendOnly, psn: 0x201, ackReq: true, payload: b}),
					k.expect(201, k.ack(0x201, 2)).done(k.got(201, 2, OpSend, 16)),
					k.in(300, bhvFrame{op: roce.RCWriteOnlyImm, psn: 0x202, ackReq: true, va: bhvRWBase, rkey: key, dmaLen: 8,
						imm: 7, payload: bhvData(29, 8)}), // WRITE with immediate needs a WQE too
					k.expect(300, k.rnrNak(0x202, bhvRNRCode, 2)).idle(),
				},
				wantMem: []bhvChunk{{bhvRecvBuf, a}, {bhvRecvBuf + 0x40, b}, {bhvRWBase, make([]byte, 8)}},
				counters: map[Counter]uint64{RxPackets: 5, RespRNR: 2, RespOutOfSequence: 1, RespGapSilent: 1, RespACK: 2,
					CompletionsSuccess: 2},
			}
		}(),
		func() bhvCase {
			d, s := bhvData(30, 768), bhvData(31, 12)
			return bhvCase{
				// doc.go "24-bit wraparound" on the responder: READ, duplicates and gaps across 2^24 (PROTOCOL-NOTES 5, rxe psn_compare).
				name: "resp_psn_wrap",
				qp:   func(c *QPConfig) { c.RecvPSN = 0xFFFFFE },
				mem:  []bhvChunk{{bhvRWBase, d}},
				steps: []bhvStep{
					k.in(10, bhvFrame{op: roce.RCReadRequest, psn: 0xFFFFFE, ackReq: true, va: bhvRWBase, rkey: key, dmaLen: 768}),
					k.expect(10,
						k.readResp(roce.RCReadResponseFirst, 0xFFFFFE, 1, d[:256]),
						k.readResp(roce.RCReadResponseMiddle, 0xFFFFFF, 0, d[256:512]),
						k.readResp(roce.RCReadResponseLast, 0x000000, 1, d[512:])),
					k.recv(20, 1, bhvRecvBuf, 64),
					k.in(20, bhvFrame{op: roce.RCSendOnly, psn: 0x000001, ackReq: true, payload: s}),
					k.expect(20, k.ack(0x000001, 2)).done(k.got(20, 1, OpSend, 12)),
					k.in(30, bhvFrame{op: roce.RCReadRequest, psn: 0xFFFFFF, ackReq: true, va: bhvRWBase + 256, rkey: key, dmaLen: 512}),
					k.expect(30,
						k.readResp(roce.RCReadResponseFirst, 0xFFFFFF, 2, d[256:512]),
						k.readResp(roce.RCReadResponseLast, 0x000000, 2, d[512:])),
					k.in(40, bhvFrame{op: roce.RCSendOnly, psn: 0x000001, ackReq: true, payload: s}),
					k.expect(40, k.ack(0x000001, 2)),
					k.in(50, bhvFrame{op: roce.RCSendOnly, psn: 0x000003, ackReq: true, payload: s}),
					k.expect(50, k.nak(0x000002, roce.SyndromeNAKPSNSeq, 2)).idle(),
				},
				counters: map[Counter]uint64{RxPackets: 5, RespReadResponses: 5, RespDuplicateRead: 1, RespDuplicate: 1,
					RespACK: 2, RespOutOfSequence: 1, RespNAKSeq: 1, CompletionsSuccess: 1},
			}
		}(),
		func() bhvCase {
			r := bhvData(32, 8)
			return bhvCase{
				// doc.go Responder "ACK coalescing": a positive ACK merges into a positive ACK waiting at the
				// tail (later PSN, newer MSN); never across a READ job, never into a NAK (rtl/nic README "Bounded queues").
				name: "resp_ack_coalesce",
				mem:  []bhvChunk{{bhvRWBase + 0x100, r}},
				steps: []bhvStep{
					k.in(10, bhvWrite(0x200, true, false)),
					k.in(10, bhvWrite(0x201, true, false)), // before the transmitter is free: one ACK
					k.expect(10, k.ack(0x201, 2)),
					k.in(20, bhvWrite(0x202, true, false)),
					k.in(20, bhvFrame{op: roce.RCReadRequest, psn: 0x203, ackReq: true, va: bhvRWBase + 0x100, rkey: key, dmaLen: 8}),
					k.in(20, bhvWrite(0x204, true, false)), // behind the READ job: a new ACK
					k.in(20, bhvWrite(0x205, true, false)),
					k.expect(20, k.ack(0x202, 3), k.readResp(roce.RCReadResponseOnly, 0x203, 4, r), k.ack(0x205, 6)),
					k.in(30, bhvWrite(0x207, true, false)), // a gap: NAK 0x206
					k.in(30, bhvWrite(0x206, true, false)), // the NAK stays, the ACK queues behind it
					k.in(30, bhvWrite(0x207, true, false)),
					k.expect(30, k.nak(0x206, roce.SyndromeNAKPSNSeq, 6), k.ack(0x207, 8)),
					k.in(40, bhvWrite(0x208, true, false)),
					k.in(40, bhvWrite(0x200, true, false)), // duplicate: its ACK (0x202) is behind 0x208, which stays
					k.expect(40, k.ack(0x208, 9)).idle(),
				},
				wantMem: []bhvChunk{{bhvRWBase, bhvData(0x08, 8)}},
				counters: map[Counter]uint64{RxPackets: 11, RespACK: 5, RespReadResponses: 1, RespOutOfSequence: 1,
					RespNAKSeq: 1, RespDuplicate: 1},
			}
		}(),
		func() bhvCase {
			r1, r2 := bhvData(33, 8), bhvData(34, 8)
			read := func(psn roce.PSN, va uint64) bhvFrame {
				return bhvFrame{op: roce.RCReadRequest, psn: psn, ackReq: true, va: va, rkey: key, dmaLen: 8}
			}
			return bhvCase{
				// doc.go Responder "PSN behind": the ACK for a duplicate WRITE stops before the next READ, whose
				// replay follows it; with the last accepted PSN (0x203) it would reach the requester before READ
				// 0x202's responses, an implied NAK (req_read_gap_rerequest) whose re-request makes new duplicates.
				name: "resp_duplicate_ack_before_read",
				mem:  []bhvChunk{{bhvRWBase + 0x100, r1}, {bhvRWBase + 0x200, r2}},
				steps: []bhvStep{
					k.in(10, read(0x200, bhvRWBase+0x100)),
					k.in(10, bhvWrite(0x201, true, false)),
					k.in(10, read(0x202, bhvRWBase+0x200)),
					k.in(10, bhvWrite(0x203, true, false)),
					k.expect(10, k.readResp(roce.RCReadResponseOnly, 0x200, 1, r1), k.ack(0x201, 2),
						k.readResp(roce.RCReadResponseOnly, 0x202, 3, r2), k.ack(0x203, 4)),
					// Both READ responses were lost: the requester goes back to 0x200 and sends all four again.
					k.in(100, read(0x200, bhvRWBase+0x100)),
					k.in(100, bhvWrite(0x201, true, false)),
					k.in(100, read(0x202, bhvRWBase+0x200)),
					k.in(100, bhvWrite(0x203, true, false)),
					k.expect(100, k.readResp(roce.RCReadResponseOnly, 0x200, 4, r1), k.ack(0x201, 4),
						k.readResp(roce.RCReadResponseOnly, 0x202, 4, r2), k.ack(0x203, 4)).idle(),
				},
				wantMem: []bhvChunk{{bhvRWBase, bhvData(0x03, 8)}},
				counters: map[Counter]uint64{RxPackets: 8, RespReadResponses: 4, RespACK: 4, RespDuplicate: 2,
					RespDuplicateRead: 2},
			}
		}(),
		func() bhvCase {
			d, a, b := bhvData(35, 600), bhvData(36, 8), bhvData(37, 8)
			read := func(psn roce.PSN, va uint64, n uint32) bhvFrame {
				return bhvFrame{op: roce.RCReadRequest, psn: psn, ackReq: true, va: va, rkey: key, dmaLen: n}
			}
			return bhvCase{
				// doc.go Responder "one job per READ resource": a duplicate READ restarts the job still waiting,
				// in its place, or at the tail when the replay of an earlier READ waits behind it (rxe_resp.c
				// duplicate_request resets the resource).
				name: "resp_duplicate_read_restart",
				mem:  []bhvChunk{{bhvRWBase, d}, {bhvRWBase + 0x300, a}, {bhvRWBase + 0x400, b}},
				steps: []bhvStep{
					k.in(10, read(0x200, bhvRWBase, 600)),
					k.in(10, read(0x200, bhvRWBase, 600)), // a copy: one stream, not two
					k.expect(10,
						k.readResp(roce.RCReadResponseFirst, 0x200, 1, d[:256]),
						k.readResp(roce.RCReadResponseMiddle, 0x201, 0, d[256:512]),
						k.readResp(roce.RCReadResponseLast, 0x202, 1, d[512:])),
					k.in(20, read(0x203, bhvRWBase+0x300, 8)),
					k.expect(20, k.readResp(roce.RCReadResponseOnly, 0x203, 2, a)),
					// READ 0x204 waits; the requester missed 0x203's response and goes back to it.
					k.in(30, read(0x204, bhvRWBase+0x400, 8)),
					k.in(30, read(0x203, bhvRWBase+0x300, 8)),
					k.in(30, read(0x204, bhvRWBase+0x400, 8)), // moves behind 0x203's replay
					k.expect(30, k.readResp(roce.RCReadResponseOnly, 0x203, 3, a),
						k.readResp(roce.RCReadResponseOnly, 0x204, 3, b)).idle(),
				},
				counters: map[Counter]uint64{RxPackets: 6, RespReadResponses: 6, RespDuplicateRead: 3},
			}
		}(),
		func() bhvCase {
			r := bhvData(38, 8)
			return bhvCase{
				// doc.go Responder "one job per READ resource": a new READ that reuses the resource of a READ
				// whose job still waits drops that job; the two ACKs it leaves side by side merge (rxe
				// rxe_prepare_res recycles the resource).
				name: "resp_read_resource_recycle",
				qp:   func(c *QPConfig) { c.MaxReads = 1 },
				mem:  []bhvChunk{{bhvRWBase + 0x100, r}},
				steps: []bhvStep{
					k.in(10, bhvWrite(0x200, true, false)),
					k.in(10, bhvFrame{op: roce.RCReadRequest, psn: 0x201, ackReq: true, va: bhvRWBase + 0x100, rkey: key, dmaLen: 8}),
					k.in(10, bhvWrite(0x202, true, false)),
					k.in(10, bhvFrame{op: roce.RCReadRequest, psn: 0x203, ackReq: true, va: bhvRWBase + 0x100, rkey: key, dmaLen: 8}),
					k.expect(10, k.ack(0x202, 3), k.readResp(roce.RCReadResponseOnly, 0x203, 4, r)).idle(),
				},
				wantMem:  []bhvChunk{{bhvRWBase, bhvData(0x02, 8)}},
				counters: map[Counter]uint64{RxPackets: 4, RespACK: 1, RespReadResponses: 1},
				respHigh: 3,
			}
		}(),
		func() bhvCase {
			s := bhvData(39, 8)
			return bhvCase{
				// doc.go Responder "one NAK waiting": a gap, or a missing receive WQE, while a NAK waits makes
				// no second NAK; it is dropped silently and the gap stays silent (the waiting NAK's go-back-N resends it).
				name: "resp_nak_one_waiting",
				steps: []bhvStep{
					k.in(10, bhvWrite(0x201, true, false)), // a gap: NAK 0x200
					k.in(10, bhvWrite(0x200, true, false)), // closes it
					k.in(10, bhvWrite(0x203, true, false)), // a new gap while the NAK waits: silent
					k.in(10, bhvWrite(0x204, true, false)),
					k.expect(10, k.nak(0x200, roce.SyndromeNAKPSNSeq, 0), k.ack(0x200, 1)),
					k.in(20, bhvWrite(0x205, true, false)), // still the same gap
					k.expect(20),
					k.in(30, bhvWrite(0x201, true, false)),
					k.expect(30, k.ack(0x201, 2)),
					k.in(40, bhvWrite(0x203, true, false)), // a gap: NAK 0x202
					k.in(40, bhvWrite(0x202, true, false)),
					k.in(40, bhvFrame{op: roce.RCSendOnly, psn: 0x203, ackReq: true, payload: s}), // no WQE, a NAK waits: no RNR NAK
					k.expect(40, k.nak(0x202, roce.SyndromeNAKPSNSeq, 2), k.ack(0x202, 3)),
					k.recv(50, 1, bhvRecvBuf, 64),
					k.in(50, bhvFrame{op: roce.RCSendOnly, psn: 0x203, ackReq: true, payload: s}),
					k.expect(50, k.ack(0x203, 4)).done(k.got(50, 1, OpSend, 8)).idle(),
				},
				wantMem: []bhvChunk{{bhvRWBase, bhvData(0x02, 8)}, {bhvRecvBuf, s}},
				counters: map[Counter]uint64{RxPackets: 10, RespOutOfSequence: 5, RespNAKSeq: 2, RespGapSilent: 4,
					RespACK: 4, CompletionsSuccess: 1},
			}
		}(),
		func() bhvCase {
			r := bhvData(40, 8)
			return bhvCase{
				// doc.go Responder "RespDepth": with MaxReads 1 the queue reaches 2*1+3 jobs, ACK READ ACK NAK ACK.
				name: "resp_queue_bound",
				qp:   func(c *QPConfig) { c.MaxReads = 1 },
				mem:  []bhvChunk{{bhvRWBase + 0x100, r}},
				steps: []bhvStep{
					k.in(10, bhvWrite(0x200, true, false)),
					k.in(10, bhvFrame{op: roce.RCReadRequest, psn: 0x201, ackReq: true, va: bhvRWBase + 0x100, rkey: key, dmaLen: 8}),
					k.in(10, bhvWrite(0x202, true, false)),
					k.in(10, bhvWrite(0x204, true, false)),
					k.in(10, bhvWrite(0x203, true, false)),
					k.expect(10, k.ack(0x200, 1), k.readResp(roce.RCReadResponseOnly, 0x201, 2, r), k.ack(0x202, 3),
						k.nak(0x203, roce.SyndromeNAKPSNSeq, 3), k.ack(0x203, 4)).idle(),
				},
				wantMem:  []bhvChunk{{bhvRWBase, bhvData(0x03, 8)}},
				counters: map[Counter]uint64{RxPackets: 5, RespACK: 3, RespReadResponses: 1, RespOutOfSequence: 1, RespNAKSeq: 1},
				respHigh: RespDepth(1),
			}
		}(),
	}
}

// bhvWrite is an 8-byte WRITE ONLY to the start of the read-write region,
// its data a pattern of its PSN.
func bhvWrite(psn roce.PSN, ackReq, ce bool) bhvFrame {
	return bhvFrame{op: roce.RCWriteOnly, psn: psn, ackReq: ackReq, ce: ce, va: bhvRWBase, rkey: bhvRWKey, dmaLen: 8,
		payload: bhvData(byte(psn), 8)}
}

func bhvRequesterCases() []bhvCase {
	var k bhvKit
	const rkey = bhvRemoteKey
	T := TimeoutCycles(bhvTimeout, bhvClock)
	return []bhvCase{
		func() bhvCase {
			s1, w2, s3 := bhvData(40, 600), bhvData(41, 600), bhvData(42, 100)
			w4, s5, w6 := bhvData(43, 256), bhvData(44, 512), bhvData(45, 300)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 600}
			wr2 := WorkRequest{ID: 2, Op: OpWriteImm, LocalAddr: bhvLocal + 0x1000, Length: 600, RemoteAddr: bhvRemoteVA,
				RKey: rkey, Imm: 0xCAFEF00D}
			wr3 := WorkRequest{ID: 3, Op: OpSendImm, LocalAddr: bhvLocal + 0x2000, Length: 100, Imm: 0x11223344}
			wr4 := WorkRequest{ID: 4, Op: OpWrite, LocalAddr: bhvLocal + 0x3000, Length: 256, RemoteAddr: bhvRemoteVA + 0x1000, RKey: rkey}
			wr5 := WorkRequest{ID: 5, Op: OpSend, LocalAddr: bhvLocal + 0x4000, Length: 512}
			wr6 := WorkRequest{ID: 6, Op: OpWrite, LocalAddr: bhvLocal + 0x5000, Length: 300, RemoteAddr: bhvRemoteVA + 0x2000, RKey: rkey}
			return bhvCase{
				// doc.go Requester "Segmentation": ONLY if it fits, else FIRST, MIDDLE..., LAST; RETH with the whole length on WRITE FIRST/ONLY; immediate on LAST/ONLY (PROTOCOL-NOTES 4).
				name: "req_segmentation",
				mem: []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, w2}, {wr3.LocalAddr, s3}, {wr4.LocalAddr, w4},
					{wr5.LocalAddr, s5}, {wr6.LocalAddr, w6}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3), k.post(0, wr4), k.post(0, wr5), k.post(0, wr6),
					k.expect(0,
						bhvFrame{op: roce.RCSendFirst, psn: 0x100, payload: s1[:256]},
						bhvFrame{op: roce.RCSendMiddle, psn: 0x101, payload: s1[256:512]},
						bhvFrame{op: roce.RCSendLast, psn: 0x102, ackReq: true, payload: s1[512:]},
						bhvFrame{op: roce.RCWriteFirst, psn: 0x103, va: bhvRemoteVA, rkey: rkey, dmaLen: 600, payload: w2[:256]},
						bhvFrame{op: roce.RCWriteMiddle, psn: 0x104, payload: w2[256:512]},
						bhvFrame{op: roce.RCWriteLastImm, psn: 0x105, ackReq: true, imm: 0xCAFEF00D, payload: w2[512:]},
						bhvFrame{op: roce.RCSendOnlyImm, psn: 0x106, ackReq: true, imm: 0x11223344, payload: s3},
						bhvFrame{op: roce.RCWriteOnly, psn: 0x107, ackReq: true, va: bhvRemoteVA + 0x1000, rkey: rkey, dmaLen: 256, payload: w4},
						bhvFrame{op: roce.RCSendFirst, psn: 0x108, payload: s5[:256]},
						bhvFrame{op: roce.RCSendLast, psn: 0x109, ackReq: true, payload: s5[256:]},
						bhvFrame{op: roce.RCWriteFirst, psn: 0x10A, va: bhvRemoteVA + 0x2000, rkey: rkey, dmaLen: 300, payload: w6[:256]},
						bhvFrame{op: roce.RCWriteLast, psn: 0x10B, ackReq: true, payload: w6[256:]},
					).nextEvent(T),
					k.in(100, k.ack(0x10B, 6)),
					k.expect(100).done(k.sent(100, wr1), k.sent(100, wr2), k.sent(100, wr3), k.sent(100, wr4),
						k.sent(100, wr5), k.sent(100, wr6)).idle(),
				},
				counters: map[Counter]uint64{TxPackets: 12, RxPackets: 1, CompletionsSuccess: 6},
			}
		}(),
		func() bhvCase {
			s5 := bhvData(46, 8)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal}
			wr2 := WorkRequest{ID: 2, Op: OpWrite, LocalAddr: bhvLocal, RemoteAddr: bhvRemoteVA, RKey: rkey}
			wr3 := WorkRequest{ID: 3, Op: OpRead, LocalAddr: bhvLocal + 0x8000, RemoteAddr: bhvRemoteVA + 0x100, RKey: rkey}
			wr4 := WorkRequest{ID: 4, Op: OpWriteImm, LocalAddr: bhvLocal, RemoteAddr: bhvRemoteVA + 0x200, RKey: rkey, Imm: 0x55}
			wr5 := WorkRequest{ID: 5, Op: OpSend, LocalAddr: bhvLocal + 0x1000, Length: 8}
			return bhvCase{
				// doc.go Requester "Zero-length messages are one ONLY packet"; a zero-length READ takes one PSN (PROTOCOL-NOTES 5).
				name: "req_zero_length",
				mem:  []bhvChunk{{wr5.LocalAddr, s5}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3), k.post(0, wr4), k.post(0, wr5),
					k.expect(0,
						bhvFrame{op: roce.RCSendOnly, psn: 0x100, ackReq: true},
						bhvFrame{op: roce.RCWriteOnly, psn: 0x101, ackReq: true, va: bhvRemoteVA, rkey: rkey},
						bhvFrame{op: roce.RCReadRequest, psn: 0x102, ackReq: true, va: bhvRemoteVA + 0x100, rkey: rkey},
						bhvFrame{op: roce.RCWriteOnlyImm, psn: 0x103, ackReq: true, va: bhvRemoteVA + 0x200, rkey: rkey, imm: 0x55},
						bhvFrame{op: roce.RCSendOnly, psn: 0x104, ackReq: true, payload: s5},
					).nextEvent(T),
					k.in(100, k.ack(0x101, 2)),
					k.expect(100).done(k.sent(100, wr1), k.sent(100, wr2)),
					k.in(110, k.readResp(roce.RCReadResponseOnly, 0x102, 3, nil)),
					k.expect(110).done(k.sent(110, wr3)),
					k.in(120, k.ack(0x104, 5)),
					k.expect(120).done(k.sent(120, wr4), k.sent(120, wr5)).idle(),
				},
				counters: map[Counter]uint64{TxPackets: 5, RxPackets: 3, CompletionsSuccess: 5},
			}
		}(),
		func() bhvCase {
			const pkts = 130
			d := bhvData(47, pkts*bhvPMTU)
			wr := WorkRequest{ID: 1, Op: OpSend, LocalAddr: 0x100000, Length: pkts * bhvPMTU}
			frames := make([]bhvFrame, pkts)
			for i := range frames {
				op := roce.RCSendMiddle
				switch i {
				case 0:
					op = roce.RCSendFirst
				case pkts - 1:
					op = roce.RCSendLast
				}
				frames[i] = bhvFrame{op: op, psn: bhvSendPSN.Add(i), ackReq: i == 63 || i == 127 || i == pkts-1,
					payload: d[i*bhvPMTU : (i+1)*bhvPMTU]}
			}
			return bhvCase{
				// doc.go Requester "AckReq on the last packet and every 64th, counted from the first": retransmissions are identical (rxe_req.c ack_req).
				name: "req_ackreq_every_64",
				mem:  []bhvChunk{{wr.LocalAddr, d}},
				steps: []bhvStep{
					k.post(0, wr),
					k.expect(0, frames...),
					k.in(100, k.nak(bhvSendPSN.Add(64), roce.SyndromeNAKPSNSeq, 0)),
					k.expect(100, frames[64:]...), // AckReq stays on packets 127 and 129, not 64+63
					k.in(200, k.ack(bhvSendPSN.Add(pkts-1), 1)),
					k.expect(200).done(k.sent(200, wr)).idle(),
				},
				counters: map[Counter]uint64{TxPackets: pkts + pkts - 64, TxRetransmits: pkts - 64, ReqRetryNAK: 1,
					RxPackets: 2, CompletionsSuccess: 1},
				events: []Event{k.ev(100, ReqRetryNAK, bhvSendPSN.Add(64))},
			}
		}(),
		func() bhvCase {
			s1, r, s3 := bhvData(48, 600), bhvData(49, 600), bhvData(50, 10)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 600}
			wr2 := WorkRequest{ID: 2, Op: OpRead, LocalAddr: bhvLocal + 0x8000, Length: 600, RemoteAddr: bhvRemoteVA, RKey: rkey}
			wr3 := WorkRequest{ID: 3, Op: OpSend, LocalAddr: bhvLocal + 0x1000, Length: 10}
			return bhvCase{
				// doc.go Requester "PSNs ... 24-bit wraparound": a message, a READ and a stale ACK across 2^24 (PROTOCOL-NOTES 5).
				name: "req_psn_wrap",
				qp:   func(c *QPConfig) { c.SendPSN = 0xFFFFFE },
				mem:  []bhvChunk{{wr1.LocalAddr, s1}, {wr3.LocalAddr, s3}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3),
					k.expect(0,
						bhvFrame{op: roce.RCSendFirst, psn: 0xFFFFFE, payload: s1[:256]},
						bhvFrame{op: roce.RCSendMiddle, psn: 0xFFFFFF, payload: s1[256:512]},
						bhvFrame{op: roce.RCSendLast, psn: 0x000000, ackReq: true, payload: s1[512:]},
						bhvFrame{op: roce.RCReadRequest, psn: 0x000001, ackReq: true, va: bhvRemoteVA, rkey: rkey, dmaLen: 600},
						bhvFrame{op: roce.RCSendOnly, psn: 0x000004, ackReq: true, payload: s3},
					),
					k.in(100, k.ack(0x000000, 1)),
					k.expect(100).done(k.sent(100, wr1)),
					k.in(110, k.readResp(roce.RCReadResponseFirst, 0x000001, 2, r[:256])),
					k.in(120, k.readResp(roce.RCReadResponseMiddle, 0x000002, 0, r[256:512])),
					k.in(130, k.readResp(roce.RCReadResponseLast, 0x000003, 2, r[512:])),
					k.expect(130).done(k.sent(130, wr2)),
					k.in(140, k.ack(0xFFFFFF, 1)), // older than the oldest unacknowledged PSN
					k.expect(140),
					k.in(150, k.ack(0x000004, 3)),
					k.expect(150).done(k.sent(150, wr3)).idle(),
				},
				wantMem:  []bhvChunk{{wr2.LocalAddr, r}},
				counters: map[Counter]uint64{TxPackets: 5, RxPackets: 6, ReqStaleAck: 1, CompletionsSuccess: 3},
			}
		}(),
		func() bhvCase {
			s1, s2, s6 := bhvData(51, 1024), bhvData(52, 10), bhvData(53, 10)
			r3, r4, r5, r7 := bhvData(54, 10), bhvData(55, 10), bhvData(56, 10), bhvData(57, 1024)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 1024}
			wr2 := WorkRequest{ID: 2, Op: OpSend, LocalAddr: bhvLocal + 0x1000, Length: 10}
			rd := func(id uint64, local, remote uint64, n uint32) WorkRequest {
				return WorkRequest{ID: id, Op: OpRead, LocalAddr: local, Length: n, RemoteAddr: remote, RKey: rkey}
			}
			wr3 := rd(3, bhvLocal+0x8000, bhvRemoteVA, 10)
			wr4 := rd(4, bhvLocal+0x8100, bhvRemoteVA+0x100, 10)
			wr5 := rd(5, bhvLocal+0x8200, bhvRemoteVA+0x200, 10)
			wr6 := WorkRequest{ID: 6, Op: OpSend, LocalAddr: bhvLocal + 0x2000, Length: 10}
			wr7 := rd(7, bhvLocal+0x9000, bhvRemoteVA+0x1000, 1024)
			readReq := func(psn roce.PSN, wr WorkRequest) bhvFrame {
				return bhvFrame{op: roce.RCReadRequest, psn: psn, ackReq: true, va: wr.RemoteAddr, rkey: rkey, dmaLen: wr.Length}
			}
			return bhvCase{
				// doc.go Requester "Window": at most Window PSNs unacknowledged (a READ counts all its PSNs), at most MaxReads READs; AckReq every Window/2-th packet (rxe_req.c).
				name: "req_window",
				qp:   func(c *QPConfig) { c.Window, c.MaxReads = 4, 2 },
				mem:  []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}, {wr6.LocalAddr, s6}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0,
						bhvFrame{op: roce.RCSendFirst, psn: 0x100, payload: s1[:256]},
						bhvFrame{op: roce.RCSendMiddle, psn: 0x101, ackReq: true, payload: s1[256:512]}, // every Window/2-th packet
						bhvFrame{op: roce.RCSendMiddle, psn: 0x102, payload: s1[512:768]},
						bhvFrame{op: roce.RCSendLast, psn: 0x103, ackReq: true, payload: s1[768:]},
					).nextEvent(T), // 0x104 waits: 4 PSNs unacknowledged
					k.in(100, k.ack(0x101, 0)),
					k.expect(100, bhvFrame{op: roce.RCSendOnly, psn: 0x104, ackReq: true, payload: s2}),
					k.in(200, k.ack(0x104, 2)),
					k.expect(200).done(k.sent(200, wr1), k.sent(200, wr2)).idle(),
					k.post(300, wr3), k.post(300, wr4), k.post(300, wr5),
					k.expect(300, readReq(0x105, wr3), readReq(0x106, wr4)).nextEvent(300 + T), // the third waits for a READ to end
					k.in(400, k.readResp(roce.RCReadResponseOnly, 0x105, 3, r3)),
					k.expect(400, readReq(0x107, wr5)).done(k.sent(400, wr3)),
					k.in(500, k.readResp(roce.RCReadResponseOnly, 0x106, 4, r4)),
					k.in(510, k.readResp(roce.RCReadResponseOnly, 0x107, 5, r5)),
					k.expect(510).done(k.sent(500, wr4), k.sent(510, wr5)).idle(),
					k.post(600, wr6), k.post(600, wr7),
					k.expect(600, bhvFrame{op: roce.RCSendOnly, psn: 0x108, ackReq: true, payload: s6}).
						nextEvent(600 + T), // the READ's 4 PSNs 0x109-0x10C do not fit beside 0x108
					k.in(700, k.ack(0x108, 6)),
					k.expect(700, readReq(0x109, wr7)).done(k.sent(700, wr6)),
					k.in(800, k.readResp(roce.RCReadResponseFirst, 0x109, 7, r7[:256])),
					k.in(801, k.readResp(roce.RCReadResponseMiddle, 0x10A, 0, r7[256:512])),
					k.in(802, k.readResp(roce.RCReadResponseMiddle, 0x10B, 0, r7[512:768])),
					k.in(803, k.readResp(roce.RCReadResponseLast, 0x10C, 7, r7[768:])),
					k.expect(803).done(k.sent(803, wr7)).idle(),
				},
				wantMem:  []bhvChunk{{wr3.LocalAddr, r3}, {wr4.LocalAddr, r4}, {wr5.LocalAddr, r5}, {wr7.LocalAddr, r7}},
				counters: map[Counter]uint64{TxPackets: 10, RxPackets: 10, CompletionsSuccess: 7},
			}
		}(),
		func() bhvCase {
			s1, w2, s3, s4 := bhvData(58, 10), bhvData(59, 10), bhvData(60, 600), bhvData(61, 10)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 10}
			wr2 := WorkRequest{ID: 2, Op: OpWrite, LocalAddr: bhvLocal + 0x1000, Length: 10, RemoteAddr: bhvRemoteVA, RKey: rkey}
			wr3 := WorkRequest{ID: 3, Op: OpSend, LocalAddr: bhvLocal + 0x2000, Length: 600}
			wr4 := WorkRequest{ID: 4, Op: OpSend, LocalAddr: bhvLocal + 0x3000, Length: 10}
			return bhvCase{
				// doc.go Requester "An ACK for PSN p completes every SEND/WRITE ending at or before p, in order" (PROTOCOL-NOTES 5, rxe_comp.c check_psn).
				name: "req_implicit_ack",
				mem:  []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, w2}, {wr3.LocalAddr, s3}, {wr4.LocalAddr, s4}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3), k.post(0, wr4),
					k.expect(0,
						bhvFrame{op: roce.RCSendOnly, psn: 0x100, ackReq: true, payload: s1},
						bhvFrame{op: roce.RCWriteOnly, psn: 0x101, ackReq: true, va: bhvRemoteVA, rkey: rkey, dmaLen: 10, payload: w2},
						bhvFrame{op: roce.RCSendFirst, psn: 0x102, payload: s3[:256]},
						bhvFrame{op: roce.RCSendMiddle, psn: 0x103, payload: s3[256:512]},
						bhvFrame{op: roce.RCSendLast, psn: 0x104, ackReq: true, payload: s3[512:]},
						bhvFrame{op: roce.RCSendOnly, psn: 0x105, ackReq: true, payload: s4},
					),
					k.in(100, k.ack(0x103, 2)), // inside the third message: it stays open
					k.expect(100).done(k.sent(100, wr1), k.sent(100, wr2)).nextEvent(100 + T),
					k.in(200, k.ack(0x105, 4)),
					k.expect(200).done(k.sent(200, wr3), k.sent(200, wr4)).idle(),
				},
				counters: map[Counter]uint64{TxPackets: 6, RxPackets: 2, CompletionsSuccess: 4},
			}
		}(),
		func() bhvCase {
			s1, w2, r, s4 := bhvData(62, 10), bhvData(63, 10), bhvData(64, 600), bhvData(65, 10)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 10}
			wr2 := WorkRequest{ID: 2, Op: OpWrite, LocalAddr: bhvLocal + 0x1000, Length: 10, RemoteAddr: bhvRemoteVA, RKey: rkey}
			wr3 := WorkRequest{ID: 3, Op: OpRead, LocalAddr: bhvLocal + 0x8000, Length: 600, RemoteAddr: bhvRemoteVA + 0x1000, RKey: rkey}
			wr4 := WorkRequest{ID: 4, Op: OpSend, LocalAddr: bhvLocal + 0x2000, Length: 10}
			return bhvCase{
				// doc.go Requester "a READ completes only with its last response, and a READ response acknowledges every earlier request" (rxe_comp.c).
				name: "req_read_response_acks",
				mem:  []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, w2}, {wr4.LocalAddr, s4}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3), k.post(0, wr4),
					k.expect(0,
						bhvFrame{op: roce.RCSendOnly, psn: 0x100, ackReq: true, payload: s1},
						bhvFrame{op: roce.RCWriteOnly, psn: 0x101, ackReq: true, va: bhvRemoteVA, rkey: rkey, dmaLen: 10, payload: w2},
						bhvFrame{op: roce.RCReadRequest, psn: 0x102, ackReq: true, va: bhvRemoteVA + 0x1000, rkey: rkey, dmaLen: 600},
						bhvFrame{op: roce.RCSendOnly, psn: 0x105, ackReq: true, payload: s4},
					),
					k.in(100, k.readResp(roce.RCReadResponseFirst, 0x102, 3, r[:256])),
					k.expect(100).done(k.sent(100, wr1), k.sent(100, wr2)),
					k.in(110, k.readResp(roce.RCReadResponseMiddle, 0x103, 0, r[256:512])),
					k.expect(110),
					k.in(120, k.readResp(roce.RCReadResponseLast, 0x104, 3, r[512:])),
					k.expect(120).done(k.sent(120, wr3)),
					k.in(130, k.ack(0x105, 4)),
					k.expect(130).done(k.sent(130, wr4)).idle(),
				},
				wantMem:  []bhvChunk{{wr3.LocalAddr, r}},
				counters: map[Counter]uint64{TxPackets: 4, RxPackets: 4, CompletionsSuccess: 4},
			}
		}(),
		func() bhvCase {
			s1, s2 := bhvData(66, 1024), bhvData(67, 10)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 1024}
			wr2 := WorkRequest{ID: 2, Op: OpSend, LocalAddr: bhvLocal + 0x1000, Length: 10}
			f := []bhvFrame{
				{op: roce.RCSendFirst, psn: 0x100, payload: s1[:256]},
				{op: roce.RCSendMiddle, psn: 0x101, payload: s1[256:512]},
				{op: roce.RCSendMiddle, psn: 0x102, payload: s1[512:768]},
				{op: roce.RCSendLast, psn: 0x103, ackReq: true, payload: s1[768:]},
				{op: roce.RCSendOnly, psn: 0x104, ackReq: true, payload: s2},
			}
			return bhvCase{
				// doc.go Requester "NAK 0x60 for PSN p acknowledges everything before p and starts a go-back-N from p" with identical packets (PROTOCOL-NOTES 5).
				name: "req_nak_go_back_n",
				mem:  []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, f...),
					k.in(100, k.nak(0x102, roce.SyndromeNAKPSNSeq, 0)),
					k.expect(100, f[2:]...).nextEvent(100 + T),
					k.in(200, k.ack(0x104, 2)),
					k.expect(200).done(k.sent(200, wr1), k.sent(200, wr2)).idle(),
				},
				counters: map[Counter]uint64{TxPackets: 8, TxRetransmits: 3, ReqRetryNAK: 1, RxPackets: 2, CompletionsSuccess: 2},
				events:   []Event{k.ev(100, ReqRetryNAK, 0x102)},
			}
		}(),
		func() bhvCase {
			s1, s2 := bhvData(68, 1024), bhvData(69, 10)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 1024}
			wr2 := WorkRequest{ID: 2, Op: OpSend, LocalAddr: bhvLocal + 0x1000, Length: 10}
			f := []bhvFrame{
				{op: roce.RCSendFirst, psn: 0x100, payload: s1[:256]},
				{op: roce.RCSendMiddle, psn: 0x101, payload: s1[256:512]},
				{op: roce.RCSendMiddle, psn: 0x102, payload: s1[512:768]},
				{op: roce.RCSendLast, psn: 0x103, ackReq: true, payload: s1[768:]},
				{op: roce.RCSendOnly, psn: 0x104, ackReq: true, payload: s2},
			}
			return bhvCase{
				// doc.go Requester "A second NAK, or a copy, with no progress since is ignored"; after progress a NAK counts again (rxe_comp.c comp.started_retry).
				name: "req_duplicate_nak_ignored",
				mem:  []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, f...),
					k.in(100, k.nak(0x102, roce.SyndromeNAKPSNSeq, 0)),
					k.expect(100, f[2:]...),
					k.in(101, k.nak(0x102, roce.SyndromeNAKPSNSeq, 0)), // a copy
					k.expect(101),
					k.in(200, k.ack(0x102, 0)), // progress
					k.in(201, k.nak(0x103, roce.SyndromeNAKPSNSeq, 0)),
					k.expect(201, f[3:]...),
					k.in(300, k.ack(0x104, 2)),
					k.expect(300).done(k.sent(300, wr1), k.sent(300, wr2)).idle(),
				},
				counters: map[Counter]uint64{TxPackets: 10, TxRetransmits: 5, ReqRetryNAK: 2, ReqRetryIgnored: 1,
					RxPackets: 5, CompletionsSuccess: 2},
				events: []Event{k.ev(100, ReqRetryNAK, 0x102), k.ev(201, ReqRetryNAK, 0x103)},
			}
		}(),
		func() bhvCase {
			r, s2 := bhvData(70, 1000), bhvData(71, 10)
			wr1 := WorkRequest{ID: 1, Op: OpRead, LocalAddr: bhvLocal + 0x8000, Length: 1000, RemoteAddr: bhvRemoteVA, RKey: rkey}
			wr2 := WorkRequest{ID: 2, Op: OpSend, LocalAddr: bhvLocal, Length: 10}
			send := bhvFrame{op: roce.RCSendOnly, psn: 0x104, ackReq: true, payload: s2}
			return bhvCase{
				// doc.go Requester "A READ response or ACK beyond the next missing READ response is an implied NAK": re-request with the RETH advanced by whole PMTUs (PROTOCOL-NOTES 5).
				name: "req_read_gap_rerequest",
				mem:  []bhvChunk{{wr2.LocalAddr, s2}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, bhvFrame{op: roce.RCReadRequest, psn: 0x100, ackReq: true, va: bhvRemoteVA, rkey: rkey, dmaLen: 1000}, send),
					k.in(100, k.readResp(roce.RCReadResponseFirst, 0x100, 1, r[:256])),
					k.expect(100),
					k.in(110, k.readResp(roce.RCReadResponseMiddle, 0x102, 0, r[512:768])), // 0x101 was lost
					k.expect(110,
						bhvFrame{op: roce.RCReadRequest, psn: 0x101, ackReq: true, va: bhvRemoteVA + 256, rkey: rkey, dmaLen: 744},
						send),
					k.in(200, k.readResp(roce.RCReadResponseFirst, 0x101, 1, r[256:512])),
					k.expect(200),
					k.in(210, k.ack(0x104, 2)), // 0x102 and 0x103 were lost
					k.expect(210,
						bhvFrame{op: roce.RCReadRequest, psn: 0x102, ackReq: true, va: bhvRemoteVA + 512, rkey: rkey, dmaLen: 488},
						send),
					k.in(300, k.readResp(roce.RCReadResponseFirst, 0x102, 1, r[512:768])),
					k.in(310, k.readResp(roce.RCReadResponseLast, 0x103, 1, r[768:])),
					k.expect(310).done(k.sent(310, wr1)),
					k.in(320, k.ack(0x104, 2)),
					k.expect(320).done(k.sent(320, wr2)).idle(),
				},
				wantMem: []bhvChunk{{wr1.LocalAddr, r}},
				counters: map[Counter]uint64{TxPackets: 6, TxRetransmits: 4, ReqRetryReadGap: 2, RxPackets: 7,
					CompletionsSuccess: 2},
				events: []Event{k.ev(110, ReqRetryReadGap, 0x101), k.ev(210, ReqRetryReadGap, 0x102)},
			}
		}(),
		func() bhvCase {
			s1, s2 := bhvData(72, 10), bhvData(73, 10)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 10}
			wr2 := WorkRequest{ID: 2, Op: OpSend, LocalAddr: bhvLocal + 0x1000, Length: 10}
			f1 := bhvFrame{op: roce.RCSendOnly, psn: 0x100, ackReq: true, payload: s1}
			f2 := bhvFrame{op: roce.RCSendOnly, psn: 0x101, ackReq: true, payload: s2}
			return bhvCase{
				// doc.go Requester "Local ACK timeout": armed on the first send, restarted on progress and retry; go-back-N from the oldest unacknowledged PSN (rxe_req.c retransmit timer).
				name: "req_timeout_go_back_n",
				mem:  []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, f1, f2).nextEvent(T),
					k.expect(T - 1).nextEvent(T),
					k.expect(T, f1, f2).nextEvent(2 * T),
					k.in(T+50, k.ack(0x100, 1)),
					k.expect(T + 50).done(k.sent(T+50, wr1)).nextEvent(2*T + 50),
					k.expect(2*T + 49).nextEvent(2*T + 50),
					k.expect(2*T+50, f2).nextEvent(3*T + 50),
					k.in(2*T+60, k.ack(0x101, 2)),
					k.expect(2*T + 60).done(k.sent(2*T+60, wr2)).idle(),
				},
				counters: map[Counter]uint64{TxPackets: 5, TxRetransmits: 3, ReqRetryTimeout: 2, RxPackets: 2, CompletionsSuccess: 2},
				events:   []Event{k.ev(T, ReqRetryTimeout, 0x100), k.ev(2*T+50, ReqRetryTimeout, 0x101)},
			}
		}(),
		func() bhvCase {
			s := bhvData(74, 30)
			wr := func(id uint64) WorkRequest {
				return WorkRequest{ID: id, Op: OpSend, LocalAddr: bhvLocal + 10*(id-1), Length: 10}
			}
			f := func(i int) bhvFrame {
				return bhvFrame{op: roce.RCSendOnly, psn: bhvSendPSN.Add(i), ackReq: true, payload: s[10*i : 10*i+10]}
			}
			return bhvCase{
				// doc.go Requester "retry_cnt is spent by each retry and restored by progress; when none is left RETRY_EXC_ERR and error state" (rxe_comp.c COMPST_ERROR_RETRY).
				name: "req_retry_exhausted",
				mem:  []bhvChunk{{bhvLocal, s}},
				steps: []bhvStep{
					k.post(0, wr(1)), k.post(0, wr(2)), k.post(0, wr(3)),
					k.expect(0, f(0), f(1), f(2)).nextEvent(T),
					k.expect(T - 1).nextEvent(T),
					k.expect(T, f(0), f(1), f(2)).nextEvent(2 * T), // retry 1 of 2
					k.in(T+10, k.ack(0x100, 1)),                    // progress: 2 retries again
					k.expect(T + 10).done(k.sent(T+10, wr(1))).nextEvent(2*T + 10),
					k.expect(2*T+10, f(1), f(2)).nextEvent(3*T + 10), // retry 1 of 2
					k.expect(3*T+10, f(1), f(2)).nextEvent(4*T + 10), // retry 2 of 2
					k.expect(4*T + 9).nextEvent(4*T + 10),
					k.expect(4*T+10).done(k.failed(4*T+10, wr(2), StatusRetryExceeded), k.failed(4*T+10, wr(3), StatusFlushed)).idle(),
					k.post(4*T+20, wr(4)),
					k.expect(4*T + 20).done(k.failed(4*T+20, wr(4), StatusFlushed)).idle(),
					k.in(4*T+30, k.ack(0x102, 3)), // QP in error: dropped
					k.expect(4*T + 30).idle(),
				},
				counters: map[Counter]uint64{TxPackets: 10, TxRetransmits: 7, ReqRetryTimeout: 3, ReqRetryExceeded: 1,
					RxPackets: 1, RxQPError: 1, CompletionsSuccess: 1, CompletionsError: 3},
				events: []Event{k.ev(T, ReqRetryTimeout, 0x100), k.ev(2*T+10, ReqRetryTimeout, 0x101),
					k.ev(3*T+10, ReqRetryTimeout, 0x101)},
				inError: true,
			}
		}(),
		func() bhvCase {
			const code = 5 // 0.06 ms, longer than the ACK timeout
			R := RNRCycles(code, bhvClock)
			s := bhvData(75, 20)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 10}
			wr2 := WorkRequest{ID: 2, Op: OpSend, LocalAddr: bhvLocal + 10, Length: 10}
			f1 := bhvFrame{op: roce.RCSendOnly, psn: 0x100, ackReq: true, payload: s[:10]}
			f2 := bhvFrame{op: roce.RCSendOnly, psn: 0x101, ackReq: true, payload: s[10:]}
			return bhvCase{
				// doc.go Requester "RNR NAK: wait the RNR timer, resend from its PSN; the ACK timer pauses; rnr_retry counts the waits" (rxe_comp.c rnr_nak_timer).
				name: "req_rnr_finite",
				mem:  []bhvChunk{{bhvLocal, s}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, f1, f2).nextEvent(T),
					k.in(100, k.rnrNak(0x100, code, 0)),
					k.expect(100).nextEvent(100 + R),
					k.expect(T).nextEvent(100 + R), // the ACK timeout would be due now: it is paused
					k.expect(100 + R - 1).nextEvent(100 + R),
					k.expect(100+R, f1, f2).nextEvent(100 + R + T),
					k.in(200+R, k.rnrNak(0x100, code, 0)), // rnr_retry 1 is spent
					k.expect(200+R).done(k.failed(200+R, wr1, StatusRNRRetryExceeded), k.failed(200+R, wr2, StatusFlushed)).idle(),
				},
				counters: map[Counter]uint64{TxPackets: 4, TxRetransmits: 2, ReqRNRWait: 1, ReqRNRExceeded: 1,
					RxPackets: 2, CompletionsError: 2},
				events:  []Event{k.ev(100, ReqRNRWait, 0x100)},
				inError: true,
			}
		}(),
		func() bhvCase {
			const code, rounds = 1, 9 // more waits than any finite rnr_retry allows
			R := RNRCycles(code, bhvClock)
			s := bhvData(76, 10)
			wr := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 10}
			f := bhvFrame{op: roce.RCSendOnly, psn: 0x100, ackReq: true, payload: s}
			steps := []bhvStep{k.post(0, wr), k.expect(0, f).nextEvent(T)}
			var events []Event
			at := uint64(100)
			for range rounds {
				steps = append(steps,
					k.in(at, k.rnrNak(0x100, code, 0)),
					k.expect(at).nextEvent(at+R),
					k.expect(at+R-1).nextEvent(at+R),
					k.expect(at+R, f).nextEvent(at+R+T))
				events = append(events, k.ev(at, ReqRNRWait, 0x100))
				at += R + 100
			}
			steps = append(steps, k.in(at, k.ack(0x100, 1)), k.expect(at).done(k.sent(at, wr)).idle())
			return bhvCase{
				// doc.go Requester "rnr_retry counts the waits, 7 is infinite" (PROTOCOL-NOTES 5; rxe_comp.c).
				name:  "req_rnr_infinite",
				qp:    func(c *QPConfig) { c.RNRRetry = 7 },
				mem:   []bhvChunk{{bhvLocal, s}},
				steps: steps,
				counters: map[Counter]uint64{TxPackets: rounds + 1, TxRetransmits: rounds, ReqRNRWait: rounds,
					RxPackets: rounds + 1, CompletionsSuccess: 1},
				events: events,
			}
		}(),
		func() bhvCase {
			s1, w2 := bhvData(77, 10), bhvData(78, 10)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 10}
			wr2 := WorkRequest{ID: 2, Op: OpWrite, LocalAddr: bhvLocal + 0x1000, Length: 10, RemoteAddr: bhvRemoteVA, RKey: 0xBAD}
			wr3 := WorkRequest{ID: 3, Op: OpRead, LocalAddr: bhvLocal + 0x8000, Length: 10, RemoteAddr: bhvRemoteVA, RKey: rkey}
			wr4 := WorkRequest{ID: 4, Op: OpSend, LocalAddr: bhvLocal, Length: 10}
			return bhvCase{
				// doc.go Requester "NAK 0x62: REM_ACCESS_ERR, the QP to error, every other work request flushed"; the NAK acknowledges what precedes it (rxe_comp.c).
				name: "req_remote_access_error",
				mem:  []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, w2}},
				steps: []bhvStep{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3),
					k.expect(0,
						bhvFrame{op: roce.RCSendOnly, psn: 0x100, ackReq: true, payload: s1},
						bhvFrame{op: roce.RCWriteOnly, psn: 0x101, ackReq: true, va: bhvRemoteVA, rkey: 0xBAD, dmaLen: 10, payload: w2},
						bhvFrame{op: roce.RCReadRequest, psn: 0x102, ackReq: true, va: bhvRemoteVA, rkey: rkey, dmaLen: 10},
					),
					k.in(100, k.nak(0x101, roce.SyndromeNAKAccess, 1)),
					k.expect(100).done(k.sent(100, wr1), k.failed(100, wr2, StatusRemoteAccess), k.failed(100, wr3, StatusFlushed)).idle(),
					k.post(200, wr4),
					k.recv(200, 9, bhvRecvBuf, 64),
					k.expect(200).done(k.failed(200, wr4, StatusFlushed), k.recvErr(200, 9, StatusFlushed, 0)).idle(),
					k.in(300, k.readResp(roce.RCReadResponseOnly, 0x102, 2, bhvData(79, 10))), // QP in error: dropped
					k.expect(300).idle(),
				},
				wantMem: []bhvChunk{{wr3.LocalAddr, make([]byte, 10)}},
				counters: map[Counter]uint64{TxPackets: 3, RxPackets: 1, RxQPError: 1, ReqRemoteError: 1,
					CompletionsSuccess: 1, CompletionsError: 4},
				inError: true,
			}
		}(),
	}
}

func bhvCongestionCases() []bhvCase {
	var k bhvKit
	const key = bhvRWKey
	return []bhvCase{
		func() bhvCase {
			const interval = 1000
			w := func(psn roce.PSN, ce, ackReq bool) bhvFrame {
				return bhvFrame{op: roce.RCWriteOnly, psn: psn, ackReq: ackReq, ce: ce, va: bhvRWBase, rkey: key, dmaLen: 8,
					payload: bhvData(byte(psn), 8)}
			}
			return bhvCase{
				// doc.go Congestion "Notification point": a CNP per CE packet unless one went less than CNPInterval ago; CNPs before ACKs (PROTOCOL-NOTES 6).
				name: "cnp_rate_limit",
				node: func(c *NodeConfig) { c.CNPInterval = interval },
				steps: []bhvStep{
					k.in(100, w(0x200, true, false)),
					k.expect(100, k.cnp()),
					k.in(600, w(0x201, true, false)), // 500 cycles after the CNP
					k.expect(600),
					k.in(800, w(0x202, false, false)), // not marked
					k.expect(800),
					k.in(100+interval-1, w(0x203, true, false)),
					k.expect(100 + interval - 1),
					k.in(100+interval, w(0x204, true, true)),
					k.expect(100+interval, k.cnp(), k.ack(0x204, 5)),
					k.in(100+interval, w(0x205, true, false)),
					k.expect(100 + interval).idle(),
				},
				wantMem:  []bhvChunk{{bhvRWBase, bhvData(0x05, 8)}},
				counters: map[Counter]uint64{RxPackets: 6, RxCE: 5, TxCNP: 2, CNPSuppressed: 3, RespACK: 1},
			}
		}(),
		func() bhvCase {
			const interval = 1000
			return bhvCase{
				// doc.go Congestion "one CNP per QP waiting": a CE packet while the QP's CNP still waits counts in
				// cnp_suppressed and leaves the interval alone (rtl/nic README "Bounded queues").
				name: "cnp_one_waiting",
				node: func(c *NodeConfig) { c.CNPInterval = interval },
				steps: []bhvStep{
					k.in(100, bhvWrite(0x200, false, true)),
					k.in(100+interval, bhvWrite(0x201, false, true)), // the interval is over, but a CNP waits
					k.expect(100+interval, k.cnp()),
					k.in(101+interval, bhvWrite(0x202, false, true)), // the interval still runs from 100
					k.expect(101+interval, k.cnp()),
					k.in(102+interval, bhvWrite(0x203, true, true)),
					k.expect(102+interval, k.ack(0x203, 4)).idle(),
				},
				wantMem:  []bhvChunk{{bhvRWBase, bhvData(0x03, 8)}},
				counters: map[Counter]uint64{RxPackets: 4, RxCE: 4, TxCNP: 2, CNPSuppressed: 2, RespACK: 1},
			}
		}(),
		func() bhvCase {
			cfg := dcqcn.Config{
				LineRate: 8 * dcqcn.RateOne, MinRate: dcqcn.RateOne / 4, GShift: 8,
				AlphaPeriod: 1000, IncreasePeriod: 1000, ByteCounter: 0, FastRecoverySteps: 5,
				AdditiveStep: dcqcn.RateOne, HyperStep: dcqcn.RateOne,
			}
			line := cfg.LineRate
			// alpha starts at 1: alpha' = (1-g) + g = 1, and Rc = Rc(1 - 1/2).
			cut := line / 2
			gap := cut.Cycles(bhvSegFrameLen) // 314 bytes at 4 B/cycle: 79 cycles
			s1, s2, a := bhvData(80, 768), bhvData(81, 512), bhvData(82, 8)
			wr1 := WorkRequest{ID: 1, Op: OpSend, LocalAddr: bhvLocal, Length: 768}
			wr2 := WorkRequest{ID: 2, Op: OpSend, LocalAddr: bhvLocal + 0x1000, Length: 512}
			steps := []bhvStep{
				k.expect(0).rate(line),
				k.in(100, bhvFrame{op: roce.CNPOpCode, becn: true}),
				k.expect(100).rate(cut),
				k.post(200, wr1),
				k.expect(200, bhvFrame{op: roce.RCSendFirst, psn: 0x100, payload: s1[:256]}).nextEvent(200 + gap),
				k.expect(200 + gap - 1).nextEvent(200 + gap),
				k.expect(200+gap, bhvFrame{op: roce.RCSendMiddle, psn: 0x101, payload: s1[256:512]}).nextEvent(200 + 2*gap),
				k.recv(280, 1, bhvRecvBuf, 64),
				k.in(280, bhvFrame{op: roce.RCSendOnly, psn: 0x200, ackReq: true, payload: a}),
				k.expect(280, k.ack(0x200, 1)).done(k.got(280, 1, OpSend, 8)).nextEvent(200 + 2*gap), // ACKs are not paced
				k.expect(200 + 2*gap - 1).nextEvent(200 + 2*gap),
				k.expect(200+2*gap, bhvFrame{op: roce.RCSendLast, psn: 0x102, ackReq: true, payload: s1[512:]}),
				k.in(400, k.ack(0x102, 1)),
				k.expect(400).done(k.sent(400, wr1)).rate(cut),
			}
			// Every IncreasePeriod from the CNP: Rc = ceil((Rc + Rt)/2) with
			// Rt = line rate (fast recovery keeps the pre-cut target; additive
			// increase is capped at the line rate).
			at, rc := uint64(100), cut
			for rc < line {
				at += cfg.IncreasePeriod
				steps = append(steps, k.expect(at-1).rate(rc))
				rc = (rc + line + 1) / 2
				steps = append(steps, k.expect(at).rate(rc))
			}
			// Back at line rate: no pacing.
			steps = append(steps,
				k.post(at+100, wr2),
				k.expect(at+100,
					bhvFrame{op: roce.RCSendFirst, psn: 0x103, payload: s2[:256]},
					bhvFrame{op: roce.RCSendLast, psn: 0x104, ackReq: true, payload: s2[256:]}),
				k.in(at+200, k.ack(0x104, 1)),
				k.expect(at+200).done(k.sent(at+200, wr2)).rate(line))
			return bhvCase{
				// doc.go Congestion "Reaction point": a CNP cuts the rate, packets but ACKs wait Rate.Cycles(len) while below line rate, timer recovery (PROTOCOL-NOTES 6).
				name:     "dcqcn_cut_and_recover",
				node:     func(c *NodeConfig) { c.DCQCN = cfg },
				mem:      []bhvChunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}},
				steps:    steps,
				counters: map[Counter]uint64{RxCNP: 1, TxPackets: 5, RxPackets: 3, RespACK: 1, CompletionsSuccess: 3},
			}
		}(),
	}
}

// run plays the case against a fresh node.
func (c *bhvCase) run(t *testing.T) {
	nc := NodeConfig{MAC: [6]byte(bhvNode.mac), IP: netip.AddrFrom4([4]byte(bhvNode.ip)), ClockHz: bhvClock,
		DSCP: bhvDSCP, CNPDSCP: bhvCNPDSCP}
	if c.node != nil {
		c.node(&nc)
	}
	qc := QPConfig{QPN: bhvQPN, RemoteQPN: bhvPeerQPN, RemoteMAC: [6]byte(bhvPeer.mac), RemoteIP: netip.AddrFrom4([4]byte(bhvPeer.ip)),
		SendPSN: bhvSendPSN, RecvPSN: bhvRecvPSN, PMTU: bhvPMTU, Timeout: bhvTimeout, RetryCnt: bhvRetryCnt,
		RNRRetry: bhvRNRRetry, MinRNRTimer: bhvRNRCode, UDPSrcPort: bhvSport, Access: AccessRemoteRead | AccessRemoteWrite}
	if c.qp != nil {
		c.qp(&qc)
	}
	mem := NewSparseMemory()
	n, err := NewNode(nc, mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, mr := range []MemoryRegion{
		{Base: bhvRWBase, Length: bhvRWLen, RKey: bhvRWKey, Access: AccessRemoteRead | AccessRemoteWrite},
		{Base: bhvROBase, Length: bhvROLen, RKey: bhvROKey, Access: AccessRemoteRead},
	} {
		if err := n.RegisterMR(mr); err != nil {
			t.Fatal(err)
		}
	}
	if err := n.AddQP(qc); err != nil {
		t.Fatal(err)
	}
	var events []Event
	n.OnEvent = func(e Event) { events = append(events, e) }
	for _, ch := range c.mem {
		mem.Write(ch.addr, ch.data)
	}

	buf := make([]byte, MaxFrameLen)
	var last uint64
	for i, s := range c.steps {
		if s.at < last {
			t.Fatalf("step %d at cycle %d goes back in time (previous %d)", i, s.at, last)
		}
		last = s.at
		where := fmt.Sprintf("step %d (cycle %d)", i, s.at)
		switch s.kind {
		case bhvPost:
			if err := n.PostSend(bhvQPN, s.wr, s.at); err != nil {
				t.Fatalf("%s: PostSend: %v", where, err)
			}
		case bhvPostRecv:
			if err := n.PostRecv(bhvQPN, s.rr, s.at); err != nil {
				t.Fatalf("%s: PostRecv: %v", where, err)
			}
		case bhvIn:
			n.Receive(bhvBuild(bhvPeer, bhvNode, s.in), s.at)
		case bhvPoke:
			mem.Write(s.poke.addr, s.poke.data)
		case bhvExpect:
			c.expect(t, where, n, s, buf)
		}
	}

	if comps := n.TakeCompletions(); len(comps) > 0 {
		t.Errorf("completions after the last expect step: %v", comps)
	}
	qpc, _ := n.QPCounters(bhvQPN)
	for i := Counter(0); i < numCounters; i++ {
		if qpc[i] != c.counters[i] {
			t.Errorf("counter %v = %d, want %d", i, qpc[i], c.counters[i])
		}
	}
	all := n.Counters()
	for i := Counter(0); i < numCounters; i++ {
		if d := all[i] - qpc[i]; d != 0 {
			t.Errorf("node counter %v = %d, want 0 (no frame is dropped before its QP is known)", i, d)
		}
	}
	if !slices.Equal(events, c.events) {
		t.Errorf("OnEvent reports:\n%s\nwant:\n%s", bhvList(events), bhvList(c.events))
	}
	if got := n.QPInError(bhvQPN); got != c.inError {
		t.Errorf("QP in error state: %v, want %v", got, c.inError)
	}
	if got := n.byQP[bhvQPN].resp.jobHigh; c.respHigh != 0 && got != c.respHigh {
		t.Errorf("responder queue high-water %d, want %d", got, c.respHigh)
	}
	for _, ch := range c.wantMem {
		got := make([]byte, len(ch.data))
		mem.Read(ch.addr, got)
		if i := bhvFirstDiff(got, ch.data); i >= 0 {
			t.Errorf("memory at %#x+%d: %#02x, want %#02x (%d bytes checked)", ch.addr, i, got[i], ch.data[i], len(ch.data))
		}
	}
}

// expect polls the node at s.at until it has nothing more to send and
// compares what it sent, its completions, NextEvent and its rate.
func (c *bhvCase) expect(t *testing.T, where string, n *Node, s bhvStep, buf []byte) {
	t.Helper()
	var got [][]byte
	for len(got) <= len(s.out)+64 {
		f, ok := n.Poll(s.at, buf)
		if !ok {
			break
		}
		got = append(got, bytes.Clone(f))
	}
	want := make([][]byte, len(s.out))
	for i, f := range s.out {
		want[i] = bhvBuild(bhvNode, bhvPeer, f)
	}
	bhvCompareFrames(t, where, got, want)

	comps := slices.Clone(n.TakeCompletions())
	if !slices.Equal(comps, s.comps) {
		t.Errorf("%s: completions:\n%s\nwant:\n%s", where, bhvList(comps), bhvList(s.comps))
	}

	cyc, ok := n.NextEvent()
	switch s.next {
	case bhvNextAt:
		if !ok || cyc != s.nextAt {
			t.Errorf("%s: NextEvent = %d, %v; want %d, true", where, cyc, ok, s.nextAt)
		}
	case bhvNextNone:
		if ok {
			t.Errorf("%s: NextEvent = %d, true; want nothing pending", where, cyc)
		}
	}
	if s.rateWant != 0 {
		if r := dcqcn.Rate(n.Rate(bhvQPN)); r != s.rateWant {
			t.Errorf("%s: rate %d (%v), want %d (%v)", where, r, r, s.rateWant, s.rateWant)
		}
	}
}

// bhvList prints one completion or event a line.
func bhvList[E any](l []E) string {
	if len(l) == 0 {
		return "  (none)"
	}
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "  %+v", e)
	}
	return b.String()
}

// bhvCompareFrames reports every frame that differs, field by field.
func bhvCompareFrames(t *testing.T, where string, got, want [][]byte) {
	t.Helper()
	same := len(got) == len(want)
	for i := 0; same && i < len(got); i++ {
		same = bytes.Equal(got[i], want[i])
	}
	if same {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: sent %d frames, want %d", where, len(got), len(want))
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			fmt.Fprintf(&b, "\n  frame %d missing: want %s", i, bhvSummary(want[i]))
		case i >= len(want):
			fmt.Fprintf(&b, "\n  frame %d extra:   got  %s", i, bhvSummary(got[i]))
		case bytes.Equal(got[i], want[i]):
			fmt.Fprintf(&b, "\n  frame %d ok:      %s", i, bhvSummary(got[i]))
		default:
			fmt.Fprintf(&b, "\n  frame %d differs:\n    got  %s\n    want %s", i, bhvSummary(got[i]), bhvSummary(want[i]))
			g, w := bhvFields(got[i]), bhvFields(want[i])
			for _, f := range w {
				if gv, ok := bhvLookup(g, f.name); gv != f.value {
					if !ok {
						gv = "(absent)"
					}
					fmt.Fprintf(&b, "\n      %-14s got %s, want %s", f.name, gv, f.value)
				}
			}
			for _, f := range g {
				if _, ok := bhvLookup(w, f.name); !ok {
					fmt.Fprintf(&b, "\n      %-14s got %s, want (absent)", f.name, f.value)
				}
			}
			if j := bhvFirstDiff(got[i], want[i]); j >= 0 {
				fmt.Fprintf(&b, "\n      first differing byte at offset %d", j)
			}
		}
	}
	t.Error(b.String())
}

type bhvField struct{ name, value string }

func bhvLookup(fs []bhvField, name string) (string, bool) {
	for _, f := range fs {
		if f.name == name {
			return f.value, true
		}
	}
	return "", false
}

// bhvFields decodes a frame with gopacket into named fields.
func bhvFields(frame []byte) []bhvField {
	var fs []bhvField
	add := func(name, format string, v ...any) { fs = append(fs, bhvField{name, fmt.Sprintf(format, v...)}) }
	add("frame.len", "%d", len(frame))
	p := gopacket.NewPacket(frame, layers.LayerTypeEthernet, gopacket.Default)
	if e, ok := p.Layer(layers.LayerTypeEthernet).(*layers.Ethernet); ok {
		add("eth.dst", "%v", e.DstMAC)
		add("eth.src", "%v", e.SrcMAC)
		add("eth.type", "%v", e.EthernetType)
	}
	if ip, ok := p.Layer(layers.LayerTypeIPv4).(*layers.IPv4); ok {
		add("ip.tos", "%#02x", ip.TOS)
		add("ip.len", "%d", ip.Length)
		add("ip.id", "%d", ip.Id)
		add("ip.flags", "%v", ip.Flags)
		add("ip.ttl", "%d", ip.TTL)
		add("ip.checksum", "%#04x", ip.Checksum)
		add("ip.src", "%v", ip.SrcIP)
		add("ip.dst", "%v", ip.DstIP)
	}
	if u, ok := p.Layer(layers.LayerTypeUDP).(*layers.UDP); ok {
		add("udp.sport", "%d", u.SrcPort)
		add("udp.dport", "%d", u.DstPort)
		add("udp.len", "%d", u.Length)
		add("udp.checksum", "%#04x", u.Checksum)
	}
	if b, ok := p.Layer(roce.LayerTypeBTH).(*roce.BTH); ok {
		add("bth.opcode", "%v", b.OpCode)
		add("bth.se", "%v", b.SolicitedEvent)
		add("bth.migreq", "%v", b.MigReq)
		add("bth.padcnt", "%d", b.PadCnt)
		add("bth.tver", "%d", b.TVer)
		add("bth.pkey", "%#04x", b.PKey)
		add("bth.fecn", "%v", b.FECN)
		add("bth.becn", "%v", b.BECN)
		add("bth.resv6", "%#x", b.Resv6)
		add("bth.destqp", "%v", b.DestQP)
		add("bth.ackreq", "%v", b.AckReq)
		add("bth.resv7", "%#x", b.Resv7)
		add("bth.psn", "%v", b.PSN)
		h := b.OpCode.Headers()
		if h&roce.HasRETH != 0 {
			add("reth.va", "%#x", b.RETH.VA)
			add("reth.rkey", "%#08x", b.RETH.RKey)
			add("reth.dmalen", "%d", b.RETH.DMALen)
		}
		if h&roce.HasAETH != 0 {
			add("aeth.syndrome", "%v", b.AETH.Syndrome)
			add("aeth.msn", "%d", b.AETH.MSN)
		}
		if h&roce.HasImmDt != 0 {
			add("immdt", "%#08x", b.ImmDt.Imm)
		}
		if h&roce.HasCNP != 0 {
			add("cnp.reserved", "%x", b.CNP.Reserved)
		}
		add("payload", "%d bytes, crc32 %08x", len(b.Payload), crc32.ChecksumIEEE(b.Payload))
		add("pad", "%x", b.Pad)
		add("icrc", "%#08x", b.ICRC.Value)
	}
	if el := p.ErrorLayer(); el != nil {
		add("decode.error", "%v", el.Error())
	}
	return fs
}

// bhvSummary is a one-line decode of a frame.
func bhvSummary(frame []byte) string {
	fs := bhvFields(frame)
	v := func(name string) string { s, _ := bhvLookup(fs, name); return s }
	op := v("bth.opcode")
	if op == "" {
		return fmt.Sprintf("undecodable %d-byte frame %x", len(frame), frame)
	}
	s := fmt.Sprintf("%s psn=%s qp=%s", op, v("bth.psn"), v("bth.destqp"))
	if v("bth.ackreq") == "true" {
		s += " ackreq"
	}
	if v("bth.becn") == "true" {
		s += " becn"
	}
	if _, ok := bhvLookup(fs, "reth.va"); ok {
		s += fmt.Sprintf(" reth(va=%s rkey=%s len=%s)", v("reth.va"), v("reth.rkey"), v("reth.dmalen"))
	}
	if _, ok := bhvLookup(fs, "aeth.syndrome"); ok {
		s += fmt.Sprintf(" aeth(%s msn=%s)", v("aeth.syndrome"), v("aeth.msn"))
	}
	if _, ok := bhvLookup(fs, "immdt"); ok {
		s += " imm=" + v("immdt")
	}
	return s + fmt.Sprintf(" payload %s, tos %s, %d bytes", v("payload"), v("ip.tos"), len(frame))
}

// bhvFirstDiff returns the first offset where a and b differ, or -1.
func bhvFirstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}
