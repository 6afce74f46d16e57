// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_csr: roce_nic's registers, memory region table, QP contexts and
// counters on the CSR bus (sim/README.md: one access at a time, no
// backpressure). The map is rtl/nic/README.md "CSR map"; golden/nic/csr.go
// mirrors it.
//
//   0x0000 ID (RO)           0x4E430001 ("NC", version 1)
//   0x0004 SHAPE (RO)        QPS[7:0], MRS[15:8], DATA_WIDTH/8 [23:16], MAX_READS[31:24]
//   0x0010 CTRL [1:0]        bit 0 enable, bit 1 DCQCN
//   0x0014 MAC_LO            MAC bytes 2..5 (byte 5 in bits 7:0)
//   0x0018 MAC_HI [15:0]     MAC bytes 0..1 (byte 0 in bits 15:8)
//   0x001C IP                first byte in bits 31:24
//   0x0020 DSCP              bits 5:0 data/ACK DSCP, bits 13:8 CNP DSCP
//   0x0024 CNP_INTERVAL      cycles
//   0x0028 CNP_PRIO [2:0]    the priority of CNPs (a pause of it holds them back)
//   0x0040 LINE_RATE         0x0044 MIN_RATE          0x0048 G_SHIFT [4:0]
//   0x004C ALPHA_PERIOD      0x0050 INCREASE_PERIOD   0x0054 BYTE_COUNTER
//   0x0058 F                 0x005C R_AI              0x0060 R_HAI
//                            (dcqcn.Config; rates Q16.16 bytes/cycle, periods
//                            in cycles, BYTE_COUNTER in bytes: all 32 bits)
//   0x0080 + 4k              RNR_CYCLES[k], k = 0..31
//   0x0200 + 0x20 m          MR m, m < MRS:
//                              +0x00 BASE_LO  +0x04 BASE_HI  +0x08 LEN_LO
//                              +0x0C LEN_HI   +0x10 RKEY     +0x14 ACCESS [1:0]
//                              +0x18 VALID [0]
//   0x1000 + 0x80 q          QP q context, q < QPS:
//                              +0x00 QPN [23:0]        +0x04 REMOTE_QPN [23:0]
//                              +0x08 REMOTE_MAC_LO     +0x0C REMOTE_MAC_HI [15:0]
//                              +0x10 REMOTE_IP         +0x14 SEND_PSN [23:0]
//                              +0x18 RECV_PSN [23:0]   +0x1C PMTU_LOG2 [3:0]
//                              +0x20 TIMEOUT_CYCLES    +0x24 RETRY [12:8],[6:4],[2:0]
//                              +0x28 UDP_SRC [15:0]    +0x2C ACCESS [1:0]
//                              +0x30 WINDOW [22:0]     +0x34 MAX_READS [7:0]
//                              +0x38 PRIO [2:0]        +0x3C DSCP [5:0] (0: the node's)
//                              +0x40 VLAN [12:0] (bit 12 tag, 11:0 VID)
//                              +0x7C STATE
//   0x4000 + 4n              node counter n, n = 0..30:
//                              0..5 as rc.Counter: rx_not_roce, rx_malformed,
//                              rx_bad_icrc, rx_wrong_address, rx_bad_header,
//                              rx_unknown_qp; then 6 cmd_bad, 7 cmd_rejected,
//                              8 cq_overflow, 9 host_rx_overflow,
//                              10 rx_bad_frame, 11 rx_buffer_full, 12 rx_pfc,
//                              13 rx_pause, 14 rx_mac_control,
//                              15+p rx_pause_prio[p], 23+p paused_cycles_prio[p]
//   0x5000 + 0x100 q + 4n    counter n of QP q, n = rc.Counter 6..38
//                            (rx_packets .. completions_error)
//
// Timing constants (the golden model relies on these):
//   Write: csr_we in cycle t; the register and its output hold the new
//   value from t+1, so the decisions of t+1 on see it. A write to a counter
//   replaces its value: that counter's increments of cycle t are lost.
//   Read latency 1: csr_re in cycle t, csr_rvalid and csr_rdata in t+1. The
//   value is the register as it was during cycle t: counters include every
//   increment up to the end of cycle t-1, not those of cycle t; STATE is
//   qp_state[q] as driven during cycle t. csr_rdata holds it until the next
//   read (it means nothing while csr_rvalid is low).
//   STATE: a write of exactly 1 to QP q's STATE in cycle t raises qp_load[q]
//   for cycle t+1 only: the engine adds the QP then (golden AddQP(t+1)),
//   taking the fields from the qp_* outputs as they are in t+1 (writes up to
//   t). Other values are reserved and ignored. nic_csr keeps no second copy:
//   fields written while the QP is in RTS reach the outputs at once, and
//   the engine, which holds its copy, ignores them until the next load.
//   Counters are 32 bits and wrap; node_cnt_inc and qp_cnt_inc carry the
//   events of the cycle, up to 2^INC_WIDTH-1 per counter (a QP's flush
//   completes every send and receive WQE in one cycle: 64 at the default
//   depths), added at its end.
//   Read-back: only the bits a register has (the [..] above); the others
//   read 0. Unmapped addresses (0x0008, 0x000C, 0x0028..0x003C,
//   0x0064..0x007C, 0x0100..0x01FF, MR offset 0x1C, QP offsets
//   0x38..0x78, MRs >= MRS, QPs >= QPS, node counters >= 12, QP counters
//   0..5 and >= 39) and addresses that are not a multiple of 4 read 0 and
//   ignore writes; writes to ID and SHAPE are ignored.
//   Limits of 32-bit registers: CNP_INTERVAL, ALPHA_PERIOD,
//   INCREASE_PERIOD, BYTE_COUNTER, RNR_CYCLES and TIMEOUT_CYCLES hold at
//   most 2^32-1 (golden keeps 64 bits; golden/nic's *Writes refuse more).
//
// Reset (synchronous, active high): every register and counter to 0, no
// load pulse.

