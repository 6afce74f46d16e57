// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// roce_nic: the RoCEv2 NIC: RC transport for QPS queue pairs behind one MAC and IPv4 address.
//
//   in0 --> nic_rx_parse --record at D--> nic_engine --descriptor t+1--> nic_tx_build --+--> out0
//             |  rx buffer <-- nic_rx_dma (payload -> DMA write)      |  host_go      |
//             +--> out2 (host frames)                                 v               |
//   in1 --> nic_cmd --post at L+1--> nic_engine                   in2 host frame FIFO -+  (mux)
//   in2 --> host frame FIFO (nic_rx_host_fifo) --length at L+1--> nic_engine
//   nic_engine --completions--> nic_cq --> out1          CSR bus <--> nic_csr
//
// Timing constants (rtl/nic/README.md "Timing"; golden/nic/timed.go mirrors
// them: RxLatency, CmdLatency, TxExtra, DMAMaxReads):
//   RX_LATENCY  = 2   a frame whose last beat is taken on in0 at L is decided
//                     (rc.Node.Receive) at D = L + 2
//   CMD_LATENCY = 1   a command record whose last beat is taken on in1 at L is
//                     posted at L + 1; an in2 frame whose last beat is taken at
//                     L may be sent from L + 1
//   TX_LATENCY  = DMA_LATENCY + 4   a frame decided at t has its first beat on
//                     out0 at t + TX_LATENCY, payload or not; its payload read
//                     is requested at t + 1
//   DMA_MAX_READS = 16   payload reads outstanding at most (the transmitter
//                     is free at t only with fewer than 16 outstanding at t+1)
//   Receive DMA writes: in decision order, the first beat of a decision at D
//                     from D + 3 (nic_rx_dma), README "Memory"
//   Completions: made at t, on out1 from t + 2 (engine FIFO, then nic_cq),
//                     one per cycle, in the golden model's order
//   PFC / PAUSE (README "PFC"): a frame decided at D sets, for each priority
//                     p it names, N = ceil(time[p] * 512 / DATA_WIDTH); p is
//                     paused at the transmit decisions of D+1 .. D+N (a frame
//                     already started finishes). A QP of priority p (its
//                     responder and requester alike) and, for CNP_PRIO, the
//                     CNPs are skipped while paused; in2 frames never pause.
//                     paused_cycles counts a cycle late; a running pause
//                     keeps idle low.
//   CSR: nic_csr's rules; counters of the engine count one cycle late (the
//                     events of t are added at the end of t + 1); the
//                     receive-front-end counters at the end of D.
// Order within a cycle: timers, receive decision, command post, QP load,
// transmit decision (host frame first, then CNPs, then QPs round robin).
//
// in0 and in1 are always ready (after cycle 0); in2 is always ready, and a
// frame that does not fit the in2 FIFO (HOST_BUF_BYTES) is dropped without
// a trace in golden (the harness must not send faster than the link).
// out0 must never stall (a MAC does not wait); out1 and out2 may.
//
// CTRL bit 0 (enable) is not looked at: the engine works from reset. CTRL
// bit 1 (DCQCN) and the DCQCN registers go to nic_engine's reaction points
// (rtl/nic/nic_dcqcn_rp.sv, one per QP slot).

