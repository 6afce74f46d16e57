package behaviour

// Long file: a table of data, one case per rule, read by rule rather than
// from top to bottom; splitting it would only scatter the rules.

// The cases, one per rule of golden/rc's doc.go; each names the rule it
// pins and its source.

import (
	"github.com/rocesim/cosim/golden/dcqcn"
	"github.com/rocesim/cosim/golden/rc"
	"github.com/rocesim/cosim/golden/roce"
)

func responderCases() []Case {
	var k kit
	const key = rwKey
	return []Case{
		func() Case {
			a, b := pattern(1, 100), pattern(2, 37)
			return Case{
				// doc.go Responder "Expected PSN": ACK 0x1F with the packet's PSN and MSN only on AckReq (IBA 9.7).
				Name: "resp_send_ack",
				Steps: []Step{
					k.recv(0, 1, recvBuf, 256),
					k.recv(0, 2, recvBuf+0x100, 256),
					k.in(10, Frame{Op: roce.RCSendOnly, PSN: 0x200, AckReq: true, Payload: a}),
					k.expect(10, k.ack(0x200, 1)).Done(k.got(10, 1, rc.OpSend, 100)),
					k.in(20, Frame{Op: roce.RCSendOnly, PSN: 0x201, Payload: b}), // no AckReq: no ACK
					k.expect(20).Done(k.got(20, 2, rc.OpSend, 37)).Idle(),
				},
				WantMem:  []Chunk{{recvBuf, a}, {recvBuf + 0x100, b}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 2, rc.RespACK: 1, rc.CompletionsSuccess: 2},
			}
		}(),
		func() Case {
			d := pattern(3, 612)
			return Case{
				// doc.go Responder "Expected PSN": MSN + 1 at the end of the message, not per packet (rxe_resp.c execute).
				Name: "resp_multi_packet_send",
				Steps: []Step{
					k.recv(0, 7, recvBuf, 1024),
					k.in(10, Frame{Op: roce.RCSendFirst, PSN: 0x200, Payload: d[:256]}),
					k.in(11, Frame{Op: roce.RCSendMiddle, PSN: 0x201, Payload: d[256:512]}),
					k.expect(11),
					k.in(12, Frame{Op: roce.RCSendLastImm, PSN: 0x202, AckReq: true, Imm: 0xDEADBEEF, Payload: d[512:]}),
					k.expect(12, k.ack(0x202, 1)).Done(k.gotImm(12, 7, rc.OpSendImm, 612, 0xDEADBEEF)).Idle(),
				},
				WantMem:  []Chunk{{recvBuf, d}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 3, rc.RespACK: 1, rc.CompletionsSuccess: 1},
			}
		}(),
		func() Case {
			d := pattern(4, 600)
			return Case{
				// doc.go Responder "Expected PSN": a WRITE lands at the RETH address, ACKed at its AckReq LAST (rxe_resp.c write_data_in).
				Name: "resp_write",
				Steps: []Step{
					k.in(10, Frame{Op: roce.RCWriteFirst, PSN: 0x200, VA: rwBase + 0x100, RKey: key, DMALen: 600, Payload: d[:256]}),
					k.in(11, Frame{Op: roce.RCWriteMiddle, PSN: 0x201, Payload: d[256:512]}),
					k.expect(11),
					k.in(12, Frame{Op: roce.RCWriteLast, PSN: 0x202, AckReq: true, Payload: d[512:]}),
					k.expect(12, k.ack(0x202, 1)).Idle(),
				},
				WantMem:  []Chunk{{rwBase + 0x100, d}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 3, rc.RespACK: 1},
			}
		}(),
		func() Case {
			d := pattern(5, 40)
			return Case{
				// doc.go Responder "Expected PSN" and types.go rc.OpWriteImm: WRITE with immediate consumes a receive WQE, data goes to the RETH address.
				Name: "resp_write_imm",
				Steps: []Step{
					k.recv(0, 9, recvBuf, 64),
					k.in(10, Frame{Op: roce.RCWriteOnlyImm, PSN: 0x200, AckReq: true, VA: rwBase + 0x200, RKey: key, DMALen: 40,
						Imm: 0x01020304, Payload: d}),
					k.expect(10, k.ack(0x200, 1)).Done(k.gotImm(10, 9, rc.OpWriteImm, 40, 0x01020304)).Idle(),
				},
				WantMem:  []Chunk{{rwBase + 0x200, d}, {recvBuf, make([]byte, 64)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 1, rc.RespACK: 1, rc.CompletionsSuccess: 1},
			}
		}(),
		func() Case {
			old, d, s := pattern(6, 600), pattern(7, 600), pattern(8, 8)
			return Case{
				// doc.go Responder "READ": FIRST/MIDDLE/LAST from the request's PSN, AETH on FIRST and LAST, data read at build time (rxe_resp.c read_reply).
				Name: "resp_read",
				Mem:  []Chunk{{rwBase, old}},
				Steps: []Step{
					k.in(10, Frame{Op: roce.RCReadRequest, PSN: 0x200, AckReq: true, VA: rwBase, RKey: key, DMALen: 600}),
					k.poke(10, rwBase, d), // the host changes the data before the responses are built
					k.expect(10,
						k.readResp(roce.RCReadResponseFirst, 0x200, 1, d[:256]),
						k.readResp(roce.RCReadResponseMiddle, 0x201, 0, d[256:512]),
						k.readResp(roce.RCReadResponseLast, 0x202, 1, d[512:])),
					k.recv(20, 1, recvBuf, 64),
					k.in(20, Frame{Op: roce.RCSendOnly, PSN: 0x203, AckReq: true, Payload: s}), // the READ took 3 PSNs and one MSN
					k.expect(20, k.ack(0x203, 2)).Done(k.got(20, 1, rc.OpSend, 8)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 2, rc.RespReadResponses: 3, rc.RespACK: 1, rc.CompletionsSuccess: 1},
			}
		}(),
		func() Case {
			a, b, c := pattern(9, 16), pattern(10, 16), pattern(11, 16)
			return Case{
				// doc.go Responder "PSN ahead": one NAK 0x60 with the expected PSN, then silence (IBA 9.7, rxe_resp.c check_psn).
				Name: "resp_psn_gap_one_nak",
				Steps: []Step{
					k.recv(0, 1, recvBuf, 64),
					k.recv(0, 2, recvBuf+0x40, 64),
					k.in(10, Frame{Op: roce.RCSendOnly, PSN: 0x201, AckReq: true, Payload: b}),
					k.expect(10, k.nak(0x200, roce.SyndromeNAKPSNSeq, 0)),
					k.in(20, Frame{Op: roce.RCSendOnly, PSN: 0x202, AckReq: true, Payload: c}),
					k.in(21, Frame{Op: roce.RCSendOnly, PSN: 0x201, AckReq: true, Payload: b}),
					k.expect(21),
					k.in(30, Frame{Op: roce.RCSendOnly, PSN: 0x200, AckReq: true, Payload: a}),
					k.expect(30, k.ack(0x200, 1)).Done(k.got(30, 1, rc.OpSend, 16)),
					k.in(31, Frame{Op: roce.RCSendOnly, PSN: 0x201, AckReq: true, Payload: b}),
					k.expect(31, k.ack(0x201, 2)).Done(k.got(31, 2, rc.OpSend, 16)),
					k.in(40, Frame{Op: roce.RCSendOnly, PSN: 0x204, AckReq: true, Payload: c}), // a new gap: a new NAK
					k.expect(40, k.nak(0x202, roce.SyndromeNAKPSNSeq, 2)).Idle(),
				},
				WantMem: []Chunk{{recvBuf, a}, {recvBuf + 0x40, b}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 6, rc.RespOutOfSequence: 4, rc.RespNAKSeq: 2, rc.RespGapSilent: 2,
					rc.RespACK: 2, rc.CompletionsSuccess: 2},
			}
		}(),
		func() Case {
			a, b, a2 := pattern(12, 20), pattern(13, 20), pattern(14, 20)
			w, w2 := pattern(15, 8), pattern(16, 8)
			return Case{
				// doc.go Responder "PSN behind": a duplicate SEND/WRITE is not executed and is ACKed with the last accepted PSN (rxe_resp.c duplicate_request).
				Name: "resp_duplicate_send",
				Steps: []Step{
					k.recv(0, 1, recvBuf, 64),
					k.recv(0, 2, recvBuf+0x40, 64),
					k.recv(0, 3, recvBuf+0x80, 64),
					k.in(10, Frame{Op: roce.RCSendOnly, PSN: 0x200, AckReq: true, Payload: a}),
					k.expect(10, k.ack(0x200, 1)).Done(k.got(10, 1, rc.OpSend, 20)),
					k.in(20, Frame{Op: roce.RCSendOnly, PSN: 0x201, Payload: b}),
					k.expect(20).Done(k.got(20, 2, rc.OpSend, 20)),
					k.in(30, Frame{Op: roce.RCSendOnly, PSN: 0x200, AckReq: true, Payload: a2}), // consumes no WQE
					k.expect(30, k.ack(0x201, 2)),
					k.in(40, Frame{Op: roce.RCWriteOnly, PSN: 0x202, AckReq: true, VA: rwBase, RKey: key, DMALen: 8, Payload: w}),
					k.expect(40, k.ack(0x202, 3)),
					k.in(50, Frame{Op: roce.RCWriteOnly, PSN: 0x202, VA: rwBase, RKey: key, DMALen: 8, Payload: w2}), // ACKed without AckReq
					k.expect(50, k.ack(0x202, 3)).Idle(),
				},
				WantMem: []Chunk{{recvBuf, a}, {recvBuf + 0x40, b}, {recvBuf + 0x80, make([]byte, 20)},
					{rwBase, w}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 5, rc.RespDuplicate: 2, rc.RespACK: 4, rc.CompletionsSuccess: 2},
			}
		}(),
		func() Case {
			d, s, s2 := pattern(17, 1000), pattern(18, 8), pattern(19, 8)
			return Case{
				// doc.go Responder "PSN behind": a duplicate READ from a middle PSN replays from that PSN with its own RETH (rxe_resp.c duplicate_request; MSN as prepare_ack_packet).
				Name: "resp_duplicate_read_middle",
				Mem:  []Chunk{{rwBase, d}},
				Steps: []Step{
					k.in(10, Frame{Op: roce.RCReadRequest, PSN: 0x200, AckReq: true, VA: rwBase, RKey: key, DMALen: 1000}),
					k.expect(10,
						k.readResp(roce.RCReadResponseFirst, 0x200, 1, d[:256]),
						k.readResp(roce.RCReadResponseMiddle, 0x201, 0, d[256:512]),
						k.readResp(roce.RCReadResponseMiddle, 0x202, 0, d[512:768]),
						k.readResp(roce.RCReadResponseLast, 0x203, 1, d[768:])),
					k.recv(20, 1, recvBuf, 64),
					k.in(20, Frame{Op: roce.RCSendOnly, PSN: 0x204, AckReq: true, Payload: s}),
					k.expect(20, k.ack(0x204, 2)).Done(k.got(20, 1, rc.OpSend, 8)),
					k.in(30, Frame{Op: roce.RCReadRequest, PSN: 0x202, AckReq: true, VA: rwBase + 512, RKey: key, DMALen: 488}),
					k.expect(30,
						k.readResp(roce.RCReadResponseFirst, 0x202, 2, d[512:768]),
						k.readResp(roce.RCReadResponseLast, 0x203, 2, d[768:])),
					k.recv(40, 2, recvBuf+0x40, 64),
					k.in(40, Frame{Op: roce.RCSendOnly, PSN: 0x205, AckReq: true, Payload: s2}), // the replay moved neither PSN nor MSN
					k.expect(40, k.ack(0x205, 3)).Done(k.got(40, 2, rc.OpSend, 8)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 4, rc.RespReadResponses: 6, rc.RespDuplicateRead: 1, rc.RespACK: 2,
					rc.CompletionsSuccess: 2},
			}
		}(),
		func() Case {
			d := pattern(20, 256)
			return Case{
				// doc.go Responder "Opcode sequence": a new message inside a SEND is NAK 0x61, QP to error (rxe_resp.c check_op_seq, do_class_ac_error).
				Name: "resp_opcode_sequence",
				Steps: []Step{
					k.recv(0, 1, recvBuf, 1024),
					k.recv(0, 2, recvBuf+0x400, 1024),
					k.in(10, Frame{Op: roce.RCSendFirst, PSN: 0x200, Payload: d}),
					k.expect(10),
					k.in(20, Frame{Op: roce.RCWriteOnly, PSN: 0x201, AckReq: true, VA: rwBase, RKey: key, DMALen: 8, Payload: pattern(21, 8)}),
					k.expect(20, k.nak(0x201, roce.SyndromeNAKInvalid, 0)).Done(k.recvErr(20, 1, rc.StatusRemoteInvalidReq, 0), k.recvErr(20, 2, rc.StatusFlushed, 0)).Idle(),
					k.in(30, Frame{Op: roce.RCSendLast, PSN: 0x202, AckReq: true, Payload: pattern(22, 8)}), // QP in error: dropped
					k.expect(30).Idle(),
				},
				WantMem:  []Chunk{{recvBuf, d}, {rwBase, make([]byte, 8)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 2, rc.RespInvalidRequest: 1, rc.RxQPError: 1, rc.CompletionsError: 2},
				InError:  true,
			}
		}(),
		func() Case {
			d := pattern(23, 600)
			return Case{
				// doc.go Responder "WRITE longer than its RETH": NAK 0x61 for that packet, QP to error (rxe_resp.c check_length / write_data_in).
				Name: "resp_bad_length",
				Steps: []Step{
					k.recv(0, 5, recvBuf, 64),
					k.in(10, Frame{Op: roce.RCWriteFirst, PSN: 0x200, VA: rwBase, RKey: key, DMALen: 600, Payload: d[:256]}),
					k.in(11, Frame{Op: roce.RCWriteMiddle, PSN: 0x201, Payload: d[256:512]}),
					k.in(12, Frame{Op: roce.RCWriteLast, PSN: 0x202, AckReq: true, Payload: pattern(24, 100)}), // 88 bytes left
					k.expect(12, k.nak(0x202, roce.SyndromeNAKInvalid, 0)).Done(k.recvErr(12, 5, rc.StatusFlushed, 0)).Idle(),
				},
				WantMem:  []Chunk{{rwBase, d[:512]}, {rwBase + 512, make([]byte, 100)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 3, rc.RespInvalidRequest: 1, rc.CompletionsError: 1},
				InError:  true,
			}
		}(),
		func() Case {
			return Case{
				// doc.go Responder "R_Key without the right": NAK 0x62, QP to error, nothing written (rxe_resp.c check_rkey).
				Name: "resp_rkey_violation",
				Steps: []Step{
					k.recv(0, 5, recvBuf, 64),
					k.in(10, Frame{Op: roce.RCWriteOnly, PSN: 0x200, AckReq: true, VA: roBase, RKey: roKey, DMALen: 16,
						Payload: pattern(25, 16)}),
					k.expect(10, k.nak(0x200, roce.SyndromeNAKAccess, 0)).Done(k.recvErr(10, 5, rc.StatusFlushed, 0)).Idle(),
					k.in(20, Frame{Op: roce.RCWriteOnly, PSN: 0x201, AckReq: true, VA: rwBase, RKey: key, DMALen: 16,
						Payload: pattern(26, 16)}),
					k.expect(20).Idle(),
				},
				WantMem:  []Chunk{{roBase, make([]byte, 16)}, {rwBase, make([]byte, 16)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 1, rc.RespAccessError: 1, rc.RxQPError: 1, rc.CompletionsError: 1},
				InError:  true,
			}
		}(),
		func() Case {
			return Case{
				// doc.go Responder "range outside the region": a READ running 256 bytes past the region's end is NAK 0x62 (rxe_resp.c check_rkey, mr_check_range).
				Name: "resp_out_of_range",
				Steps: []Step{
					k.in(10, Frame{Op: roce.RCReadRequest, PSN: 0x200, AckReq: true, VA: rwBase + rwLen - 256, RKey: key, DMALen: 512}),
					k.expect(10, k.nak(0x200, roce.SyndromeNAKAccess, 0)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 1, rc.RespAccessError: 1},
				InError:  true,
			}
		}(),
		func() Case {
			return Case{
				// doc.go Responder "zero-length operations need no key" (IBA C9-88; rxe_resp.c check_rkey skips a zero-length RETH).
				Name: "resp_zero_length_no_key",
				Steps: []Step{
					k.recv(0, 1, recvBuf, 64),
					k.in(10, Frame{Op: roce.RCWriteOnly, PSN: 0x200, AckReq: true, RKey: 0xDEADBEEF}),
					k.expect(10, k.ack(0x200, 1)),
					k.in(20, Frame{Op: roce.RCReadRequest, PSN: 0x201, AckReq: true, RKey: 0xDEADBEEF}),
					k.expect(20, k.readResp(roce.RCReadResponseOnly, 0x201, 2, nil)),
					k.in(30, Frame{Op: roce.RCSendOnly, PSN: 0x202, AckReq: true}),
					k.expect(30, k.ack(0x202, 3)).Done(k.got(30, 1, rc.OpSend, 0)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 3, rc.RespACK: 2, rc.RespReadResponses: 1, rc.CompletionsSuccess: 1},
			}
		}(),
		func() Case {
			a, b := pattern(27, 16), pattern(28, 16)
			return Case{
				// doc.go Responder "no receive WQE": RNR NAK with the QP's timer code, PSN not advanced, the gap after it silent (rxe_resp.c check_resource).
				Name: "resp_rnr",
				Steps: []Step{
					k.in(10, Frame{Op: roce.RCSendOnly, PSN: 0x200, AckReq: true, Payload: a}),
					k.expect(10, k.rnrNak(0x200, rnrCode, 0)),
					k.in(11, Frame{Op: roce.RCSendOnly, PSN: 0x201, AckReq: true, Payload: b}),
					k.expect(11),
					k.recv(100, 1, recvBuf, 64),
					k.recv(100, 2, recvBuf+0x40, 64),
					k.in(200, Frame{Op: roce.RCSendOnly, PSN: 0x200, AckReq: true, Payload: a}),
					k.expect(200, k.ack(0x200, 1)).Done(k.got(200, 1, rc.OpSend, 16)),
					k.in(201, Frame{Op: roce.RCSendOnly, PSN: 0x201, AckReq: true, Payload: b}),
					k.expect(201, k.ack(0x201, 2)).Done(k.got(201, 2, rc.OpSend, 16)),
					k.in(300, Frame{Op: roce.RCWriteOnlyImm, PSN: 0x202, AckReq: true, VA: rwBase, RKey: key, DMALen: 8,
						Imm: 7, Payload: pattern(29, 8)}), // WRITE with immediate needs a WQE too
					k.expect(300, k.rnrNak(0x202, rnrCode, 2)).Idle(),
				},
				WantMem: []Chunk{{recvBuf, a}, {recvBuf + 0x40, b}, {rwBase, make([]byte, 8)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 5, rc.RespRNR: 2, rc.RespOutOfSequence: 1, rc.RespGapSilent: 1, rc.RespACK: 2,
					rc.CompletionsSuccess: 2},
			}
		}(),
		func() Case {
			d, s := pattern(30, 768), pattern(31, 12)
			return Case{
				// doc.go "24-bit wraparound" on the responder: READ, duplicates and gaps across 2^24 (IBA 9.7, rxe psn_compare).
				Name: "resp_psn_wrap",
				QP:   func(c *rc.QPConfig) { c.RecvPSN = 0xFFFFFE },
				Mem:  []Chunk{{rwBase, d}},
				Steps: []Step{
					k.in(10, Frame{Op: roce.RCReadRequest, PSN: 0xFFFFFE, AckReq: true, VA: rwBase, RKey: key, DMALen: 768}),
					k.expect(10,
						k.readResp(roce.RCReadResponseFirst, 0xFFFFFE, 1, d[:256]),
						k.readResp(roce.RCReadResponseMiddle, 0xFFFFFF, 0, d[256:512]),
						k.readResp(roce.RCReadResponseLast, 0x000000, 1, d[512:])),
					k.recv(20, 1, recvBuf, 64),
					k.in(20, Frame{Op: roce.RCSendOnly, PSN: 0x000001, AckReq: true, Payload: s}),
					k.expect(20, k.ack(0x000001, 2)).Done(k.got(20, 1, rc.OpSend, 12)),
					k.in(30, Frame{Op: roce.RCReadRequest, PSN: 0xFFFFFF, AckReq: true, VA: rwBase + 256, RKey: key, DMALen: 512}),
					k.expect(30,
						k.readResp(roce.RCReadResponseFirst, 0xFFFFFF, 2, d[256:512]),
						k.readResp(roce.RCReadResponseLast, 0x000000, 2, d[512:])),
					k.in(40, Frame{Op: roce.RCSendOnly, PSN: 0x000001, AckReq: true, Payload: s}),
					k.expect(40, k.ack(0x000001, 2)),
					k.in(50, Frame{Op: roce.RCSendOnly, PSN: 0x000003, AckReq: true, Payload: s}),
					k.expect(50, k.nak(0x000002, roce.SyndromeNAKPSNSeq, 2)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 5, rc.RespReadResponses: 5, rc.RespDuplicateRead: 1, rc.RespDuplicate: 1,
					rc.RespACK: 2, rc.RespOutOfSequence: 1, rc.RespNAKSeq: 1, rc.CompletionsSuccess: 1},
			}
		}(),
		func() Case {
			r := pattern(32, 8)
			return Case{
				// doc.go Responder "ACK coalescing": a positive ACK merges into a positive ACK waiting at the
				// tail (later PSN, newer MSN); never across a READ job, never into a NAK (rtl/nic README "Bounded queues").
				Name: "resp_ack_coalesce",
				Mem:  []Chunk{{rwBase + 0x100, r}},
				Steps: []Step{
					k.in(10, writeOnly(0x200, true, false)),
					k.in(10, writeOnly(0x201, true, false)), // before the transmitter is free: one ACK
					k.expect(10, k.ack(0x201, 2)),
					k.in(20, writeOnly(0x202, true, false)),
					k.in(20, Frame{Op: roce.RCReadRequest, PSN: 0x203, AckReq: true, VA: rwBase + 0x100, RKey: key, DMALen: 8}),
					k.in(20, writeOnly(0x204, true, false)), // behind the READ job: a new ACK
					k.in(20, writeOnly(0x205, true, false)),
					k.expect(20, k.ack(0x202, 3), k.readResp(roce.RCReadResponseOnly, 0x203, 4, r), k.ack(0x205, 6)),
					k.in(30, writeOnly(0x207, true, false)), // a gap: NAK 0x206
					k.in(30, writeOnly(0x206, true, false)), // the NAK stays, the ACK queues behind it
					k.in(30, writeOnly(0x207, true, false)),
					k.expect(30, k.nak(0x206, roce.SyndromeNAKPSNSeq, 6), k.ack(0x207, 8)),
					k.in(40, writeOnly(0x208, true, false)),
					k.in(40, writeOnly(0x200, true, false)), // duplicate: its ACK (0x202) is behind 0x208, which stays
					k.expect(40, k.ack(0x208, 9)).Idle(),
				},
				WantMem: []Chunk{{rwBase, pattern(0x08, 8)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 11, rc.RespACK: 5, rc.RespReadResponses: 1, rc.RespOutOfSequence: 1,
					rc.RespNAKSeq: 1, rc.RespDuplicate: 1},
			}
		}(),
		func() Case {
			r1, r2 := pattern(33, 8), pattern(34, 8)
			read := func(psn roce.PSN, va uint64) Frame {
				return Frame{Op: roce.RCReadRequest, PSN: psn, AckReq: true, VA: va, RKey: key, DMALen: 8}
			}
			return Case{
				// doc.go Responder "PSN behind": the ACK for a duplicate WRITE stops before the next READ, whose
				// replay follows it; with the last accepted PSN (0x203) it would reach the requester before READ
				// 0x202's responses, an implied NAK (req_read_gap_rerequest) whose re-request makes new duplicates.
				Name: "resp_duplicate_ack_before_read",
				Mem:  []Chunk{{rwBase + 0x100, r1}, {rwBase + 0x200, r2}},
				Steps: []Step{
					k.in(10, read(0x200, rwBase+0x100)),
					k.in(10, writeOnly(0x201, true, false)),
					k.in(10, read(0x202, rwBase+0x200)),
					k.in(10, writeOnly(0x203, true, false)),
					k.expect(10, k.readResp(roce.RCReadResponseOnly, 0x200, 1, r1), k.ack(0x201, 2),
						k.readResp(roce.RCReadResponseOnly, 0x202, 3, r2), k.ack(0x203, 4)),
					// Both READ responses were lost: the requester goes back to 0x200 and sends all four again.
					k.in(100, read(0x200, rwBase+0x100)),
					k.in(100, writeOnly(0x201, true, false)),
					k.in(100, read(0x202, rwBase+0x200)),
					k.in(100, writeOnly(0x203, true, false)),
					k.expect(100, k.readResp(roce.RCReadResponseOnly, 0x200, 4, r1), k.ack(0x201, 4),
						k.readResp(roce.RCReadResponseOnly, 0x202, 4, r2), k.ack(0x203, 4)).Idle(),
				},
				WantMem: []Chunk{{rwBase, pattern(0x03, 8)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 8, rc.RespReadResponses: 4, rc.RespACK: 4, rc.RespDuplicate: 2,
					rc.RespDuplicateRead: 2},
			}
		}(),
		func() Case {
			d, a, b := pattern(35, 600), pattern(36, 8), pattern(37, 8)
			read := func(psn roce.PSN, va uint64, n uint32) Frame {
				return Frame{Op: roce.RCReadRequest, PSN: psn, AckReq: true, VA: va, RKey: key, DMALen: n}
			}
			return Case{
				// doc.go Responder "one job per READ resource": a duplicate READ restarts the job still waiting,
				// in its place, or at the tail when the replay of an earlier READ waits behind it (rxe_resp.c
				// duplicate_request resets the resource).
				Name: "resp_duplicate_read_restart",
				Mem:  []Chunk{{rwBase, d}, {rwBase + 0x300, a}, {rwBase + 0x400, b}},
				Steps: []Step{
					k.in(10, read(0x200, rwBase, 600)),
					k.in(10, read(0x200, rwBase, 600)), // a copy: one stream, not two
					k.expect(10,
						k.readResp(roce.RCReadResponseFirst, 0x200, 1, d[:256]),
						k.readResp(roce.RCReadResponseMiddle, 0x201, 0, d[256:512]),
						k.readResp(roce.RCReadResponseLast, 0x202, 1, d[512:])),
					k.in(20, read(0x203, rwBase+0x300, 8)),
					k.expect(20, k.readResp(roce.RCReadResponseOnly, 0x203, 2, a)),
					// READ 0x204 waits; the requester missed 0x203's response and goes back to it.
					k.in(30, read(0x204, rwBase+0x400, 8)),
					k.in(30, read(0x203, rwBase+0x300, 8)),
					k.in(30, read(0x204, rwBase+0x400, 8)), // moves behind 0x203's replay
					k.expect(30, k.readResp(roce.RCReadResponseOnly, 0x203, 3, a),
						k.readResp(roce.RCReadResponseOnly, 0x204, 3, b)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 6, rc.RespReadResponses: 6, rc.RespDuplicateRead: 3},
			}
		}(),
		func() Case {
			r := pattern(38, 8)
			return Case{
				// doc.go Responder "one job per READ resource": a new READ that reuses the resource of a READ
				// whose job still waits drops that job; the two ACKs it leaves side by side merge (rxe
				// rxe_prepare_res recycles the resource).
				Name: "resp_read_resource_recycle",
				QP:   func(c *rc.QPConfig) { c.MaxReads = 1 },
				Mem:  []Chunk{{rwBase + 0x100, r}},
				Steps: []Step{
					k.in(10, writeOnly(0x200, true, false)),
					k.in(10, Frame{Op: roce.RCReadRequest, PSN: 0x201, AckReq: true, VA: rwBase + 0x100, RKey: key, DMALen: 8}),
					k.in(10, writeOnly(0x202, true, false)),
					k.in(10, Frame{Op: roce.RCReadRequest, PSN: 0x203, AckReq: true, VA: rwBase + 0x100, RKey: key, DMALen: 8}),
					k.expect(10, k.ack(0x202, 3), k.readResp(roce.RCReadResponseOnly, 0x203, 4, r)).Idle(),
				},
				WantMem:  []Chunk{{rwBase, pattern(0x02, 8)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 4, rc.RespACK: 1, rc.RespReadResponses: 1},
				RespHigh: 3,
			}
		}(),
		func() Case {
			s := pattern(39, 8)
			return Case{
				// doc.go Responder "one NAK waiting": a gap, or a missing receive WQE, while a NAK waits makes
				// no second NAK; it is dropped silently and the gap stays silent (the waiting NAK's go-back-N resends it).
				Name: "resp_nak_one_waiting",
				Steps: []Step{
					k.in(10, writeOnly(0x201, true, false)), // a gap: NAK 0x200
					k.in(10, writeOnly(0x200, true, false)), // closes it
					k.in(10, writeOnly(0x203, true, false)), // a new gap while the NAK waits: silent
					k.in(10, writeOnly(0x204, true, false)),
					k.expect(10, k.nak(0x200, roce.SyndromeNAKPSNSeq, 0), k.ack(0x200, 1)),
					k.in(20, writeOnly(0x205, true, false)), // still the same gap
					k.expect(20),
					k.in(30, writeOnly(0x201, true, false)),
					k.expect(30, k.ack(0x201, 2)),
					k.in(40, writeOnly(0x203, true, false)), // a gap: NAK 0x202
					k.in(40, writeOnly(0x202, true, false)),
					k.in(40, Frame{Op: roce.RCSendOnly, PSN: 0x203, AckReq: true, Payload: s}), // no WQE, a NAK waits: no RNR NAK
					k.expect(40, k.nak(0x202, roce.SyndromeNAKPSNSeq, 2), k.ack(0x202, 3)),
					k.recv(50, 1, recvBuf, 64),
					k.in(50, Frame{Op: roce.RCSendOnly, PSN: 0x203, AckReq: true, Payload: s}),
					k.expect(50, k.ack(0x203, 4)).Done(k.got(50, 1, rc.OpSend, 8)).Idle(),
				},
				WantMem: []Chunk{{rwBase, pattern(0x02, 8)}, {recvBuf, s}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 10, rc.RespOutOfSequence: 5, rc.RespNAKSeq: 2, rc.RespGapSilent: 4,
					rc.RespACK: 4, rc.CompletionsSuccess: 1},
			}
		}(),
		func() Case {
			r := pattern(40, 8)
			return Case{
				// doc.go Responder "rc.RespDepth": with MaxReads 1 the queue reaches 2*1+3 jobs, ACK READ ACK NAK ACK.
				Name: "resp_queue_bound",
				QP:   func(c *rc.QPConfig) { c.MaxReads = 1 },
				Mem:  []Chunk{{rwBase + 0x100, r}},
				Steps: []Step{
					k.in(10, writeOnly(0x200, true, false)),
					k.in(10, Frame{Op: roce.RCReadRequest, PSN: 0x201, AckReq: true, VA: rwBase + 0x100, RKey: key, DMALen: 8}),
					k.in(10, writeOnly(0x202, true, false)),
					k.in(10, writeOnly(0x204, true, false)),
					k.in(10, writeOnly(0x203, true, false)),
					k.expect(10, k.ack(0x200, 1), k.readResp(roce.RCReadResponseOnly, 0x201, 2, r), k.ack(0x202, 3),
						k.nak(0x203, roce.SyndromeNAKPSNSeq, 3), k.ack(0x203, 4)).Idle(),
				},
				WantMem:  []Chunk{{rwBase, pattern(0x03, 8)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 5, rc.RespACK: 3, rc.RespReadResponses: 1, rc.RespOutOfSequence: 1, rc.RespNAKSeq: 1},
				RespHigh: rc.RespDepth(1),
			}
		}(),
	}
}

// writeOnly is an 8-byte WRITE ONLY to the start of the read-write region,
// its data a pattern of its PSN.
func writeOnly(psn roce.PSN, ackReq, ce bool) Frame {
	return Frame{Op: roce.RCWriteOnly, PSN: psn, AckReq: ackReq, CE: ce, VA: rwBase, RKey: rwKey, DMALen: 8,
		Payload: pattern(byte(psn), 8)}
}

func requesterCases() []Case {
	var k kit
	const rkey = remoteKey
	T := rc.TimeoutCycles(timeout, Clock)
	return []Case{
		func() Case {
			s1, w2, s3 := pattern(40, 600), pattern(41, 600), pattern(42, 100)
			w4, s5, w6 := pattern(43, 256), pattern(44, 512), pattern(45, 300)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 600}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpWriteImm, LocalAddr: localBuf + 0x1000, Length: 600, RemoteAddr: remoteVA,
				RKey: rkey, Imm: 0xCAFEF00D}
			wr3 := rc.WorkRequest{ID: 3, Op: rc.OpSendImm, LocalAddr: localBuf + 0x2000, Length: 100, Imm: 0x11223344}
			wr4 := rc.WorkRequest{ID: 4, Op: rc.OpWrite, LocalAddr: localBuf + 0x3000, Length: 256, RemoteAddr: remoteVA + 0x1000, RKey: rkey}
			wr5 := rc.WorkRequest{ID: 5, Op: rc.OpSend, LocalAddr: localBuf + 0x4000, Length: 512}
			wr6 := rc.WorkRequest{ID: 6, Op: rc.OpWrite, LocalAddr: localBuf + 0x5000, Length: 300, RemoteAddr: remoteVA + 0x2000, RKey: rkey}
			return Case{
				// doc.go Requester "Segmentation": ONLY if it fits, else FIRST, MIDDLE..., LAST; RETH with the whole length on WRITE FIRST/ONLY; immediate on LAST/ONLY (IBA 9.7.4).
				Name: "req_segmentation",
				Mem: []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, w2}, {wr3.LocalAddr, s3}, {wr4.LocalAddr, w4},
					{wr5.LocalAddr, s5}, {wr6.LocalAddr, w6}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3), k.post(0, wr4), k.post(0, wr5), k.post(0, wr6),
					k.expect(0,
						Frame{Op: roce.RCSendFirst, PSN: 0x100, Payload: s1[:256]},
						Frame{Op: roce.RCSendMiddle, PSN: 0x101, Payload: s1[256:512]},
						Frame{Op: roce.RCSendLast, PSN: 0x102, AckReq: true, Payload: s1[512:]},
						Frame{Op: roce.RCWriteFirst, PSN: 0x103, VA: remoteVA, RKey: rkey, DMALen: 600, Payload: w2[:256]},
						Frame{Op: roce.RCWriteMiddle, PSN: 0x104, Payload: w2[256:512]},
						Frame{Op: roce.RCWriteLastImm, PSN: 0x105, AckReq: true, Imm: 0xCAFEF00D, Payload: w2[512:]},
						Frame{Op: roce.RCSendOnlyImm, PSN: 0x106, AckReq: true, Imm: 0x11223344, Payload: s3},
						Frame{Op: roce.RCWriteOnly, PSN: 0x107, AckReq: true, VA: remoteVA + 0x1000, RKey: rkey, DMALen: 256, Payload: w4},
						Frame{Op: roce.RCSendFirst, PSN: 0x108, Payload: s5[:256]},
						Frame{Op: roce.RCSendLast, PSN: 0x109, AckReq: true, Payload: s5[256:]},
						Frame{Op: roce.RCWriteFirst, PSN: 0x10A, VA: remoteVA + 0x2000, RKey: rkey, DMALen: 300, Payload: w6[:256]},
						Frame{Op: roce.RCWriteLast, PSN: 0x10B, AckReq: true, Payload: w6[256:]},
					).NextEvent(T),
					k.in(100, k.ack(0x10B, 6)),
					k.expect(100).Done(k.sent(100, wr1), k.sent(100, wr2), k.sent(100, wr3), k.sent(100, wr4),
						k.sent(100, wr5), k.sent(100, wr6)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 12, rc.RxPackets: 1, rc.CompletionsSuccess: 6},
			}
		}(),
		func() Case {
			s5 := pattern(46, 8)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpWrite, LocalAddr: localBuf, RemoteAddr: remoteVA, RKey: rkey}
			wr3 := rc.WorkRequest{ID: 3, Op: rc.OpRead, LocalAddr: localBuf + 0x8000, RemoteAddr: remoteVA + 0x100, RKey: rkey}
			wr4 := rc.WorkRequest{ID: 4, Op: rc.OpWriteImm, LocalAddr: localBuf, RemoteAddr: remoteVA + 0x200, RKey: rkey, Imm: 0x55}
			wr5 := rc.WorkRequest{ID: 5, Op: rc.OpSend, LocalAddr: localBuf + 0x1000, Length: 8}
			return Case{
				// doc.go Requester "Zero-length messages are one ONLY packet"; a zero-length READ takes one PSN (IBA 9.7).
				Name: "req_zero_length",
				Mem:  []Chunk{{wr5.LocalAddr, s5}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3), k.post(0, wr4), k.post(0, wr5),
					k.expect(0,
						Frame{Op: roce.RCSendOnly, PSN: 0x100, AckReq: true},
						Frame{Op: roce.RCWriteOnly, PSN: 0x101, AckReq: true, VA: remoteVA, RKey: rkey},
						Frame{Op: roce.RCReadRequest, PSN: 0x102, AckReq: true, VA: remoteVA + 0x100, RKey: rkey},
						Frame{Op: roce.RCWriteOnlyImm, PSN: 0x103, AckReq: true, VA: remoteVA + 0x200, RKey: rkey, Imm: 0x55},
						Frame{Op: roce.RCSendOnly, PSN: 0x104, AckReq: true, Payload: s5},
					).NextEvent(T),
					k.in(100, k.ack(0x101, 2)),
					k.expect(100).Done(k.sent(100, wr1), k.sent(100, wr2)),
					k.in(110, k.readResp(roce.RCReadResponseOnly, 0x102, 3, nil)),
					k.expect(110).Done(k.sent(110, wr3)),
					k.in(120, k.ack(0x104, 5)),
					k.expect(120).Done(k.sent(120, wr4), k.sent(120, wr5)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 5, rc.RxPackets: 3, rc.CompletionsSuccess: 5},
			}
		}(),
		func() Case {
			const pkts = 130
			d := pattern(47, pkts*pmtu)
			wr := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: 0x100000, Length: pkts * pmtu}
			frames := make([]Frame, pkts)
			for i := range frames {
				op := roce.RCSendMiddle
				switch i {
				case 0:
					op = roce.RCSendFirst
				case pkts - 1:
					op = roce.RCSendLast
				}
				frames[i] = Frame{Op: op, PSN: sendPSN.Add(i), AckReq: i == 63 || i == 127 || i == pkts-1,
					Payload: d[i*pmtu : (i+1)*pmtu]}
			}
			return Case{
				// doc.go Requester "AckReq on the last packet and every 64th, counted from the first": retransmissions are identical (rxe_req.c ack_req).
				Name: "req_ackreq_every_64",
				// A local ACK timeout longer than the base one (8192 cycles): 130 full packets take
				// 5200 cycles to leave a 64-bit NIC, and no ACK comes before they have all gone.
				QP:  func(c *rc.QPConfig) { c.Timeout = timeout + 1 },
				Mem: []Chunk{{wr.LocalAddr, d}},
				Steps: []Step{
					k.post(0, wr),
					k.expect(0, frames...),
					k.in(100, k.nak(sendPSN.Add(64), roce.SyndromeNAKPSNSeq, 0)),
					k.expect(100, frames[64:]...), // AckReq stays on packets 127 and 129, not 64+63
					k.in(200, k.ack(sendPSN.Add(pkts-1), 1)),
					k.expect(200).Done(k.sent(200, wr)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: pkts + pkts - 64, rc.TxRetransmits: pkts - 64, rc.ReqRetryNAK: 1,
					rc.RxPackets: 2, rc.CompletionsSuccess: 1},
				Events: []rc.Event{k.ev(100, rc.ReqRetryNAK, sendPSN.Add(64))},
			}
		}(),
		func() Case {
			s1, r, s3 := pattern(48, 600), pattern(49, 600), pattern(50, 10)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 600}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpRead, LocalAddr: localBuf + 0x8000, Length: 600, RemoteAddr: remoteVA, RKey: rkey}
			wr3 := rc.WorkRequest{ID: 3, Op: rc.OpSend, LocalAddr: localBuf + 0x1000, Length: 10}
			return Case{
				// doc.go Requester "PSNs ... 24-bit wraparound": a message, a READ and a stale ACK across 2^24 (IBA 9.7).
				Name: "req_psn_wrap",
				QP:   func(c *rc.QPConfig) { c.SendPSN = 0xFFFFFE },
				Mem:  []Chunk{{wr1.LocalAddr, s1}, {wr3.LocalAddr, s3}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3),
					k.expect(0,
						Frame{Op: roce.RCSendFirst, PSN: 0xFFFFFE, Payload: s1[:256]},
						Frame{Op: roce.RCSendMiddle, PSN: 0xFFFFFF, Payload: s1[256:512]},
						Frame{Op: roce.RCSendLast, PSN: 0x000000, AckReq: true, Payload: s1[512:]},
						Frame{Op: roce.RCReadRequest, PSN: 0x000001, AckReq: true, VA: remoteVA, RKey: rkey, DMALen: 600},
						Frame{Op: roce.RCSendOnly, PSN: 0x000004, AckReq: true, Payload: s3},
					),
					k.in(100, k.ack(0x000000, 1)),
					k.expect(100).Done(k.sent(100, wr1)),
					k.in(110, k.readResp(roce.RCReadResponseFirst, 0x000001, 2, r[:256])),
					k.in(120, k.readResp(roce.RCReadResponseMiddle, 0x000002, 0, r[256:512])),
					k.in(130, k.readResp(roce.RCReadResponseLast, 0x000003, 2, r[512:])),
					k.expect(130).Done(k.sent(130, wr2)),
					k.in(140, k.ack(0xFFFFFF, 1)), // older than the oldest unacknowledged PSN
					k.expect(140),
					k.in(150, k.ack(0x000004, 3)),
					k.expect(150).Done(k.sent(150, wr3)).Idle(),
				},
				WantMem:  []Chunk{{wr2.LocalAddr, r}},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 5, rc.RxPackets: 6, rc.ReqStaleAck: 1, rc.CompletionsSuccess: 3},
			}
		}(),
		func() Case {
			s1, s2, s6 := pattern(51, 1024), pattern(52, 10), pattern(53, 10)
			r3, r4, r5, r7 := pattern(54, 10), pattern(55, 10), pattern(56, 10), pattern(57, 1024)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 1024}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpSend, LocalAddr: localBuf + 0x1000, Length: 10}
			rd := func(id uint64, local, remote uint64, n uint32) rc.WorkRequest {
				return rc.WorkRequest{ID: id, Op: rc.OpRead, LocalAddr: local, Length: n, RemoteAddr: remote, RKey: rkey}
			}
			wr3 := rd(3, localBuf+0x8000, remoteVA, 10)
			wr4 := rd(4, localBuf+0x8100, remoteVA+0x100, 10)
			wr5 := rd(5, localBuf+0x8200, remoteVA+0x200, 10)
			wr6 := rc.WorkRequest{ID: 6, Op: rc.OpSend, LocalAddr: localBuf + 0x2000, Length: 10}
			wr7 := rd(7, localBuf+0x9000, remoteVA+0x1000, 1024)
			readReq := func(psn roce.PSN, wr rc.WorkRequest) Frame {
				return Frame{Op: roce.RCReadRequest, PSN: psn, AckReq: true, VA: wr.RemoteAddr, RKey: rkey, DMALen: wr.Length}
			}
			return Case{
				// doc.go Requester "Window": at most Window PSNs unacknowledged (a READ counts all its PSNs), at most MaxReads READs; AckReq every Window/2-th packet (rxe_req.c).
				Name: "req_window",
				QP:   func(c *rc.QPConfig) { c.Window, c.MaxReads = 4, 2 },
				Mem:  []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}, {wr6.LocalAddr, s6}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0,
						Frame{Op: roce.RCSendFirst, PSN: 0x100, Payload: s1[:256]},
						Frame{Op: roce.RCSendMiddle, PSN: 0x101, AckReq: true, Payload: s1[256:512]}, // every Window/2-th packet
						Frame{Op: roce.RCSendMiddle, PSN: 0x102, Payload: s1[512:768]},
						Frame{Op: roce.RCSendLast, PSN: 0x103, AckReq: true, Payload: s1[768:]},
					).NextEvent(T), // 0x104 waits: 4 PSNs unacknowledged
					k.in(100, k.ack(0x101, 0)),
					k.expect(100, Frame{Op: roce.RCSendOnly, PSN: 0x104, AckReq: true, Payload: s2}),
					k.in(200, k.ack(0x104, 2)),
					k.expect(200).Done(k.sent(200, wr1), k.sent(200, wr2)).Idle(),
					k.post(300, wr3), k.post(300, wr4), k.post(300, wr5),
					k.expect(300, readReq(0x105, wr3), readReq(0x106, wr4)).NextEvent(300 + T), // the third waits for a READ to end
					k.in(400, k.readResp(roce.RCReadResponseOnly, 0x105, 3, r3)),
					k.expect(400, readReq(0x107, wr5)).Done(k.sent(400, wr3)),
					k.in(500, k.readResp(roce.RCReadResponseOnly, 0x106, 4, r4)),
					k.in(510, k.readResp(roce.RCReadResponseOnly, 0x107, 5, r5)),
					k.expect(510).Done(k.sent(500, wr4), k.sent(510, wr5)).Idle(),
					k.post(600, wr6), k.post(600, wr7),
					k.expect(600, Frame{Op: roce.RCSendOnly, PSN: 0x108, AckReq: true, Payload: s6}).NextEvent(600 + T), // the READ's 4 PSNs 0x109-0x10C do not fit beside 0x108
					k.in(700, k.ack(0x108, 6)),
					k.expect(700, readReq(0x109, wr7)).Done(k.sent(700, wr6)),
					k.in(800, k.readResp(roce.RCReadResponseFirst, 0x109, 7, r7[:256])),
					k.in(801, k.readResp(roce.RCReadResponseMiddle, 0x10A, 0, r7[256:512])),
					k.in(802, k.readResp(roce.RCReadResponseMiddle, 0x10B, 0, r7[512:768])),
					k.in(803, k.readResp(roce.RCReadResponseLast, 0x10C, 7, r7[768:])),
					k.expect(803).Done(k.sent(803, wr7)).Idle(),
				},
				WantMem:  []Chunk{{wr3.LocalAddr, r3}, {wr4.LocalAddr, r4}, {wr5.LocalAddr, r5}, {wr7.LocalAddr, r7}},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 10, rc.RxPackets: 10, rc.CompletionsSuccess: 7},
			}
		}(),
		func() Case {
			s1, w2, s3, s4 := pattern(58, 10), pattern(59, 10), pattern(60, 600), pattern(61, 10)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 10}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpWrite, LocalAddr: localBuf + 0x1000, Length: 10, RemoteAddr: remoteVA, RKey: rkey}
			wr3 := rc.WorkRequest{ID: 3, Op: rc.OpSend, LocalAddr: localBuf + 0x2000, Length: 600}
			wr4 := rc.WorkRequest{ID: 4, Op: rc.OpSend, LocalAddr: localBuf + 0x3000, Length: 10}
			return Case{
				// doc.go Requester "An ACK for PSN p completes every SEND/WRITE ending at or before p, in order" (IBA 9.7, rxe_comp.c check_psn).
				Name: "req_implicit_ack",
				Mem:  []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, w2}, {wr3.LocalAddr, s3}, {wr4.LocalAddr, s4}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3), k.post(0, wr4),
					k.expect(0,
						Frame{Op: roce.RCSendOnly, PSN: 0x100, AckReq: true, Payload: s1},
						Frame{Op: roce.RCWriteOnly, PSN: 0x101, AckReq: true, VA: remoteVA, RKey: rkey, DMALen: 10, Payload: w2},
						Frame{Op: roce.RCSendFirst, PSN: 0x102, Payload: s3[:256]},
						Frame{Op: roce.RCSendMiddle, PSN: 0x103, Payload: s3[256:512]},
						Frame{Op: roce.RCSendLast, PSN: 0x104, AckReq: true, Payload: s3[512:]},
						Frame{Op: roce.RCSendOnly, PSN: 0x105, AckReq: true, Payload: s4},
					),
					k.in(100, k.ack(0x103, 2)), // inside the third message: it stays open
					k.expect(100).Done(k.sent(100, wr1), k.sent(100, wr2)).NextEvent(100 + T),
					k.in(200, k.ack(0x105, 4)),
					k.expect(200).Done(k.sent(200, wr3), k.sent(200, wr4)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 6, rc.RxPackets: 2, rc.CompletionsSuccess: 4},
			}
		}(),
		func() Case {
			s1, w2, r, s4 := pattern(62, 10), pattern(63, 10), pattern(64, 600), pattern(65, 10)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 10}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpWrite, LocalAddr: localBuf + 0x1000, Length: 10, RemoteAddr: remoteVA, RKey: rkey}
			wr3 := rc.WorkRequest{ID: 3, Op: rc.OpRead, LocalAddr: localBuf + 0x8000, Length: 600, RemoteAddr: remoteVA + 0x1000, RKey: rkey}
			wr4 := rc.WorkRequest{ID: 4, Op: rc.OpSend, LocalAddr: localBuf + 0x2000, Length: 10}
			return Case{
				// doc.go Requester "a READ completes only with its last response, and a READ response acknowledges every earlier request" (rxe_comp.c).
				Name: "req_read_response_acks",
				Mem:  []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, w2}, {wr4.LocalAddr, s4}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3), k.post(0, wr4),
					k.expect(0,
						Frame{Op: roce.RCSendOnly, PSN: 0x100, AckReq: true, Payload: s1},
						Frame{Op: roce.RCWriteOnly, PSN: 0x101, AckReq: true, VA: remoteVA, RKey: rkey, DMALen: 10, Payload: w2},
						Frame{Op: roce.RCReadRequest, PSN: 0x102, AckReq: true, VA: remoteVA + 0x1000, RKey: rkey, DMALen: 600},
						Frame{Op: roce.RCSendOnly, PSN: 0x105, AckReq: true, Payload: s4},
					),
					k.in(100, k.readResp(roce.RCReadResponseFirst, 0x102, 3, r[:256])),
					k.expect(100).Done(k.sent(100, wr1), k.sent(100, wr2)),
					k.in(110, k.readResp(roce.RCReadResponseMiddle, 0x103, 0, r[256:512])),
					k.expect(110),
					k.in(120, k.readResp(roce.RCReadResponseLast, 0x104, 3, r[512:])),
					k.expect(120).Done(k.sent(120, wr3)),
					k.in(130, k.ack(0x105, 4)),
					k.expect(130).Done(k.sent(130, wr4)).Idle(),
				},
				WantMem:  []Chunk{{wr3.LocalAddr, r}},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 4, rc.RxPackets: 4, rc.CompletionsSuccess: 4},
			}
		}(),
		func() Case {
			s1, s2 := pattern(66, 1024), pattern(67, 10)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 1024}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpSend, LocalAddr: localBuf + 0x1000, Length: 10}
			f := []Frame{
				{Op: roce.RCSendFirst, PSN: 0x100, Payload: s1[:256]},
				{Op: roce.RCSendMiddle, PSN: 0x101, Payload: s1[256:512]},
				{Op: roce.RCSendMiddle, PSN: 0x102, Payload: s1[512:768]},
				{Op: roce.RCSendLast, PSN: 0x103, AckReq: true, Payload: s1[768:]},
				{Op: roce.RCSendOnly, PSN: 0x104, AckReq: true, Payload: s2},
			}
			return Case{
				// doc.go Requester "NAK 0x60 for PSN p acknowledges everything before p and starts a go-back-N from p" with identical packets (IBA 9.7).
				Name: "req_nak_go_back_n",
				Mem:  []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, f...),
					k.in(100, k.nak(0x102, roce.SyndromeNAKPSNSeq, 0)),
					k.expect(100, f[2:]...).NextEvent(100 + T),
					k.in(200, k.ack(0x104, 2)),
					k.expect(200).Done(k.sent(200, wr1), k.sent(200, wr2)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 8, rc.TxRetransmits: 3, rc.ReqRetryNAK: 1, rc.RxPackets: 2, rc.CompletionsSuccess: 2},
				Events:   []rc.Event{k.ev(100, rc.ReqRetryNAK, 0x102)},
			}
		}(),
		func() Case {
			s1, s2 := pattern(68, 1024), pattern(69, 10)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 1024}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpSend, LocalAddr: localBuf + 0x1000, Length: 10}
			f := []Frame{
				{Op: roce.RCSendFirst, PSN: 0x100, Payload: s1[:256]},
				{Op: roce.RCSendMiddle, PSN: 0x101, Payload: s1[256:512]},
				{Op: roce.RCSendMiddle, PSN: 0x102, Payload: s1[512:768]},
				{Op: roce.RCSendLast, PSN: 0x103, AckReq: true, Payload: s1[768:]},
				{Op: roce.RCSendOnly, PSN: 0x104, AckReq: true, Payload: s2},
			}
			return Case{
				// doc.go Requester "A second NAK, or a copy, with no progress since is ignored"; after progress a NAK counts again (rxe_comp.c comp.started_retry).
				Name: "req_duplicate_nak_ignored",
				Mem:  []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}},
				Steps: []Step{
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
					k.expect(300).Done(k.sent(300, wr1), k.sent(300, wr2)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 10, rc.TxRetransmits: 5, rc.ReqRetryNAK: 2, rc.ReqRetryIgnored: 1,
					rc.RxPackets: 5, rc.CompletionsSuccess: 2},
				Events: []rc.Event{k.ev(100, rc.ReqRetryNAK, 0x102), k.ev(201, rc.ReqRetryNAK, 0x103)},
			}
		}(),
		func() Case {
			r, s2 := pattern(70, 1000), pattern(71, 10)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpRead, LocalAddr: localBuf + 0x8000, Length: 1000, RemoteAddr: remoteVA, RKey: rkey}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpSend, LocalAddr: localBuf, Length: 10}
			send := Frame{Op: roce.RCSendOnly, PSN: 0x104, AckReq: true, Payload: s2}
			return Case{
				// doc.go Requester "A READ response or ACK beyond the next missing READ response is an implied NAK": re-request with the RETH advanced by whole PMTUs (IBA 9.7).
				Name: "req_read_gap_rerequest",
				Mem:  []Chunk{{wr2.LocalAddr, s2}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, Frame{Op: roce.RCReadRequest, PSN: 0x100, AckReq: true, VA: remoteVA, RKey: rkey, DMALen: 1000}, send),
					k.in(100, k.readResp(roce.RCReadResponseFirst, 0x100, 1, r[:256])),
					k.expect(100),
					k.in(110, k.readResp(roce.RCReadResponseMiddle, 0x102, 0, r[512:768])), // 0x101 was lost
					k.expect(110,
						Frame{Op: roce.RCReadRequest, PSN: 0x101, AckReq: true, VA: remoteVA + 256, RKey: rkey, DMALen: 744},
						send),
					k.in(200, k.readResp(roce.RCReadResponseFirst, 0x101, 1, r[256:512])),
					k.expect(200),
					k.in(210, k.ack(0x104, 2)), // 0x102 and 0x103 were lost
					k.expect(210,
						Frame{Op: roce.RCReadRequest, PSN: 0x102, AckReq: true, VA: remoteVA + 512, RKey: rkey, DMALen: 488},
						send),
					k.in(300, k.readResp(roce.RCReadResponseFirst, 0x102, 1, r[512:768])),
					k.in(310, k.readResp(roce.RCReadResponseLast, 0x103, 1, r[768:])),
					k.expect(310).Done(k.sent(310, wr1)),
					k.in(320, k.ack(0x104, 2)),
					k.expect(320).Done(k.sent(320, wr2)).Idle(),
				},
				WantMem: []Chunk{{wr1.LocalAddr, r}},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 6, rc.TxRetransmits: 4, rc.ReqRetryReadGap: 2, rc.RxPackets: 7,
					rc.CompletionsSuccess: 2},
				Events: []rc.Event{k.ev(110, rc.ReqRetryReadGap, 0x101), k.ev(210, rc.ReqRetryReadGap, 0x102)},
			}
		}(),
		func() Case {
			s1, s2 := pattern(72, 10), pattern(73, 10)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 10}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpSend, LocalAddr: localBuf + 0x1000, Length: 10}
			f1 := Frame{Op: roce.RCSendOnly, PSN: 0x100, AckReq: true, Payload: s1}
			f2 := Frame{Op: roce.RCSendOnly, PSN: 0x101, AckReq: true, Payload: s2}
			return Case{
				// doc.go Requester "Local ACK timeout": armed on the first send, restarted on progress and retry; go-back-N from the oldest unacknowledged PSN (rxe_req.c retransmit timer).
				Name: "req_timeout_go_back_n",
				Mem:  []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, f1, f2).NextEvent(T),
					k.expect(T - 1).NextEvent(T),
					k.expect(T, f1, f2).NextEvent(2 * T),
					k.in(T+50, k.ack(0x100, 1)),
					k.expect(T + 50).Done(k.sent(T+50, wr1)).NextEvent(2*T + 50),
					k.expect(2*T + 49).NextEvent(2*T + 50),
					k.expect(2*T+50, f2).NextEvent(3*T + 50),
					k.in(2*T+60, k.ack(0x101, 2)),
					k.expect(2*T + 60).Done(k.sent(2*T+60, wr2)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 5, rc.TxRetransmits: 3, rc.ReqRetryTimeout: 2, rc.RxPackets: 2, rc.CompletionsSuccess: 2},
				Events:   []rc.Event{k.ev(T, rc.ReqRetryTimeout, 0x100), k.ev(2*T+50, rc.ReqRetryTimeout, 0x101)},
			}
		}(),
		func() Case {
			s := pattern(74, 30)
			wr := func(id uint64) rc.WorkRequest {
				return rc.WorkRequest{ID: id, Op: rc.OpSend, LocalAddr: localBuf + 10*(id-1), Length: 10}
			}
			f := func(i int) Frame {
				return Frame{Op: roce.RCSendOnly, PSN: sendPSN.Add(i), AckReq: true, Payload: s[10*i : 10*i+10]}
			}
			return Case{
				// doc.go Requester "retry_cnt is spent by each retry and restored by progress; when none is left RETRY_EXC_ERR and error state" (rxe_comp.c COMPST_ERROR_RETRY).
				Name: "req_retry_exhausted",
				Mem:  []Chunk{{localBuf, s}},
				Steps: []Step{
					k.post(0, wr(1)), k.post(0, wr(2)), k.post(0, wr(3)),
					k.expect(0, f(0), f(1), f(2)).NextEvent(T),
					k.expect(T - 1).NextEvent(T),
					k.expect(T, f(0), f(1), f(2)).NextEvent(2 * T), // retry 1 of 2
					k.in(T+10, k.ack(0x100, 1)),                    // progress: 2 retries again
					k.expect(T + 10).Done(k.sent(T+10, wr(1))).NextEvent(2*T + 10),
					k.expect(2*T+10, f(1), f(2)).NextEvent(3*T + 10), // retry 1 of 2
					k.expect(3*T+10, f(1), f(2)).NextEvent(4*T + 10), // retry 2 of 2
					k.expect(4*T + 9).NextEvent(4*T + 10),
					k.expect(4*T+10).Done(k.failed(4*T+10, wr(2), rc.StatusRetryExceeded), k.failed(4*T+10, wr(3), rc.StatusFlushed)).Idle(),
					k.post(4*T+20, wr(4)),
					k.expect(4*T + 20).Done(k.failed(4*T+20, wr(4), rc.StatusFlushed)).Idle(),
					k.in(4*T+30, k.ack(0x102, 3)), // QP in error: dropped
					k.expect(4*T + 30).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 10, rc.TxRetransmits: 7, rc.ReqRetryTimeout: 3, rc.ReqRetryExceeded: 1,
					rc.RxPackets: 1, rc.RxQPError: 1, rc.CompletionsSuccess: 1, rc.CompletionsError: 3},
				Events: []rc.Event{k.ev(T, rc.ReqRetryTimeout, 0x100), k.ev(2*T+10, rc.ReqRetryTimeout, 0x101),
					k.ev(3*T+10, rc.ReqRetryTimeout, 0x101)},
				InError: true,
			}
		}(),
		func() Case {
			const code = 5 // 0.06 ms, longer than the ACK timeout
			R := rc.RNRCycles(code, Clock)
			s := pattern(75, 20)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 10}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpSend, LocalAddr: localBuf + 10, Length: 10}
			f1 := Frame{Op: roce.RCSendOnly, PSN: 0x100, AckReq: true, Payload: s[:10]}
			f2 := Frame{Op: roce.RCSendOnly, PSN: 0x101, AckReq: true, Payload: s[10:]}
			return Case{
				// doc.go Requester "RNR NAK: wait the RNR timer, resend from its PSN; the ACK timer pauses; rnr_retry counts the waits" (rxe_comp.c rnr_nak_timer).
				Name: "req_rnr_finite",
				Mem:  []Chunk{{localBuf, s}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2),
					k.expect(0, f1, f2).NextEvent(T),
					k.in(100, k.rnrNak(0x100, code, 0)),
					k.expect(100).NextEvent(100 + R),
					k.expect(T).NextEvent(100 + R), // the ACK timeout would be due now: it is paused
					k.expect(100 + R - 1).NextEvent(100 + R),
					k.expect(100+R, f1, f2).NextEvent(100 + R + T),
					k.in(200+R, k.rnrNak(0x100, code, 0)), // rnr_retry 1 is spent
					k.expect(200+R).Done(k.failed(200+R, wr1, rc.StatusRNRRetryExceeded), k.failed(200+R, wr2, rc.StatusFlushed)).Idle(),
				},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 4, rc.TxRetransmits: 2, rc.ReqRNRWait: 1, rc.ReqRNRExceeded: 1,
					rc.RxPackets: 2, rc.CompletionsError: 2},
				Events:  []rc.Event{k.ev(100, rc.ReqRNRWait, 0x100)},
				InError: true,
			}
		}(),
		func() Case {
			const code, rounds = 1, 9 // more waits than any finite rnr_retry allows
			R := rc.RNRCycles(code, Clock)
			s := pattern(76, 10)
			wr := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 10}
			f := Frame{Op: roce.RCSendOnly, PSN: 0x100, AckReq: true, Payload: s}
			steps := []Step{k.post(0, wr), k.expect(0, f).NextEvent(T)}
			var events []rc.Event
			at := uint64(100)
			for range rounds {
				steps = append(steps,
					k.in(at, k.rnrNak(0x100, code, 0)),
					k.expect(at).NextEvent(at+R),
					k.expect(at+R-1).NextEvent(at+R),
					k.expect(at+R, f).NextEvent(at+R+T))
				events = append(events, k.ev(at, rc.ReqRNRWait, 0x100))
				at += R + 100
			}
			steps = append(steps, k.in(at, k.ack(0x100, 1)), k.expect(at).Done(k.sent(at, wr)).Idle())
			return Case{
				// doc.go Requester "rnr_retry counts the waits, 7 is infinite" (IBA 9.7; rxe_comp.c).
				Name:  "req_rnr_infinite",
				QP:    func(c *rc.QPConfig) { c.RNRRetry = 7 },
				Mem:   []Chunk{{localBuf, s}},
				Steps: steps,
				Counters: map[rc.Counter]uint64{rc.TxPackets: rounds + 1, rc.TxRetransmits: rounds, rc.ReqRNRWait: rounds,
					rc.RxPackets: rounds + 1, rc.CompletionsSuccess: 1},
				Events: events,
			}
		}(),
		func() Case {
			s1, w2 := pattern(77, 10), pattern(78, 10)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 10}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpWrite, LocalAddr: localBuf + 0x1000, Length: 10, RemoteAddr: remoteVA, RKey: 0xBAD}
			wr3 := rc.WorkRequest{ID: 3, Op: rc.OpRead, LocalAddr: localBuf + 0x8000, Length: 10, RemoteAddr: remoteVA, RKey: rkey}
			wr4 := rc.WorkRequest{ID: 4, Op: rc.OpSend, LocalAddr: localBuf, Length: 10}
			return Case{
				// doc.go Requester "NAK 0x62: REM_ACCESS_ERR, the QP to error, every other work request flushed"; the NAK acknowledges what precedes it (rxe_comp.c).
				Name: "req_remote_access_error",
				Mem:  []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, w2}},
				Steps: []Step{
					k.post(0, wr1), k.post(0, wr2), k.post(0, wr3),
					k.expect(0,
						Frame{Op: roce.RCSendOnly, PSN: 0x100, AckReq: true, Payload: s1},
						Frame{Op: roce.RCWriteOnly, PSN: 0x101, AckReq: true, VA: remoteVA, RKey: 0xBAD, DMALen: 10, Payload: w2},
						Frame{Op: roce.RCReadRequest, PSN: 0x102, AckReq: true, VA: remoteVA, RKey: rkey, DMALen: 10},
					),
					k.in(100, k.nak(0x101, roce.SyndromeNAKAccess, 1)),
					k.expect(100).Done(k.sent(100, wr1), k.failed(100, wr2, rc.StatusRemoteAccess), k.failed(100, wr3, rc.StatusFlushed)).Idle(),
					k.post(200, wr4),
					k.recv(200, 9, recvBuf, 64),
					k.expect(200).Done(k.failed(200, wr4, rc.StatusFlushed), k.recvErr(200, 9, rc.StatusFlushed, 0)).Idle(),
					k.in(300, k.readResp(roce.RCReadResponseOnly, 0x102, 2, pattern(79, 10))), // QP in error: dropped
					k.expect(300).Idle(),
				},
				WantMem: []Chunk{{wr3.LocalAddr, make([]byte, 10)}},
				Counters: map[rc.Counter]uint64{rc.TxPackets: 3, rc.RxPackets: 1, rc.RxQPError: 1, rc.ReqRemoteError: 1,
					rc.CompletionsSuccess: 1, rc.CompletionsError: 4},
				InError: true,
			}
		}(),
	}
}

