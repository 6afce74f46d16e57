// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_dcqcn_rp: the DCQCN reaction point of one QP and its rate limiter,
// bit for bit golden/dcqcn's ReactionPoint as golden/rc's qp uses it.
//
// State (golden/dcqcn rp.go, field for field): Rc (rate), Rt (target),
// alpha (Q16, 17 bits), the increase-event counts T and BC (32 bits,
// saturating), the byte counter, the alpha and increase timers, plus
// golden/rc's pacing cycle nextSend. Rates are Q16.16 bytes per cycle
// (dcqcn.Rate); the configuration inputs are the DCQCN CSRs 0x40..0x60
// (rtl/nic/README.md "CSR map").
//
// ---- Events of a cycle t, in this order (the golden calls, now = t) ----
//
//   L. sent       SENT_LATE = 1 only: the packet the engine decided in t-1,
//                 qp.sentPaced(sent_bytes, t-1): OnSent(bytes, t-1), then
//                 nextSend = (t-1) + Rate().Cycles(bytes) if the QP was
//                 paced in t-1 (the paced output of t-1, kept here), else
//                 t-1. Golden makes the same calls in the same order (the
//                 send of t-1 comes after everything else of t-1 and before
//                 the timers of t), so the state sequence is golden's.
//      -> pace_cycles (SENT_LATE = 1)
//   0. reset_rp   ReactionPoint.Reset(cfg) and nextSend = 0 (golden/rc
//                 newQP, the QP load). Timers due at t do not fire.
//   1. timers     Advance(t): every timer due at t fires, the alpha timer
//                 first, then the increase timer.
//      -> alpha_tick, inc_tick
//   2. cnp        OnCNP(t). Ignored while line_rate is 0 (golden/rc calls
//                 the reaction point only when DCQCN.LineRate != 0).
//      -> paced, hold
//   3. sent       SENT_LATE = 0 only: qp.sentPaced(sent_bytes, t):
//                 OnSent(bytes, t), then nextSend = t + Rate().Cycles(bytes)
//                 if the QP was paced before OnSent (the paced output of t),
//                 else nextSend = t.
//      -> pace_cycles (SENT_LATE = 0)
//   -> rate, target, alpha, t_count, bc_count, active, timer_valid, timer_in
//
// Any subset of the inputs may be high in one cycle. Every output is
// combinational, valid in cycle t itself:
//
//   paced       golden qp.paced() after 0..2 of t (never after a sent of
//               t): line_rate != 0 && Rc < line_rate. This is the paced
//               value sentPaced takes for a packet decided at t. With
//               SENT_LATE = 0 it does not depend on sent or sent_bytes.
//   hold        paced && t < nextSend, after 0..2 of t: golden's `held` in
//               qp.poll and the pend rule of Node.Poll (the requester half
//               and READ responses may not send at t). With SENT_LATE = 0 it
//               does not depend on sent or sent_bytes, so the engine may
//               decide its packet of t from it and drive sent in t; with
//               SENT_LATE = 1 it depends on the sent of t (the packet of
//               t-1), which the engine drives from a register.
//   alpha_tick, inc_tick
//               the alpha / increase timer fired at the start of t (golden
//               AlphaDecays / TimerEvents counted one at t): a DCQCN timer
//               of the QP was due at t, golden Node.advance sets pend. Low in
//               a cycle with reset_rp; independent of cnp (and of sent when
//               SENT_LATE = 0).
//   rate, target, alpha, t_count, bc_count, active
//               Rate(), Target(), Alpha(), IncreaseCounts(), Active()
//               after every event of t listed above.
//   pace_cycles Rate().Cycles(sent_bytes), Rate() right after the OnSent of
//               step L or 3: when sent and paced, nextSend = t + pace_cycles
//               (SENT_LATE = 0) or (t-1) + pace_cycles (SENT_LATE = 1),
//               which is what hold counts down. Depends combinationally on
//               sent and sent_bytes (through byte-counter events). With no
//               sent it is Cycles at the rate after the cnp (SENT_LATE = 1)
//               or after everything of t (SENT_LATE = 0). Cycles(0) = 0; a
//               rate of 0 (only before the first reset_rp) gives all ones
//               (golden: math.MaxUint64).
//   timer_valid, timer_in
//               NextEvent() after every event of t: a timer is armed and
//               the earliest fires at cycle t + timer_in (timer_in >= 1).
//               The engine does not need it (the timers here fire by
//               themselves); it is there for checks.
//
// The registers take the state after every event of t at the end of t.
// The engine drives sent for every packet golden/rc passes to sentPaced
// (every packet of the QP but ACK/NAK), at most one per cycle.
//
// Wiring into nic_engine (g_rp; its "DCQCN" marks), one instance per slot:
//   reset_rp   the slot's load (golden AddQP; a slot is never loaded twice)
//   cnp        a CNP decided for the slot in t (Node.Receive), CTRL bit 1 set
//   sent       SENT_LATE = 1: the slot's non-ACK/NAK packet decided in t-1
//   held       `rp_paced && now < rp_next_send` is hold (same cycle, after
//              the timers and the CNP of t), for qp_poll and Node.Poll's pend
//   pend       alpha_tick || inc_tick: a DCQCN timer of the slot fired at t
//              (Node.advance sets pend)
//   line_rate  the LINE_RATE CSR while CTRL bit 1 is set, else 0: then paced
//              and hold are 0, cnp is ignored and no timer ever fires
//              (golden with DCQCN.LineRate 0).