module roce_nic #(
    // bits per beat of every port and the DMA port: a multiple of 64, 64 to 512
    parameter int DATA_WIDTH     = 64,
    // byte lanes
    parameter int KEEP_WIDTH     = DATA_WIDTH / 8,
    // QP slots (1..96, the CSR map's room)
    parameter int QPS            = 16,
    // memory regions (1..112)
    parameter int MRS            = 16,
    // send work requests a QP holds (golden QPConfig.SQDepth)
    parameter int SQ_DEPTH       = 32,
    // receive work requests a QP holds (golden QPConfig.RQDepth)
    parameter int RQ_DEPTH       = 32,
    // READs outstanding per QP and READ responder resources
    parameter int MAX_READS      = 4,
    // responder jobs per QP (rc.RespDepth)
    parameter int RESP_DEPTH     = 2 * MAX_READS + 3,
    // receive buffer bytes: KEEP_WIDTH times a power of two
    parameter int RX_BUF_BYTES   = 16384,
    // bytes of frames the host (in2) may have waiting
    parameter int HOST_BUF_BYTES = 16384,
    // the DMA port's read latency L (--dma-read-latency of the model)
    parameter int DMA_LATENCY    = 64,
    localparam int CQ_DEPTH      = 2 * (SQ_DEPTH + RQ_DEPTH),
    localparam int INC_WIDTH     = 8,
    localparam int SLOT_WIDTH    = (QPS > 1) ? $clog2(QPS) : 1,
    localparam int BUF_AW        = $clog2(RX_BUF_BYTES / KEEP_WIDTH),
    localparam int BUF_BAW       = $clog2(RX_BUF_BYTES)
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    // in0: frames from the link
    input  wire logic [DATA_WIDTH-1:0] s_net_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_net_tkeep,
    input  wire logic                  s_net_tvalid,
    output logic                       s_net_tready,
    input  wire logic                  s_net_tlast,
    input  wire logic                  s_net_tuser,
    // in1: command records
    input  wire logic [DATA_WIDTH-1:0] s_cmd_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_cmd_tkeep,
    input  wire logic                  s_cmd_tvalid,
    output logic                       s_cmd_tready,
    input  wire logic                  s_cmd_tlast,
    input  wire logic                  s_cmd_tuser,
    // in2: frames the host OS sends
    input  wire logic [DATA_WIDTH-1:0] s_host_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_host_tkeep,
    input  wire logic                  s_host_tvalid,
    output logic                       s_host_tready,
    input  wire logic                  s_host_tlast,
    input  wire logic                  s_host_tuser,

    // out0: frames to the link
    output logic [DATA_WIDTH-1:0]      m_net_tdata,
    output logic [KEEP_WIDTH-1:0]      m_net_tkeep,
    output logic                       m_net_tvalid,
    input  wire logic                  m_net_tready,
    output logic                       m_net_tlast,
    output logic                       m_net_tuser,
    // out1: completion records
    output logic [DATA_WIDTH-1:0]      m_cq_tdata,
    output logic [KEEP_WIDTH-1:0]      m_cq_tkeep,
    output logic                       m_cq_tvalid,
    input  wire logic                  m_cq_tready,
    output logic                       m_cq_tlast,
    output logic                       m_cq_tuser,
    // out2: received frames for the host OS
    output logic [DATA_WIDTH-1:0]      m_host_tdata,
    output logic [KEEP_WIDTH-1:0]      m_host_tkeep,
    output logic                       m_host_tvalid,
    input  wire logic                  m_host_tready,
    output logic                       m_host_tlast,
    output logic                       m_host_tuser,

    // CSR bus (read latency 1)
    input  wire logic [15:0]           csr_addr,
    input  wire logic [31:0]           csr_wdata,
    input  wire logic                  csr_we,
    input  wire logic                  csr_re,
    output logic      [31:0]           csr_rdata,
    output logic                       csr_rvalid,

    // DMA port (sim/README.md)
    output logic                       dma_rd_req_valid,
    input  wire logic                  dma_rd_req_ready,
    output logic      [63:0]           dma_rd_req_addr,
    output logic      [12:0]           dma_rd_req_len,
    output logic      [7:0]            dma_rd_req_tag,
    input  wire logic [DATA_WIDTH-1:0] dma_rd_resp_data,
    input  wire logic [KEEP_WIDTH-1:0] dma_rd_resp_keep,
    input  wire logic                  dma_rd_resp_valid,
    output logic                       dma_rd_resp_ready,
    input  wire logic                  dma_rd_resp_last,
    input  wire logic [7:0]            dma_rd_resp_tag,
    output logic                       dma_wr_valid,
    input  wire logic                  dma_wr_ready,
    output logic      [63:0]           dma_wr_addr,
    output logic      [DATA_WIDTH-1:0] dma_wr_data,
    output logic      [KEEP_WIDTH-1:0] dma_wr_keep,
    output logic                       dma_wr_last,

    output logic                       idle
);

import nic_pkg::*;   // the descriptor, counter numbers

// in2 frames decided and not yet started on out0: decisions are at least a
// cycle apart and start DMA_LATENCY + 4 cycles later
localparam int HOST_Q = 2 ** $clog2(DMA_LATENCY + 8);
// in2 frames waiting for their decision: each holds a word of the FIFO
localparam int HOST_WAIT = HOST_BUF_BYTES / KEEP_WIDTH;

