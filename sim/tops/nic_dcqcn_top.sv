// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_dcqcn_top: a test top for nic_dcqcn_rp (the DCQCN reaction point of
// one QP). Its configuration and events come as records on in0; every
// cycle in which something happens is reported on out0..out4, so that the
// harness can compare each cycle with golden/dcqcn:
//
//   in0 (records) --(cycle A after the frame's last beat)--> config, reset_rp,
//                                                            cnp, sent
//   nic_dcqcn_rp --(a report for every cycle with an event or a timer
//                   tick)--> out0..out4, one beat each, from the next cycle
//
// in0: frames of 8-byte records, one per beat (DATA_WIDTH 64), little-
// endian. All records of a frame whose last beat is taken in cycle L act
// in cycle A = L+1:
//   kind 1, event:  byte 1 flags (bit 0 reset_rp, bit 1 cnp, bit 2 sent),
//                   bytes 2..3 sent_bytes (driven in A even without sent),
//                   bytes 4..7 0. At most one per frame.
//   kind 2, config: byte 1 field (0 LINE_RATE, 1 MIN_RATE, 2 G_SHIFT [4:0],
//                   3 ALPHA_PERIOD, 4 INCREASE_PERIOD, 5 BYTE_COUNTER, 6 F,
//                   7 R_AI, 8 R_HAI), bytes 2..3 0, bytes 4..7 the value;
//                   the register holds it from A on.
// Anything else is an $error. Outside A, reset_rp, cnp, sent are low and
// sent_bytes is 0.
//
// Report of cycle C (C is a cycle with an event record, alpha_tick or
// inc_tick), first beat offered at C+1 on each of the five ports, all
// values as nic_dcqcn_rp shows them during C:
//   out0  bits 47:0 C; bit 48 paced, 49 hold, 50 alpha_tick, 51 inc_tick,
//         52 active, 53 timer_valid, 54 reset_rp, 55 cnp, 56 sent,
//         57 an event record acted in C; 63:58 0
//   out1  31:0 rate, 63:32 target
//   out2  31:0 t_count, 63:32 bc_count
//   out3  16:0 alpha, 63:32 pace_cycles
//   out4  31:0 timer_in, 47:32 sent_bytes, 63:48 0
// The harness runs this top without sink stalls; a report that finds the
// previous one not taken is an $error.
//
// A second instance, u_late (SENT_LATE = 1), gets the same events with
// each sent one cycle later, as an engine that registers its transmit
// decision drives it. It must agree with u_rp (the reported one, checked
// against golden by the harness) in every cycle, or the top stops with an
// $error: paced, hold, alpha_tick, inc_tick always; rate, target, alpha,
// t_count, bc_count, active, timer_valid, timer_in in every cycle without
// a sent on u_rp (with one, u_late applies it in the next cycle); its
// pace_cycles for a late sent equals u_rp's of the cycle before.

