// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_csr_top: a test top for nic_csr (the NIC's register block). The CSR
// bus goes straight to nic_csr; the engine's side of the block is driven
// from in0 and made visible on out0 and out1, so that the harness can check
// every input and output cycle by cycle:
//
//   in0 (records) --> accumulate --(cycle after the last beat)--> counter
//                                                                 increments,
//                                                                 qp_state,
//                                                                 snapshot
//   csr_* <--> nic_csr --> qp_load --> out0 (one report per load cycle)
//                      --> every configuration output --> out1 (snapshots)
//
// in0: frames of 8-byte records, one per beat (DATA_WIDTH 64), little-
// endian:
//   0     kind: 1 node counter increment, 2 QP counter increment,
//         3 QP state, 4 snapshot request
//   1     counter n (kind 1: 0..30; kind 2: rc.Counter 0..38)
//   2     QP q (kinds 2 and 3)
//   3     0
//   4..7  kind 1, 2: amount (bits INC_WIDTH-1:0 are used); kind 3: state
//         (bits 1:0)
// All records of a frame whose last beat is taken in cycle L act in cycle
// A = L+1: the amounts (summed per counter, modulo 2^INC_WIDTH) are on
// node_cnt_inc / qp_cnt_inc for cycle A only; qp_state holds the new states
// from A on (the last record of a frame for a QP wins); a snapshot takes
// the outputs as they are during A. Anything else in a record is an $error.
//
// out0: one 8-byte frame for each cycle P in which qp_load is not zero,
// first beat offered at P+1: bytes 0..1 qp_load, bytes 2..7 P.
//
// out1: one snapshot frame per request, first beat offered at A+1, 32-bit
// little-endian words: 0..1 the cycle A; then the outputs laid out as the
// registers read back: 2 CTRL, 3 MAC_LO, 4 MAC_HI, 5 IP, 6 DSCP,
// 7 CNP_INTERVAL, 8..16 the DCQCN registers (0x0040..0x0060),
// 17..48 RNR_CYCLES[0..31], then 7 words per MR (BASE_LO .. VALID), then 14
// per QP (QPN .. MAX_READS, offsets 0x00..0x34). A request while the
// previous snapshot is still leaving is an $error; so is a load report that
// finds the previous one not taken. The harness runs this top without sink
// stalls.