// ---- nic_csr ----
logic                     ctrl_enable, ctrl_dcqcn;
logic [47:0]              node_mac;
logic [31:0]              node_ip;
logic [5:0]               dscp, cnp_dscp;
logic [31:0]              cnp_interval;
logic [2:0]               cnp_prio;
logic [31:0]              dq_line_rate, dq_min_rate, dq_alpha_period, dq_increase_period, dq_byte_counter;
logic [31:0]              dq_f, dq_r_ai, dq_r_hai;
logic [4:0]               dq_g_shift;
logic [31:0][31:0]        rnr_cycles;
logic [MRS-1:0][63:0]     mr_base, mr_len;
logic [MRS-1:0][31:0]     mr_rkey;
logic [MRS-1:0][1:0]      mr_access;
logic [MRS-1:0]           mr_valid;
logic [QPS-1:0][23:0]     c_qpn, c_rqpn, c_spsn, c_rpsn;
logic [QPS-1:0][47:0]     c_rmac;
logic [QPS-1:0][31:0]     c_rip, c_tmo;
logic [QPS-1:0][3:0]      c_pmtu;
logic [QPS-1:0][2:0]      c_retry, c_rnr;
logic [QPS-1:0][4:0]      c_minrnr;
logic [QPS-1:0][15:0]     c_udp;
logic [QPS-1:0][1:0]      c_acc;
logic [QPS-1:0][22:0]     c_win;
logic [QPS-1:0][7:0]      c_maxrd;
logic [QPS-1:0][2:0]      c_prio;
logic [QPS-1:0][5:0]      c_dscp;
logic [QPS-1:0][12:0]     c_vlan;
logic [QPS-1:0]           qp_load;
logic [QPS-1:0][1:0]      qp_state;
logic [NODE_CNT-1:0][INC_WIDTH-1:0]        node_inc, eng_node_inc;
logic [QPS-1:0][QP_CNT-1:0][INC_WIDTH-1:0] qp_inc;
logic                                      qp_inc_any;   // qp_inc may be non-zero

nic_csr #(
    .QPS(QPS), .MRS(MRS), .DATA_WIDTH(DATA_WIDTH), .MAX_READS(MAX_READS), .INC_WIDTH(INC_WIDTH)
) u_csr (
    .clk(clk), .rst(rst),
    .csr_addr(csr_addr), .csr_wdata(csr_wdata), .csr_we(csr_we), .csr_re(csr_re),
    .csr_rdata(csr_rdata), .csr_rvalid(csr_rvalid),
    .ctrl_enable(ctrl_enable), .ctrl_dcqcn(ctrl_dcqcn), .node_mac(node_mac), .node_ip(node_ip),
    .dscp(dscp), .cnp_dscp(cnp_dscp), .cnp_interval(cnp_interval), .cnp_prio(cnp_prio),
    .dcqcn_line_rate(dq_line_rate), .dcqcn_min_rate(dq_min_rate), .dcqcn_g_shift(dq_g_shift),
    .dcqcn_alpha_period(dq_alpha_period), .dcqcn_increase_period(dq_increase_period),
    .dcqcn_byte_counter(dq_byte_counter), .dcqcn_f(dq_f), .dcqcn_r_ai(dq_r_ai), .dcqcn_r_hai(dq_r_hai),
    .rnr_cycles(rnr_cycles),
    .mr_base(mr_base), .mr_len(mr_len), .mr_rkey(mr_rkey), .mr_access(mr_access), .mr_valid(mr_valid),
    .qp_qpn(c_qpn), .qp_remote_qpn(c_rqpn), .qp_remote_mac(c_rmac), .qp_remote_ip(c_rip),
    .qp_send_psn(c_spsn), .qp_recv_psn(c_rpsn), .qp_pmtu_log2(c_pmtu), .qp_timeout_cycles(c_tmo),
    .qp_retry_cnt(c_retry), .qp_rnr_retry(c_rnr), .qp_min_rnr_timer(c_minrnr), .qp_udp_src(c_udp),
    .qp_access(c_acc), .qp_window(c_win), .qp_max_reads(c_maxrd), .qp_prio(c_prio), .qp_dscp(c_dscp), .qp_vlan(c_vlan),
    .qp_load(qp_load), .qp_state(qp_state),
    .node_cnt_inc(node_inc), .qp_cnt_inc(qp_inc), .qp_cnt_any(qp_inc_any)
);