module nic_dcqcn_top #(
    parameter int DATA_WIDTH  = 64,
    parameter int KEEP_WIDTH  = DATA_WIDTH / 8,
    parameter int BYTES_WIDTH = 16,
    parameter int BC_EVENTS   = 4
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire logic [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]   s_axis_tkeep,
    input  wire logic [0:0]              s_axis_tvalid,
    output logic      [0:0]              s_axis_tready,
    input  wire logic [0:0]              s_axis_tlast,
    input  wire logic [0:0]              s_axis_tuser,

    output logic [5*DATA_WIDTH-1:0]      m_axis_tdata,
    output logic [5*KEEP_WIDTH-1:0]      m_axis_tkeep,
    output logic [4:0]                   m_axis_tvalid,
    input  wire logic [4:0]              m_axis_tready,
    output logic [4:0]                   m_axis_tlast,
    output logic [4:0]                   m_axis_tuser
);

    localparam int CYC_WIDTH = BYTES_WIDTH + 16;

    initial begin
        if (DATA_WIDTH != 64 || KEEP_WIDTH != 8 || BYTES_WIDTH != 16) begin
            $error("nic_dcqcn_top: DATA_WIDTH must be 64 and BYTES_WIDTH 16");
            $finish;
        end
    end

    // ---- in0: records ----

    logic [63:0]      cyc_q;
    logic             beat;
    logic [7:0]       r_kind, r_sub;
    logic [15:0]      r_mid;
    logic [31:0]      r_val;

    logic [8:0][31:0] cfg_q, cacc_q, cacc_d;   // the fields, in record order
    logic [8:0]       cset_q, cset_d;
    logic             eset_q, eset_d;
    logic [2:0]       eflg_q, eflg_d;
    logic [15:0]      ebyt_q, ebyt_d;
    logic             ev_q;                    // an event record acts in this cycle
    logic [2:0]       ev_flags_q;
    logic [15:0]      ev_bytes_q;

    assign s_axis_tready = 1'b1;

    always_comb begin
        beat   = s_axis_tvalid[0];
        r_kind = s_axis_tdata[7:0];
        r_sub  = s_axis_tdata[15:8];
        r_mid  = s_axis_tdata[31:16];
        r_val  = s_axis_tdata[63:32];

        // the frame so far, this beat included
        cacc_d = cacc_q;
        cset_d = cset_q;
        eset_d = eset_q;
        eflg_d = eflg_q;
        ebyt_d = ebyt_q;
        if (beat) begin
            if (r_kind == 8'd1) begin
                eset_d = 1'b1;
                eflg_d = r_sub[2:0];
                ebyt_d = r_mid;
            end else if (r_kind == 8'd2 && r_sub < 8'd9) begin
                cacc_d[r_sub[3:0]] = r_val;
                cset_d[r_sub[3:0]] = 1'b1;
            end
        end
    end

    always_ff @(posedge clk) begin
        if (beat) begin
            if (s_axis_tkeep != 8'hFF ||
                !((r_kind == 8'd1 && r_sub[7:3] == 5'd0 && r_val == 32'd0 && !eset_q) ||
                  (r_kind == 8'd2 && r_sub < 8'd9 && r_mid == 16'd0))) begin
                $error("nic_dcqcn_top: bad record %016x (keep %02x) in cycle %0d", s_axis_tdata, s_axis_tkeep, cyc_q);
            end
        end
        ev_q <= 1'b0;
        if (beat && s_axis_tlast[0]) begin
            for (int k = 0; k < 9; k++) begin
                if (cset_d[k]) begin
                    cfg_q[k] <= cacc_d[k];
                end
            end
            ev_q       <= eset_d;
            ev_flags_q <= eset_d ? eflg_d : 3'd0;
            ev_bytes_q <= eset_d ? ebyt_d : 16'd0;
            cset_q     <= '0;
            eset_q     <= 1'b0;
        end else begin
            ev_flags_q <= 3'd0;
            ev_bytes_q <= 16'd0;
            if (beat) begin
                cacc_q <= cacc_d;
                cset_q <= cset_d;
                eset_q <= eset_d;
                eflg_q <= eflg_d;
                ebyt_q <= ebyt_d;
            end
        end
        cyc_q <= cyc_q + 64'd1;
        if (rst) begin
            cyc_q      <= '0;
            cfg_q      <= '0;
            cacc_q     <= '0;
            cset_q     <= '0;
            eset_q     <= 1'b0;
            eflg_q     <= 3'd0;
            ebyt_q     <= 16'd0;
            ev_q       <= 1'b0;
            ev_flags_q <= 3'd0;
            ev_bytes_q <= 16'd0;
        end
    end

    // ---- the reaction point ----

    logic                 paced, hold, active, timer_valid, alpha_tick, inc_tick;
    logic [31:0]          rate, target, t_count, bc_count, timer_in;
    logic [16:0]          alpha;
    logic [CYC_WIDTH-1:0] pace_cycles;

    nic_dcqcn_rp #(
        .BYTES_WIDTH(BYTES_WIDTH),
        .BC_EVENTS  (BC_EVENTS),
        .CYC_WIDTH  (CYC_WIDTH)
    ) u_rp (
        .clk            (clk),
        .rst            (rst),
        .line_rate      (cfg_q[0]),
        .min_rate       (cfg_q[1]),
        .g_shift        (cfg_q[2][4:0]),
        .alpha_period   (cfg_q[3]),
        .increase_period(cfg_q[4]),
        .byte_counter   (cfg_q[5]),
        .f_steps        (cfg_q[6]),
        .r_ai           (cfg_q[7]),
        .r_hai          (cfg_q[8]),
        .reset_rp       (ev_flags_q[0]),
        .cnp            (ev_flags_q[1]),
        .sent           (ev_flags_q[2]),
        .sent_bytes     (ev_bytes_q),
        .paced          (paced),
        .hold           (hold),
        .rate           (rate),
        .target         (target),
        .alpha          (alpha),
        .t_count        (t_count),
        .bc_count       (bc_count),
        .active         (active),
        .pace_cycles    (pace_cycles),
        .timer_valid    (timer_valid),
        .timer_in       (timer_in),
        .alpha_tick     (alpha_tick),
        .inc_tick       (inc_tick)
    );

    // ---- the same with SENT_LATE = 1, checked against u_rp ----

    logic                 l_sent_q;
    logic [15:0]          l_bytes_q;
    logic [CYC_WIDTH-1:0] s_cycles_q;
    logic                 l_paced, l_hold, l_active, l_timer_valid, l_alpha_tick, l_inc_tick;
    logic [31:0]          l_rate, l_target, l_t_count, l_bc_count, l_timer_in;
    logic [16:0]          l_alpha;
    logic [CYC_WIDTH-1:0] l_pace_cycles;

    nic_dcqcn_rp #(
        .BYTES_WIDTH(BYTES_WIDTH),
        .BC_EVENTS  (BC_EVENTS),
        .SENT_LATE  (1),
        .CYC_WIDTH  (CYC_WIDTH)
    ) u_late (
        .clk            (clk),
        .rst            (rst),
        .line_rate      (cfg_q[0]),
        .min_rate       (cfg_q[1]),
        .g_shift        (cfg_q[2][4:0]),
        .alpha_period   (cfg_q[3]),
        .increase_period(cfg_q[4]),
        .byte_counter   (cfg_q[5]),
        .f_steps        (cfg_q[6]),
        .r_ai           (cfg_q[7]),
        .r_hai          (cfg_q[8]),
        .reset_rp       (ev_flags_q[0]),
        .cnp            (ev_flags_q[1]),
        .sent           (l_sent_q),
        .sent_bytes     (l_bytes_q),
        .paced          (l_paced),
        .hold           (l_hold),
        .rate           (l_rate),
        .target         (l_target),
        .alpha          (l_alpha),
        .t_count        (l_t_count),
        .bc_count       (l_bc_count),
        .active         (l_active),
        .pace_cycles    (l_pace_cycles),
        .timer_valid    (l_timer_valid),
        .timer_in       (l_timer_in),
        .alpha_tick     (l_alpha_tick),
        .inc_tick       (l_inc_tick)
    );

    always_ff @(posedge clk) begin
        l_sent_q   <= ev_flags_q[2];
        l_bytes_q  <= ev_flags_q[2] ? ev_bytes_q : 16'd0;
        s_cycles_q <= pace_cycles;
        if (!rst) begin
            if ({l_paced, l_hold, l_alpha_tick, l_inc_tick} != {paced, hold, alpha_tick, inc_tick} ||
                (!ev_flags_q[2] &&
                 {l_rate, l_target, l_alpha, l_t_count, l_bc_count, l_active, l_timer_valid, l_timer_in} !=
                 {rate, target, alpha, t_count, bc_count, active, timer_valid, timer_in}) ||
                (l_sent_q && l_pace_cycles != s_cycles_q)) begin
                $error("nic_dcqcn_top: SENT_LATE instance differs in cycle %0d: paced %0d/%0d hold %0d/%0d ticks %0d%0d/%0d%0d rate %0d/%0d target %0d/%0d alpha %0d/%0d T %0d/%0d BC %0d/%0d timer %0d:%0d/%0d:%0d cycles %0d/%0d",
                       cyc_q, l_paced, paced, l_hold, hold, l_alpha_tick, l_inc_tick, alpha_tick, inc_tick,
                       l_rate, rate, l_target, target, l_alpha, alpha, l_t_count, t_count, l_bc_count, bc_count,
                       l_timer_valid, l_timer_in, timer_valid, timer_in, l_pace_cycles, s_cycles_q);
            end
        end
        if (rst) begin
            l_sent_q  <= 1'b0;
            l_bytes_q <= 16'd0;
        end
    end

    // ---- out0..out4: reports ----

    logic             rep_valid_q;
    logic [4:0][63:0] rep_q;

    always_ff @(posedge clk) begin
        if (rep_valid_q && m_axis_tready == 5'h1F) begin
            rep_valid_q <= 1'b0;
        end
        if (ev_q || alpha_tick || inc_tick) begin
            if (rep_valid_q && m_axis_tready != 5'h1F) begin
                $error("nic_dcqcn_top: report of cycle %0d lost (outputs stalled)", cyc_q);
            end
            rep_valid_q <= 1'b1;
            rep_q[0]    <= {6'd0, ev_q, ev_flags_q[2], ev_flags_q[1], ev_flags_q[0], timer_valid, active,
                            inc_tick, alpha_tick, hold, paced, cyc_q[47:0]};
            rep_q[1]    <= {target, rate};
            rep_q[2]    <= {bc_count, t_count};
            rep_q[3]    <= {pace_cycles, 15'd0, alpha};
            rep_q[4]    <= {16'd0, ev_bytes_q, timer_in};
        end
        if (rst) begin
            rep_valid_q <= 1'b0;
        end
    end

    always_comb begin
        m_axis_tdata  = rep_q;
        m_axis_tkeep  = '1;
        m_axis_tvalid = {5{rep_valid_q}};
        m_axis_tlast  = 5'h1F;
        m_axis_tuser  = 5'h00;
    end

    // tuser is not looked at: nothing sends bad frames to this top
    logic unused;
    assign unused = ^{s_axis_tuser, cfg_q[2][31:5]};

endmodule

`resetall