// ---- Limits (the golden model keeps wider values) ----
//
// - alpha_period, increase_period, byte_counter are 32 bits (golden 64;
//   the CSRs are 32 bits): a timer deadline is held as a count-down, so
//   golden's disarm of a deadline past 2^64-1 cycles never happens here
//   (cycle 2^64 is never reached).
// - sent_bytes is BYTES_WIDTH bits (default 16: any Ethernet frame).
// - One sent makes at most BC_EVENTS byte-counter events, which holds
//   when sent_bytes <= BC_EVENTS * byte_counter (or byte_counter is 0):
//   golden/rc sends at most rc.MaxFrameLen bytes per packet, so with the
//   default BC_EVENTS = 4 the limit is byte_counter >= 1045 (the paper's
//   B is 10 MB). A sent that would need more is an $error.
// - The configuration inputs must hold steady from reset_rp on while the
//   QP is in use: golden copies dcqcn.Config at Reset, this module reads
//   the inputs every cycle (nic_csr's DCQCN registers are written before
//   any QP is loaded, golden/nic NodeConfigWrites).
// - Before the first reset_rp (after rst) the state is golden's zero
//   value (rate 0, nothing armed); the outputs mean nothing then.
//
// Combinational depth: timers -> CNP (a 32x17 multiply) -> BC_EVENTS
// increase steps (32x32 multiply each) -> a 32/32 divide for pace_cycles
// (SENT_LATE = 1: the sent steps and the divide first, then timers, CNP).
// This is simulation-first RTL, like the rest of the NIC engine.
//
// Tested: sim/tops/nic_dcqcn_top.sv (both SENT_LATE modes),
// rtl/nic/tb/nic_dcqcn_test.go against golden/dcqcn, every cycle with
// an event or a timer tick.