// ---- receive front end ----
logic                  rec_valid;
logic [3:0]            rec_class;
logic [SLOT_WIDTH-1:0] rec_slot;
logic [7:0]            rec_opcode;
logic [23:0]           rec_dest_qp, rec_psn;
logic                  rec_ack_req, rec_se, rec_mig_req, rec_fecn, rec_becn, rec_ecn_ce;
logic [1:0]            rec_pad;
logic [63:0]           rec_va, rec_atomic_a, rec_atomic_b;
logic [31:0]           rec_rkey, rec_dma_len, rec_imm;
logic [7:0]            rec_syndrome;
logic [23:0]           rec_msn;
logic [15:0]           rec_pay_len;
logic [BUF_BAW-1:0]    rec_pay_addr;
logic                  rec_held, rec_host, rec_host_drop;
logic [16:0]           rec_frame_len;
logic [BUF_AW-1:0]     buf_rd_addr;
logic [DATA_WIDTH-1:0] buf_rd_data;
logic                  buf_release;
logic [15:0]           buf_frames;
logic [BUF_AW:0]       buf_used;
logic st_rc, st_cnp, st_not_roce, st_malformed, st_bad_icrc, st_wrong_address, st_bad_header, st_unknown_qp;
logic st_buffer_full, st_bad_frame, st_host_frames, st_host_overflow, rx_idle;
logic st_pfc, st_pause, st_mac_control;
logic                  pause_load;
logic [7:0]            pause_mask;
logic [7:0][15:0]      pause_quanta;
logic [QPS-1:0]        qp_valid;
logic [QPS*24-1:0]     qp_qpn_flat;

nic_rx_parse #(
    .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .QPS(QPS), .RX_BUF_BYTES(RX_BUF_BYTES)
) u_rx (
    .clk(clk), .rst(rst),
    .s_axis_tdata(s_net_tdata), .s_axis_tkeep(s_net_tkeep), .s_axis_tvalid(s_net_tvalid),
    .s_axis_tready(s_net_tready), .s_axis_tlast(s_net_tlast), .s_axis_tuser(s_net_tuser),
    .m_axis_tdata(m_host_tdata), .m_axis_tkeep(m_host_tkeep), .m_axis_tvalid(m_host_tvalid),
    .m_axis_tready(m_host_tready), .m_axis_tlast(m_host_tlast), .m_axis_tuser(m_host_tuser),
    .node_mac(node_mac), .node_ip(node_ip), .qp_valid(qp_valid), .qp_qpn(qp_qpn_flat),
    .rec_valid(rec_valid), .rec_class(rec_class), .rec_slot(rec_slot), .rec_opcode(rec_opcode),
    .rec_dest_qp(rec_dest_qp), .rec_psn(rec_psn), .rec_ack_req(rec_ack_req), .rec_se(rec_se),
    .rec_mig_req(rec_mig_req), .rec_fecn(rec_fecn), .rec_becn(rec_becn), .rec_pad(rec_pad),
    .rec_ecn_ce(rec_ecn_ce), .rec_va(rec_va), .rec_rkey(rec_rkey), .rec_dma_len(rec_dma_len),
    .rec_syndrome(rec_syndrome), .rec_msn(rec_msn), .rec_imm(rec_imm), .rec_atomic_a(rec_atomic_a),
    .rec_atomic_b(rec_atomic_b), .rec_pay_len(rec_pay_len), .rec_pay_addr(rec_pay_addr),
    .rec_held(rec_held), .rec_frame_len(rec_frame_len), .rec_host(rec_host), .rec_host_drop(rec_host_drop),
    .buf_rd_addr(buf_rd_addr), .buf_rd_data(buf_rd_data), .buf_release(buf_release),
    .buf_frames(buf_frames), .buf_used(buf_used),
    .stat_rc(st_rc), .stat_cnp(st_cnp), .stat_not_roce(st_not_roce), .stat_malformed(st_malformed),
    .stat_bad_icrc(st_bad_icrc), .stat_wrong_address(st_wrong_address), .stat_bad_header(st_bad_header),
    .stat_unknown_qp(st_unknown_qp), .stat_buffer_full(st_buffer_full), .stat_bad_frame(st_bad_frame),
    .stat_host_frames(st_host_frames), .stat_host_overflow(st_host_overflow),
    .stat_pfc(st_pfc), .stat_pause(st_pause), .stat_mac_control(st_mac_control),
    .pause_load(pause_load), .pause_mask(pause_mask), .pause_quanta(pause_quanta),
    .idle(rx_idle)
);

// ---- commands ----
logic        post_valid, post_recv, cmd_bad;
logic [2:0]  post_op;
logic [23:0] post_qpn;
logic [63:0] post_id, post_laddr, post_raddr;
logic [31:0] post_len, post_rkey, post_imm;