module nic_csr_top #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // QP contexts (at most 16: out0 carries qp_load in 16 bits).
    parameter int QPS        = 16,
    parameter int MRS        = 16,
    parameter int MAX_READS  = 4,
    parameter int INC_WIDTH  = 8
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire logic [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]   s_axis_tkeep,
    input  wire logic [0:0]              s_axis_tvalid,
    output logic      [0:0]              s_axis_tready,
    input  wire logic [0:0]              s_axis_tlast,
    input  wire logic [0:0]              s_axis_tuser,

    output logic [2*DATA_WIDTH-1:0]      m_axis_tdata,
    output logic [2*KEEP_WIDTH-1:0]      m_axis_tkeep,
    output logic [1:0]                   m_axis_tvalid,
    input  wire logic [1:0]              m_axis_tready,
    output logic [1:0]                   m_axis_tlast,
    output logic [1:0]                   m_axis_tuser,

    input  wire logic [15:0]             csr_addr,
    input  wire logic [31:0]             csr_wdata,
    input  wire logic                    csr_we,
    input  wire logic                    csr_re,
    output logic      [31:0]             csr_rdata,
    output logic                         csr_rvalid
);

    // nic_csr's counter numbering
    localparam int NODE_CNT   = nic_pkg::NODE_CNT;
    localparam int QP_CNT     = nic_pkg::QP_CNT;
    localparam int SNAP_WORDS = 2 + 6 + 9 + 32 + 7 * MRS + 14 * QPS;
    localparam int SNAP_BEATS = (SNAP_WORDS + 1) / 2;
    localparam int SB_W       = $clog2(SNAP_BEATS + 1);
    localparam int W_MR       = 49;
    localparam int W_QP       = 49 + 7 * MRS;
    localparam logic [7:0] LAST_KEEP = (SNAP_WORDS % 2 == 1) ? 8'h0F : 8'hFF;

    initial begin
        if (DATA_WIDTH != 64 || KEEP_WIDTH != 8 || QPS < 1 || QPS > 16) begin
            $error("nic_csr_top: DATA_WIDTH must be 64 and QPS 1..16");
            $finish;
        end
    end

    // ---- nic_csr ----

    logic                                     ctrl_enable, ctrl_dcqcn;
    logic [47:0]                              node_mac;
    logic [31:0]                              node_ip, cnp_interval;
    logic [5:0]                               dscp, cnp_dscp;
    logic [31:0]                              line_rate, min_rate, alpha_period, increase_period;
    logic [31:0]                              byte_counter, f_steps, r_ai, r_hai;
    logic [4:0]                               g_shift;
    logic [31:0][31:0]                        rnr_cycles;
    logic [MRS-1:0][63:0]                     mr_base, mr_len;
    logic [MRS-1:0][31:0]                     mr_rkey;
    logic [MRS-1:0][1:0]                      mr_access;
    logic [MRS-1:0]                           mr_valid;
    logic [QPS-1:0][23:0]                     qp_qpn, qp_remote_qpn, qp_send_psn, qp_recv_psn;
    logic [QPS-1:0][47:0]                     qp_remote_mac;
    logic [QPS-1:0][31:0]                     qp_remote_ip, qp_timeout_cycles;
    logic [QPS-1:0][3:0]                      qp_pmtu_log2;
    logic [QPS-1:0][2:0]                      qp_retry_cnt, qp_rnr_retry;
    logic [QPS-1:0][4:0]                      qp_min_rnr_timer;
    logic [QPS-1:0][15:0]                     qp_udp_src;
    logic [QPS-1:0][1:0]                      qp_access;
    logic [QPS-1:0][22:0]                     qp_window;
    logic [QPS-1:0][7:0]                      qp_max_reads;
    logic [2:0]                               cnp_prio;
    logic [QPS-1:0][2:0]                      qp_prio;
    logic [QPS-1:0][5:0]                      qp_dscp;
    logic [QPS-1:0][12:0]                     qp_vlan;
    logic [QPS-1:0]                           qp_load;
    logic [QPS-1:0][1:0]                      state_q;
    logic [NODE_CNT-1:0][INC_WIDTH-1:0]       ninc_q;
    logic [QPS-1:0][QP_CNT-1:0][INC_WIDTH-1:0] qinc_q;

    nic_csr #(
        .QPS       (QPS),
        .MRS       (MRS),
        .DATA_WIDTH(DATA_WIDTH),
        .MAX_READS (MAX_READS),
        .INC_WIDTH (INC_WIDTH)
    ) u_csr (
        .clk                  (clk),
        .rst                  (rst),
        .csr_addr             (csr_addr),
        .csr_wdata            (csr_wdata),
        .csr_we               (csr_we),
        .csr_re               (csr_re),
        .csr_rdata            (csr_rdata),
        .csr_rvalid           (csr_rvalid),
        .ctrl_enable          (ctrl_enable),
        .ctrl_dcqcn           (ctrl_dcqcn),
        .node_mac             (node_mac),
        .node_ip              (node_ip),
        .dscp                 (dscp),
        .cnp_dscp             (cnp_dscp),
        .cnp_interval         (cnp_interval),
        .cnp_prio             (cnp_prio),
        .qp_prio              (qp_prio),
        .qp_dscp              (qp_dscp),
        .qp_vlan              (qp_vlan),
        .dcqcn_line_rate      (line_rate),
        .dcqcn_min_rate       (min_rate),
        .dcqcn_g_shift        (g_shift),
        .dcqcn_alpha_period   (alpha_period),
        .dcqcn_increase_period(increase_period),
        .dcqcn_byte_counter   (byte_counter),
        .dcqcn_f              (f_steps),
        .dcqcn_r_ai           (r_ai),
        .dcqcn_r_hai          (r_hai),
        .rnr_cycles           (rnr_cycles),
        .mr_base              (mr_base),
        .mr_len               (mr_len),
        .mr_rkey              (mr_rkey),
        .mr_access            (mr_access),
        .mr_valid             (mr_valid),
        .qp_qpn               (qp_qpn),
        .qp_remote_qpn        (qp_remote_qpn),
        .qp_remote_mac        (qp_remote_mac),
        .qp_remote_ip         (qp_remote_ip),
        .qp_send_psn          (qp_send_psn),
        .qp_recv_psn          (qp_recv_psn),
        .qp_pmtu_log2         (qp_pmtu_log2),
        .qp_timeout_cycles    (qp_timeout_cycles),
        .qp_retry_cnt         (qp_retry_cnt),
        .qp_rnr_retry         (qp_rnr_retry),
        .qp_min_rnr_timer     (qp_min_rnr_timer),
        .qp_udp_src           (qp_udp_src),
        .qp_access            (qp_access),
        .qp_window            (qp_window),
        .qp_max_reads         (qp_max_reads),
        .qp_load              (qp_load),
        .qp_state             (state_q),
        .node_cnt_inc         (ninc_q),
        .qp_cnt_inc           (qinc_q),
        .qp_cnt_any           (|qinc_q)
    );

    // ---- in0: records ----

    logic [63:0] cyc_q;
    logic        beat;
    logic [7:0]  r_kind, r_n, r_q, r_zero;
    logic [31:0] r_val;

    logic [NODE_CNT-1:0][INC_WIDTH-1:0]        nacc_q, nacc_d;
    logic [QPS-1:0][QP_CNT-1:0][INC_WIDTH-1:0] qacc_q, qacc_d;
    logic [QPS-1:0]                            sset_q, sset_d;
    logic [QPS-1:0][1:0]                       sval_q, sval_d;
    logic                                      sreq_q, sreq_d, snap_go_q;

    assign s_axis_tready = 1'b1;

    always_comb begin
        beat   = s_axis_tvalid[0];
        r_kind = s_axis_tdata[7:0];
        r_n    = s_axis_tdata[15:8];
        r_q    = s_axis_tdata[23:16];
        r_zero = s_axis_tdata[31:24];
        r_val  = s_axis_tdata[63:32];

        // the frame so far, this beat included
        nacc_d = nacc_q;
        qacc_d = qacc_q;
        sset_d = sset_q;
        sval_d = sval_q;
        sreq_d = sreq_q;
        if (beat) begin
            unique case (r_kind)
                8'd1: if (r_n < 8'(NODE_CNT)) begin
                    nacc_d[r_n[4:0]] = nacc_q[r_n[4:0]] + r_val[INC_WIDTH-1:0];
                end
                8'd2: if (r_q < 8'(QPS) && r_n < 8'(QP_CNT)) begin
                    qacc_d[r_q[3:0]][r_n[5:0]] = qacc_q[r_q[3:0]][r_n[5:0]] + r_val[INC_WIDTH-1:0];
                end
                8'd3: if (r_q < 8'(QPS)) begin
                    sset_d[r_q[3:0]] = 1'b1;
                    sval_d[r_q[3:0]] = r_val[1:0];
                end
                8'd4: sreq_d = 1'b1;
                default: ;
            endcase
        end
    end

    always_ff @(posedge clk) begin
        if (beat) begin
            if (s_axis_tkeep != 8'hFF || r_zero != 8'd0 || r_kind < 8'd1 || r_kind > 8'd4 ||
                (r_kind == 8'd1 && r_n >= 8'(NODE_CNT)) ||
                ((r_kind == 8'd2 || r_kind == 8'd3) && r_q >= 8'(QPS)) ||
                (r_kind == 8'd2 && r_n >= 8'(QP_CNT))) begin
                $error("nic_csr_top: bad record %016x (keep %02x) in cycle %0d", s_axis_tdata, s_axis_tkeep, cyc_q);
            end
        end
        if (beat && s_axis_tlast[0]) begin
            ninc_q    <= nacc_d;
            qinc_q    <= qacc_d;
            snap_go_q <= sreq_d;
            for (int q = 0; q < QPS; q++) begin
                if (sset_d[q]) begin
                    state_q[q] <= sval_d[q];
                end
            end
            nacc_q    <= '0;
            qacc_q    <= '0;
            sset_q    <= '0;
            sreq_q    <= 1'b0;
        end else begin
            ninc_q    <= '0;
            qinc_q    <= '0;
            snap_go_q <= 1'b0;
            if (beat) begin
                nacc_q <= nacc_d;
                qacc_q <= qacc_d;
                sset_q <= sset_d;
                sval_q <= sval_d;
                sreq_q <= sreq_d;
            end
        end
        cyc_q <= cyc_q + 64'd1;
        if (rst) begin
            cyc_q     <= '0;
            ninc_q    <= '0;
            qinc_q    <= '0;
            nacc_q    <= '0;
            qacc_q    <= '0;
            sset_q    <= '0;
            sreq_q    <= 1'b0;
            snap_go_q <= 1'b0;
            state_q   <= '0;
        end
    end

    // ---- out0: load reports ----

    logic        rep_valid_q;
    logic [63:0] rep_data_q;

    always_ff @(posedge clk) begin
        if (rep_valid_q && m_axis_tready[0]) begin
            rep_valid_q <= 1'b0;
        end
        if (|qp_load) begin
            if (rep_valid_q && !m_axis_tready[0]) begin
                $error("nic_csr_top: load report of cycle %0d lost (out0 stalled)", cyc_q);
            end
            rep_valid_q <= 1'b1;
            rep_data_q  <= {cyc_q[47:0], 16'(qp_load)};
        end
        if (rst) begin
            rep_valid_q <= 1'b0;
        end
    end

    // ---- out1: snapshots ----

    logic [2*SNAP_BEATS-1:0][31:0] snap_w;
    logic [SNAP_BEATS-1:0][63:0]   snap_q;
    logic                          snap_busy_q;
    logic [SB_W-1:0]               snap_beat_q;

    always_comb begin
        snap_w[0] = cyc_q[31:0];
        snap_w[1] = cyc_q[63:32];
        snap_w[2] = {30'd0, ctrl_dcqcn, ctrl_enable};
        snap_w[3] = node_mac[31:0];
        snap_w[4] = {16'd0, node_mac[47:32]};
        snap_w[5] = node_ip;
        snap_w[6] = {18'd0, cnp_dscp, 2'd0, dscp};
        snap_w[7] = cnp_interval;
        snap_w[8]  = line_rate;
        snap_w[9]  = min_rate;
        snap_w[10] = {27'd0, g_shift};
        snap_w[11] = alpha_period;
        snap_w[12] = increase_period;
        snap_w[13] = byte_counter;
        snap_w[14] = f_steps;
        snap_w[15] = r_ai;
        snap_w[16] = r_hai;
        for (int k = 0; k < 32; k++) begin
            snap_w[17 + k] = rnr_cycles[k];
        end
        for (int m = 0; m < MRS; m++) begin
            snap_w[W_MR + 7 * m + 0] = mr_base[m][31:0];
            snap_w[W_MR + 7 * m + 1] = mr_base[m][63:32];
            snap_w[W_MR + 7 * m + 2] = mr_len[m][31:0];
            snap_w[W_MR + 7 * m + 3] = mr_len[m][63:32];
            snap_w[W_MR + 7 * m + 4] = mr_rkey[m];
            snap_w[W_MR + 7 * m + 5] = {30'd0, mr_access[m]};
            snap_w[W_MR + 7 * m + 6] = {31'd0, mr_valid[m]};
        end
        for (int q = 0; q < QPS; q++) begin
            snap_w[W_QP + 14 * q + 0]  = {8'd0, qp_qpn[q]};
            snap_w[W_QP + 14 * q + 1]  = {8'd0, qp_remote_qpn[q]};
            snap_w[W_QP + 14 * q + 2]  = qp_remote_mac[q][31:0];
            snap_w[W_QP + 14 * q + 3]  = {16'd0, qp_remote_mac[q][47:32]};
            snap_w[W_QP + 14 * q + 4]  = qp_remote_ip[q];
            snap_w[W_QP + 14 * q + 5]  = {8'd0, qp_send_psn[q]};
            snap_w[W_QP + 14 * q + 6]  = {8'd0, qp_recv_psn[q]};
            snap_w[W_QP + 14 * q + 7]  = {28'd0, qp_pmtu_log2[q]};
            snap_w[W_QP + 14 * q + 8]  = qp_timeout_cycles[q];
            snap_w[W_QP + 14 * q + 9]  = {19'd0, qp_min_rnr_timer[q], 1'b0, qp_rnr_retry[q], 1'b0, qp_retry_cnt[q]};
            snap_w[W_QP + 14 * q + 10] = {16'd0, qp_udp_src[q]};
            snap_w[W_QP + 14 * q + 11] = {30'd0, qp_access[q]};
            snap_w[W_QP + 14 * q + 12] = {9'd0, qp_window[q]};
            snap_w[W_QP + 14 * q + 13] = {24'd0, qp_max_reads[q]};
        end
        // the pad word of an odd count
        for (int w = SNAP_WORDS; w < 2 * SNAP_BEATS; w++) begin
            snap_w[w] = 32'd0;
        end
    end

    always_ff @(posedge clk) begin
        if (snap_busy_q && m_axis_tready[1]) begin
            if (snap_beat_q == SB_W'(SNAP_BEATS - 1)) begin
                snap_busy_q <= 1'b0;
            end
            snap_beat_q <= snap_beat_q + SB_W'(1);
        end
        if (snap_go_q) begin
            if (snap_busy_q) begin
                $error("nic_csr_top: snapshot requested in cycle %0d while the previous one is leaving", cyc_q);
            end
            snap_q      <= snap_w;
            snap_busy_q <= 1'b1;
            snap_beat_q <= '0;
        end
        if (rst) begin
            snap_busy_q <= 1'b0;
            snap_beat_q <= '0;
        end
    end

    always_comb begin
        m_axis_tdata  = {snap_q[snap_beat_q], rep_data_q};
        m_axis_tkeep  = {(snap_beat_q == SB_W'(SNAP_BEATS - 1)) ? LAST_KEEP : 8'hFF, 8'hFF};
        m_axis_tvalid = {snap_busy_q, rep_valid_q};
        m_axis_tlast  = {snap_beat_q == SB_W'(SNAP_BEATS - 1), 1'b1};
        m_axis_tuser  = 2'b00;
    end

    // tuser is not looked at: nothing sends bad frames to this top
    logic unused;
    assign unused = ^{s_axis_tuser, r_val, cnp_prio, qp_prio, qp_dscp, qp_vlan};  // read back over the bus only

endmodule

`resetall