func congestionCases() []Case {
	var k kit
	const key = rwKey
	return []Case{
		func() Case {
			const interval = 1000
			w := func(psn roce.PSN, ce, ackReq bool) Frame {
				return Frame{Op: roce.RCWriteOnly, PSN: psn, AckReq: ackReq, CE: ce, VA: rwBase, RKey: key, DMALen: 8,
					Payload: pattern(byte(psn), 8)}
			}
			return Case{
				// doc.go Congestion "Notification point": a CNP per CE packet unless one went less than CNPInterval ago; CNPs before ACKs (IBA annex A17.9).
				Name: "cnp_rate_limit",
				Node: func(c *rc.NodeConfig) { c.CNPInterval = interval },
				Steps: []Step{
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
					k.in(150+interval, w(0x205, true, false)),
					k.expect(150 + interval),
					// Exactly CNPInterval after the second CNP, as 0x204 after the first: a NIC takes a
					// frame in several beats, so there 0x204 cannot follow 0x203 one cycle later.
					k.in(100+2*interval, w(0x206, true, true)),
					k.expect(100+2*interval, k.cnp(), k.ack(0x206, 7)).Idle(),
				},
				WantMem:  []Chunk{{rwBase, pattern(0x06, 8)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 7, rc.RxCE: 6, rc.TxCNP: 3, rc.CNPSuppressed: 3, rc.RespACK: 2},
			}
		}(),
		func() Case {
			const interval = 1000
			return Case{
				// doc.go Congestion "one CNP per QP waiting": a CE packet while the QP's CNP still waits counts in
				// cnp_suppressed and leaves the interval alone (rtl/nic README "Bounded queues").
				Name: "cnp_one_waiting",
				Node: func(c *rc.NodeConfig) { c.CNPInterval = interval },
				Steps: []Step{
					k.in(100, writeOnly(0x200, false, true)),
					k.in(100+interval, writeOnly(0x201, false, true)), // the interval is over, but a CNP waits
					k.expect(100+interval, k.cnp()),
					k.in(101+interval, writeOnly(0x202, false, true)), // the interval still runs from 100
					k.expect(101+interval, k.cnp()),
					k.in(102+interval, writeOnly(0x203, true, true)),
					k.expect(102+interval, k.ack(0x203, 4)).Idle(),
				},
				WantMem:  []Chunk{{rwBase, pattern(0x03, 8)}},
				Counters: map[rc.Counter]uint64{rc.RxPackets: 4, rc.RxCE: 4, rc.TxCNP: 2, rc.CNPSuppressed: 2, rc.RespACK: 1},
			}
		}(),
		func() Case {
			cfg := dcqcn.Config{
				LineRate: 8 * dcqcn.RateOne, MinRate: dcqcn.RateOne / 4, GShift: 8,
				AlphaPeriod: 1000, IncreasePeriod: 1000, ByteCounter: 0, FastRecoverySteps: 5,
				AdditiveStep: dcqcn.RateOne, HyperStep: dcqcn.RateOne,
			}
			line := cfg.LineRate
			// alpha starts at 1: alpha' = (1-g) + g = 1, and Rc = Rc(1 - 1/2).
			cut := line / 2
			gap := cut.Cycles(segFrameLen) // 314 bytes at 4 B/cycle: 79 cycles
			s1, s2, a := pattern(80, 768), pattern(81, 512), pattern(82, 8)
			wr1 := rc.WorkRequest{ID: 1, Op: rc.OpSend, LocalAddr: localBuf, Length: 768}
			wr2 := rc.WorkRequest{ID: 2, Op: rc.OpSend, LocalAddr: localBuf + 0x1000, Length: 512}
			steps := []Step{
				k.recv(0, 1, recvBuf, 64),
				k.expect(0).WithRate(line),
				k.in(100, Frame{Op: roce.CNPOpCode, BECN: true}),
				k.expect(100).WithRate(cut),
				k.post(200, wr1),
				k.expect(200, Frame{Op: roce.RCSendFirst, PSN: 0x100, Payload: s1[:256]}).NextEvent(200 + gap),
				k.expect(200 + gap - 1).NextEvent(200 + gap),
				k.expect(200+gap, Frame{Op: roce.RCSendMiddle, PSN: 0x101, Payload: s1[256:512]}).NextEvent(200 + 2*gap),
				// The SEND comes between MIDDLE and LAST, once MIDDLE has left even a 64-bit NIC (40 beats).
				k.in(320, Frame{Op: roce.RCSendOnly, PSN: 0x200, AckReq: true, Payload: a}),
				k.expect(320, k.ack(0x200, 1)).Done(k.got(320, 1, rc.OpSend, 8)).NextEvent(200 + 2*gap), // ACKs are not paced
				k.expect(200 + 2*gap - 1).NextEvent(200 + 2*gap),
				k.expect(200+2*gap, Frame{Op: roce.RCSendLast, PSN: 0x102, AckReq: true, Payload: s1[512:]}),
				k.in(400, k.ack(0x102, 1)),
				k.expect(400).Done(k.sent(400, wr1)).WithRate(cut),
			}
			// Every IncreasePeriod from the CNP: Rc = ceil((Rc + Rt)/2) with
			// Rt = line rate (fast recovery keeps the pre-cut target; additive
			// increase is capped at the line rate).
			at, rate := uint64(100), cut
			for rate < line {
				at += cfg.IncreasePeriod
				steps = append(steps, k.expect(at-1).WithRate(rate))
				rate = (rate + line + 1) / 2
				steps = append(steps, k.expect(at).WithRate(rate))
			}
			// Back at line rate: no pacing.
			steps = append(steps,
				k.post(at+100, wr2),
				k.expect(at+100,
					Frame{Op: roce.RCSendFirst, PSN: 0x103, Payload: s2[:256]},
					Frame{Op: roce.RCSendLast, PSN: 0x104, AckReq: true, Payload: s2[256:]}),
				k.in(at+200, k.ack(0x104, 1)),
				k.expect(at+200).Done(k.sent(at+200, wr2)).WithRate(line))
			return Case{
				// doc.go Congestion "Reaction point": a CNP cuts the rate, packets but ACKs wait Rate.Cycles(len) while below line rate, timer recovery (DCQCN, Zhu et al., SIGCOMM 2015).
				Name:     "dcqcn_cut_and_recover",
				Node:     func(c *rc.NodeConfig) { c.DCQCN = cfg },
				Mem:      []Chunk{{wr1.LocalAddr, s1}, {wr2.LocalAddr, s2}},
				Steps:    steps,
				Counters: map[rc.Counter]uint64{rc.RxCNP: 1, rc.TxPackets: 5, rc.RxPackets: 3, rc.RespACK: 1, rc.CompletionsSuccess: 3},
			}
		}(),
	}
}