nic_cmd #(.DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH)) u_cmd (
    .clk(clk), .rst(rst),
    .s_axis_tdata(s_cmd_tdata), .s_axis_tkeep(s_cmd_tkeep), .s_axis_tvalid(s_cmd_tvalid),
    .s_axis_tready(s_cmd_tready), .s_axis_tlast(s_cmd_tlast), .s_axis_tuser(s_cmd_tuser),
    .post_valid(post_valid), .post_recv(post_recv), .post_op(post_op), .post_qpn(post_qpn),
    .post_id(post_id), .post_laddr(post_laddr), .post_len(post_len), .post_rkey(post_rkey),
    .post_raddr(post_raddr), .post_imm(post_imm), .bad(cmd_bad)
);

// ---- in2: host frames to send ----
logic                  h_first_q;      // the next in2 beat starts a frame
logic [15:0]           h_len_q;        // bytes of the frame so far
logic                  h_fit;
logic                  h_push_q;
logic [15:0]           h_push_len_q;
logic [15:0]           h_len_beat;
logic [DATA_WIDTH-1:0] hf_tdata;
logic [KEEP_WIDTH-1:0] hf_tkeep;
logic                  hf_tvalid, hf_tready, hf_tlast, hf_tuser, hf_empty;

always_comb begin
    s_host_tready = 1'b1;
    // one popcount, not a loop of adds (this runs at every input change)
    h_len_beat    = 16'($countones(s_host_tkeep));
end

nic_rx_host_fifo #(
    .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .DEPTH(HOST_BUF_BYTES / KEEP_WIDTH)
) u_host_tx (
    .clk(clk), .rst(rst),
    .wr_valid(s_host_tvalid), .wr_first(h_first_q), .wr_last(s_host_tlast), .wr_data(s_host_tdata),
    .wr_tkeep(s_host_tkeep), .wr_keep(1'b1), .wr_fit(h_fit),
    .m_axis_tdata(hf_tdata), .m_axis_tkeep(hf_tkeep), .m_axis_tvalid(hf_tvalid), .m_axis_tready(hf_tready),
    .m_axis_tlast(hf_tlast), .m_axis_tuser(hf_tuser), .empty(hf_empty)
);

always_ff @(posedge clk) begin
    h_push_q <= 1'b0;
    if (s_host_tvalid) begin
        h_first_q <= s_host_tlast;
        h_len_q   <= s_host_tlast ? 16'd0 : h_len_q + h_len_beat;
        if (s_host_tlast && h_fit) begin
            h_push_q     <= 1'b1;
            h_push_len_q <= h_len_q + h_len_beat;
        end
    end
    if (rst) begin
        h_first_q <= 1'b1;
        h_len_q   <= '0;
        h_push_q  <= 1'b0;
    end
end

// ---- PFC and PAUSE: the pause timers ----
logic [7:0] paused, paused_inc;
logic       pause_idle;

nic_pause #(.DATA_WIDTH(DATA_WIDTH)) u_pause (
    .clk(clk), .rst(rst),
    .load(pause_load), .mask(pause_mask), .quanta(pause_quanta),
    .paused(paused), .cycles_inc(paused_inc), .idle(pause_idle)
);

// ---- the engine ----
logic                host_go;
nic_pkg::desc_t      tx_desc;
logic                tx_desc_valid, tx_desc_ready;
logic                rxj_valid, rxj_wr;
logic [63:0]         rxj_addr;
logic [15:0]         rxj_len;
logic [BUF_BAW-1:0]  rxj_buf;
logic                cq_valid, cq_recv, cq_has_imm;
logic [2:0]          cq_op;
logic [7:0]          cq_status;
logic [23:0]         cq_qpn;
logic [63:0]         cq_id;
logic [31:0]         cq_bytes, cq_imm;
logic                eng_idle;