module nic_csr #(
    // QP contexts (1..96: 0x1000 + 0x80 q stays below the counters).
    parameter int QPS        = 16,
    // Memory regions (1..112: 0x0200 + 0x20 m stays below the QPs).
    parameter int MRS        = 16,
    // Bits per beat of the NIC (SHAPE only).
    parameter int DATA_WIDTH = 64,
    // READs outstanding per QP (SHAPE only).
    parameter int MAX_READS  = 4,
    // Width of one counter's increment in one cycle.
    parameter int INC_WIDTH  = 8,
    // Node counters: rc's node-level ones (6), then the NIC's own (6).
    localparam int NODE_CNT  = nic_pkg::NODE_CNT,
    // QP counter numbers are rc.Counter: 0..38; 0..5 are node-level.
    localparam int QP_CNT    = nic_pkg::QP_CNT,
    localparam int QP_FIRST  = nic_pkg::QP_FIRST
) (
    input  wire logic                                    clk,
    input  wire logic                                    rst,

    input  wire logic [15:0]                             csr_addr,
    input  wire logic [31:0]                             csr_wdata,
    input  wire logic                                    csr_we,
    input  wire logic                                    csr_re,
    output logic      [31:0]                             csr_rdata,
    output logic                                         csr_rvalid,

    output logic                                         ctrl_enable,
    output logic                                         ctrl_dcqcn,
    // byte 0 (first on the wire) in bits 47:40, as nic_rx_parse takes it
    output logic      [47:0]                             node_mac,
    output logic      [31:0]                             node_ip,
    output logic      [5:0]                              dscp,
    output logic      [5:0]                              cnp_dscp,
    output logic      [31:0]                             cnp_interval,
    output logic      [2:0]                              cnp_prio,
    output logic      [31:0]                             dcqcn_line_rate,
    output logic      [31:0]                             dcqcn_min_rate,
    output logic      [4:0]                              dcqcn_g_shift,
    output logic      [31:0]                             dcqcn_alpha_period,
    output logic      [31:0]                             dcqcn_increase_period,
    output logic      [31:0]                             dcqcn_byte_counter,
    output logic      [31:0]                             dcqcn_f,
    output logic      [31:0]                             dcqcn_r_ai,
    output logic      [31:0]                             dcqcn_r_hai,
    output logic      [31:0][31:0]                       rnr_cycles,

    output logic      [MRS-1:0][63:0]                    mr_base,
    output logic      [MRS-1:0][63:0]                    mr_len,
    output logic      [MRS-1:0][31:0]                    mr_rkey,
    // bit 0 remote write, bit 1 remote read (rc.Access)
    output logic      [MRS-1:0][1:0]                     mr_access,
    output logic      [MRS-1:0]                          mr_valid,

    output logic      [QPS-1:0][23:0]                    qp_qpn,
    output logic      [QPS-1:0][23:0]                    qp_remote_qpn,
    output logic      [QPS-1:0][47:0]                    qp_remote_mac,
    output logic      [QPS-1:0][31:0]                    qp_remote_ip,
    output logic      [QPS-1:0][23:0]                    qp_send_psn,
    output logic      [QPS-1:0][23:0]                    qp_recv_psn,
    output logic      [QPS-1:0][3:0]                     qp_pmtu_log2,
    output logic      [QPS-1:0][31:0]                    qp_timeout_cycles,
    output logic      [QPS-1:0][2:0]                     qp_retry_cnt,
    output logic      [QPS-1:0][2:0]                     qp_rnr_retry,
    output logic      [QPS-1:0][4:0]                     qp_min_rnr_timer,
    output logic      [QPS-1:0][15:0]                    qp_udp_src,
    output logic      [QPS-1:0][1:0]                     qp_access,
    output logic      [QPS-1:0][22:0]                    qp_window,
    output logic      [QPS-1:0][7:0]                     qp_max_reads,
    output logic      [QPS-1:0][2:0]                     qp_prio,
    output logic      [QPS-1:0][5:0]                     qp_dscp,
    output logic      [QPS-1:0][12:0]                    qp_vlan,
    // one cycle per STATE write of 1 (the cycle after it)
    output logic      [QPS-1:0]                          qp_load,
    // from the engine: 0 reset, 1 RTS, 2 error
    input  wire logic [QPS-1:0][1:0]                     qp_state,

    // counter increments of this cycle; qp_cnt_inc[q][0..5] are ignored
    input  wire logic [NODE_CNT-1:0][INC_WIDTH-1:0]      node_cnt_inc,
    input  wire logic [QPS-1:0][QP_CNT-1:0][INC_WIDTH-1:0] qp_cnt_inc,
    // high whenever qp_cnt_inc is not all zero (it may be high when it is):
    // spares the counters a test of all QPS*QP_CNT*INC_WIDTH bits per cycle
    input  wire logic                                    qp_cnt_any
);

    localparam logic [31:0] ID_VALUE = 32'h4E43_0001;
    localparam logic [31:0] SHAPE    = {8'(MAX_READS), 8'(DATA_WIDTH / 8), 8'(MRS), 8'(QPS)};
    localparam int          MR_W     = (MRS > 1) ? $clog2(MRS) : 1;
    localparam int          QP_W     = (QPS > 1) ? $clog2(QPS) : 1;
    // word addresses (byte address / 4) of the MR, QP and QP counter blocks
    localparam logic [13:0] W_MR     = 14'h0080;
    localparam logic [13:0] W_QP     = 14'h0400;
    localparam logic [13:0] W_QCNT   = 14'h1400;
    // word offset of the QP STATE register
    localparam logic [4:0]  QW_STATE = 5'd31;

    initial begin
        if (QPS < 1 || QPS > 96 || MRS < 1 || MRS > 112 || DATA_WIDTH % 8 != 0 ||
            DATA_WIDTH / 8 > 255 || MAX_READS < 0 || MAX_READS > 255 || INC_WIDTH < 1 || INC_WIDTH > 32) begin
            $error("nic_csr: QPS must be 1..96, MRS 1..112, DATA_WIDTH/8 and MAX_READS at most 255, INC_WIDTH 1..32 (instance %m)");
            $finish;
        end
    end

    // The registers change only on a write, the counters only on a cycle
    // with increments, and the read mux is evaluated only for a read: every
    // block below runs at the clock edge, nothing is combinational from the
    // bus (the simulator would evaluate it on every input change).
    logic [1:0]               ctrl_q;
    logic [31:0]              mac_lo_q;
    logic [15:0]              mac_hi_q;
    logic [31:0]              ip_q;
    logic [13:0]              dscp_q;              // bits 7:6 kept 0
    logic [31:0]              cnp_q;
    logic [2:0]               cnp_prio_q;
    logic [8:0][31:0]         dcqcn_q;             // word k at 0x0040 + 4k
    logic [31:0][31:0]        rnr_q;

    logic [MRS-1:0][63:0]     mr_base_q;
    logic [MRS-1:0][63:0]     mr_len_q;
    logic [MRS-1:0][31:0]     mr_rkey_q;
    logic [MRS-1:0][1:0]      mr_acc_q;
    logic [MRS-1:0]           mr_valid_q;

    logic [QPS-1:0][23:0]     qpn_q;
    logic [QPS-1:0][23:0]     rqpn_q;
    logic [QPS-1:0][47:0]     rmac_q;
    logic [QPS-1:0][31:0]     rip_q;
    logic [QPS-1:0][23:0]     spsn_q;
    logic [QPS-1:0][23:0]     rpsn_q;
    logic [QPS-1:0][3:0]      pmtu_q;
    logic [QPS-1:0][31:0]     tmo_q;
    logic [QPS-1:0][12:0]     retry_q;             // bits 3 and 7 kept 0
    logic [QPS-1:0][15:0]     udp_q;
    logic [QPS-1:0][1:0]      qacc_q;
    logic [QPS-1:0][22:0]     win_q;
    logic [QPS-1:0][7:0]      maxrd_q;
    logic [QPS-1:0][2:0]      prio_q;
    logic [QPS-1:0][5:0]      qdscp_q;
    logic [QPS-1:0][12:0]     vlan_q;
    logic [QPS-1:0]           load_q;

    logic [NODE_CNT-1:0][31:0]              ncnt_q;
    logic [QPS-1:0][QP_CNT-1:QP_FIRST][31:0] qcnt_q;

    // address decode of csr_addr: which block the address is in (and that
    // the index exists), the index and the word within the entry
    typedef struct packed {
        logic            rnr, mr, qp, ncnt, qcnt;
        logic [MR_W-1:0] m;
        logic [QP_W-1:0] q, qc;
        logic [2:0]      mw;
        logic [4:0]      qw;
        logic [4:0]      nn;
        logic [5:0]      qn;
    } dec_t;

    function automatic dec_t decode(input logic [15:0] addr);
        dec_t        d;
        logic        ok;
        logic [13:0] mr_off, qp_off, qc_off;   // word offsets
        logic [9:0]  nn;
        ok     = (addr[1:0] == 2'b00);
        mr_off = addr[15:2] - W_MR;
        qp_off = addr[15:2] - W_QP;
        qc_off = addr[15:2] - W_QCNT;
        nn     = addr[11:2];
        d.m    = mr_off[3 +: MR_W];
        d.q    = qp_off[5 +: QP_W];
        d.qc   = qc_off[6 +: QP_W];
        d.mw   = mr_off[2:0];
        d.qw   = qp_off[4:0];
        d.nn   = nn[4:0];
        d.qn   = qc_off[5:0];
        d.rnr  = ok && addr[15:7] == 9'h001;
        d.mr   = ok && addr >= 16'h0200 && mr_off[13:3] < 11'(MRS);
        d.qp   = ok && addr >= 16'h1000 && qp_off[13:5] < 9'(QPS);
        d.ncnt = ok && addr[15:12] == 4'h4 && nn < 10'(NODE_CNT);
        d.qcnt = ok && addr >= 16'h5000 && qc_off[13:6] < 8'(QPS) &&
                 d.qn >= 6'(QP_FIRST) && d.qn < 6'(QP_CNT);
        return d;
    endfunction

    // the register at addr as it is now
    function automatic logic [31:0] read_reg(input logic [15:0] addr);
        dec_t        a;
        logic [31:0] r;
        a = decode(addr);
        r = 32'd0;
        unique case (addr)
            16'h0000: r = ID_VALUE;
            16'h0004: r = SHAPE;
            16'h0010: r = {30'd0, ctrl_q};
            16'h0014: r = mac_lo_q;
            16'h0018: r = {16'd0, mac_hi_q};
            16'h001C: r = ip_q;
            16'h0020: r = {18'd0, dscp_q};
            16'h0024: r = cnp_q;
            16'h0028: r = {29'd0, cnp_prio_q};
            16'h0040: r = dcqcn_q[0];
            16'h0044: r = dcqcn_q[1];
            16'h0048: r = dcqcn_q[2];
            16'h004C: r = dcqcn_q[3];
            16'h0050: r = dcqcn_q[4];
            16'h0054: r = dcqcn_q[5];
            16'h0058: r = dcqcn_q[6];
            16'h005C: r = dcqcn_q[7];
            16'h0060: r = dcqcn_q[8];
            default: r = 32'd0;
        endcase
        if (a.rnr) begin
            r = rnr_q[addr[6:2]];
        end
        if (a.mr) begin
            unique case (a.mw)
                3'd0: r = mr_base_q[a.m][31:0];
                3'd1: r = mr_base_q[a.m][63:32];
                3'd2: r = mr_len_q[a.m][31:0];
                3'd3: r = mr_len_q[a.m][63:32];
                3'd4: r = mr_rkey_q[a.m];
                3'd5: r = {30'd0, mr_acc_q[a.m]};
                3'd6: r = {31'd0, mr_valid_q[a.m]};
                default: r = 32'd0;
            endcase
        end
        if (a.qp) begin
            unique case (a.qw)
                5'd0:  r = {8'd0, qpn_q[a.q]};
                5'd1:  r = {8'd0, rqpn_q[a.q]};
                5'd2:  r = rmac_q[a.q][31:0];
                5'd3:  r = {16'd0, rmac_q[a.q][47:32]};
                5'd4:  r = rip_q[a.q];
                5'd5:  r = {8'd0, spsn_q[a.q]};
                5'd6:  r = {8'd0, rpsn_q[a.q]};
                5'd7:  r = {28'd0, pmtu_q[a.q]};
                5'd8:  r = tmo_q[a.q];
                5'd9:  r = {19'd0, retry_q[a.q]};
                5'd10: r = {16'd0, udp_q[a.q]};
                5'd11: r = {30'd0, qacc_q[a.q]};
                5'd12: r = {9'd0, win_q[a.q]};
                5'd13: r = {24'd0, maxrd_q[a.q]};
                5'd14: r = {29'd0, prio_q[a.q]};
                5'd15: r = {26'd0, qdscp_q[a.q]};
                5'd16: r = {19'd0, vlan_q[a.q]};
                QW_STATE: r = {30'd0, qp_state[a.q]};
                default: r = 32'd0;
            endcase
        end
        if (a.ncnt) begin
            r = ncnt_q[a.nn];
        end
        if (a.qcnt) begin
            r = qcnt_q[a.qc][a.qn];
        end
        return r;
    endfunction

    always_ff @(posedge clk) begin : regs
        /* verilator lint_off UNUSEDSIGNAL */
        dec_t a;   // the counter fields are the counters block's
        /* verilator lint_on UNUSEDSIGNAL */
        load_q <= '0;
        if (csr_we) begin
            a = decode(csr_addr);
            unique case (csr_addr)
                16'h0010: ctrl_q   <= csr_wdata[1:0];
                16'h0014: mac_lo_q <= csr_wdata;
                16'h0018: mac_hi_q <= csr_wdata[15:0];
                16'h001C: ip_q     <= csr_wdata;
                16'h0020: dscp_q   <= {csr_wdata[13:8], 2'b00, csr_wdata[5:0]};
                16'h0024: cnp_q    <= csr_wdata;
                16'h0028: cnp_prio_q <= csr_wdata[2:0];
                16'h0040: dcqcn_q[0] <= csr_wdata;
                16'h0044: dcqcn_q[1] <= csr_wdata;
                16'h0048: dcqcn_q[2] <= {27'd0, csr_wdata[4:0]};
                16'h004C: dcqcn_q[3] <= csr_wdata;
                16'h0050: dcqcn_q[4] <= csr_wdata;
                16'h0054: dcqcn_q[5] <= csr_wdata;
                16'h0058: dcqcn_q[6] <= csr_wdata;
                16'h005C: dcqcn_q[7] <= csr_wdata;
                16'h0060: dcqcn_q[8] <= csr_wdata;
                default: ;
            endcase
            if (a.rnr) begin
                rnr_q[csr_addr[6:2]] <= csr_wdata;
            end
            if (a.mr) begin
                unique case (a.mw)
                    3'd0: mr_base_q[a.m][31:0]  <= csr_wdata;
                    3'd1: mr_base_q[a.m][63:32] <= csr_wdata;
                    3'd2: mr_len_q[a.m][31:0]   <= csr_wdata;
                    3'd3: mr_len_q[a.m][63:32]  <= csr_wdata;
                    3'd4: mr_rkey_q[a.m]        <= csr_wdata;
                    3'd5: mr_acc_q[a.m]         <= csr_wdata[1:0];
                    3'd6: mr_valid_q[a.m]       <= csr_wdata[0];
                    default: ;
                endcase
            end
            if (a.qp) begin
                unique case (a.qw)
                    5'd0:  qpn_q[a.q]         <= csr_wdata[23:0];
                    5'd1:  rqpn_q[a.q]        <= csr_wdata[23:0];
                    5'd2:  rmac_q[a.q][31:0]  <= csr_wdata;
                    5'd3:  rmac_q[a.q][47:32] <= csr_wdata[15:0];
                    5'd4:  rip_q[a.q]         <= csr_wdata;
                    5'd5:  spsn_q[a.q]        <= csr_wdata[23:0];
                    5'd6:  rpsn_q[a.q]        <= csr_wdata[23:0];
                    5'd7:  pmtu_q[a.q]        <= csr_wdata[3:0];
                    5'd8:  tmo_q[a.q]         <= csr_wdata;
                    5'd9:  retry_q[a.q]       <= csr_wdata[12:0] & 13'h1F77;
                    5'd10: udp_q[a.q]         <= csr_wdata[15:0];
                    5'd11: qacc_q[a.q]        <= csr_wdata[1:0];
                    5'd12: win_q[a.q]         <= csr_wdata[22:0];
                    5'd13: maxrd_q[a.q]       <= csr_wdata[7:0];
                    5'd14: prio_q[a.q]        <= csr_wdata[2:0];
                    5'd15: qdscp_q[a.q]       <= csr_wdata[5:0];
                    5'd16: vlan_q[a.q]        <= csr_wdata[12:0];
                    QW_STATE: load_q[a.q]     <= (csr_wdata == 32'd1);
                    default: ;
                endcase
            end
        end
        if (rst) begin
            ctrl_q     <= '0;
            mac_lo_q   <= '0;
            mac_hi_q   <= '0;
            ip_q       <= '0;
            dscp_q     <= '0;
            cnp_q      <= '0;
            cnp_prio_q <= '0;
            dcqcn_q    <= '0;
            rnr_q      <= '0;
            mr_base_q  <= '0;
            mr_len_q   <= '0;
            mr_rkey_q  <= '0;
            mr_acc_q   <= '0;
            mr_valid_q <= '0;
            qpn_q      <= '0;
            rqpn_q     <= '0;
            rmac_q     <= '0;
            rip_q      <= '0;
            spsn_q     <= '0;
            rpsn_q     <= '0;
            pmtu_q     <= '0;
            tmo_q      <= '0;
            retry_q    <= '0;
            udp_q      <= '0;
            qacc_q     <= '0;
            win_q      <= '0;
            maxrd_q    <= '0;
            prio_q     <= '0;
            qdscp_q    <= '0;
            vlan_q     <= '0;
            load_q     <= '0;
        end
    end

    always_ff @(posedge clk) begin
        csr_rvalid <= csr_re;
        if (rst) begin
            csr_rvalid <= 1'b0;
        end
    end

    // csr_rdata is the register read in the cycle of csr_re, held until the
    // next read (it is only defined while csr_rvalid is high).
    // Counters: only a cycle with increments adds (most cycles have none),
    // and within it only the QPs that have some; a CSR write to a counter
    // comes last and wins over the increments of its cycle. The counters
    // are updated in place (blocking, BLKSEQ waived as in rtl/switch/switch_buffer.sv), after
    // the read of this block, their only reader: a nonblocking update of an
    // array written at a variable index made the simulator copy all 16896
    // bits twice in every cycle.
    /* verilator lint_off BLKSEQ */
    always_ff @(posedge clk) begin : counters
        /* verilator lint_off UNUSEDSIGNAL */
        dec_t a;   // only the counter fields
        /* verilator lint_on UNUSEDSIGNAL */
        if (csr_re) begin
            csr_rdata <= read_reg(csr_addr);
        end
        if (rst) begin
            ncnt_q = '0;
            for (int q = 0; q < QPS; q++) begin
                qcnt_q[q] = '0;
            end
        end else begin
            if (|node_cnt_inc) begin
                for (int n = 0; n < NODE_CNT; n++) begin
                    ncnt_q[n] = ncnt_q[n] + 32'(node_cnt_inc[n]);
                end
            end
            if (qp_cnt_any) begin
                for (int q = 0; q < QPS; q++) begin
                    if (|qp_cnt_inc[q][QP_CNT-1:QP_FIRST]) begin
                        for (int n = QP_FIRST; n < QP_CNT; n++) begin
                            qcnt_q[q][n] = qcnt_q[q][n] + 32'(qp_cnt_inc[q][n]);
                        end
                    end
                end
            end
            if (csr_we) begin
                a = decode(csr_addr);
                if (a.ncnt) begin
                    ncnt_q[a.nn] = csr_wdata;
                end
                if (a.qcnt) begin
                    qcnt_q[a.qc][a.qn] = csr_wdata;
                end
            end
        end
    end
    /* verilator lint_on BLKSEQ */

    // rc counts counters 0..5 on the node, never on a QP. Untraced: the
    // simulator then drops it instead of computing it in every cycle.
    /* verilator tracing_off */
    logic unused_inc;
    /* verilator tracing_on */
    always_comb begin
        unused_inc = 1'b0;
        for (int q = 0; q < QPS; q++) begin
            for (int n = 0; n < QP_FIRST; n++) begin
                unused_inc = unused_inc ^ (^qp_cnt_inc[q][n]);
            end
        end
    end

    assign ctrl_enable           = ctrl_q[0];
    assign ctrl_dcqcn            = ctrl_q[1];
    assign node_mac              = {mac_hi_q, mac_lo_q};
    assign node_ip               = ip_q;
    assign dscp                  = dscp_q[5:0];
    assign cnp_dscp              = dscp_q[13:8];
    assign cnp_interval          = cnp_q;
    assign cnp_prio              = cnp_prio_q;
    assign dcqcn_line_rate       = dcqcn_q[0];
    assign dcqcn_min_rate        = dcqcn_q[1];
    assign dcqcn_g_shift         = dcqcn_q[2][4:0];
    assign dcqcn_alpha_period    = dcqcn_q[3];
    assign dcqcn_increase_period = dcqcn_q[4];
    assign dcqcn_byte_counter    = dcqcn_q[5];
    assign dcqcn_f               = dcqcn_q[6];
    assign dcqcn_r_ai            = dcqcn_q[7];
    assign dcqcn_r_hai           = dcqcn_q[8];
    assign rnr_cycles            = rnr_q;
    assign mr_base               = mr_base_q;
    assign mr_len                = mr_len_q;
    assign mr_rkey               = mr_rkey_q;
    assign mr_access             = mr_acc_q;
    assign mr_valid              = mr_valid_q;
    assign qp_qpn                = qpn_q;
    assign qp_remote_qpn         = rqpn_q;
    assign qp_remote_mac         = rmac_q;
    assign qp_remote_ip          = rip_q;
    assign qp_send_psn           = spsn_q;
    assign qp_recv_psn           = rpsn_q;
    assign qp_pmtu_log2          = pmtu_q;
    assign qp_timeout_cycles     = tmo_q;
    assign qp_udp_src            = udp_q;
    assign qp_access             = qacc_q;
    assign qp_window             = win_q;
    assign qp_max_reads          = maxrd_q;
    assign qp_prio               = prio_q;
    assign qp_dscp               = qdscp_q;
    assign qp_vlan               = vlan_q;
    assign qp_load               = load_q;

    always_comb begin
        for (int q = 0; q < QPS; q++) begin
            qp_retry_cnt[q]     = retry_q[q][2:0];
            qp_rnr_retry[q]     = retry_q[q][6:4];
            qp_min_rnr_timer[q] = retry_q[q][12:8];
        end
    end

endmodule

`resetall
