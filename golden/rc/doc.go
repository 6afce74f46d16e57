// Package rc is the golden model of the RoCEv2 Reliable Connection
// transport: requester, responder and congestion control of a set of QPs
// behind one node, as a deterministic function of stamped inputs. The NIC
// RTL is checked against it frame by frame.
//
// # Inputs and outputs
//
// A Node is driven only by calls that carry the current cycle, in
// non-decreasing order: PostSend and PostRecv (host work requests),
// Receive (a frame that arrived) and Poll (the link is free: what does the
// node send now?). NextEvent tells a driver the next cycle at which Poll
// may return a frame or a timer fires, so time can jump over idle
// stretches. Outputs are the frames Poll returns, the completions
// TakeCompletions returns, and the reads and writes the node makes to its
// Memory (payload is read when a packet is built and written when one is
// accepted, as a NIC's DMA would). Every drop and error path counts into a
// named Counter (Node.Counters, Node.QPCounters). The model has no clock,
// no goroutine and no randomness; OnEvent reports each recovery action.
//
// Frames are Ethernet II, IPv4 (DF, ID 0, TTL 64, TOS = DSCP<<2 | ECT(0);
// CNPs Not-ECT with their own DSCP), UDP from the QP's source port to 4791
// with checksum 0 (as rxe), BTH with P_Key 0xFFFF, extension headers,
// payload, pad and ICRC. Timers are in cycles: the local ACK timeout is
// 4.096 us * 2^timeout (TimeoutCycles) and the RNR timer follows IBA
// table 45 (RNRCycles), both converted with NodeConfig.ClockHz.
//
// # Rules
//
// Each rule names the test that pins it (TestBehaviour/<case> in
// behaviour_test.go, the others in pair_test.go and targeted_test.go).
// Sources: IBA 9.7 and annex A17.9; rxe_req.c, rxe_resp.c,
// rxe_comp.c (read for the rules, not copied).
//
// Requester:
//   - Segmentation: ONLY when the message fits the path MTU, else FIRST,
//     MIDDLE..., LAST; FIRST and MIDDLE carry exactly PMTU bytes; WRITE
//     FIRST/ONLY carry the RETH with the whole length; the immediate rides
//     on LAST/ONLY. Zero-length messages are one ONLY packet (req_segmentation,
//     req_zero_length).
//   - AckReq on the last packet of every message and on every 64th packet
//     of a message, counted from its first (every Window/2-th when the
//     window is below 128); a function of the packet's place, so
//     a retransmitted packet is identical to the original (req_ackreq_every_64).
//   - PSNs: one per SEND/WRITE packet; a READ takes ceil(len/PMTU) PSNs,
//     at least one; 24-bit wraparound (req_psn_wrap).
//   - Window: at most QPConfig.Window PSNs unacknowledged (a READ longer
//     than the window goes alone); at most MaxReads READs outstanding
//     (req_window).
//   - An ACK for PSN p completes every SEND/WRITE ending at or before p,
//     in order (implicit acknowledgement, req_implicit_ack); a READ
//     completes only with its last response, and a READ response
//     acknowledges every earlier request (req_read_response_acks).
//   - NAK 0x60 for PSN p acknowledges everything before p and starts a
//     go-back-N from p; retransmitted packets keep their PSN, opcode,
//     offset and AckReq (req_nak_go_back_n). A second NAK, or a copy, with
//     no progress since is ignored (req_duplicate_nak_ignored).
//   - A READ response or ACK beyond the next missing READ response is an
//     implied NAK: the READ is re-requested from the missing PSN, with the
//     RETH advanced by whole PMTUs (req_read_gap_rerequest). rxe waits for
//     its timer instead; recovering at once is our choice.
//   - Local ACK timeout: armed when a packet goes out with none
//     outstanding, restarted on progress and on every retry; on expiry a
//     go-back-N from the oldest unacknowledged PSN (req_timeout_go_back_n).
//   - retry_cnt is spent by each NAK or timeout retry and restored by
//     progress; when none is left the oldest request completes with
//     RETRY_EXC_ERR and the QP goes to the error state (req_retry_exhausted).
//     7 means 7 retries (rxe treats it as infinite).
//   - RNR NAK: wait the RNR timer it names, then resend from its PSN; the
//     ACK timer pauses meanwhile; rnr_retry counts the waits, 7 is
//     infinite (req_rnr_finite, req_rnr_infinite).
//   - NAK 0x61/0x62/0x63: the request completes with REM_INV_REQ_ERR,
//     REM_ACCESS_ERR or REM_OP_ERR, the QP goes to the error state and
//     every other work request is flushed (req_remote_access_error).
//
// Responder:
//   - Expected PSN: execute, advance, MSN + 1 at the end of each message
//     and for each READ; ACK with syndrome 0x1F, that packet's PSN and the
//     MSN only when AckReq is set (resp_send_ack, resp_multi_packet_send,
//     resp_write, resp_write_imm).
//   - READ: responses FIRST/MIDDLE/LAST or ONLY from the request's PSN,
//     AETH (0x1F, MSN) on FIRST, LAST and ONLY; data read when each
//     packet is built (resp_read).
//   - PSN ahead: one NAK 0x60 with the expected PSN, then silence until the
//     expected PSN arrives (resp_psn_gap_one_nak).
//   - PSN behind: a duplicate SEND/WRITE is ACKed again with the last
//     accepted PSN (resp_duplicate_send), but never past a remembered READ
//     that starts after the duplicate: then with the PSN just before the
//     oldest such READ (resp_duplicate_ack_before_read). The requester's
//     go-back-N sends that READ again right behind the duplicate, so its
//     replay leaves after the ACK; an ACK past it would arrive first and
//     read as an implied NAK, whose re-request makes more duplicates and
//     more such ACKs: a retry cascade with no frame lost
//     (TestTargetedNoRetryCascade). ACKs are cumulative, so acknowledging
//     less is allowed, and it keeps responses in PSN order; rxe's ack_psn
//     (never a READ's PSN) is the case of a READ last.
//   - A duplicate READ inside one of the last MaxReads READs is replayed
//     from its PSN with its own RETH, if that asks for a part of the
//     original (resp_duplicate_read_middle).
//   - Checks run in rxe's order: PSN, opcode sequence, opcode allowed,
//     receive WQE (RNR), length, R_Key and range.
//   - Opcode sequence, opcode not allowed by the QP's access, payload
//     length for the packet's place, WRITE longer or shorter than its RETH,
//     SEND longer than the receive buffer: NAK 0x61 and the QP to the
//     error state (class C); the NAK is the last frame the QP sends, and a
//     receive WQE in use completes with the error and byte_len 0 (as rxe)
//     (resp_opcode_sequence, resp_bad_length).
//   - R_Key unknown, without the right, or range outside the region: NAK
//     0x62 and the QP to the error state; zero-length operations need no
//     key (resp_rkey_violation, resp_out_of_range, resp_zero_length_no_key).
//   - SEND or WRITE with immediate and no receive WQE posted: RNR NAK with
//     the QP's RNR timer code, PSN not advanced; the gap after it stays
//     silent (resp_rnr).
//   - Responses leave in request order, except that a READ replay may
//     restart its READ's job (below); a QP's responder and requester halves
//     take turns on the link; CNPs go before both.
//
// Responder queue, bounded so that hardware holds it in RespDepth(MaxReads)
// = 2*MaxReads + 3 entries (rtl/nic README "Bounded queues"):
//   - ACK coalescing: a positive ACK merges into a positive ACK still
//     waiting at the tail of the queue, which then carries the later PSN
//     and the newer MSN; NAKs, RNR NAKs and READ jobs never merge
//     (resp_ack_coalesce).
//   - One job per READ resource: a duplicate READ restarts the job of its
//     READ still waiting or under way, in its place, or at the tail when
//     the job of an earlier READ waits behind it, so that the responses the
//     requester can use come in PSN order (resp_duplicate_read_restart; rxe
//     resets the resource the same way). A new READ that reuses the
//     resource of a READ whose job still waits drops that job: the
//     requester completed that READ before it could send one more; two
//     positive ACKs left side by side merge (resp_read_resource_recycle).
//   - One NAK waiting: a gap, or a missing receive WQE, while a NAK or RNR
//     NAK of the QP waits makes no second NAK; the packet is dropped
//     silently and the gap stays silent, as the waiting NAK's go-back-N
//     resends it (resp_nak_one_waiting).
//   - So at most MaxReads READ jobs and one NAK, with no two ACKs side by
//     side: RespDepth, reached by resp_queue_bound; the lossy pair runs
//     check every queue's high-water mark against it (TestPairLossyLink,
//     TestPairFaultKinds), and the model panics rather than go past it.
//
// Congestion (package dcqcn holds the arithmetic):
//   - Notification point: a CE-marked packet for a QP makes a CNP (opcode
//     0x81, BECN, DestQP = the remote QP, PSN 0) unless one was sent for
//     that QP less than NodeConfig.CNPInterval cycles ago (cnp_rate_limit).
//   - One CNP per QP waiting: a CE packet for a QP whose CNP still waits to
//     be sent counts in cnp_suppressed, queues nothing and leaves the
//     interval alone, so the CNP queue holds each QP at most once
//     (cnp_one_waiting; the pair runs check the queue).
//   - Reaction point: a CNP cuts the QP's rate (dcqcn.ReactionPoint); while
//     the rate is below line rate every packet but ACKs and NAKs waits
//     until the previous one's bytes have drained at that rate; the rate
//     recovers by timer and byte counter (dcqcn_cut_and_recover).
//
// Flow control (IEEE 802.1Qbb PFC, 802.3 Annex 31B PAUSE; the switch's
// rule, rtl/switch/README.md "PFC"; pause.go):
//   - MAC Control frames (EtherType 0x8808 at offset 12) are consumed, never
//     rx_not_roce: PFC (opcode 0x0101) and PAUSE (0x0001) to
//     01:80:C2:00:00:01 count in PauseCounters and act; other opcodes or
//     destinations count RxMACControl; a frame too short for its opcode's
//     parameters (golden/pfc Decode) is rx_malformed (TestPauseFrames).
//   - A frame decided at D loads, for every priority p it names (PAUSE: all
//     eight), N = ceil(time[p] * 512 / NodeConfig.DataWidth) cycles: p is
//     paused at the Poll calls of D+1 .. D+N; a later frame replaces the
//     timer from its own next cycle, N = 0 (XON) resumes at once
//     (TestPauseRule).
//   - Poll skips a QP whose QPConfig.Priority is paused (responder and
//     requester packets alike) and the CNPs while NodeConfig.CNPPriority is
//     paused; a skipped QP stays pending and keeps its place, the round
//     robin moving on only past the QP that sends; NextEvent wakes it at
//     the pause's end (TestPauseRule; cycle for cycle against the RTL in
//     rtl/nic/tb TestNICPFC).
//   - QPConfig.DSCP, when not 0, replaces NodeConfig.DSCP in the QP's TOS
//     (TestQPDSCP), so that a switch's DSCP map gives the QP's traffic its
//     priority.
//   - QPConfig.VLAN tags the QP's frames (IEEE 802.1Q 9.6): TPID 0x8100,
//     PCP its Priority (CNPs: NodeConfig.CNPPriority), DEI 0, its VID; the
//     rest of the frame 4 bytes later, lengths, checksum and ICRC those of
//     the untagged packet; a received frame may carry one tag
//     (TestQPVLANTag; rtl/nic/tb TestNICVLAN).
//
// Frame checks on receive, each with its counter: not RoCEv2, truncated,
// bad ICRC, bad IPv4 checksum, wrong MAC or IP, TVer or P_Key, not RC,
// unknown QP, QP in error.
package rc