nic_engine #(
    .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .QPS(QPS), .MRS(MRS), .SQ_DEPTH(SQ_DEPTH),
    .RQ_DEPTH(RQ_DEPTH), .MAX_READS(MAX_READS), .RESP_DEPTH(RESP_DEPTH), .CQ_DEPTH(CQ_DEPTH),
    .HOST_DEPTH(HOST_WAIT), .DMA_LATENCY(DMA_LATENCY), .BUF_BAW(BUF_BAW), .INC_WIDTH(INC_WIDTH)
) u_engine (
    .clk(clk), .rst(rst),
    .ctrl_dcqcn(ctrl_dcqcn),
    .dq_line_rate(dq_line_rate), .dq_min_rate(dq_min_rate), .dq_g_shift(dq_g_shift),
    .dq_alpha_period(dq_alpha_period), .dq_increase_period(dq_increase_period),
    .dq_byte_counter(dq_byte_counter), .dq_f(dq_f), .dq_r_ai(dq_r_ai), .dq_r_hai(dq_r_hai),
    .node_mac(node_mac), .node_ip(node_ip), .dscp(dscp), .cnp_dscp(cnp_dscp),
    .cnp_interval(cnp_interval), .cnp_prio(cnp_prio), .paused(paused), .rnr_cycles(rnr_cycles),
    .mr_base(mr_base), .mr_len(mr_len), .mr_rkey(mr_rkey), .mr_access(mr_access), .mr_valid(mr_valid),
    .cfg_qpn(c_qpn), .cfg_remote_qpn(c_rqpn), .cfg_remote_mac(c_rmac), .cfg_remote_ip(c_rip),
    .cfg_send_psn(c_spsn), .cfg_recv_psn(c_rpsn), .cfg_pmtu_log2(c_pmtu), .cfg_timeout_cycles(c_tmo),
    .cfg_retry_cnt(c_retry), .cfg_rnr_retry(c_rnr), .cfg_min_rnr_timer(c_minrnr), .cfg_udp_src(c_udp),
    .cfg_access(c_acc), .cfg_window(c_win), .cfg_max_reads(c_maxrd), .cfg_prio(c_prio), .cfg_dscp(c_dscp), .cfg_vlan(c_vlan),
    .qp_load(qp_load), .qp_state(qp_state), .qp_valid(qp_valid), .qp_qpn_flat(qp_qpn_flat),
    .rec_valid(rec_valid), .rec_class(rec_class), .rec_slot(rec_slot), .rec_opcode(rec_opcode),
    .rec_psn(rec_psn), .rec_ack_req(rec_ack_req), .rec_ecn_ce(rec_ecn_ce), .rec_va(rec_va),
    .rec_rkey(rec_rkey), .rec_dma_len(rec_dma_len), .rec_syndrome(rec_syndrome), .rec_imm(rec_imm),
    .rec_pay_len(rec_pay_len), .rec_pay_addr(rec_pay_addr), .rec_held(rec_held),
    .post_valid(post_valid), .post_recv(post_recv), .post_op(post_op), .post_qpn(post_qpn),
    .post_id(post_id), .post_laddr(post_laddr), .post_len(post_len), .post_rkey(post_rkey),
    .post_raddr(post_raddr), .post_imm(post_imm),
    .host_push(h_push_q), .host_push_len(h_push_len_q), .host_go(host_go),
    .tx_desc(tx_desc), .tx_desc_valid(tx_desc_valid),
    .rxj_valid(rxj_valid), .rxj_wr(rxj_wr), .rxj_addr(rxj_addr), .rxj_len(rxj_len), .rxj_buf(rxj_buf),
    .cq_valid(cq_valid), .cq_recv(cq_recv), .cq_op(cq_op), .cq_status(cq_status), .cq_has_imm(cq_has_imm),
    .cq_qpn(cq_qpn), .cq_id(cq_id), .cq_bytes(cq_bytes), .cq_imm(cq_imm),
    .node_cnt_inc(eng_node_inc), .qp_cnt_inc(qp_inc), .qp_cnt_any(qp_inc_any), .idle(eng_idle)
);

// ---- transmit: nic_tx_build, and in2 frames at their slot ----
logic [DATA_WIDTH-1:0] tb_tdata;
logic [KEEP_WIDTH-1:0] tb_tkeep;
logic                  tb_tvalid, tb_tlast, tb_tuser, tb_idle;
logic [31:0]           tb_frames, tb_late, tb_gaps, tb_stall, tb_not_roce;

