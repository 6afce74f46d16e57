// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// nic_engine: the golden model's rc.Node in one cycle: timers, receive decision, post, transmit decision.
//
// Every rule is golden/rc's (node.go, qp.go, responder.go, requester.go),
// transliterated field for field: each golden function has a task of the
// same name below, so a disagreement with golden is found by reading the two
// side by side. Per QP slot q the engine holds what golden's qp holds
// (rtl/nic/README.md "Microarchitecture"):
//
//   context      copied from nic_csr at qp_load (golden AddQP): QPN, remote
//                QPN/MAC/IP, PMTU, ACK timeout, retry budgets, UDP port,
//                access, window, max reads; the node's MAC, IP and DSCP
//   requester    send-queue ring of SQ_DEPTH WQEs (work request, first PSN,
//                PSN count, started, READ responses received, READ restart
//                PSN), head, count, started, cur, cursor, nextPSN, una,
//                reads, retry/RNR budgets, ACK timer, RNR wait
//   responder    expected PSN, MSN, NAK-sent flag, message in progress,
//                receive ring of RQ_DEPTH WQEs, MAX_READS READ resources, the
//                job queue of RESP_DEPTH entries (removal from the middle)
//   NP           last CNP cycle, CNP waiting flag; the node's CNP queue
//   RP           one nic_dcqcn_rp per slot (g_rp below), SENT_LATE = 1:
//                golden's calls are marked "DCQCN" below (rp.Advance is the
//                instance's own timers, which set pend when they fire; rp.OnCNP
//                and pend on a CNP; sentPaced after a poll; held in qp_poll
//                and Node.Poll's pend rule). This engine knows its transmit
//                decision of t only at the edge that ends t, so the `sent` of
//                t (r_sent_q, with the frame's bytes as sent, padding
//                included) is applied in t+1, before t+1's timers and CNP (the
//                same state sequence); `hold` is read as after t's timers and
//                CNP. Off (line_rate 0: no hold, no tick) unless CTRL bit 1
//                is set and LINE_RATE is not 0, golden's DCQCN.LineRate != 0.
//
// Cycle t (README "Timing", "Same cycle"), computed at the clock edge that
// ends t from the inputs of t (all inputs are sampled then):
//   1. timers due at t fire, QPs in slot order (golden Node.advance);
//   2. the receive decision of t (rec_*, nic_rx_parse's record at D = t);
//   3. the command posted at t (post_*, nic_cmd's post at L+1 = t);
//   4. qp_load: a QP loaded at t (golden AddQP at t, before any traffic);
//   5. the transmit decision when the transmitter is free at t: the oldest
//      waiting host frame (in2), else Poll: the CNP queue, then the QPs
//      round robin from rr with golden's pend flags, responder before
//      requester unless the responder went last.
// Because the work is done at the edge, every output is a register: the
// descriptor of a decision at t is handed to nic_tx_build in t+1
// (nic_tx_build runs with DESC_LATE = 1, so that its frame still leaves at
// t + DMA_LATENCY + 4 and its DMA read is requested at t+1); completions,
// receive-DMA jobs and counter increments of t appear in t+1.
//
// Transmitter free at t (README "Transmit", golden/nic Timed.freeAt): t is
// at least t' + beats(f') for the previous decision (t', f') and fewer than
// 16 payload reads are outstanding at t+1, the read of a decision t' with
// n payload bytes outstanding through t' + DMA_LATENCY + ceil(n/KEEP_WIDTH).
//
// Slots map to golden's QP order: load the QPs in increasing slot order
// (golden appends each AddQP to Node.qps; round robin and timer order are
// then the same).
//
// Structure: one always_ff (cycle) runs the five steps above once per clock
// edge, golden's functions as tasks, on the state itself: the scalars, the
// per-QP fields, the CNP queue, the counts of the host frame and completion
// FIFOs are updated in place with blocking assignments (nothing outside the
// block reads them; v_q and err_q, which others read, are registers the
// cycle works on as v_d and err_d). The memories (SQ and RQ WQE rings, READ
// resources, job queues, the host frame lengths) are written at the end of
// the cycle through write ports (*_we, index, data) in step order, and a
// later step of the same cycle that reads what an earlier one wrote reads
// through a forwarding mux (wqe_now, wtx_now, job_now). The receive
// step, which may shift its QP's job queue, works on a copy of that one
// queue (rjobs). The completion FIFO's entries, which only the cycle reads,
// are written in place as they are pushed. The QP context is written by
// qp_load at the end of the cycle: nothing reads a QP's context in the cycle
// that loads it. This RTL is for simulation first (README "Microarchitecture").
//
// Limits (where golden is wider, the harness keeps within these):
//   - a QP's MAX_READS context field above MAX_READS is taken as MAX_READS
//     (0 as 1); SQ_DEPTH and RQ_DEPTH are golden's QPConfig.SQDepth and
//     RQDepth; configure golden with the same values;
//   - RNR_CYCLES and TIMEOUT_CYCLES must be at least 1 where used: golden
//     calls advance again later in the same cycle, so a timer of 0 cycles
//     would fire there, and here it fires in the next cycle;
//   - a QP is loaded once (a second STATE write of 1 is ignored);
//   - completions wait in a FIFO of CQ_DEPTH records (full: dropped and
//     counted cq_overflow, README "Bounded queues"), then go to nic_cq one
//     per cycle; HOST_DEPTH in2 frames wait at most (roce_nic sizes it to
//     the in2 FIFO).
// Every task is inlined at every call by Verilator: the C++ is large (some MB)
// and takes minutes to compile, once.

module nic_engine #(
    // bits per beat of the data paths
    parameter int DATA_WIDTH  = 64,
    // byte lanes
    parameter int KEEP_WIDTH  = DATA_WIDTH / 8,
    // QP slots
    parameter int QPS         = 16,
    // memory regions
    parameter int MRS         = 16,
    // send work requests a QP holds
    parameter int SQ_DEPTH    = 32,
    // receive work requests a QP holds
    parameter int RQ_DEPTH    = 32,
    // READs outstanding per QP and READ resources
    parameter int MAX_READS   = 4,
    // responder jobs per QP (rc.RespDepth)
    parameter int RESP_DEPTH  = 2 * MAX_READS + 3,
    // completion FIFO records
    parameter int CQ_DEPTH    = 2 * (SQ_DEPTH + RQ_DEPTH),
    // host frames (in2) waiting at most
    parameter int HOST_DEPTH  = 64,
    // the DMA port's read latency L
    parameter int DMA_LATENCY = 64,
    // receive buffer byte address bits (nic_rx_parse BUF_BAW)
    parameter int BUF_BAW     = 14,
    // counter increment width (nic_csr INC_WIDTH)
    parameter int INC_WIDTH   = 8,
    localparam int SLOT_W     = (QPS > 1) ? $clog2(QPS) : 1,
    localparam int NODE_CNT   = nic_pkg::NODE_CNT,
    localparam int QP_CNT     = nic_pkg::QP_CNT
) (
    input  wire logic                                     clk,
    input  wire logic                                     rst,

    // node configuration (nic_csr)
    input  wire logic                                     ctrl_dcqcn,
    // dcqcn.Config from the DCQCN CSRs (0x40..0x60), for nic_dcqcn_rp
    input  wire logic [31:0]                              dq_line_rate,
    input  wire logic [31:0]                              dq_min_rate,
    input  wire logic [4:0]                               dq_g_shift,
    input  wire logic [31:0]                              dq_alpha_period,
    input  wire logic [31:0]                              dq_increase_period,
    input  wire logic [31:0]                              dq_byte_counter,
    input  wire logic [31:0]                              dq_f,
    input  wire logic [31:0]                              dq_r_ai,
    input  wire logic [31:0]                              dq_r_hai,
    input  wire logic [47:0]                              node_mac,
    input  wire logic [31:0]                              node_ip,
    input  wire logic [5:0]                               dscp,
    input  wire logic [5:0]                               cnp_dscp,
    input  wire logic [31:0]                              cnp_interval,
    // PFC (README "PFC"): the priority of CNPs; priority p is paused at
    // this cycle's transmit decision while paused[p] (nic_pause)
    input  wire logic [2:0]                               cnp_prio,
    input  wire logic [7:0]                               paused,
    input  wire logic [31:0][31:0]                        rnr_cycles,
    input  wire logic [MRS-1:0][63:0]                     mr_base,
    input  wire logic [MRS-1:0][63:0]                     mr_len,
    input  wire logic [MRS-1:0][31:0]                     mr_rkey,
    input  wire logic [MRS-1:0][1:0]                      mr_access,
    input  wire logic [MRS-1:0]                           mr_valid,
    // QP contexts (nic_csr), copied at qp_load
    input  wire logic [QPS-1:0][23:0]                     cfg_qpn,
    input  wire logic [QPS-1:0][23:0]                     cfg_remote_qpn,
    input  wire logic [QPS-1:0][47:0]                     cfg_remote_mac,
    input  wire logic [QPS-1:0][31:0]                     cfg_remote_ip,
    input  wire logic [QPS-1:0][23:0]                     cfg_send_psn,
    input  wire logic [QPS-1:0][23:0]                     cfg_recv_psn,
    input  wire logic [QPS-1:0][3:0]                      cfg_pmtu_log2,
    input  wire logic [QPS-1:0][31:0]                     cfg_timeout_cycles,
    input  wire logic [QPS-1:0][2:0]                      cfg_retry_cnt,
    input  wire logic [QPS-1:0][2:0]                      cfg_rnr_retry,
    input  wire logic [QPS-1:0][4:0]                      cfg_min_rnr_timer,
    input  wire logic [QPS-1:0][15:0]                     cfg_udp_src,
    input  wire logic [QPS-1:0][1:0]                      cfg_access,
    input  wire logic [QPS-1:0][22:0]                     cfg_window,
    input  wire logic [QPS-1:0][7:0]                      cfg_max_reads,
    input  wire logic [QPS-1:0][2:0]                      cfg_prio,
    input  wire logic [QPS-1:0][5:0]                      cfg_dscp,
    input  wire logic [QPS-1:0][12:0]                     cfg_vlan,
    input  wire logic [QPS-1:0]                           qp_load,
    output logic      [QPS-1:0][1:0]                      qp_state,
    // the QP table nic_rx_parse looks up (QPs loaded)
    output logic      [QPS-1:0]                           qp_valid,
    output logic      [QPS*24-1:0]                        qp_qpn_flat,

    // the receive decision (nic_rx_parse, cycle D)
    input  wire logic                                     rec_valid,
    input  wire logic [3:0]                               rec_class,
    input  wire logic [SLOT_W-1:0]                        rec_slot,
    input  wire logic [7:0]                               rec_opcode,
    input  wire logic [23:0]                              rec_psn,
    input  wire logic                                     rec_ack_req,
    input  wire logic                                     rec_ecn_ce,
    input  wire logic [63:0]                              rec_va,
    input  wire logic [31:0]                              rec_rkey,
    input  wire logic [31:0]                              rec_dma_len,
    input  wire logic [7:0]                               rec_syndrome,
    input  wire logic [31:0]                              rec_imm,
    input  wire logic [15:0]                              rec_pay_len,
    input  wire logic [BUF_BAW-1:0]                       rec_pay_addr,
    input  wire logic                                     rec_held,

    // the command post (nic_cmd, cycle L+1)
    input  wire logic                                     post_valid,
    input  wire logic                                     post_recv,
    input  wire logic [2:0]                               post_op,
    input  wire logic [23:0]                              post_qpn,
    input  wire logic [63:0]                              post_id,
    input  wire logic [63:0]                              post_laddr,
    input  wire logic [31:0]                              post_len,
    input  wire logic [31:0]                              post_rkey,
    input  wire logic [63:0]                              post_raddr,
    input  wire logic [31:0]                              post_imm,

    // host frames (in2): one more waits from this cycle on, of this length
    input  wire logic                                     host_push,
    input  wire logic [15:0]                              host_push_len,
    // a host frame was decided in the previous cycle: send the oldest
    output logic                                          host_go,

    // the transmit decision of the previous cycle (to nic_tx_build)
    output nic_pkg::desc_t                             tx_desc,
    output logic                                          tx_desc_valid,

    // receive payload jobs, in decision order (to nic_rx_dma): every held
    // frame once; wr: write len bytes from buffer byte buf to host addr
    output logic                                          rxj_valid,
    output logic                                          rxj_wr,
    output logic      [63:0]                              rxj_addr,
    output logic      [15:0]                              rxj_len,
    output logic      [BUF_BAW-1:0]                       rxj_buf,

    // completions, one per cycle (to nic_cq)
    output logic                                          cq_valid,
    output logic                                          cq_recv,
    output logic      [2:0]                               cq_op,
    output logic      [7:0]                               cq_status,
    output logic                                          cq_has_imm,
    output logic      [23:0]                              cq_qpn,
    output logic      [63:0]                              cq_id,
    output logic      [31:0]                              cq_bytes,
    output logic      [31:0]                              cq_imm,

    // counter increments of the previous cycle (nic_csr)
    output logic      [NODE_CNT-1:0][INC_WIDTH-1:0]       node_cnt_inc,
    output logic      [QPS-1:0][QP_CNT-1:0][INC_WIDTH-1:0] qp_cnt_inc,
    // high whenever qp_cnt_inc is not all zero (nic_csr's qp_cnt_any)
    output logic                                          qp_cnt_any,

    // nothing waits: no completion, no job, no timer armed, no work pending
    output logic                                          idle
);