module nic_dcqcn_rp #(
    // Width of sent_bytes; pace_cycles is BYTES_WIDTH + 16 bits. 16..32.
    parameter int BYTES_WIDTH = 16,
    // Byte-counter events one sent can make (see "Limits"). 1..16.
    parameter int BC_EVENTS   = 4,
    // 0: sent is the packet of this cycle, applied after the CNP (step 3).
    // 1: sent is the packet decided in the previous cycle, applied first
    // (step L), for an engine that registers its transmit decision.
    parameter int SENT_LATE   = 0,
    // Derived: width of pace_cycles.
    parameter int CYC_WIDTH   = BYTES_WIDTH + 16
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    // dcqcn.Config, as the CSRs hold it
    input  wire logic [31:0]            line_rate,        // LineRate, Q16.16 B/cycle (0: DCQCN off)
    input  wire logic [31:0]            min_rate,         // MinRate, Q16.16
    input  wire logic [4:0]             g_shift,          // GShift
    input  wire logic [31:0]            alpha_period,     // AlphaPeriod, cycles
    input  wire logic [31:0]            increase_period,  // IncreasePeriod, cycles
    input  wire logic [31:0]            byte_counter,     // ByteCounter, bytes (0: off)
    input  wire logic [31:0]            f_steps,          // FastRecoverySteps
    input  wire logic [31:0]            r_ai,             // AdditiveStep, Q16.16
    input  wire logic [31:0]            r_hai,            // HyperStep, Q16.16

    // events of this cycle
    input  wire logic                   reset_rp,
    input  wire logic                   cnp,
    input  wire logic                   sent,
    input  wire logic [BYTES_WIDTH-1:0] sent_bytes,

    // outputs (see the header for the events each one includes). Those
    // nic_engine leaves open are untraced: there the simulator drops them
    // instead of computing them per slot and cycle (a traced signal is
    // kept); the state registers below stay traced.
    /* verilator tracing_off */
    output logic                        paced,
    /* verilator tracing_on */
    output logic                        hold,
    /* verilator tracing_off */
    output logic      [31:0]            rate,
    output logic      [31:0]            target,
    output logic      [16:0]            alpha,
    output logic      [31:0]            t_count,
    output logic      [31:0]            bc_count,
    output logic                        active,
    output logic      [CYC_WIDTH-1:0]   pace_cycles,
    output logic                        timer_valid,
    output logic      [31:0]            timer_in,
    /* verilator tracing_on */
    output logic                        alpha_tick,
    output logic                        inc_tick
);

    // Inlined into the parent by Verilator: as a module of its own, each of
    // the engine's 16 instances cost a call and its own pass over its
    // state in every cycle.
    /*verilator inline_module*/

    initial begin
        if (BYTES_WIDTH < 16 || BYTES_WIDTH > 32 || BC_EVENTS < 1 || BC_EVENTS > 16 || SENT_LATE < 0 || SENT_LATE > 1 ||
            CYC_WIDTH != BYTES_WIDTH + 16) begin
            $error("nic_dcqcn_rp: BYTES_WIDTH 16..32, BC_EVENTS 1..16, SENT_LATE 0..1, CYC_WIDTH = BYTES_WIDTH + 16 (instance %m)");
            $finish;
        end
    end

    localparam logic [16:0] ALPHA_ONE = 17'h10000;   // dcqcn.AlphaOne

    // One rate-increase event (golden rp.increase): the kind from T and BC
    // as they were before it, Rt capped at the line rate, then Rc =
    // ceil((Rc + Rt) / 2). Returns {Rc, Rt}.
    function automatic logic [63:0] increase(input logic [31:0] rc, input logic [31:0] rt,
                                             input logic [31:0] t, input logic [31:0] bc,
                                             input logic [31:0] f, input logic [31:0] line,
                                             input logic [31:0] ai, input logic [31:0] hai);
        logic [31:0] lo, hi;
        logic [63:0] step;
        logic [64:0] nrt;
        logic [31:0] avg;
        lo = (t < bc) ? t : bc;
        hi = (t < bc) ? bc : t;
        if (hi < f) begin
            step = 64'd0;                                   // fast recovery
        end else if (t > f && bc > f) begin
            step = {32'd0, lo - f} * {32'd0, hai};          // hyper: (min(T,BC)-F)*R_HAI
        end else begin
            step = {32'd0, ai};                             // additive
        end
        nrt = {33'd0, rt} + {1'b0, step};
        if (nrt > {33'd0, line}) begin
            nrt = {33'd0, line};
        end
        avg = 32'(({1'b0, rc} + {1'b0, nrt[31:0]} + 33'd1) >> 1);
        return {avg, nrt[31:0]};
    endfunction

    function automatic logic [31:0] sat_inc(input logic [31:0] x);
        return (x == 32'hFFFF_FFFF) ? x : x + 32'd1;
    endfunction

    // What OnSent touches.
    typedef struct packed {
        logic [31:0] rc;
        logic [31:0] rt;
        logic [31:0] bc;
        logic [31:0] bcb;     // bytes towards the next byte-counter event
        logic        i_arm;
        logic        over;    // more than BC_EVENTS events were due
    } sent_t;

    // OnSent(bytes): while recovering, every byte_counter bytes is one
    // increase event counted in BC (up to BC_EVENTS of them); the event that
    // reaches the line rate stops the increase timer and drops the rest.
    function automatic sent_t on_sent(input sent_t s, input logic [BYTES_WIDTH-1:0] bytes,
                                      input logic [31:0] t, input logic [31:0] b,
                                      input logic [31:0] f, input logic [31:0] line,
                                      input logic [31:0] ai, input logic [31:0] hai);
        sent_t       r;
        logic [32:0] sum;
        logic [63:0] inc;
        r      = s;
        r.over = 1'b0;
        if (s.rc < line && b != 32'd0 && bytes != '0) begin
            sum = {1'b0, s.bcb} + 33'(bytes);
            for (int k = 0; k < BC_EVENTS; k++) begin
                if (r.rc < line && sum >= {1'b0, b}) begin
                    sum  = sum - {1'b0, b};
                    inc  = increase(r.rc, r.rt, t, r.bc, f, line, ai, hai);
                    r.rc = inc[63:32];
                    r.rt = inc[31:0];
                    r.bc = sat_inc(r.bc);
                    if (r.rc >= line) begin
                        r.i_arm = 1'b0;
                        sum     = 33'd0;
                    end
                end
            end
            r.over = r.rc < line && sum >= {1'b0, b};
            r.bcb  = sum[31:0];
        end
        return r;
    endfunction

    // Rate.Cycles(bytes) = ceil(bytes * 65536 / rc): 0 for 0 bytes, all
    // ones at rate 0.
    function automatic logic [CYC_WIDTH-1:0] cycles(input logic [BYTES_WIDTH-1:0] bytes,
                                                    input logic [31:0] rc);
        logic [CYC_WIDTH-1:0] num;
        num = {bytes, 16'd0};
        if (bytes == '0) begin
            return '0;
        end
        if (rc == 32'd0) begin
            return '1;
        end
        return num / CYC_WIDTH'(rc) + CYC_WIDTH'(num % CYC_WIDTH'(rc) != '0);
    endfunction

    // ---- state ----

    logic [31:0]          rc_q, rc_d;
    logic [31:0]          rt_q, rt_d;
    logic [16:0]          alpha_q, alpha_d;
    logic [31:0]          t_q, t_d;
    logic [31:0]          bc_q, bc_d;
    logic [31:0]          bcb_q, bcb_d;       // bytes towards the next byte-counter event
    logic                 a_arm_q, a_arm_d;   // alpha timer armed
    logic [31:0]          a_rem_q, a_rem_d;   // deadline - this cycle, valid when armed
    logic                 i_arm_q, i_arm_d;   // increase timer armed
    logic [31:0]          i_rem_q, i_rem_d;
    logic [CYC_WIDTH-1:0] p_rem_q, p_rem_d;   // max(nextSend - this cycle, 0)
    logic                 paced_q;            // paced in the previous cycle (SENT_LATE)

    logic                 bc_over;            // a sent needed more than BC_EVENTS events
    logic                 quiet;              // no event, no timer, no pacing count: nothing moves

    // Most cycles of most QPs have no event: no sent, reset or CNP, no timer
    // armed and no pacing count running. Then the state holds and the
    // outputs follow from it alone (the steps below would change nothing):
    // the fast path skips them, as the simulator evaluates this block in
    // every cycle of every instance. The fast path does not even compute the
    // next state: the always_ff loads it only when not quiet, and nothing
    // else reads the _d values, so they (and the locals) are assigned on the
    // other path only (LATCH waived: they are no latch that anything reads).
    assign quiet = !sent && !reset_rp && !cnp && !a_arm_q && !i_arm_q && p_rem_q == '0;

    /* verilator lint_off LATCH */
    always_comb begin
        logic [63:0] inc;
        logic [31:0] cutrc;
        sent_t       st;
        logic        paced_pre;

        bc_over     = 1'b0;
        alpha_tick  = 1'b0;
        inc_tick    = 1'b0;

        if (quiet) begin
            // the outputs follow from the state alone (no next state: above)
            paced       = line_rate != 32'd0 && rc_q < line_rate;
            hold        = 1'b0;
            pace_cycles = cycles(sent_bytes, rc_q);
            active      = rc_q < line_rate;
            timer_valid = 1'b0;
            timer_in    = 32'd0;
            rate        = rc_q;
            target      = rt_q;
            alpha       = alpha_q;
            t_count     = t_q;
            bc_count    = bc_q;
        end else begin
            inc   = 64'd0;
            cutrc = 32'd0;
            st    = '0;
            paced_pre = 1'b0;

            rc_d    = rc_q;
            rt_d    = rt_q;
            alpha_d = alpha_q;
            t_d     = t_q;
            bc_d    = bc_q;
            bcb_d   = bcb_q;
            a_arm_d = a_arm_q;
            a_rem_d = a_rem_q;
            i_arm_d = i_arm_q;
            i_rem_d = i_rem_q;
            p_rem_d = p_rem_q;
            pace_cycles = '0;

            // L. the packet of t-1 (SENT_LATE): p_rem_d becomes the count of t
            if (SENT_LATE != 0 && sent) begin
                st      = on_sent('{rc: rc_d, rt: rt_d, bc: bc_d, bcb: bcb_d, i_arm: i_arm_d, over: 1'b0},
                                  sent_bytes, t_d, byte_counter, f_steps, line_rate, r_ai, r_hai);
                rc_d    = st.rc;
                rt_d    = st.rt;
                bc_d    = st.bc;
                bcb_d   = st.bcb;
                i_arm_d = st.i_arm;
                bc_over = st.over;
                pace_cycles = cycles(sent_bytes, rc_d);
                // nextSend - t = (t-1) + cycles - t
                p_rem_d = (paced_q && pace_cycles != '0) ? pace_cycles - CYC_WIDTH'(1) : '0;
            end

            // 0. reset_rp: Reset(cfg), nextSend = 0
            if (reset_rp) begin
                rc_d    = line_rate;
                rt_d    = line_rate;
                alpha_d = ALPHA_ONE;
                t_d     = 32'd0;
                bc_d    = 32'd0;
                bcb_d   = 32'd0;
                a_arm_d = 1'b0;
                a_rem_d = 32'd0;
                i_arm_d = 1'b0;
                i_rem_d = 32'd0;
                p_rem_d = '0;
            end

            // 1. timers due at t: the alpha timer, then the increase timer.
            // a_rem_d / i_rem_d become deadline - (t+1), the count of cycle t+1.
            alpha_tick = a_arm_d && a_rem_d == 32'd0;
            inc_tick   = i_arm_d && i_rem_d == 32'd0;
            if (alpha_tick) begin
                alpha_d = alpha_d - (alpha_d >> g_shift);
                a_rem_d = alpha_period - 32'd1;
                if ((alpha_d >> g_shift) == 17'd0) begin
                    a_arm_d = 1'b0;
                end
            end else if (a_arm_d) begin
                a_rem_d = a_rem_d - 32'd1;
            end
            if (inc_tick) begin
                inc     = increase(rc_d, rt_d, t_d, bc_d, f_steps, line_rate, r_ai, r_hai);
                rc_d    = inc[63:32];
                rt_d    = inc[31:0];
                t_d     = sat_inc(t_d);
                i_rem_d = increase_period - 32'd1;
                if (rc_d >= line_rate) begin
                    i_arm_d = 1'b0;
                    bcb_d   = 32'd0;
                end
            end else if (i_arm_d) begin
                i_rem_d = i_rem_d - 32'd1;
            end

            // 2. CNP
            if (cnp && line_rate != 32'd0) begin
                alpha_d = alpha_d - (alpha_d >> g_shift) + (ALPHA_ONE >> g_shift);
                // Rc - (Rc*alpha)>>17, at most Rc/2
                cutrc   = rc_d - 32'(({17'd0, rc_d} * {32'd0, alpha_d}) >> 17);
                rt_d    = rc_d;
                rc_d    = (cutrc < min_rate) ? min_rate : cutrc;
                t_d     = 32'd0;
                bc_d    = 32'd0;
                bcb_d   = 32'd0;
                a_arm_d = (alpha_d >> g_shift) != 17'd0 && alpha_period != 32'd0;
                a_rem_d = alpha_period - 32'd1;
                i_arm_d = rc_d < line_rate && increase_period != 32'd0;
                i_rem_d = increase_period - 32'd1;
            end

            paced_pre = line_rate != 32'd0 && rc_d < line_rate;
            paced     = paced_pre;
            hold      = paced_pre && p_rem_d != '0;

            // 3. the packet of t (SENT_LATE = 0): p_rem_d becomes the count of t+1
            if (SENT_LATE == 0) begin
                if (sent) begin
                    st      = on_sent('{rc: rc_d, rt: rt_d, bc: bc_d, bcb: bcb_d, i_arm: i_arm_d, over: 1'b0},
                                      sent_bytes, t_d, byte_counter, f_steps, line_rate, r_ai, r_hai);
                    rc_d    = st.rc;
                    rt_d    = st.rt;
                    bc_d    = st.bc;
                    bcb_d   = st.bcb;
                    i_arm_d = st.i_arm;
                    bc_over = st.over;
                end
                pace_cycles = cycles(sent_bytes, rc_d);
                if (sent) begin
                    p_rem_d = (paced_pre && pace_cycles != '0) ? pace_cycles - CYC_WIDTH'(1) : '0;
                end else if (p_rem_d != '0) begin
                    p_rem_d = p_rem_d - CYC_WIDTH'(1);
                end
            end else if (p_rem_d != '0) begin
                p_rem_d = p_rem_d - CYC_WIDTH'(1);
            end
            if (SENT_LATE != 0 && !sent) begin
                pace_cycles = cycles(sent_bytes, rc_d);
            end

            active   = rc_d < line_rate || a_arm_d;
            // NextEvent - t = (deadline - (t+1)) + 1
            timer_valid = a_arm_d || i_arm_d;
            if (a_arm_d && (!i_arm_d || a_rem_d <= i_rem_d)) begin
                timer_in = a_rem_d + 32'd1;
            end else if (i_arm_d) begin
                timer_in = i_rem_d + 32'd1;
            end else begin
                timer_in = 32'd0;
            end

            rate     = rc_d;
            target   = rt_d;
            alpha    = alpha_d;
            t_count  = t_d;
            bc_count = bc_d;
        end  // not quiet
    end
    /* verilator lint_on LATCH */

    always_ff @(posedge clk) begin
        // quiet: the state holds (the _d values are not computed)
        if (!quiet) begin
            rc_q    <= rc_d;
            rt_q    <= rt_d;
            alpha_q <= alpha_d;
            t_q     <= t_d;
            bc_q    <= bc_d;
            bcb_q   <= bcb_d;
            a_arm_q <= a_arm_d;
            a_rem_q <= a_rem_d;
            i_arm_q <= i_arm_d;
            i_rem_q <= i_rem_d;
            p_rem_q <= p_rem_d;
        end
        paced_q <= paced;
        if (!rst && bc_over) begin
            $error("nic_dcqcn_rp: sent of %0d bytes needs more than BC_EVENTS=%0d byte-counter events (byte_counter %0d)",
                   sent_bytes, BC_EVENTS, byte_counter);
        end
        if (rst) begin
            // golden's zero-value ReactionPoint: idle at rate 0
            rc_q    <= 32'd0;
            rt_q    <= 32'd0;
            alpha_q <= 17'd0;
            t_q     <= 32'd0;
            bc_q    <= 32'd0;
            bcb_q   <= 32'd0;
            a_arm_q <= 1'b0;
            a_rem_q <= 32'd0;
            i_arm_q <= 1'b0;
            i_rem_q <= 32'd0;
            p_rem_q <= '0;
            paced_q <= 1'b0;
        end
    end


    // ---- Cover points (coverage build only: Verilator --coverage-user;
    // rtl/nic/README.md, "Cover points"; no functions in them, see
    // nic_engine's). The increase stage is read from T, BC and F as they
    // were before the cycle, as golden's increase reads it. The signals
    // below feed only the properties and are untraced: the other builds
    // drop them.
    /* verilator tracing_off */
    logic cov_on;     // DCQCN on and the QP past its first reset
    logic cov_fast;   // an increase now is fast recovery: max(T, BC) < F
    logic cov_hyper;  // an increase now is hyper: T > F and BC > F (else additive)
    always_comb begin : cov_signals
        cov_on    = line_rate != 32'd0 && rt_q != 32'd0;
        cov_fast  = t_q < f_steps && bc_q < f_steps;
        cov_hyper = t_q > f_steps && bc_q > f_steps;
    end

    cov_dcqcn_rate_cut:          cover property (@(posedge clk) disable iff (rst) cnp && cov_on);
    cov_dcqcn_cut_to_min_rate:   cover property (@(posedge clk) disable iff (rst) cnp && cov_on && rate == min_rate);
    cov_dcqcn_alpha_decay:       cover property (@(posedge clk) disable iff (rst) alpha_tick);
    cov_dcqcn_fast_recovery:     cover property (@(posedge clk) disable iff (rst) inc_tick && cov_fast);
    cov_dcqcn_additive_increase: cover property (@(posedge clk) disable iff (rst) inc_tick && !cov_fast && !cov_hyper);
    cov_dcqcn_hyper_increase:    cover property (@(posedge clk) disable iff (rst) inc_tick && cov_hyper);
    cov_dcqcn_byte_counter_step: cover property (@(posedge clk) disable iff (rst) sent && !cnp && bc_count != bc_q);
    cov_dcqcn_recovered:         cover property (@(posedge clk) disable iff (rst) cov_on && rc_q < line_rate &&
                                                                                  rate >= line_rate);
    cov_dcqcn_rate_limited:      cover property (@(posedge clk) disable iff (rst) hold);
    /* verilator tracing_on */

endmodule

`resetall