nic_tx_build #(
    .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .DMA_LATENCY(DMA_LATENCY), .DESC_LATE(1)
) u_tx (
    .clk(clk), .rst(rst),
    .s_desc(tx_desc), .s_desc_valid(tx_desc_valid), .s_desc_ready(tx_desc_ready),
    .m_axis_tdata(tb_tdata), .m_axis_tkeep(tb_tkeep), .m_axis_tvalid(tb_tvalid), .m_axis_tready(m_net_tready),
    .m_axis_tlast(tb_tlast), .m_axis_tuser(tb_tuser),
    .dma_rd_req_valid(dma_rd_req_valid), .dma_rd_req_ready(dma_rd_req_ready), .dma_rd_req_addr(dma_rd_req_addr),
    .dma_rd_req_len(dma_rd_req_len), .dma_rd_req_tag(dma_rd_req_tag), .dma_rd_resp_data(dma_rd_resp_data),
    .dma_rd_resp_keep(dma_rd_resp_keep), .dma_rd_resp_valid(dma_rd_resp_valid),
    .dma_rd_resp_ready(dma_rd_resp_ready), .dma_rd_resp_last(dma_rd_resp_last),
    .dma_rd_resp_tag(dma_rd_resp_tag),
    .stat_frames(tb_frames), .stat_late(tb_late), .stat_gaps(tb_gaps), .stat_mac_stall(tb_stall),
    .stat_not_roce(tb_not_roce), .idle(tb_idle)
);

// in2 frames decided at t (host_go in t+1) leave at t + DMA_LATENCY + 4
logic [63:0] now_q;
logic [63:0] hs_at_q [HOST_Q];
logic [$clog2(HOST_Q):0] hs_wp_q, hs_rp_q;
logic        hs_act_q;
logic        hs_start;

always_comb begin
    hs_start  = !hs_act_q && hs_wp_q != hs_rp_q && hs_at_q[hs_rp_q[$clog2(HOST_Q)-1:0]] == now_q;
    hf_tready = (hs_act_q || hs_start) && m_net_tready;
    if (hs_act_q || hs_start) begin
        m_net_tdata  = hf_tdata;
        m_net_tkeep  = hf_tkeep;
        m_net_tvalid = hf_tvalid;
        m_net_tlast  = hf_tlast;
        m_net_tuser  = 1'b0;
    end else begin
        m_net_tdata  = tb_tdata;
        m_net_tkeep  = tb_tkeep;
        m_net_tvalid = tb_tvalid;
        m_net_tlast  = tb_tlast;
        m_net_tuser  = tb_tuser;
    end
end

always_ff @(posedge clk) begin
    if (host_go) hs_at_q[hs_wp_q[$clog2(HOST_Q)-1:0]] <= now_q + 64'(DMA_LATENCY) + 64'd3;
    if (rst) begin
        now_q    <= '0;
        hs_wp_q  <= '0;
        hs_rp_q  <= '0;
        hs_act_q <= 1'b0;
    end else begin
        now_q <= now_q + 64'd1;
        if (host_go) hs_wp_q <= hs_wp_q + 1'b1;
        if (hf_tready && hf_tvalid) begin
            if (hf_tlast) begin
                hs_act_q <= 1'b0;
                hs_rp_q  <= hs_rp_q + 1'b1;
            end else begin
                hs_act_q <= 1'b1;
            end
        end
    end
end

// ---- receive payload to host memory ----
logic rxd_overflow, rxd_idle;

nic_rx_dma #(
    .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .RX_BUF_BYTES(RX_BUF_BYTES)
) u_rx_dma (
    .clk(clk), .rst(rst),
    .job_valid(rxj_valid), .job_wr(rxj_wr), .job_addr(rxj_addr), .job_len(rxj_len), .job_buf(rxj_buf),
    .buf_rd_addr(buf_rd_addr), .buf_rd_data(buf_rd_data), .buf_release(buf_release),
    .dma_wr_valid(dma_wr_valid), .dma_wr_ready(dma_wr_ready), .dma_wr_addr(dma_wr_addr),
    .dma_wr_data(dma_wr_data), .dma_wr_keep(dma_wr_keep), .dma_wr_last(dma_wr_last),
    .overflow(rxd_overflow), .idle(rxd_idle)
);

// ---- completions ----
logic cq_overflow;

nic_cq #(.DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .DEPTH(CQ_DEPTH)) u_cq (
    .clk(clk), .rst(rst),
    .wr_valid(cq_valid), .wr_recv(cq_recv), .wr_op(cq_op), .wr_status(cq_status), .wr_has_imm(cq_has_imm),
    .wr_qpn(cq_qpn), .wr_id(cq_id), .wr_bytes(cq_bytes), .wr_imm(cq_imm), .overflow(cq_overflow),
    .m_axis_tdata(m_cq_tdata), .m_axis_tkeep(m_cq_tkeep), .m_axis_tvalid(m_cq_tvalid),
    .m_axis_tready(m_cq_tready), .m_axis_tlast(m_cq_tlast), .m_axis_tuser(m_cq_tuser)
);