// opcodes, their headers, syndromes, counter numbers (rc.Counter),
// statuses, work request ops, decision classes
import nic_pkg::*;

localparam int ACK_REQ_INTERVAL = 64;         // rc.AckReqInterval
localparam int DMA_MAX_READS = 16;            // sim/dma.h kDmaMaxReads
localparam int RES_W = (MAX_READS > 1) ? $clog2(MAX_READS) : 1;

initial begin
    if (QPS < 1 || QPS > 96 || SQ_DEPTH < 1 || RQ_DEPTH < 1 || MAX_READS < 1 || MAX_READS > 255 ||
        RESP_DEPTH < 2 * MAX_READS + 3 || CQ_DEPTH < 2 || HOST_DEPTH < 1 || INC_WIDTH < 8 ||
        KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("nic_engine: bad parameters (QPS 1..96, depths >= 1, RESP_DEPTH >= 2*MAX_READS+3, INC_WIDTH >= 8)");
        $finish;
    end
end

// ---- state types ----
typedef logic [23:0] psn_t;

// a send WQE as posted (node_post writes it; nothing else changes it)
typedef struct packed {
    logic [63:0] id;
    logic [2:0]  op;
    logic [63:0] laddr;
    logic [31:0] len;
    logic [63:0] raddr;
    logic [31:0] rkey;
    logic [31:0] imm;
    logic [31:0] n;
} wqe_t;

// a send WQE's transmit progress (req_next writes it; a post clears it);
// its READ responses received (got) are a memory of their own, written by
// the receive step
typedef struct packed {
    logic        started;
    psn_t        first;
    psn_t        req_start;
} wtx_t;

typedef struct packed {
    logic [63:0] id;
    logic [63:0] addr;
    logic [31:0] len;
} rwqe_t;

// a READ resource (read_request writes it; its valid and queued flags are
// per-QP state bits, res_valid_q and res_queued_q)
typedef struct packed {
    psn_t        first;
    psn_t        last;
    logic [63:0] va;
    logic [31:0] length;
    logic [31:0] rkey;
} res_t;

typedef struct packed {
    logic        kind;   // 0 ACK/NAK/RNR NAK, 1 READ responses
    logic [7:0]  res;
    psn_t        psn;
    logic [7:0]  syn;
    logic [23:0] msn;
    logic [63:0] va;
    logic [31:0] left;
    logic [31:0] sent;
    logic [31:0] n;
} job_t;

// golden txPacket
typedef struct packed {
    logic [7:0]  op;
    psn_t        psn;
    logic        ack_req;
    logic [63:0] va;
    logic [31:0] rkey;
    logic [31:0] dma_len;
    logic [7:0]  syn;
    logic [23:0] msn;
    logic [31:0] imm;
    logic [63:0] addr;
    logic [12:0] payload;
} pkt_t;

typedef struct packed {
    logic        recv;
    logic [2:0]  op;
    logic [7:0]  status;
    logic        has_imm;
    logic [23:0] qpn;
    logic [63:0] id;
    logic [31:0] bytes;
    logic [31:0] imm;
} comp_t;

// ---- per-QP context (slot q): registers written at qp_load only ----
logic [23:0] qpn_q   [QPS];
logic [23:0] rqpn_q  [QPS];
logic [47:0] rmac_q  [QPS];
logic [31:0] rip_q   [QPS];
logic [47:0] smac_q  [QPS];
logic [31:0] sip_q   [QPS];
logic [7:0]  tos_q   [QPS];
logic [2:0]  prio_q  [QPS];   // the QP's priority (golden QPConfig.Priority)
logic [12:0] vlan_q  [QPS];   // bit 12: its frames are tagged with VID 11:0 (QPConfig.VLAN, VID)
logic [3:0]  pmtu_q  [QPS];   // log2
logic [31:0] ackcyc_q[QPS];
logic [2:0]  retry_q [QPS];
logic [2:0]  rnrr_q  [QPS];
logic [4:0]  minrnr_q[QPS];
logic [15:0] udp_q   [QPS];
logic [1:0]  acc_q   [QPS];
logic [22:0] win_q   [QPS];
logic [31:0] ackev_q [QPS];
logic [7:0]  nres_q  [QPS];   // READ resources in use: min(MaxReads, MAX_READS)

// ---- per-QP state (slot q), updated in place by the cycle ----
// v_q and err_q are registers (qp_state, qp_valid and the reaction points'
// reset read them): the cycle works on v_d and err_d. Bit vectors where a
// cycle tests all QPs at once.
logic [QPS-1:0] v_q, v_d;        // loaded (golden: in Node.qps)
logic [QPS-1:0] err_q, err_d;
// requester
int          r_head_q  [QPS];
int          r_count_q [QPS];
int          r_started_q[QPS];
int          r_cur_q   [QPS];
psn_t        r_cursor_q[QPS];
psn_t        r_next_q  [QPS];
psn_t        r_una_q   [QPS];
int          r_reads_q [QPS];
logic [2:0]  r_retry_left_q[QPS];
logic [2:0]  r_rnr_left_q  [QPS];
logic        r_started_retry_q[QPS];
logic [QPS-1:0] r_timer_on_q;
logic [63:0] r_deadline_q[QPS];
logic [QPS-1:0] r_rnr_wait_q;
logic [63:0] r_rnr_until_q[QPS];
psn_t        r_rnr_psn_q[QPS];
// responder
psn_t        s_epsn_q    [QPS];
logic [23:0] s_msn_q     [QPS];
logic        s_nak_sent_q[QPS];
logic        s_in_send_q [QPS];
logic        s_in_write_q[QPS];
logic        s_taken_q   [QPS];
logic [31:0] s_off_q     [QPS];
logic [63:0] s_wva_q     [QPS];
logic [31:0] s_wleft_q   [QPS];
logic [31:0] s_wlen_q    [QPS];
int          s_rq_head_q [QPS];
int          s_rq_n_q    [QPS];
int          s_res_next_q[QPS];
int          s_job_head_q[QPS];
int          s_job_n_q   [QPS];
logic        res_valid_q [QPS][MAX_READS];
logic        res_queued_q[QPS][MAX_READS];
// NP, poll
logic        last_resp_q  [QPS];
logic        cnp_waiting_q[QPS];
logic        np_sent_q    [QPS];
logic [63:0] np_last_q    [QPS];
logic [QPS-1:0] pend_q;
// DCQCN: the reaction point of each QP (nic_dcqcn_rp, one per slot, below):
// its hold (golden `paced() && now < nextSend`) and timer ticks in the cycle
// itself; the packet decided at t reaches it as `sent` in t+1 (SENT_LATE).
logic        rp_hold  [QPS];
logic [QPS-1:0] rp_tick;      // a DCQCN timer of the QP fired at the start of this cycle

// ---- per-QP memories, written through the ports below ----
wqe_t        sq_q     [QPS][SQ_DEPTH];
wtx_t        sq_tx_q  [QPS][SQ_DEPTH];
logic [31:0] sq_got_q [QPS][SQ_DEPTH];
rwqe_t       rq_q     [QPS][RQ_DEPTH];
res_t        res_q    [QPS][MAX_READS];
job_t        jobs_q   [QPS][RESP_DEPTH];
// ---- node state ----
logic [63:0] now_q;
int          rr_q;
int          cnpq_q [QPS];   // CNP queue, oldest first; a QP at most once
int          cnp_n_q;
logic [63:0] tx_free_q;         // the transmitter is free from this cycle on (spacing)
logic [63:0] reads_end_q [DMA_MAX_READS];
// host frames (in2) waiting: their lengths, written by the always_ff (at
// most one pushed and one taken a cycle)
logic [15:0] host_len_q [HOST_DEPTH];
int          host_head_q, host_n_q;
// completions: a cycle may complete any number of WQEs (an ACK of many, a
// flush), and the oldest leaves the same cycle. The FIFO's storage cq_q is
// written in place by `complete`, at its FIFO position: a push never
// overwrites a waiting entry, and only the cycle reads the FIFO.
comp_t       cq_q [CQ_DEPTH];
int          cq_head_q, cq_n_q;
// counters of this cycle, zero again once registered; inc_dirty says this
// cycle counted something
logic [INC_WIDTH-1:0] inc_node [NODE_CNT];
logic [INC_WIDTH-1:0] inc_qp   [QPS][QP_CNT];
logic                 inc_dirty;

// The tasks and functions below take slot and counter numbers as int (as
// golden's indices) and whole structs of which they read a few fields; the
// memory ports below take their indices as int too. They run in the
// always_ff `cycle` and update its state in place, with blocking assignments
// (BLKSEQ waived down to the end of that block; why there).
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off BLKSEQ */

// ---- the memories' write ports (set by the tasks, applied at the edge) ----
// node_post: a send WQE (sq_we) or a receive WQE (rq_we) at index p_idx of
// slot p_slot
logic        sq_we, rq_we;
int          p_slot, p_idx;
wqe_t        p_wqe;
rwqe_t       p_rwqe;
// the receive step (slot rec_slot): READ responses counted at SQ index
// got_idx; READ resource resw_idx; its job queue, worked on in rjobs (a
// job removed from the middle moves the ones behind it) and written back
// whole
logic        got_we;
int          got_idx;
logic [31:0] got_val;
logic        resw_we;
int          resw_idx;
res_t        resw;
logic        rjobs_we;
job_t        rjobs    [RESP_DEPTH];
// the transmit step: the progress of SQ entry tx_idx of tx_slot; the job
// at pj_idx of pj_slot (a READ response sent)
logic        tx_we;
int          tx_slot, tx_idx;
wtx_t        tx_wdata;
logic        pj_we;
int          pj_slot, pj_idx;
job_t        pj_wdata;


// ---- small helpers ----

// roce PSN.Diff: a - b as a signed 24-bit distance
function automatic int pdiff(input psn_t a, input psn_t b);
    psn_t d;
    d = a - b;
    return int'({{8{d[23]}}, d});
endfunction

function automatic psn_t padd(input psn_t a, input int n);
    return a + psn_t'(n);
endfunction

function automatic logic [31:0] pmtu_bytes(input int q);
    return 32'd1 << pmtu_q[q];
endfunction

// rc npkts
function automatic logic [31:0] npkts(input logic [31:0] length, input int q);
    if (length == 32'd0) return 32'd1;
    return (length + pmtu_bytes(q) - 32'd1) >> pmtu_q[q];
endfunction

// frame bytes of a packet (ICRC included): golden build's n
function automatic int frame_bytes(input logic [7:0] op, input int pay, input logic tag);
    return (tag ? 58 : 54) + int'(tx_ext_len(op)) + pay + ((4 - (pay & 3)) & 3) + 4;
endfunction

function automatic int beats_of(input int bytes);
    return (bytes + KEEP_WIDTH - 1) / KEEP_WIDTH;
endfunction

// the frame's length as it leaves: padded to the Ethernet minimum, as
// nic_tx_build and golden/rc's build pad it (rc.MinFrameLen); golden's
// sentPaced counts these bytes
function automatic int wire_bytes(input logic [7:0] op, input int pay, input logic tag);
    int n;
    n = frame_bytes(op, pay, tag);
    return (n < 60) ? 60 : n;
endfunction

// ---- the cycle's outputs (set by the tasks, registered at the edge) ----
nic_pkg::desc_t     d_desc;
logic                  d_desc_valid;
logic                  d_host_go;
logic                  d_rxj_valid, d_rxj_wr;
logic [63:0]           d_rxj_addr;
logic [15:0]           d_rxj_len;
logic [QPS-1:0]        d_sent;         // the QP's sentPaced of this cycle (vectors:
                                       // one assignment each, not one per QP)
logic [15:0]           d_sent_bytes;
logic                  d_cq_valid;     // the oldest completion leaves (to r_cq)
comp_t                 d_cq;
logic [QPS-1:0]        r_sent_q;       // ... handed to nic_dcqcn_rp in the next cycle
logic [15:0]           r_sent_bytes;
// golden calls the reaction point only when DCQCN.LineRate != 0
logic                  dcqcn_on;
assign dcqcn_on = ctrl_dcqcn && dq_line_rate != 32'd0;

// ---- golden Node.complete ----
// The completion's fields go straight into the FIFO: a comp_t argument
// would be one more wide local per call site, cleared in every cycle.
task automatic complete(input int q, input logic recv, input logic [2:0] op, input logic [7:0] st,
                        input logic [63:0] id, input logic [31:0] bytes, input logic has_imm,
                        input logic [31:0] imm);
    int i;
    if (st == ST_SUCCESS) cnt(q, C_COMP_SUCCESS);
    else                  cnt(q, C_COMP_ERROR);
    if (cq_n_q == CQ_DEPTH) begin
        node_cnt(N_CQ_OVERFLOW);
    end else begin
        i = (cq_head_q + cq_n_q) % CQ_DEPTH;
        cq_q[i].recv = recv; cq_q[i].op = op; cq_q[i].status = st; cq_q[i].has_imm = has_imm; cq_q[i].qpn = qpn_q[q];
        cq_q[i].id = id; cq_q[i].bytes = bytes; cq_q[i].imm = imm;
        cq_n_q = cq_n_q + 1;
    end
endtask

task automatic cnt(input int q, input int c);
    inc_qp[q][c] = inc_qp[q][c] + 1'b1;
    inc_dirty = 1'b1;
endtask

task automatic node_cnt(input int c);
    inc_node[c] = inc_node[c] + 1'b1;
    inc_dirty = 1'b1;
endtask


// ---- the receive payload: which part of the held frame goes where ----
task automatic mem_write(input logic [63:0] addr, input int n);
    d_rxj_wr   = n > 0;
    d_rxj_addr = addr;
    d_rxj_len  = 16'(n);
endtask

// ================= responder (golden responder.go) =================

function automatic int job_idx(input int q, input int k);
    return (s_job_head_q[q] + k) % RESP_DEPTH;
endfunction

// (fields, not a job_t: a wide argument is a wide local per call site)
function automatic logic job_positive(input logic kind, input logic [7:0] syn);
    return kind == 1'b0 && syn[6:5] == 2'b00;
endfunction

task automatic job_merge(input int q, input int k, input psn_t psn, input logic [23:0] msn);
    int i;
    i = job_idx(q, k);
    if (pdiff(psn, rjobs[i].psn) > 0) rjobs[i].psn = psn;
    rjobs[i].msn = msn;
    rjobs_we = 1'b1;
endtask

// job i of QP q := a new job (sent 0), field by field: a job_t argument is
// a wide local per call site
task automatic job_set(input int q, input int i, input logic kind, input logic [7:0] r, input psn_t psn,
                       input logic [7:0] syn, input logic [23:0] msn, input logic [63:0] va,
                       input logic [31:0] left, input logic [31:0] n);
    rjobs[i].kind = kind; rjobs[i].res = r; rjobs[i].psn = psn; rjobs[i].syn = syn;
    rjobs[i].msn = msn; rjobs[i].va = va; rjobs[i].left = left; rjobs[i].sent = 32'd0;
    rjobs[i].n = n;
    rjobs_we = 1'b1;
endtask

task automatic job_push(input int q, input logic kind, input logic [7:0] r, input psn_t psn,
                        input logic [7:0] syn, input logic [23:0] msn, input logic [63:0] va,
                        input logic [31:0] left, input logic [31:0] n);
    if (s_job_n_q[q] == RESP_DEPTH) begin
        $error("nic_engine: responder job queue of QP slot %0d over RESP_DEPTH", q);
    end else begin
        job_set(q, job_idx(q, s_job_n_q[q]), kind, r, psn, syn, msn, va, left, n);
        s_job_n_q[q] = s_job_n_q[q] + 1;
        if (kind) res_queued_q[q][r[RES_W-1:0]] = 1'b1;
    end
endtask

task automatic job_pop(input int q);
    s_job_head_q[q] = (s_job_head_q[q] + 1) % RESP_DEPTH;
    s_job_n_q[q] = s_job_n_q[q] - 1;
endtask

// responder.remove, with the merge it may cause (at most one: two ACKs
// left side by side merge, and the merged one is removed without a
// second merge, as golden's recursion removes a positive ACK)
task automatic job_remove(input int q, input int k0);
    int k;
    psn_t b_psn;
    logic [23:0] b_msn;
    k = k0;
    for (int pass = 0; pass < 2; pass++) begin
        if (rjobs[job_idx(q, k)].kind) res_queued_q[q][rjobs[job_idx(q, k)].res[RES_W-1:0]] = 1'b0;
        for (int i = k; i < s_job_n_q[q] - 1; i++) rjobs[job_idx(q, i)] = rjobs[job_idx(q, i + 1)];
        rjobs_we = 1'b1;
        s_job_n_q[q] = s_job_n_q[q] - 1;
        if (pass == 0 && k > 0 && k < s_job_n_q[q] &&
            job_positive(rjobs[job_idx(q, k - 1)].kind, rjobs[job_idx(q, k - 1)].syn) &&
            job_positive(rjobs[job_idx(q, k)].kind, rjobs[job_idx(q, k)].syn)) begin
            b_psn = rjobs[job_idx(q, k)].psn;
            b_msn = rjobs[job_idx(q, k)].msn;
            job_merge(q, k - 1, b_psn, b_msn);
        end else begin
            break;
        end
    end
endtask

task automatic drop_jobs(input int q);
    for (int i = 0; i < MAX_READS; i++) res_queued_q[q][i] = 1'b0;
    s_job_n_q[q] = 0;
endtask

function automatic int read_job(input int q, input int i);
    if (!res_queued_q[q][i]) return -1;
    for (int k = 0; k < s_job_n_q[q]; k++) begin
        if (rjobs[job_idx(q, k)].kind && int'(rjobs[job_idx(q, k)].res) == i) return k;
    end
    return -1;
endfunction

function automatic logic earlier_read_after(input int q, input int k0, input psn_t first);
    int i;
    for (int k = k0 + 1; k < s_job_n_q[q]; k++) begin
        i = job_idx(q, k);
        if (rjobs[i].kind && pdiff(res_q[q][rjobs[i].res[RES_W-1:0]].first, first) < 0) return 1'b1;
    end
    return 1'b0;
endfunction

function automatic logic nak_waiting(input int q);
    int i;
    for (int k = 0; k < s_job_n_q[q]; k++) begin
        i = job_idx(q, k);
        if (!rjobs[i].kind && !job_positive(rjobs[i].kind, rjobs[i].syn)) return 1'b1;
    end
    return 1'b0;
endfunction

task automatic resp_ack(input int q, input psn_t psn, input logic [7:0] syn);
    if (syn[6:5] == 2'b00 && s_job_n_q[q] > 0 && job_positive(rjobs[job_idx(q, s_job_n_q[q] - 1)].kind,
                                                              rjobs[job_idx(q, s_job_n_q[q] - 1)].syn)) begin
        job_merge(q, s_job_n_q[q] - 1, psn, s_msn_q[q]);
    end else begin
        job_push(q, 1'b0, 8'd0, psn, syn, s_msn_q[q], 64'd0, 32'd0, 32'd0);
    end
endtask

// job i of QP q as the receive step of this cycle left it (the transmit
// step's read)
function automatic job_t job_now(input int q, input int i);
    return (rec_valid && q == int'(rec_slot)) ? rjobs[i] : jobs_q[q][i];
endfunction

// responder.next (the transmit step): the head job, changed in j and written
// back through the pj port
task automatic resp_next(input int q, output pkt_t p);
    int      i;
    logic [31:0] size;
    job_t    j;
    i = s_job_head_q[q];
    j = job_now(q, i);
    p = '0;
    if (!j.kind) begin
        p.op = OP_ACK; p.psn = j.psn; p.syn = j.syn; p.msn = j.msn;
        if (j.syn[6:5] == 2'b00) cnt(q, C_RESP_ACK);
        job_pop(q);
    end else begin
        size = (j.left < pmtu_bytes(q)) ? j.left : pmtu_bytes(q);
        if (j.n == 32'd1)                  p.op = OP_RR_ONLY;
        else if (j.sent == 32'd0)          p.op = OP_RR_FIRST;
        else if (j.sent == j.n - 32'd1)    p.op = OP_RR_LAST;
        else                               p.op = OP_RR_MIDDLE;
        p.psn = padd(j.psn, int'(j.sent));
        p.syn = SYN_ACK; p.msn = j.msn;
        p.addr = j.va; p.payload = 13'(size);
        j.va   = j.va + 64'(size);
        j.left = j.left - size;
        j.sent = j.sent + 32'd1;
        pj_we = 1'b1; pj_slot = q; pj_idx = i; pj_wdata = j;
        cnt(q, C_RESP_READ_RESP);
        if (j.sent == j.n) begin
            res_queued_q[q][j.res[RES_W-1:0]] = 1'b0;
            job_pop(q);
        end
    end
endtask

task automatic resp_flush(input int q);
    logic [63:0] id;
    while (s_rq_n_q[q] > 0) begin
        id = rq_q[q][s_rq_head_q[q]].id;
        s_rq_head_q[q] = (s_rq_head_q[q] + 1) % RQ_DEPTH;
        s_rq_n_q[q] = s_rq_n_q[q] - 1;
        complete(q, 1'b1, 3'd0, ST_FLUSHED, id, 32'd0, 1'b0, 32'd0);
    end
endtask

// rkeyOK
function automatic logic rkey_ok(input logic [63:0] va, input logic [31:0] rkey, input logic [31:0] length,
                                 input logic [1:0] need);
    logic [64:0] e;
    logic [64:0] lim;
    if (length == 32'd0) return 1'b1;
    for (int m = 0; m < MRS; m++) begin
        if (mr_valid[m] && mr_rkey[m] == rkey) begin
            e   = {1'b0, va} + 65'(length);
            lim = {1'b0, mr_base[m]} + {1'b0, mr_len[m]};
            return (mr_access[m] & need) != 2'b00 && va >= mr_base[m] && !e[64] && e <= lim;
        end
    end
    return 1'b0;
endfunction

task automatic class_error(input int q, input logic [7:0] code_syn, input logic [7:0] st, input logic [63:0] now);
    logic [63:0] id;
    if (code_syn == SYN_NAK_ACC) cnt(q, C_RESP_ACCESS);
    else                         cnt(q, C_RESP_INVALID);
    if (s_taken_q[q] && s_rq_n_q[q] > 0) begin
        id = rq_q[q][s_rq_head_q[q]].id;
        s_rq_head_q[q] = (s_rq_head_q[q] + 1) % RQ_DEPTH;
        s_rq_n_q[q] = s_rq_n_q[q] - 1;
        complete(q, 1'b1, 3'd0, st, id, 32'd0, 1'b0, 32'd0);
    end
    to_error(q);
    resp_ack(q, rec_psn, code_syn);
endtask

task automatic accept(input int q, input int psns, input logic eom);
    s_nak_sent_q[q] = 1'b0;
    s_epsn_q[q] = padd(s_epsn_q[q], psns);
    if (eom) s_msn_q[q] = s_msn_q[q] + 24'd1;
    if (rec_ack_req && rec_opcode != OP_READ_REQ) resp_ack(q, rec_psn, SYN_ACK);
endtask

task automatic send_packet(input int q, input logic [63:0] now);
    logic  first, last;
    rwqe_t rr;
    first = rec_opcode == OP_SEND_FIRST || rec_opcode == OP_SEND_ONLY || rec_opcode == OP_SEND_ONLY_IMM;
    last  = rec_opcode != OP_SEND_FIRST && rec_opcode != OP_SEND_MIDDLE;
    if (first) s_off_q[q] = 32'd0;
    rr = rq_q[q][s_rq_head_q[q]];
    if ({1'b0, s_off_q[q]} + 33'(rec_pay_len) > {1'b0, rr.len}) begin
        class_error(q, SYN_NAK_INV, ST_LOC_LEN, now);
        return;
    end
    mem_write(rr.addr + 64'(s_off_q[q]), int'(rec_pay_len));
    s_off_q[q] = s_off_q[q] + 32'(rec_pay_len);
    s_in_send_q[q] = !last;
    if (last) begin
        if (rec_opcode == OP_SEND_LAST_IMM || rec_opcode == OP_SEND_ONLY_IMM)
            complete(q, 1'b1, WR_SEND_IMM, ST_SUCCESS, rr.id, s_off_q[q], 1'b1, rec_imm);
        else
            complete(q, 1'b1, WR_SEND, ST_SUCCESS, rr.id, s_off_q[q], 1'b0, 32'd0);
        s_rq_head_q[q] = (s_rq_head_q[q] + 1) % RQ_DEPTH;
        s_rq_n_q[q] = s_rq_n_q[q] - 1;
    end
    accept(q, 1, last);
endtask

task automatic write_packet(input int q, input logic [63:0] now);
    logic  first, last, imm;
    logic [31:0] size;
    rwqe_t rr;
    first = rec_opcode == OP_WRITE_FIRST || rec_opcode == OP_WRITE_ONLY || rec_opcode == OP_WRITE_ONLY_IMM;
    last  = rec_opcode != OP_WRITE_FIRST && rec_opcode != OP_WRITE_MIDDLE;
    imm   = rec_opcode == OP_WRITE_LAST_IMM || rec_opcode == OP_WRITE_ONLY_IMM;
    if (first) begin
        if (!rkey_ok(rec_va, rec_rkey, rec_dma_len, 2'b01)) begin
            class_error(q, SYN_NAK_ACC, ST_ACCESS_RCVD, now);
            return;
        end
        s_wva_q[q] = rec_va; s_wleft_q[q] = rec_dma_len; s_wlen_q[q] = rec_dma_len;
    end
    size = 32'(rec_pay_len);
    if (size > s_wleft_q[q] || (last && size != s_wleft_q[q])) begin
        class_error(q, SYN_NAK_INV, ST_INV_REQ_RCVD, now);
        return;
    end
    if (size > 0) mem_write(s_wva_q[q], int'(size));
    s_wva_q[q] = s_wva_q[q] + 64'(size);
    s_wleft_q[q] = s_wleft_q[q] - size;
    s_in_write_q[q] = !last;
    if (imm) begin
        rr = rq_q[q][s_rq_head_q[q]];
        s_rq_head_q[q] = (s_rq_head_q[q] + 1) % RQ_DEPTH;
        s_rq_n_q[q] = s_rq_n_q[q] - 1;
        complete(q, 1'b1, WR_WRITE_IMM, ST_SUCCESS, rr.id, s_wlen_q[q], 1'b1, rec_imm);
    end
    accept(q, 1, last);
endtask

task automatic read_request(input int q, input logic [63:0] now);
    logic [31:0] n;
    int i, k;
    if (rec_dma_len > MAX_MESSAGE * 4 || !rkey_ok(rec_va, rec_rkey, rec_dma_len, 2'b10)) begin
        class_error(q, SYN_NAK_ACC, ST_ACCESS_RCVD, now);
        return;
    end
    n = npkts(rec_dma_len, q);
    i = s_res_next_q[q];
    k = read_job(q, i);
    if (k >= 0) job_remove(q, k);
    resw_we = 1'b1; resw_idx = i;
    resw.first = rec_psn; resw.last = padd(rec_psn, int'(n) - 1);
    resw.va = rec_va; resw.length = rec_dma_len; resw.rkey = rec_rkey;
    res_valid_q[q][i] = 1'b1; res_queued_q[q][i] = 1'b0;
    s_res_next_q[q] = (i + 1) % int'(nres_q[q]);
    accept(q, int'(n), 1'b1);
    job_push(q, 1'b1, 8'(i), rec_psn, 8'd0, s_msn_q[q], rec_va, rec_dma_len, n);
endtask

task automatic rnr(input int q);
    s_nak_sent_q[q] = 1'b1;
    if (nak_waiting(q)) begin
        cnt(q, C_RESP_GAP_SILENT);
        return;
    end
    cnt(q, C_RESP_RNR);
    resp_ack(q, rec_psn, {3'b001, minrnr_q[q]});
endtask

function automatic psn_t dup_ack_psn(input int q, input psn_t psn);
    psn_t ack;
    ack = padd(s_epsn_q[q], -1);
    for (int i = 0; i < MAX_READS; i++) begin
        if (i < int'(nres_q[q]) && res_valid_q[q][i] && pdiff(res_q[q][i].first, psn) > 0 &&
            pdiff(res_q[q][i].first, ack) <= 0)
            ack = padd(res_q[q][i].first, -1);
    end
    return ack;
endfunction

task automatic duplicate(input int q);
    logic [31:0] n;
    int k;
    logic [64:0] e1, e2;
    if (rec_opcode != OP_READ_REQ) begin
        cnt(q, C_RESP_DUP);
        resp_ack(q, dup_ack_psn(q, rec_psn), SYN_ACK);
        return;
    end
    for (int i = 0; i < MAX_READS; i++) begin
        if (i >= int'(nres_q[q]) || !res_valid_q[q][i] || pdiff(rec_psn, res_q[q][i].first) < 0 ||
            pdiff(rec_psn, res_q[q][i].last) > 0) continue;
        e1 = {1'b0, rec_va} + 65'(rec_dma_len);
        e2 = {1'b0, res_q[q][i].va} + 65'(res_q[q][i].length);
        if (rec_rkey != res_q[q][i].rkey || rec_va < res_q[q][i].va || e1 > e2) break;
        cnt(q, C_RESP_DUP_READ);
        n = 32'(pdiff(res_q[q][i].last, rec_psn) + 1);
        k = read_job(q, i);
        if (k >= 0 && !earlier_read_after(q, k, res_q[q][i].first)) begin
            job_set(q, job_idx(q, k), 1'b1, 8'(i), rec_psn, 8'd0, s_msn_q[q], rec_va, rec_dma_len, n);
            return;
        end
        if (k >= 0) job_remove(q, k);
        job_push(q, 1'b1, 8'(i), rec_psn, 8'd0, s_msn_q[q], rec_va, rec_dma_len, n);
        return;
    end
    cnt(q, C_RESP_DUP_DROP);
endtask

// qp.request
task automatic request(input int q, input logic [63:0] now);
    int d;
    logic ok, is_write, need_wqe;
    logic [7:0] op;
    int pm, size;
    op = rec_opcode;
    d = pdiff(rec_psn, s_epsn_q[q]);
    if (d > 0) begin
        cnt(q, C_RESP_OOS);
        if (s_nak_sent_q[q] || nak_waiting(q)) begin
            s_nak_sent_q[q] = 1'b1;
            cnt(q, C_RESP_GAP_SILENT);
            return;
        end
        s_nak_sent_q[q] = 1'b1;
        cnt(q, C_RESP_NAK_SEQ);
        resp_ack(q, s_epsn_q[q], SYN_NAK_SEQ);
        return;
    end
    if (d < 0) begin
        duplicate(q);
        return;
    end
    if (s_in_send_q[q])
        ok = op == OP_SEND_MIDDLE || op == OP_SEND_LAST || op == OP_SEND_LAST_IMM;
    else if (s_in_write_q[q])
        ok = op == OP_WRITE_MIDDLE || op == OP_WRITE_LAST || op == OP_WRITE_LAST_IMM;
    else
        ok = op == OP_SEND_FIRST || op == OP_SEND_ONLY || op == OP_SEND_ONLY_IMM || op == OP_WRITE_FIRST ||
             op == OP_WRITE_ONLY || op == OP_WRITE_ONLY_IMM || op == OP_READ_REQ;
    is_write = op >= OP_WRITE_FIRST && op <= OP_WRITE_ONLY_IMM;
    if (!ok || (is_write && !acc_q[q][0]) || (op == OP_READ_REQ && !acc_q[q][1])) begin
        class_error(q, SYN_NAK_INV, ST_INV_REQ_RCVD, now);
        return;
    end
    need_wqe = op == OP_SEND_FIRST || op == OP_SEND_ONLY || op == OP_SEND_ONLY_IMM || op == OP_WRITE_LAST_IMM ||
               op == OP_WRITE_ONLY_IMM;
    if (need_wqe && s_rq_n_q[q] == 0) begin
        rnr(q);
        return;
    end
    s_taken_q[q] = s_in_send_q[q] || need_wqe;
    pm = int'(pmtu_bytes(q));
    size = int'(rec_pay_len);
    case (op)
        OP_SEND_FIRST, OP_SEND_MIDDLE, OP_WRITE_FIRST, OP_WRITE_MIDDLE: ok = size == pm;
        OP_SEND_LAST, OP_SEND_LAST_IMM, OP_WRITE_LAST, OP_WRITE_LAST_IMM: ok = size > 0 && size <= pm;
        default: ok = size <= pm;
    endcase
    if (!ok) begin
        class_error(q, SYN_NAK_INV, ST_INV_REQ_RCVD, now);
        return;
    end
    if (op == OP_READ_REQ) read_request(q, now);
    else if (is_write) write_packet(q, now);
    else send_packet(q, now);
endtask

// ================= requester (golden requester.go) =================

function automatic int sq_idx(input int q, input int off);
    return (r_head_q[q] + off) % SQ_DEPTH;
endfunction

// a WQE's last PSN, whether it holds psn (of its first and n fields: a
// wqe_t argument is a wide local per call site)
function automatic psn_t wqe_last(input psn_t first, input logic [31:0] n);
    return padd(first, int'(n) - 1);
endfunction

function automatic logic wqe_holds(input psn_t first, input logic [31:0] n, input psn_t psn);
    int d;
    d = pdiff(psn, first);
    return d >= 0 && d < int'(n);
endfunction

// SQ entry i of QP q as node_post of this cycle left it (the transmit
// step's reads; the steps before node_post read sq_q and sq_tx_q)
function automatic wqe_t wqe_now(input int q, input int i);
    return (sq_we && q == p_slot && i == p_idx) ? p_wqe : sq_q[q][i];
endfunction

function automatic wtx_t wtx_now(input int q, input int i);
    return (sq_we && q == p_slot && i == p_idx) ? '0 : sq_tx_q[q][i];
endfunction

function automatic logic req_ready(input int q);
    int wi;
    psn_t last;
    wqe_t w;
    wtx_t tx;
    if (r_cur_q[q] >= r_count_q[q]) return 1'b0;
    wi = sq_idx(q, r_cur_q[q]);
    w = wqe_now(q, wi);
    tx = wtx_now(q, wi);
    last = r_cursor_q[q];
    if (!tx.started) begin
        if (w.op == WR_READ && r_reads_q[q] >= int'(nres_q[q])) return 1'b0;
        if (w.op == WR_READ) last = padd(r_next_q[q], int'(w.n) - 1);
    end else if (w.op == WR_READ) begin
        last = wqe_last(tx.first, w.n);
    end
    return pdiff(last, r_una_q[q]) < int'(win_q[q]) || r_cursor_q[q] == r_una_q[q];
endfunction

function automatic logic [7:0] op_for(input logic [2:0] op, input logic first, input logic last);
    logic [7:0] base;
    logic hasimm;
    base = (op == WR_WRITE || op == WR_WRITE_IMM) ? OP_WRITE_FIRST : OP_SEND_FIRST;
    hasimm = op == WR_SEND_IMM || op == WR_WRITE_IMM;
    if (first && last) return base + (hasimm ? 8'h05 : 8'h04);
    if (first) return base;
    if (last) return base + (hasimm ? 8'h03 : 8'h02);
    return base + 8'h01;
endfunction

// (the transmit step: the WQE's progress is changed in tx and written back
// through the tx port)
task automatic req_next(input int q, output pkt_t p, input logic [63:0] now);
    int wi;
    logic retransmit;
    logic [31:0] i, off, pm;
    logic first, last;
    wqe_t w;
    wtx_t tx;
    wi = sq_idx(q, r_cur_q[q]);
    w = wqe_now(q, wi);
    tx = wtx_now(q, wi);
    p = '0;
    if (!tx.started) begin
        tx.first = r_next_q[q];
        tx.started = 1'b1;
        r_started_q[q] = r_started_q[q] + 1;
        if (w.op == WR_READ) r_reads_q[q] = r_reads_q[q] + 1;
    end
    retransmit = pdiff(r_cursor_q[q], r_next_q[q]) < 0;
    i  = 32'(pdiff(r_cursor_q[q], tx.first));
    pm = pmtu_bytes(q);
    off = i << pmtu_q[q];
    p.psn = r_cursor_q[q];
    if (w.op == WR_READ) begin
        p.op = OP_READ_REQ;
        p.ack_req = 1'b1;
        p.va = w.raddr + 64'(off);
        p.rkey = w.rkey;
        p.dma_len = w.len - ((off < w.len) ? off : w.len);
        tx.req_start = r_cursor_q[q];
        r_cursor_q[q] = padd(wqe_last(tx.first, w.n), 1);
    end else begin
        p.payload = 13'((pm < w.len - off) ? pm : w.len - off);
        p.addr = w.laddr + 64'(off);
        first = i == 32'd0;
        last  = i == w.n - 32'd1;
        p.op = op_for(w.op, first, last);
        p.ack_req = last || ((i + 32'd1) % ackev_q[q]) == 32'd0;
        if (first && (w.op == WR_WRITE || w.op == WR_WRITE_IMM)) begin
            p.va = w.raddr; p.rkey = w.rkey; p.dma_len = w.len;
        end
        p.imm = w.imm;
        r_cursor_q[q] = padd(r_cursor_q[q], 1);
    end
    tx_we = 1'b1; tx_slot = q; tx_idx = wi; tx_wdata = tx;
    if (pdiff(r_cursor_q[q], r_next_q[q]) > 0) r_next_q[q] = r_cursor_q[q];
    if (pdiff(r_cursor_q[q], wqe_last(tx.first, w.n)) > 0) r_cur_q[q] = r_cur_q[q] + 1;
    cnt(q, C_TX_PACKETS);
    if (retransmit) cnt(q, C_TX_RETRANSMITS);
    if (!r_timer_on_q[q] && ackcyc_q[q] != 32'd0) begin
        r_timer_on_q[q] = 1'b1;
        r_deadline_q[q] = now + 64'(ackcyc_q[q]);
    end
endtask

task automatic req_pop(input int q);
    if (r_cur_q[q] > 0) r_cur_q[q] = r_cur_q[q] - 1;
    r_head_q[q] = (r_head_q[q] + 1) % SQ_DEPTH;
    r_count_q[q] = r_count_q[q] - 1;
    r_started_q[q] = r_started_q[q] - 1;
endtask

task automatic restart_timer(input int q, input logic [63:0] now);
    r_timer_on_q[q] = ackcyc_q[q] != 32'd0 && r_una_q[q] != r_next_q[q] && !r_rnr_wait_q[q];
    r_deadline_q[q] = now + 64'(ackcyc_q[q]);
endtask

task automatic req_progress(input int q, input logic [63:0] now);
    r_retry_left_q[q] = retry_q[q];
    r_rnr_left_q[q] = rnrr_q[q];
    r_started_retry_q[q] = 1'b0;
    restart_timer(q, now);
endtask

task automatic req_seek(input int q, input psn_t psn);
    r_cursor_q[q] = psn;
    r_cur_q[q] = r_started_q[q];
    for (int i = 0; i < SQ_DEPTH; i++) begin
        if (i < r_started_q[q] && wqe_holds(sq_tx_q[q][sq_idx(q, i)].first, sq_q[q][sq_idx(q, i)].n, psn)) begin
            r_cur_q[q] = i;
            break;
        end
    end
endtask

// ackBefore: progress and gap
task automatic ack_before(input int q, input psn_t limit0, input logic [63:0] now, output logic progress,
                          output logic gap);
    psn_t limit, need;
    int wi;
    limit = limit0;
    gap = 1'b0;
    progress = 1'b0;
    for (int guard = 0; guard < SQ_DEPTH; guard++) begin
        if (r_started_q[q] <= 0) break;
        wi = sq_idx(q, 0);
        if (sq_q[q][wi].op == WR_READ) begin
            need = padd(sq_tx_q[q][wi].first, int'(sq_got_q[q][wi]));
            if (pdiff(need, limit) < 0) begin
                limit = need;
                gap = 1'b1;
            end
            break;
        end
        if (pdiff(wqe_last(sq_tx_q[q][wi].first, sq_q[q][wi].n), limit) >= 0) break;
        complete(q, 1'b0, sq_q[q][wi].op, ST_SUCCESS, sq_q[q][wi].id, sq_q[q][wi].len, 1'b0, 32'd0);
        req_pop(q);
    end
    if (pdiff(limit, r_una_q[q]) > 0) begin
        r_una_q[q] = limit;
        if (pdiff(r_cursor_q[q], r_una_q[q]) < 0) req_seek(q, r_una_q[q]);
        req_progress(q, now);
        progress = 1'b1;
    end
endtask

task automatic req_flush(input int q);
    int wi;
    while (r_count_q[q] > 0) begin
        wi = sq_idx(q, 0);
        complete(q, 1'b0, sq_q[q][wi].op, ST_FLUSHED, sq_q[q][wi].id, 32'd0, 1'b0, 32'd0);
        r_head_q[q] = (r_head_q[q] + 1) % SQ_DEPTH;
        r_count_q[q] = r_count_q[q] - 1;
    end
    r_started_q[q] = 0; r_cur_q[q] = 0; r_reads_q[q] = 0;
    r_timer_on_q[q] = 1'b0; r_rnr_wait_q[q] = 1'b0;
endtask

task automatic to_error(input int q);
    if (err_d[q]) return;
    err_d[q] = 1'b1;
    req_flush(q);
    resp_flush(q);
    drop_jobs(q);
endtask

task automatic qp_fail(input int q, input logic [7:0] st, input logic [63:0] now);
    int wi;
    if (r_count_q[q] > 0) begin
        wi = sq_idx(q, 0);
        complete(q, 1'b0, sq_q[q][wi].op, st, sq_q[q][wi].id, 32'd0, 1'b0, 32'd0);
        if (r_started_q[q] == 0) r_started_q[q] = 1;
        req_pop(q);
    end
    to_error(q);
endtask

task automatic qp_retry(input int q, input psn_t psn, input int why, input logic [63:0] now);
    if (r_retry_left_q[q] == 3'd0) begin
        cnt(q, C_REQ_RETRY_EXCEEDED);
        qp_fail(q, ST_RETRY_EXC, now);
        return;
    end
    r_retry_left_q[q] = r_retry_left_q[q] - 3'd1;
    r_started_retry_q[q] = 1'b1;
    req_seek(q, psn);
    cnt(q, why);
    r_timer_on_q[q] = ackcyc_q[q] != 32'd0;
    r_deadline_q[q] = now + 64'(ackcyc_q[q]);
endtask

task automatic retry_once(input int q, input psn_t psn, input int why, input logic [63:0] now);
    if (r_started_retry_q[q]) begin
        cnt(q, C_REQ_RETRY_IGNORED);
        return;
    end
    qp_retry(q, psn, why, now);
endtask

task automatic on_ack(input int q, input logic [63:0] now);
    logic progress, gap;
    psn_t psn;
    logic [7:0] syn;
    psn = rec_psn;
    syn = rec_syndrome;
    case (syn[6:5])
        2'b00: begin
            if (psn == r_next_q[q]) begin
                cnt(q, C_REQ_BOGUS_ACK);
                return;
            end
            ack_before(q, padd(psn, 1), now, progress, gap);
            if (gap) retry_once(q, r_una_q[q], C_REQ_RETRY_READ_GAP, now);
        end
        2'b01: begin
            ack_before(q, psn, now, progress, gap);
            if (r_rnr_wait_q[q] && psn == r_rnr_psn_q[q]) begin
                cnt(q, C_REQ_RETRY_IGNORED);
                return;
            end
            if (r_una_q[q] != psn) begin
                retry_once(q, r_una_q[q], C_REQ_RETRY_READ_GAP, now);
                return;
            end
            if (r_rnr_left_q[q] == 3'd0) begin
                cnt(q, C_REQ_RNR_EXCEEDED);
                qp_fail(q, ST_RNR_EXC, now);
                return;
            end
            if (rnrr_q[q] != 3'd7) r_rnr_left_q[q] = r_rnr_left_q[q] - 3'd1;
            cnt(q, C_REQ_RNR_WAIT);
            r_rnr_wait_q[q] = 1'b1;
            r_rnr_until_q[q] = now + 64'(rnr_cycles[syn[4:0]]);
            r_rnr_psn_q[q] = psn;
            r_timer_on_q[q] = 1'b0;
            req_seek(q, psn);
        end
        2'b11: begin
            ack_before(q, psn, now, progress, gap);
            case (syn[4:0])
                5'd0: retry_once(q, r_una_q[q], C_REQ_RETRY_NAK, now);
                5'd1: begin cnt(q, C_REQ_REMOTE_ERROR); qp_fail(q, ST_REM_INV, now); end
                5'd2: begin cnt(q, C_REQ_REMOTE_ERROR); qp_fail(q, ST_REM_ACCESS, now); end
                default: begin cnt(q, C_REQ_REMOTE_ERROR); qp_fail(q, ST_REM_OP, now); end
            endcase
        end
        default: cnt(q, C_REQ_BAD_RESP);
    endcase
endtask

// (the receive step: the head WQE's READ responses received are counted in
// got and written through the got port)
task automatic on_read_response(input int q, input logic [63:0] now);
    logic progress, gap, fits, eend, start, has_aeth;
    psn_t psn, need, first;
    int wi, d;
    logic [31:0] off, want, pm, got;
    psn = rec_psn;
    ack_before(q, psn, now, progress, gap);
    if (r_started_q[q] == 0 || sq_q[q][sq_idx(q, 0)].op != WR_READ) begin
        cnt(q, C_REQ_DUP_RESP);
        return;
    end
    wi = sq_idx(q, 0);
    first = sq_tx_q[q][wi].first;
    got = sq_got_q[q][wi];
    need = padd(first, int'(got));
    d = pdiff(psn, need);
    if (d < 0) begin
        cnt(q, C_REQ_DUP_RESP);
        return;
    end
    if (d > 0) begin
        retry_once(q, need, C_REQ_RETRY_READ_GAP, now);
        return;
    end
    pm = pmtu_bytes(q);
    eend  = need == wqe_last(first, sq_q[q][wi].n);
    start = need == first || need == sq_tx_q[q][wi].req_start;
    case (rec_opcode)
        OP_RR_FIRST:  fits = !eend && start;
        OP_RR_MIDDLE: fits = !eend && need != first;
        OP_RR_LAST:   fits = eend && need != first;
        OP_RR_ONLY:   fits = eend && start;
        default:      fits = 1'b0;
    endcase
    off = got << pmtu_q[q];
    want = sq_q[q][wi].len - ((off < sq_q[q][wi].len) ? off : sq_q[q][wi].len);
    if (want > pm) want = pm;
    has_aeth = rec_opcode != OP_RR_MIDDLE;
    if (!fits || 32'(rec_pay_len) != want || (has_aeth && rec_syndrome[6:5] != 2'b00)) begin
        cnt(q, C_REQ_BAD_RESP);
        return;
    end
    if (want > 0) mem_write(sq_q[q][wi].laddr + 64'(off), int'(want));
    got = got + 32'd1;
    got_we = 1'b1; got_idx = wi; got_val = got;
    if (got == sq_q[q][wi].n) begin
        complete(q, 1'b0, WR_READ, ST_SUCCESS, sq_q[q][wi].id, sq_q[q][wi].len, 1'b0, 32'd0);
        r_reads_q[q] = r_reads_q[q] - 1;
        req_pop(q);
    end
    if (pdiff(padd(psn, 1), r_una_q[q]) > 0) begin
        r_una_q[q] = padd(psn, 1);
        if (pdiff(r_cursor_q[q], r_una_q[q]) < 0) req_seek(q, r_una_q[q]);
    end
    req_progress(q, now);
endtask

task automatic response(input int q, input logic [63:0] now);
    psn_t psn;
    psn = rec_psn;
    if (pdiff(psn, r_una_q[q]) < 0) begin
        cnt(q, C_REQ_STALE_ACK);
        return;
    end
    if (pdiff(psn, r_next_q[q]) > 0 || (psn == r_next_q[q] && rec_opcode != OP_ACK)) begin
        cnt(q, C_REQ_BOGUS_ACK);
        return;
    end
    case (rec_opcode)
        OP_ACK: on_ack(q, now);
        OP_RR_FIRST, OP_RR_MIDDLE, OP_RR_LAST, OP_RR_ONLY: on_read_response(q, now);
        default: cnt(q, C_REQ_BAD_RESP);
    endcase
endtask

// ================= node (golden node.go, qp.go) =================

function automatic logic timer_due(input int q, input logic [63:0] now);
    if (!v_d[q] || err_d[q]) return 1'b0;
    return (r_rnr_wait_q[q] && r_rnr_until_q[q] <= now) || (r_timer_on_q[q] && r_deadline_q[q] <= now);
endfunction

task automatic qp_advance(input int q, input logic [63:0] now);
    if (err_d[q]) return;
    if (r_rnr_wait_q[q] && now >= r_rnr_until_q[q]) r_rnr_wait_q[q] = 1'b0;
    if (r_timer_on_q[q] && now >= r_deadline_q[q]) begin
        if (r_una_q[q] == r_next_q[q]) r_timer_on_q[q] = 1'b0;
        else qp_retry(q, r_una_q[q], C_REQ_RETRY_TIMEOUT, now);
    end
endtask

// the descriptor of packet p of QP q (golden build with q.hdr, q.tos)
function automatic nic_pkg::desc_t mkdesc(input int q, input pkt_t p, input logic [7:0] tos, input logic becn);
    nic_pkg::desc_t d;
    d.dst_mac = rmac_q[q]; d.src_mac = smac_q[q]; d.src_ip = sip_q[q]; d.dst_ip = rip_q[q];
    d.udp_sport = udp_q[q]; d.tos = tos; d.opcode = p.op; d.dest_qp = rqpn_q[q]; d.psn = p.psn;
    d.ack_req = p.ack_req; d.becn = becn; d.reth_va = p.va; d.reth_rkey = p.rkey; d.reth_dma_len = p.dma_len;
    d.aeth_syndrome = p.syn; d.aeth_msn = p.msn; d.imm = p.imm; d.pay_addr = p.addr; d.pay_len = p.payload;
    // 802.1Q tag (IEEE 802.1Q 9.6): PCP the QP's priority, or CNP_PRIO for
    // its CNPs (becn marks them); DEI 0; the QP's VID
    d.vlan = vlan_q[q][12];
    d.tci  = {becn ? cnp_prio : prio_q[q], 1'b0, vlan_q[q][11:0]};
    return d;
endfunction

// qp.poll
task automatic qp_poll(input int q, input logic [63:0] now, output logic got, output pkt_t p);
    logic held, resp_ready, req_rdy;
    job_t head;
    got = 1'b0;
    p = '0;
    head = job_now(q, s_job_head_q[q]);
    if (err_d[q]) begin
        if (s_job_n_q[q] > 0 && !head.kind) begin
            resp_next(q, p);
            got = 1'b1;
        end
        return;
    end
    held = rp_hold[q];   // DCQCN: nic_dcqcn_rp's hold (after the timers and the CNP of now)
    resp_ready = s_job_n_q[q] > 0 && !(head.kind && held);
    req_rdy = !r_rnr_wait_q[q] && !held && req_ready(q);
    if (resp_ready && (!req_rdy || !last_resp_q[q])) begin
        resp_next(q, p);
        last_resp_q[q] = 1'b1;
        got = 1'b1;
    end else if (req_rdy) begin
        req_next(q, p, now);
        last_resp_q[q] = 1'b0;
        got = 1'b1;
    end
    // DCQCN: q.sentPaced(frame bytes, now) for every packet but ACK/NAK is
    // the cycle's `sent` (r_sent_q), applied by nic_dcqcn_rp in now + 1
endtask

task automatic node_receive(input logic [63:0] now);
    int q;
    q = int'(rec_slot);
    if (rec_class == CLS_CNP) begin
        cnt(q, C_RX_CNP);
        // DCQCN: rp.OnCNP(now) is nic_dcqcn_rp's cnp input of this cycle
        if (dcqcn_on) pend_q[q] = 1'b1;
        return;
    end
    if (rec_class != CLS_RC) return;
    if (err_d[q]) begin
        cnt(q, C_RX_QP_ERROR);
        return;
    end
    cnt(q, C_RX_PACKETS);
    if (rec_ecn_ce) begin
        cnt(q, C_RX_CE);
        if (!cnp_waiting_q[q] && !(np_sent_q[q] && (now < np_last_q[q] || now - np_last_q[q] < 64'(cnp_interval)))) begin
            np_last_q[q] = now;
            np_sent_q[q] = 1'b1;
            cnp_waiting_q[q] = 1'b1;
            cnpq_q[cnp_n_q] = q;
            cnp_n_q = cnp_n_q + 1;
        end else begin
            cnt(q, C_CNP_SUPPRESSED);
        end
    end
    if (rec_opcode <= OP_READ_REQ || rec_opcode == OP_CMP_SWAP || rec_opcode == OP_FETCH_ADD ||
        rec_opcode == OP_SEND_LAST_INV || rec_opcode == OP_SEND_ONLY_INV)
        request(q, now);
    else
        response(q, now);
    pend_q[q] = 1'b1;
endtask

function automatic int find_qp(input logic [23:0] qpn);
    for (int q = 0; q < QPS; q++) if (v_d[q] && qpn_q[q] == qpn) return q;
    return -1;
endfunction

task automatic node_post(input logic [63:0] now);
    int q;
    wqe_t w;
    rwqe_t r;
    q = find_qp(post_qpn);
    if (q < 0) begin
        node_cnt(N_CMD_REJECTED);
        return;
    end
    if (!post_recv) begin
        if (post_len > MAX_MESSAGE) begin
            node_cnt(N_CMD_REJECTED);
            return;
        end
        pend_q[q] = 1'b1;
        if (err_d[q]) begin
            complete(q, 1'b0, post_op, ST_FLUSHED, post_id, 32'd0, 1'b0, 32'd0);
            return;
        end
        if (r_count_q[q] == SQ_DEPTH) begin
            node_cnt(N_CMD_REJECTED);
            return;
        end
        w = '0;
        w.id = post_id; w.op = post_op; w.laddr = post_laddr; w.len = post_len; w.raddr = post_raddr;
        w.rkey = post_rkey; w.imm = post_imm; w.n = npkts(post_len, q);
        sq_we = 1'b1; p_slot = q; p_idx = sq_idx(q, r_count_q[q]); p_wqe = w;
        r_count_q[q] = r_count_q[q] + 1;
    end else begin
        if (err_d[q]) begin
            complete(q, 1'b1, 3'd0, ST_FLUSHED, post_id, 32'd0, 1'b0, 32'd0);
            return;
        end
        if (s_rq_n_q[q] == RQ_DEPTH) begin
            node_cnt(N_CMD_REJECTED);
            return;
        end
        r.id = post_id; r.addr = post_laddr; r.len = post_len;
        rq_we = 1'b1; p_slot = q; p_idx = (s_rq_head_q[q] + s_rq_n_q[q]) % RQ_DEPTH; p_rwqe = r;
        s_rq_n_q[q] = s_rq_n_q[q] + 1;
    end
endtask

// golden AddQP: newQP, requester.init, responder.init (the context
// registers are loaded by the always_ff, from cfg_*, in the same cycle)
task automatic load_qp(input int q);
    v_d[q] = 1'b1; err_d[q] = 1'b0;
    r_head_q[q] = 0; r_count_q[q] = 0; r_started_q[q] = 0; r_cur_q[q] = 0;
    r_cursor_q[q] = cfg_send_psn[q]; r_next_q[q] = cfg_send_psn[q]; r_una_q[q] = cfg_send_psn[q]; r_reads_q[q] = 0;
    r_retry_left_q[q] = cfg_retry_cnt[q]; r_rnr_left_q[q] = cfg_rnr_retry[q]; r_started_retry_q[q] = 1'b0;
    r_timer_on_q[q] = 1'b0; r_deadline_q[q] = '0; r_rnr_wait_q[q] = 1'b0; r_rnr_until_q[q] = '0; r_rnr_psn_q[q] = '0;
    s_epsn_q[q] = cfg_recv_psn[q]; s_msn_q[q] = '0; s_nak_sent_q[q] = 1'b0; s_in_send_q[q] = 1'b0;
    s_in_write_q[q] = 1'b0; s_taken_q[q] = 1'b0; s_off_q[q] = '0; s_wva_q[q] = '0; s_wleft_q[q] = '0; s_wlen_q[q] = '0;
    s_rq_head_q[q] = 0; s_rq_n_q[q] = 0; s_res_next_q[q] = 0; s_job_head_q[q] = 0; s_job_n_q[q] = 0;
    for (int i = 0; i < MAX_READS; i++) begin
        res_valid_q[q][i] = 1'b0;
        res_queued_q[q][i] = 1'b0;
    end
    last_resp_q[q] = 1'b0; cnp_waiting_q[q] = 1'b0; np_sent_q[q] = 1'b0; np_last_q[q] = '0; pend_q[q] = 1'b0;
endtask

// Node.Poll; the caller checked the transmitter is free
task automatic node_poll(input logic [63:0] now, output logic got, output nic_pkg::desc_t d);
    int q, k;
    pkt_t p;
    logic g;
    got = 1'b0;
    d = '0;
    // a paused priority's CNPs and QPs are skipped (IEEE 802.1Qbb clause 36:
    // the pause acts at transmit decisions): they keep their place and pend,
    // and the round robin moves on only past the QP that sends
    if (cnp_n_q > 0 && !paused[cnp_prio]) begin
        q = cnpq_q[0];
        for (int i = 0; i < QPS - 1; i++) if (i < cnp_n_q - 1) cnpq_q[i] = cnpq_q[i + 1];
        cnp_n_q = cnp_n_q - 1;
        cnp_waiting_q[q] = 1'b0;
        cnt(q, C_TX_CNP);
        p = '0;
        p.op = OP_CNP;
        d = mkdesc(q, p, {cnp_dscp, 2'b00}, 1'b1);
        got = 1'b1;
        return;
    end
    for (int i = 0; i < QPS; i++) begin
        k = (rr_q + i) % QPS;
        if (!pend_q[k]) continue;
        if (paused[prio_q[k]]) continue;
        qp_poll(k, now, g, p);
        if (g) begin
            d = mkdesc(k, p, tos_q[k], 1'b0);
            got = 1'b1;
            rr_q = (k + 1) % QPS;
            return;
        end
        pend_q[k] = rp_hold[k];   // DCQCN: a QP held by its rate limiter stays pending
    end
endtask

// Timed.freeAt == now
function automatic logic tx_free(input logic [63:0] now);
    int live;
    if (now < tx_free_q) return 1'b0;
    live = 0;
    for (int i = 0; i < DMA_MAX_READS; i++) if (reads_end_q[i] >= now + 64'd1) live = live + 1;
    return live < DMA_MAX_READS;
endfunction

task automatic tx_sent(input logic [63:0] now, input int bytes, input int pay);
    logic placed;
    tx_free_q = now + 64'(beats_of(bytes));
    placed = 1'b0;
    if (pay > 0) begin
        for (int i = 0; i < DMA_MAX_READS; i++) begin
            if (!placed && reads_end_q[i] < now + 64'd1) begin
                reads_end_q[i] = now + 64'(DMA_LATENCY) + 64'(beats_of(pay));
                placed = 1'b1;
            end
        end
    end
endtask

/* verilator lint_on UNUSEDSIGNAL */

// context fields a load computes (golden newQP)
function automatic logic [31:0] ack_every(input logic [22:0] window);
    int mr;
    mr = int'(window) / 2;
    if (mr > ACK_REQ_INTERVAL) mr = ACK_REQ_INTERVAL;
    if (mr < 1) mr = 1;
    return 32'(mr);
endfunction

function automatic logic [7:0] reads_in_use(input logic [7:0] max_reads);
    if (max_reads == 8'd0) return 8'd1;
    return (int'(max_reads) > MAX_READS) ? 8'(MAX_READS) : max_reads;
endfunction

// ---- the cycle ----
logic          r_desc_valid;
nic_pkg::desc_t r_desc;
logic          r_host_go;
logic          r_rxj_valid, r_rxj_wr;
logic [63:0]   r_rxj_addr;
logic [15:0]   r_rxj_len;
logic [BUF_BAW-1:0] r_rxj_buf;
comp_t         r_cq;
logic          r_cq_valid;
logic [NODE_CNT-1:0][INC_WIDTH-1:0]       r_node_inc;
logic [QPS-1:0][QP_CNT-1:0][INC_WIDTH-1:0] r_qp_inc;
logic          r_inc_on;      // r_node_inc / r_qp_inc are not all zero
logic          r_idle;

// The cycle: the steps of cycle t in golden's order, each on what the steps
// before it left (header "Cycle t"), run once, at the edge that ends t, on
// the state itself. Blocking assignments (BLKSEQ waived, as in
// rtl/switch/switch_buffer.sv): the state updated in place is read by nothing
// outside this block, so a later step of the cycle sees what an earlier one
// wrote and the next cycle sees what the cycle left, as with a next-state
// copy, without copying every field both ways in every cycle. v_q and err_q,
// which others read, stay registers: the steps work on v_d and err_d.
always_ff @(posedge clk) begin : cycle
    logic [63:0] now;
    logic got;
    nic_pkg::desc_t d;
    logic any, pending;
    int host_head0, host_n0;   // the host frame FIFO at the start of the cycle
    if (rst) begin
        v_q <= '0;
        err_q <= '0;
        pend_q = '0;
        cnp_waiting_q = '{default: 1'b0};
        r_timer_on_q = '0;
        r_rnr_wait_q = '0;
        s_job_n_q = '{default: 0};
        r_count_q = '{default: 0};
        s_rq_n_q = '{default: 0};
        reads_end_q = '{default: '0};
        rr_q = 0; cnp_n_q = 0; host_head_q = 0; host_n_q = 0; cq_head_q = 0; cq_n_q = 0;
        tx_free_q = '0;
        for (int n = 0; n < NODE_CNT; n++) inc_node[n] = '0;
        for (int q = 0; q < QPS; q++) for (int n = 0; n < QP_CNT; n++) inc_qp[q][n] = '0;
        inc_dirty = 1'b0;
        r_inc_on <= 1'b0;
        now_q <= '0;
        r_desc_valid <= 1'b0; r_host_go <= 1'b0; r_rxj_valid <= 1'b0; r_cq_valid <= 1'b0;
        r_node_inc <= '0; r_qp_inc <= '0; r_idle <= 1'b1;
        r_sent_q <= '0;
        r_sent_bytes <= '0;
    end else begin
        now = now_q;
        got = 1'b0;
        any = 1'b0;
        pending = 1'b0;
        v_d = v_q; err_d = err_q;
        host_head0 = host_head_q; host_n0 = host_n_q;
        // memory ports: no write unless a rule below writes (a port's
        // index and data are set with its enable and read only then)
        sq_we = 1'b0; rq_we = 1'b0; got_we = 1'b0; resw_we = 1'b0; rjobs_we = 1'b0; tx_we = 1'b0; pj_we = 1'b0;
        // the receive step's job queue (job_now reads it only then)
        if (rec_valid) rjobs = jobs_q[int'(rec_slot)];
        // the cycle's outputs (the counts start at zero: see the end)
        d_desc_valid = 1'b0;
        d_desc = '0;
        d_host_go = 1'b0;
        d_rxj_valid = 1'b0; d_rxj_wr = 1'b0; d_rxj_addr = '0; d_rxj_len = '0;
        d_sent = '0;
        d_sent_bytes = '0;
        d_cq_valid = 1'b0;

        // 1. timers (Node.advance). rp.Advance(now) is nic_dcqcn_rp's own;
        // a reaction-point timer due also sets pend (golden timerAt), in the
        // error state too. Only a QP with its ACK timer or RNR wait on can be
        // due (timer_due), and qp_advance changes no other QP's pend.
        pend_q = pend_q | rp_tick;
        if ((r_timer_on_q | r_rnr_wait_q) != '0) begin
            for (int q = 0; q < QPS; q++) begin
                if (timer_due(q, now)) begin
                    pend_q[q] = 1'b1;
                    qp_advance(q, now);
                end
            end
        end
        // 2. the receive decision
        if (rec_valid) begin
            d_rxj_valid = rec_held;
            node_receive(now);
        end
        // 3. the command post
        if (post_valid) node_post(now);
        // 4. QP loads (AddQP)
        if (|qp_load) begin
            for (int q = 0; q < QPS; q++) if (qp_load[q] && !v_d[q]) load_qp(q);
        end
        // host frames that may go from now on
        if (host_push) begin
            // its length is written into host_len_q below
            if (host_n_q < HOST_DEPTH) host_n_q = host_n_q + 1;
        end
        // 5. the transmit decision, when there is something to send (Poll
        // does nothing unless a CNP waits or a QP is pending) and the
        // transmitter is free
        pending = cnp_n_q > 0 || pend_q != '0;
        if ((host_n_q > 0 || pending) && tx_free(now)) begin
            if (host_n_q > 0) begin
                d_host_go = 1'b1;
                // the oldest: waiting since before t, else pushed at t
                tx_sent(now, host_n0 > 0 ? int'(host_len_q[host_head_q]) : int'(host_push_len), 0);
                host_head_q = (host_head_q + 1) % HOST_DEPTH;
                host_n_q = host_n_q - 1;
            end else begin
                node_poll(now, got, d);
                if (got) begin
                    d_desc_valid = 1'b1;
                    d_desc = d;
                    tx_sent(now, frame_bytes(d.opcode, int'(d.pay_len), d.vlan), int'(d.pay_len));
                    // qp.poll's sentPaced: every packet of a QP but ACK/NAK
                    // (a CNP is the node's), with the frame's length as sent
                    if (dcqcn_on && d.opcode != OP_CNP && d.opcode != OP_ACK) begin
                        d_sent[(rr_q + QPS - 1) % QPS] = 1'b1;
                        d_sent_bytes = 16'(wire_bytes(d.opcode, int'(d.pay_len), d.vlan));
                    end
                end
            end
        end
        // the oldest completion leaves (pushed before t or at t: complete
        // writes cq_q in place, never over a waiting entry)
        if (cq_n_q > 0) begin
            d_cq_valid = 1'b1;
            d_cq = cq_q[cq_head_q];
            cq_head_q = (cq_head_q + 1) % CQ_DEPTH;
            cq_n_q = cq_n_q - 1;
        end
        // A DCQCN timer alone keeps no QP busy: it only changes the rate of
        // packets yet to send, and a QP held by its rate limiter is pending
        // (above). Counting it kept a NIC busy for the ~12 M cycles alpha
        // takes to decay after a CNP (1,400 periods of 55 us at g = 1/256),
        // so runs stalled with all their work done.
        any = cq_n_q > 0 || cnp_n_q > 0 || host_n_q > 0 || now < tx_free_q ||
              (v_d & (pend_q | d_sent | (~err_d & (r_timer_on_q | r_rnr_wait_q)))) != '0;

        // ---- registers: v_q, err_q, the memories, the outputs ----
        v_q <= v_d; err_q <= err_d;
        if (host_push && host_n0 < HOST_DEPTH) host_len_q[(host_head0 + host_n0) % HOST_DEPTH] <= host_push_len;
        // the context of a QP loaded this cycle (golden newQP): written
        // after every read of this cycle, so blocking writes (no delayed-write
        // flags to clear and test in every cycle) but for qpn_q, which the QP
        // table reads
        for (int q = 0; q < QPS; q++) begin
            if (qp_load[q] && !v_q[q]) begin
                qpn_q[q] <= cfg_qpn[q]; rqpn_q[q] = cfg_remote_qpn[q]; rmac_q[q] = cfg_remote_mac[q];
                rip_q[q] = cfg_remote_ip[q]; smac_q[q] = node_mac; sip_q[q] = node_ip;
                // the QP's own DSCP, else the node's (golden newQP)
                tos_q[q] = {cfg_dscp[q] != 6'd0 ? cfg_dscp[q] : dscp, 2'b10}; prio_q[q] = cfg_prio[q]; vlan_q[q] = cfg_vlan[q];
                pmtu_q[q] = cfg_pmtu_log2[q]; ackcyc_q[q] = cfg_timeout_cycles[q];
                retry_q[q] = cfg_retry_cnt[q]; rnrr_q[q] = cfg_rnr_retry[q]; minrnr_q[q] = cfg_min_rnr_timer[q];
                udp_q[q] = cfg_udp_src[q]; acc_q[q] = cfg_access[q]; win_q[q] = cfg_window[q];
                ackev_q[q] = ack_every(cfg_window[q]); nres_q[q] = reads_in_use(cfg_max_reads[q]);
            end
        end
        // the memories, in step order (a later step's write to the same
        // entry wins): receive, post, transmit
        if (got_we) sq_got_q[int'(rec_slot)][got_idx] <= got_val;
        if (resw_we) res_q[int'(rec_slot)][resw_idx] <= resw;
        if (rjobs_we) begin
            for (int i = 0; i < RESP_DEPTH; i++) jobs_q[int'(rec_slot)][i] <= rjobs[i];
        end
        if (sq_we) begin
            sq_q[p_slot][p_idx] <= p_wqe;
            sq_tx_q[p_slot][p_idx] <= '0;
            sq_got_q[p_slot][p_idx] <= '0;
        end
        if (rq_we) rq_q[p_slot][p_idx] <= p_rwqe;
        if (tx_we) sq_tx_q[tx_slot][tx_idx] <= tx_wdata;
        if (pj_we) jobs_q[pj_slot][pj_idx] <= pj_wdata;
        // outputs of this cycle, registered
        now_q        <= now_q + 64'd1;
        r_desc_valid <= d_desc_valid;
        r_desc       <= d_desc;
        r_host_go    <= d_host_go;
        r_rxj_valid  <= d_rxj_valid;
        r_rxj_wr     <= d_rxj_wr;
        r_rxj_addr   <= d_rxj_addr;
        r_rxj_len    <= d_rxj_len;
        r_rxj_buf    <= rec_pay_addr;
        r_sent_q     <= d_sent;
        r_sent_bytes <= d_sent_bytes;
        r_cq_valid   <= d_cq_valid;
        if (d_cq_valid) r_cq <= d_cq;
        // the counts of this cycle, then zero again for the next one (only
        // when something was counted: most cycles count nothing)
        if (inc_dirty) begin
            for (int n = 0; n < NODE_CNT; n++) r_node_inc[n] <= inc_node[n];
            for (int q = 0; q < QPS; q++) for (int n = 0; n < QP_CNT; n++) r_qp_inc[q][n] <= inc_qp[q][n];
            r_inc_on <= 1'b1;
            for (int n = 0; n < NODE_CNT; n++) inc_node[n] = '0;
            for (int q = 0; q < QPS; q++) for (int n = 0; n < QP_CNT; n++) inc_qp[q][n] = '0;
            inc_dirty = 1'b0;
        end else if (r_inc_on) begin
            r_node_inc <= '0;
            r_qp_inc <= '0;
            r_inc_on <= 1'b0;
        end
        r_idle <= !any;
    end
end
/* verilator lint_on BLKSEQ */

always_comb begin
    tx_desc_valid = r_desc_valid;
    tx_desc       = r_desc;
    host_go       = r_host_go;
    rxj_valid     = r_rxj_valid;
    rxj_wr        = r_rxj_wr;
    rxj_addr      = r_rxj_addr;
    rxj_len       = r_rxj_len;
    rxj_buf       = r_rxj_buf;
    cq_valid      = r_cq_valid;
    cq_recv       = r_cq.recv;
    cq_op         = r_cq.op;
    cq_status     = r_cq.status;
    cq_has_imm    = r_cq.has_imm;
    cq_qpn        = r_cq.qpn;
    cq_id         = r_cq.id;
    cq_bytes      = r_cq.bytes;
    cq_imm        = r_cq.imm;
    node_cnt_inc  = r_node_inc;
    qp_cnt_inc    = r_qp_inc;
    qp_cnt_any    = r_inc_on;
    idle          = r_idle;
    for (int q = 0; q < QPS; q++) begin
        qp_state[q] = !v_q[q] ? 2'd0 : err_q[q] ? 2'd2 : 2'd1;
        qp_valid[q] = v_q[q];
        qp_qpn_flat[24*q +: 24] = qpn_q[q];
    end
end

// ---- DCQCN: one reaction point per QP slot ----
// Golden calls the reaction point only while DCQCN.LineRate is not 0
// (golden/nic NodeConfigWrites sets CTRL bit 1 exactly then): with CTRL bit
// 1 clear, line_rate is 0 and the reaction points do nothing (hold, ticks 0).
for (genvar q = 0; q < QPS; q++) begin : g_rp
    // The outputs the engine does not read are untraced, so that the
    // simulator drops them rather than compute them for every slot in
    // every cycle (a traced signal is kept, read or not).
    /* verilator tracing_off */
    /* verilator lint_off UNUSEDSIGNAL */
    logic        paced_u, timer_valid;
    logic [31:0] rate_u, target_u, t_u, bc_u, timer_in_u;
    logic [16:0] alpha_u;
    logic        active_u;
    logic [31:0] pace_u;
    /* verilator lint_on UNUSEDSIGNAL */
    /* verilator tracing_on */
    logic        alpha_tick, inc_tick;
    nic_dcqcn_rp #(
        .BYTES_WIDTH(16), .BC_EVENTS(4), .SENT_LATE(1)
    ) u_rp (
        .clk(clk), .rst(rst),
        .line_rate(dcqcn_on ? dq_line_rate : 32'd0), .min_rate(dq_min_rate), .g_shift(dq_g_shift),
        .alpha_period(dq_alpha_period), .increase_period(dq_increase_period),
        .byte_counter(dq_byte_counter), .f_steps(dq_f), .r_ai(dq_r_ai), .r_hai(dq_r_hai),
        // golden newQP: Reset at AddQP (the load this cycle)
        .reset_rp(qp_load[q] && !v_q[q]),
        // Node.Receive of a CNP for this QP, decided this cycle
        .cnp(rec_valid && rec_class == CLS_CNP && int'(rec_slot) == q),
        // the packet decided in the previous cycle (SENT_LATE = 1)
        .sent(r_sent_q[q]), .sent_bytes(r_sent_bytes),
        .paced(paced_u), .hold(rp_hold[q]), .rate(rate_u), .target(target_u), .alpha(alpha_u),
        .t_count(t_u), .bc_count(bc_u), .active(active_u), .pace_cycles(pace_u),
        .timer_valid(timer_valid), .timer_in(timer_in_u), .alpha_tick(alpha_tick), .inc_tick(inc_tick)
    );
    assign rp_tick[q] = alpha_tick || inc_tick;
end

// ---- Cover points ----
// Counted only by the coverage build (sim/build.mk models-coverage, Verilator
// --coverage-user); every other build drops them, and with them the logic
// below that only they read. One per event a regression must make the NIC
// do, named so that the report reads as a checklist (rtl/nic/README.md,
// "Cover points"). They watch the registered outputs of the cycle before
// (the packet decided, the counter increments) and the receive decision of
// this cycle. No functions in the properties: Verilator 5.006 orders a
// function's result after the property that reads it, which never holds.
// Untraced, so that a build without coverage drops the signals as unused.
/* verilator tracing_off */
logic [QP_CNT-1:0] cov_qp;  // some QP counted counter n in the previous cycle (rc.Counter)
logic [7:0]        cov_tx;  // the syndrome of a NAK or ACK sent in the previous cycle, else 0
logic [7:0]        cov_rx;  // the syndrome of an ACK-class response decided this cycle, else 0
always_comb begin : cov_signals
    cov_qp = '0;
    for (int q = 0; q < QPS; q++) begin
        for (int n = 0; n < QP_CNT; n++) cov_qp[n] = cov_qp[n] || r_qp_inc[q][n] != '0;
    end
    cov_tx = (r_desc_valid && r_desc.opcode == OP_ACK) ? r_desc.aeth_syndrome : 8'd0;
    cov_rx = (rec_valid && rec_class == CLS_RC && rec_opcode == OP_ACK) ? rec_syndrome : 8'd0;
end

// NAKs sent (the responder). The NIC never sends NAK 0x63 (remote
// operational error), nor does golden/rc's responder.
cov_nak_seq_sent:           cover property (@(posedge clk) disable iff (rst) cov_tx == SYN_NAK_SEQ);
cov_nak_rnr_sent:           cover property (@(posedge clk) disable iff (rst) cov_tx[6:5] == SYN_KIND_RNR);
cov_nak_invalid_sent:       cover property (@(posedge clk) disable iff (rst) cov_tx == SYN_NAK_INV);
cov_nak_access_sent:        cover property (@(posedge clk) disable iff (rst) cov_tx == SYN_NAK_ACC);
// NAKs received (the requester)
cov_nak_seq_received:       cover property (@(posedge clk) disable iff (rst) cov_rx == SYN_NAK_SEQ);
cov_nak_rnr_received:       cover property (@(posedge clk) disable iff (rst) cov_rx[6:5] == SYN_KIND_RNR);
cov_nak_invalid_received:   cover property (@(posedge clk) disable iff (rst) cov_rx == SYN_NAK_INV);
cov_nak_access_received:    cover property (@(posedge clk) disable iff (rst) cov_rx == SYN_NAK_ACC);
cov_nak_remote_op_received: cover property (@(posedge clk) disable iff (rst) cov_rx == 8'h63);
// retries by cause, RNR waits, budgets exhausted
cov_retry_timeout:          cover property (@(posedge clk) disable iff (rst) cov_qp[C_REQ_RETRY_TIMEOUT]);
cov_retry_nak_seq:          cover property (@(posedge clk) disable iff (rst) cov_qp[C_REQ_RETRY_NAK]);
cov_retry_read_gap:         cover property (@(posedge clk) disable iff (rst) cov_qp[C_REQ_RETRY_READ_GAP]);
cov_rnr_wait:               cover property (@(posedge clk) disable iff (rst) cov_qp[C_REQ_RNR_WAIT]);
cov_retry_exceeded:         cover property (@(posedge clk) disable iff (rst) cov_qp[C_REQ_RETRY_EXCEEDED]);
cov_rnr_exceeded:           cover property (@(posedge clk) disable iff (rst) cov_qp[C_REQ_RNR_EXCEEDED]);
// the responder's silent drops and duplicates
cov_resp_gap_silent:        cover property (@(posedge clk) disable iff (rst) cov_qp[C_RESP_GAP_SILENT]);
cov_resp_duplicate:         cover property (@(posedge clk) disable iff (rst) cov_qp[C_RESP_DUP]);
cov_resp_duplicate_read:    cover property (@(posedge clk) disable iff (rst) cov_qp[C_RESP_DUP_READ]);
// congestion: CE received, CNP sent, suppressed and received
cov_ecn_ce_received:        cover property (@(posedge clk) disable iff (rst) cov_qp[C_RX_CE]);
cov_cnp_sent:               cover property (@(posedge clk) disable iff (rst) cov_qp[C_TX_CNP]);
cov_cnp_suppressed:         cover property (@(posedge clk) disable iff (rst) cov_qp[C_CNP_SUPPRESSED]);
cov_cnp_received:           cover property (@(posedge clk) disable iff (rst) cov_qp[C_RX_CNP]);
// (the receive drops and full queues are covered in roce_nic, where the
// front end's counts meet the engine's)
/* verilator tracing_on */

endmodule

`resetall