// ---- node counters: the front end's at D, the engine's a cycle late ----
always_comb begin
    node_inc     = eng_node_inc;
    node_inc[N_RX_NOT_ROCE]      = INC_WIDTH'(st_not_roce);
    node_inc[N_RX_MALFORMED]     = INC_WIDTH'(st_malformed);
    node_inc[N_RX_BAD_ICRC]      = INC_WIDTH'(st_bad_icrc);
    node_inc[N_RX_WRONG_ADDRESS] = INC_WIDTH'(st_wrong_address);
    node_inc[N_RX_BAD_HEADER]    = INC_WIDTH'(st_bad_header);
    node_inc[N_RX_UNKNOWN_QP]    = INC_WIDTH'(st_unknown_qp);
    node_inc[N_CMD_BAD]          = INC_WIDTH'(cmd_bad);
    node_inc[N_CQ_OVERFLOW]      = eng_node_inc[N_CQ_OVERFLOW] + INC_WIDTH'(cq_overflow);
    node_inc[N_HOST_RX_OVERFLOW] = INC_WIDTH'(st_host_overflow);
    node_inc[N_RX_BAD_FRAME]     = INC_WIDTH'(st_bad_frame);
    node_inc[N_RX_BUFFER_FULL]   = INC_WIDTH'(st_buffer_full);
    node_inc[N_RX_PFC]           = INC_WIDTH'(st_pfc);
    node_inc[N_RX_PAUSE]         = INC_WIDTH'(st_pause);
    node_inc[N_RX_MAC_CONTROL]   = INC_WIDTH'(st_mac_control);
    for (int p = 0; p < 8; p++) begin
        node_inc[N_PAUSE_NAMED + p]   = INC_WIDTH'(pause_mask[p]);   // zero unless pause_load
        node_inc[N_PAUSED_CYCLES + p] = INC_WIDTH'(paused_inc[p]);
    end
end

always_comb begin
    idle = rx_idle && eng_idle && pause_idle && tb_idle && rxd_idle && hf_empty && !m_cq_tvalid && hs_wp_q == hs_rp_q &&
           !hs_act_q;
end

// Outputs kept for debug; nothing reads them.
logic unused;
assign unused = ^{ctrl_enable, rec_dest_qp, rec_se, rec_mig_req, rec_fecn,
                  rec_becn, rec_pad, rec_atomic_a, rec_atomic_b, rec_msn, rec_frame_len, rec_host,
                  rec_host_drop, buf_frames, buf_used, st_rc, st_cnp, st_host_frames, tx_desc_ready,
                  tb_frames, tb_late, tb_gaps, tb_stall, tb_not_roce, rxd_overflow, hf_tuser, s_host_tuser};


// ---- Cover points (coverage build only: Verilator --coverage-user; see
// nic_engine's and rtl/nic/README.md, "Cover points") ----
// frames the receive path drops, by reason (node counters, this cycle)
cov_rx_drop_not_roce:      cover property (@(posedge clk) disable iff (rst) node_inc[N_RX_NOT_ROCE] != '0);
cov_rx_drop_malformed:     cover property (@(posedge clk) disable iff (rst) node_inc[N_RX_MALFORMED] != '0);
cov_rx_drop_bad_icrc:      cover property (@(posedge clk) disable iff (rst) node_inc[N_RX_BAD_ICRC] != '0);
cov_rx_drop_wrong_address: cover property (@(posedge clk) disable iff (rst) node_inc[N_RX_WRONG_ADDRESS] != '0);
cov_rx_drop_bad_header:    cover property (@(posedge clk) disable iff (rst) node_inc[N_RX_BAD_HEADER] != '0);
cov_rx_drop_unknown_qp:    cover property (@(posedge clk) disable iff (rst) node_inc[N_RX_UNKNOWN_QP] != '0);
cov_rx_drop_bad_frame:     cover property (@(posedge clk) disable iff (rst) node_inc[N_RX_BAD_FRAME] != '0);
// full queues: the receive buffer, the completion FIFO, the host frame FIFO
cov_rx_buffer_full:        cover property (@(posedge clk) disable iff (rst) node_inc[N_RX_BUFFER_FULL] != '0);
cov_cq_overflow:           cover property (@(posedge clk) disable iff (rst) node_inc[N_CQ_OVERFLOW] != '0);
cov_host_rx_overflow:      cover property (@(posedge clk) disable iff (rst) node_inc[N_HOST_RX_OVERFLOW] != '0);

endmodule

`resetall
