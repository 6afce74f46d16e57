// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// switch_egress: one output port of eth_switch: QUEUES priority queues of
// copy descriptors, the PFC frames waiting for this port, the scheduler
// (strict priority or deficit round robin), the pause timers, the ECN
// rewrite and the beat output.
//
//   enq_* (up to PORTS copies per cycle) --> queue[0..QUEUES-1] --+
//   pfc_push (up to QUEUES per cycle)    --> pfc fifo -------------+--> pick
//                                                                  |
//   pick --> { slot, beat } --> rd_en, rd_addr --> switch_buffer (registers the beat: rd_data)
//   rd_data --> ECN rewrite --+--> m_axis_tdata    (tkeep, tlast, tvalid: registers here)
//   PFC beat register --------+
//
// PFC frame built here (60 bytes, beats of KEEP_WIDTH bytes):
//   0       6            12     14     16       18           34        60
//   +-------+------------+------+------+--------+------------+---------+
//   |  dst  | SWITCH_MAC | 8808 | 0101 | 1 << p | time[0..7] | zero    |
//   +-------+------------+------+------+--------+------------+---------+
//   dst = 01:80:C2:00:00:01; time[p] = PFC_QUANTA (XOFF) or 0 (XON), the
//   other times 0. SWITCH_MAC and PFC_QUANTA are those of the cycle the
//   frame was generated (they travel with it through the fifo).
//
// ECN rewrite of a marked copy: the TOS byte (14+1, or 18+1 after a VLAN
// tag) and the two checksum bytes (24/25 or 28/29) are replaced by the
// values switch_decide computed, as the beats holding them go out.
//
// Timing constants (the golden model relies on these):
//   A copy queued in cycle D (enq_*) is visible to the scheduler from D+1;
//   copies of one cycle enter a queue in ascending ingress port order.
//   The transmitter is free in cycle t when m_axis_tvalid is low, or when
//   the last beat is taken in t (tvalid && tready && tlast). In every
//   free cycle the port picks: a waiting PFC frame first (oldest first,
//   never paused); else (DRR state advances only in such a cycle) a queue
//   that is non-empty and not paused (strict: highest index; DRR: the
//   README's steps). The pick's first beat is on m_axis from t+1; every
//   further beat the cycle after the previous one was taken.
//   done_* in the cycle z the last beat of a copy is taken (effective z+1).
//   Pause: pause_load in cycle D sets the timer to N = time[p] * 512 /
//   DATA_WIDTH (pause_quanta is time[p]); queue p is paused at the picks of
//   cycles D+1..D+N (timer != 0; it counts down once a cycle).
//   tx_* in the cycle a frame's last beat is taken.
//   PFC frames wait one per priority: a frame generated while its priority
//   still has one waiting replaces it in place (content, not turn); they
//   leave in the order their priorities started waiting (README "PFC").
//
// Simulation speed: only taken, the pick and the read request depend on
// m_axis_tready (Verilator evaluates those at every eval); the candidate
// pick depends on registers only, and the registers change in the one
// always_ff (see eth_switch): a frame's fields at its pick, then per beat
// only the beat number, the bytes left and tkeep/tlast. The queues are an
// unpacked array, so a queue's head is a plain array read.
//
// Reset (synchronous, active high) empties the queues and the PFC frames waiting,
// clears the output valid flag, the pause timers and the DRR state
// (rr = 0, fresh = 0, deficits 0). Queue and data contents are not reset.

module switch_egress #(
    // Switch ports (ingress ports that may queue copies here per cycle).
    parameter int PORTS      = 4,
    // Bits per beat.
    parameter int DATA_WIDTH = 64,
    // Byte lanes per beat.
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // Priority queues; must be 8.
    parameter int QUEUES     = 8,
    // Slot number width.
    parameter int SLOT_W     = 7,
    // Beat number width within a slot.
    parameter int BEAT_W     = 8,
    // Width of a stored frame length.
    parameter int LEN_W      = 16,
    // Entries per queue; at least the number of slots (a slot holds at most
    // one copy per egress port, so a queue never overflows).
    parameter int QDEPTH     = 2 ** SLOT_W
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    // configuration (switch_csr)
    input  wire logic                              ctrl_sched,
    input  wire logic [QUEUES-1:0][31:0]           quantum,
    input  wire logic [15:0]                       pfc_quanta,
    input  wire logic [47:0]                       switch_mac,

    // copies queued by switch_decide, one per ingress port
    input  wire logic [PORTS-1:0]                  enq_valid,
    input  wire logic [PORTS-1:0]                  enq_mark,
    input  wire logic [PORTS-1:0][2:0]             enq_prio,
    input  wire logic [PORTS-1:0][SLOT_W-1:0]      enq_slot,
    input  wire logic [PORTS-1:0][LEN_W-1:0]       enq_len,
    input  wire logic [PORTS-1:0]                  enq_tagged,
    input  wire logic [PORTS-1:0][7:0]             enq_tos,
    input  wire logic [PORTS-1:0][15:0]            enq_csum,

    // pause timers (a PFC frame received on this port): time[q] in quanta
    input  wire logic [QUEUES-1:0]                 pause_load,
    input  wire logic [QUEUES-1:0][15:0]           pause_quanta,

    // PFC frames to send from this port (switch_pfc_ctl)
    input  wire logic [QUEUES-1:0]                 pfc_push,
    input  wire logic [QUEUES-1:0]                 pfc_xoff,

    // buffer read port: rd_en in cycle t loads rd_data at its end
    output logic                                   rd_en,
    output logic      [SLOT_W+BEAT_W-1:0]          rd_addr,
    input  wire logic [DATA_WIDTH-1:0]             rd_data,

    output logic      [DATA_WIDTH-1:0]             m_axis_tdata,
    output wire logic [KEEP_WIDTH-1:0]             m_axis_tkeep,
    output wire logic                              m_axis_tvalid,
    input  wire logic                              m_axis_tready,
    output wire logic                              m_axis_tlast,
    output wire logic                              m_axis_tuser,

    // a copy's last beat was taken
    output logic                                   done_valid,
    output logic      [SLOT_W-1:0]                 done_slot,
    output logic      [2:0]                        done_prio,
    output logic      [LEN_W-1:0]                  done_len,

    // a frame's last beat was taken (counters)
    output logic                                   tx_done,
    output logic                                   tx_pfc,
    output logic      [LEN_W-1:0]                  tx_len,

    // a frame is leaving or a PFC frame is waiting
    output logic                                   busy
);

    // Inlined into eth_switch: as a module of its own, the Verilated model
    // evaluates its logic per instance, apart from the rest (inlined, a
    // cycle takes about a tenth fewer instructions).
    /* verilator inline_module */

    localparam int QPTR_W  = $clog2(QDEPTH);
    localparam int PPTR_W  = $clog2(QUEUES);   // the order of the waiting PFC frames
    localparam int PFC_LEN = 60;
    localparam int PFC_VEC = 64;    // the PFC frame, zero padded
    // pause time[q] * 512 / DATA_WIDTH cycles = time[q] << PAUSE_SHIFT
    localparam int PAUSE_SHIFT = $clog2(512 / DATA_WIDTH);

    initial begin
        if (QUEUES != 8) begin
            $error("switch_egress: QUEUES must be 8 (instance %m)");
            $finish;
        end
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH > PFC_VEC || PFC_VEC % KEEP_WIDTH != 0 ||
            (1 << PAUSE_SHIFT) * DATA_WIDTH != 512) begin
            $error("switch_egress: DATA_WIDTH must be a power of two, 8 to 512 (instance %m)");
            $finish;
        end
        if (QDEPTH < 2 ** SLOT_W || (1 << QPTR_W) != QDEPTH) begin
            $error("switch_egress: QDEPTH must be a power of two, at least 2^SLOT_W (instance %m)");
            $finish;
        end
        if ((2 ** BEAT_W) * KEEP_WIDTH < PFC_VEC) begin
            $error("switch_egress: a slot must hold at least 64 bytes (instance %m)");
            $finish;
        end
    end

    typedef struct packed {
        logic [SLOT_W-1:0] slot;
        logic [LEN_W-1:0]  len;
        logic              mark;
        logic              vlan;
        logic [7:0]        tos;
        logic [15:0]       csum;
    } desc_t;

    typedef struct packed {
        logic        xoff;
        logic [2:0]  prio;
        logic [15:0] quanta;
        logic [47:0] mac;
    } pfc_t;

    // ---- state ----
    // (packed but for qmem: in the Verilated model each nonblocking write to
    // an unpacked array costs bookkeeping in every cycle, written or not)

    // queues of copies; nonempty_q[q] is qwr_q[q] != qrd_q[q]. qmem is
    // unpacked and written with blocking assignments (see the always_ff):
    // a head is then a plain array read, where a packed array of this size
    // takes a wide bit-field extraction at every evaluation.
    /* verilator tracing_off */
    desc_t                          qmem [QUEUES][QDEPTH];   // (too wide to trace usefully)
    /* verilator tracing_on */
    logic [QUEUES-1:0][QPTR_W:0]    qwr_q;
    logic [QUEUES-1:0][QPTR_W:0]    qrd_q;
    logic [QUEUES-1:0]              nonempty_q;

    // PFC frames waiting: one per priority, in order of arrival
    pfc_t [QUEUES-1:0]              pwait;     // the frame waiting per priority
    logic [QUEUES-1:0]              pvalid_q;
    logic [QUEUES-1:0][2:0]         pord;      // priorities in the order they started waiting
    logic [PPTR_W:0]                pwr_q;
    logic [PPTR_W:0]                prd_q;

    // pause timers; paused_q[q] is pause_q[q] != 0
    logic [QUEUES-1:0][31:0]        pause_q;
    logic [QUEUES-1:0]              paused_q;

    // DRR
    logic [2:0]                     rr_q;
    logic                           fresh_q;
    logic [QUEUES-1:0][33:0]        deficit_q;

    // the frame leaving and its beat on m_axis (the data of a copy's beat is
    // rd_data, that of a PFC frame's beat out_pfc_q)
    logic                           out_valid_q;
    logic                           out_last_q;
    logic [KEEP_WIDTH-1:0]          out_keep_q;
    logic [DATA_WIDTH-1:0]          out_pfc_q;
    logic                           cur_pfc_q;
    desc_t                          cur_desc_q;
    pfc_t                           cur_pent_q;
    logic [2:0]                     cur_prio_q;
    logic [BEAT_W-1:0]              cur_beat_q;
    logic [LEN_W:0]                 cur_rem_q;    // bytes from the beat on m_axis to the frame's end

    // ---- the pick, should the transmitter be free (registers only) ----

    logic              pfc_waiting;
    logic [2:0]        phead;
    logic              cand_ok;     // a queue to pick
    logic [2:0]        cand_q;
    desc_t             cand_desc;   // its head
    logic              drr_ok;
    logic [2:0]        drr_q;
    logic [2:0]        rr_n;
    logic              fresh_n;
    logic [QUEUES-1:0][33:0] deficit_n;

    always_comb begin
        logic [QUEUES-1:0] elig;
        logic              strict_ok;
        logic [2:0]        strict_q;
        logic [LEN_W-1:0]  hl;

        pfc_waiting = (pwr_q != prd_q);
        phead       = pord[prd_q[PPTR_W-1:0]];
        elig = nonempty_q & ~paused_q;

        // strict priority: the highest eligible queue
        strict_ok = 1'b0;
        strict_q  = 3'd0;
        for (int q = 0; q < QUEUES; q++) begin
            if (elig[q]) begin
                strict_ok = 1'b1;
                strict_q  = 3'(q);
            end
        end

        // deficit round robin: at most QUEUES steps, only when the
        // transmitter may be free this cycle and no PFC frame waits (the
        // state it reaches is kept only in a cycle the port picks)
        rr_n      = rr_q;
        fresh_n   = fresh_q;
        deficit_n = deficit_q;
        drr_ok    = 1'b0;
        drr_q     = 3'd0;
        hl        = '0;
        if (ctrl_sched && !pfc_waiting && (!out_valid_q || out_last_q)) begin
            for (int step = 0; step < QUEUES; step++) begin
                if (!drr_ok) begin
                    if (!elig[rr_n]) begin
                        if (!nonempty_q[rr_n]) begin
                            deficit_n[rr_n] = '0;
                        end
                        rr_n    = rr_n + 3'd1;
                        fresh_n = 1'b0;
                    end else begin
                        if (!fresh_n) begin
                            deficit_n[rr_n] = deficit_n[rr_n] + {2'b00, quantum[rr_n]};
                            fresh_n         = 1'b1;
                        end
                        hl = qmem[rr_n][qrd_q[rr_n][QPTR_W-1:0]].len;
                        if (deficit_n[rr_n] >= 34'(hl)) begin
                            deficit_n[rr_n] = deficit_n[rr_n] - 34'(hl);
                            drr_ok          = 1'b1;
                            drr_q           = rr_n;
                        end else begin
                            rr_n    = rr_n + 3'd1;
                            fresh_n = 1'b0;
                        end
                    end
                end
            end
        end

        cand_ok   = ctrl_sched ? drr_ok : strict_ok;
        cand_q    = ctrl_sched ? drr_q : strict_q;
        cand_desc = '0;
        if (cand_ok) begin
            cand_desc = qmem[cand_q][qrd_q[cand_q][QPTR_W-1:0]];
        end
    end

    // ---- this cycle's pick and beat (the only logic on m_axis_tready) ----

    logic taken;
    logic tx_free;
    logic pick_pfc;
    logic pick_queue;

    always_comb begin
        taken      = out_valid_q && m_axis_tready;
        tx_free    = !out_valid_q || (taken && out_last_q);
        pick_pfc   = tx_free && pfc_waiting;
        pick_queue = tx_free && !pfc_waiting && cand_ok;
        // the buffer reads the pick's first beat or the next beat of a copy
        rd_en      = pick_queue || (taken && !out_last_q && !cur_pfc_q);
        rd_addr    = pick_queue ? {cand_desc.slot, BEAT_W'(0)} : {cur_desc_q.slot, cur_beat_q + 1'b1};
    end

    // ---- the beat on m_axis: rd_data with the ECN rewrite, or the PFC beat ----

    always_comb begin
        int base;
        int tos_at;
        int csum_at;

        m_axis_tdata = cur_pfc_q ? out_pfc_q : rd_data;
        base         = 0;
        tos_at       = 0;
        csum_at      = 0;
        if (!cur_pfc_q && cur_desc_q.mark) begin
            // the rewritten bytes that fall in this beat
            base    = int'(cur_beat_q) * KEEP_WIDTH;
            tos_at  = cur_desc_q.vlan ? 19 : 15;
            csum_at = cur_desc_q.vlan ? 28 : 24;
            if (tos_at >= base && tos_at < base + KEEP_WIDTH) begin
                m_axis_tdata[8*(tos_at - base) +: 8] = cur_desc_q.tos;
            end
            if (csum_at >= base && csum_at < base + KEEP_WIDTH) begin
                m_axis_tdata[8*(csum_at - base) +: 8] = cur_desc_q.csum[15:8];
            end
            if (csum_at + 1 >= base && csum_at + 1 < base + KEEP_WIDTH) begin
                m_axis_tdata[8*(csum_at + 1 - base) +: 8] = cur_desc_q.csum[7:0];
            end
        end
    end

    // ---- state updates ----
    // (every register is read before its nonblocking assignment and the
    // reset values come last, so Verilator assigns them in place)

    always_ff @(posedge clk) begin
        logic                    l_pfc;
        pfc_t                    l_pent;
        logic [BEAT_W-1:0]       l_beat;
        int                      base;
        int                      rem;
        logic [PFC_VEC-1:0][7:0] pv;
        logic [QUEUES-1:0][QPTR_W:0] w;
        logic [QPTR_W:0]         r;
        logic [QUEUES-1:0]       ne;
        logic [PPTR_W:0]         n;
        logic [PPTR_W-1:0]       at;
        logic                    head_left;
        logic [QUEUES-1:0]       pvn;
        logic [QUEUES-1:0][31:0] pz;
        logic [QUEUES-1:0]       pm;

        // the transmitter: the pick's first beat or the next beat (the
        // frame's fields are written only at the pick)
        if (pick_pfc || pick_queue || (taken && !out_last_q)) begin
            if (pick_pfc) begin
                l_pfc       = 1'b1;
                l_pent      = pwait[phead];
                l_beat      = '0;
                rem         = PFC_LEN;
                cur_pent_q <= l_pent;
                cur_prio_q <= l_pent.prio;
            end else if (pick_queue) begin
                l_pfc       = 1'b0;
                l_pent      = cur_pent_q;
                l_beat      = '0;
                rem         = int'(cand_desc.len);
                cur_desc_q <= cand_desc;
                cur_prio_q <= cand_q;
            end else begin
                l_pfc  = cur_pfc_q;
                l_pent = cur_pent_q;
                l_beat = cur_beat_q + 1'b1;
                rem    = int'(cur_rem_q) - KEEP_WIDTH;
            end
            // rem: the frame's length less the beats before this one
            base = int'(l_beat) * KEEP_WIDTH;
            if (rem >= KEEP_WIDTH) begin
                out_keep_q <= '1;
            end else if (rem <= 0) begin
                out_keep_q <= '0;
            end else begin
                out_keep_q <= ~({KEEP_WIDTH{1'b1}} << rem);
            end
            out_last_q <= (rem <= KEEP_WIDTH);
            if (l_pfc) begin
                // the PFC frame, built only for its own beats
                pv      = '0;
                pv[0]   = 8'h01;
                pv[1]   = 8'h80;
                pv[2]   = 8'hC2;
                pv[3]   = 8'h00;
                pv[4]   = 8'h00;
                pv[5]   = 8'h01;
                for (int k = 0; k < 6; k++) begin
                    pv[6 + k] = l_pent.mac[8*(5-k) +: 8];
                end
                pv[12]  = 8'h88;
                pv[13]  = 8'h08;
                pv[14]  = 8'h01;
                pv[15]  = 8'h01;
                pv[16]  = 8'h00;
                pv[17]  = 8'h01 << l_pent.prio;
                if (l_pent.xoff) begin
                    pv[18 + 2 * int'(l_pent.prio)] = l_pent.quanta[15:8];
                    pv[19 + 2 * int'(l_pent.prio)] = l_pent.quanta[7:0];
                end
                // base is a multiple of KEEP_WIDTH, which divides PFC_VEC
                if (base < PFC_VEC) begin
                    out_pfc_q <= pv[base +: KEEP_WIDTH];
                end else begin
                    out_pfc_q <= '0;
                end
            end
            cur_pfc_q  <= l_pfc;
            cur_beat_q <= l_beat;
            cur_rem_q  <= (LEN_W + 1)'(rem);
        end
        if (pick_pfc || pick_queue) begin
            out_valid_q <= 1'b1;
        end else if (tx_done) begin
            out_valid_q <= 1'b0;
        end

        // copies: copy i lands at the write pointer of its queue as advanced
        // by the copies of lower ports; the pick takes the head. qmem is
        // written with blocking assignments: only the always_comb above
        // reads it, after this block, so they act as nonblocking ones
        // without the Verilated model's per-cycle bookkeeping.
        if (enq_valid != '0 || pick_queue) begin
            w  = qwr_q;
            ne = nonempty_q;
            for (int i = 0; i < PORTS; i++) begin
                if (enq_valid[i]) begin
                    /* verilator lint_off BLKSEQ */
                    qmem[enq_prio[i]][w[enq_prio[i]][QPTR_W-1:0]] =
                        '{slot: enq_slot[i], len: enq_len[i], mark: enq_mark[i], vlan: enq_tagged[i],
                          tos: enq_tos[i], csum: enq_csum[i]};
                    /* verilator lint_on BLKSEQ */
                    w[enq_prio[i]]  = w[enq_prio[i]] + 1'b1;
                    ne[enq_prio[i]] = 1'b1;
                end
            end
            if (pick_queue) begin
                r              = qrd_q[cand_q] + 1'b1;
                qrd_q[cand_q] <= r;
                ne[cand_q]     = (r != w[cand_q]);
            end
            qwr_q      <= w;
            nonempty_q <= ne;
        end

        // PFC frames: the head leaves at this cycle's pick, before this
        // cycle's pushes, so a push for it takes a new turn
        if (pfc_push != '0 || pick_pfc) begin
            n = '0;
            for (int p = 0; p < QUEUES; p++) begin
                head_left = pick_pfc && phead == 3'(p);
                if (pfc_push[p]) begin
                    pwait[p] <= '{xoff: pfc_xoff[p], prio: 3'(p), quanta: pfc_quanta, mac: switch_mac};
                    if (!pvalid_q[p] || head_left) begin
                        at       = pwr_q[PPTR_W-1:0] + n[PPTR_W-1:0];   // wraps
                        pord[at] <= 3'(p);
                        n        = n + 1'b1;
                    end
                end
                pvn[p] = (pvalid_q[p] && !head_left) || pfc_push[p];
            end
            pvalid_q <= pvn;
            pwr_q    <= pwr_q + n;
            prd_q    <= prd_q + (PPTR_W + 1)'(pick_pfc);
        end

        // pause timers
        if (pause_load != '0 || paused_q != '0) begin
            pz = pause_q;
            pm = paused_q;
            for (int q = 0; q < QUEUES; q++) begin
                if (pause_load[q]) begin
                    pz[q] = {16'd0, pause_quanta[q]} << PAUSE_SHIFT;
                    pm[q] = (pz[q] != 32'd0);
                end else if (pm[q]) begin
                    pz[q] = pz[q] - 32'd1;
                    pm[q] = (pz[q] != 32'd0);
                end
            end
            pause_q  <= pz;
            paused_q <= pm;
        end

        // DRR state, kept only when the port picks from the queues
        if (tx_free && !pfc_waiting && ctrl_sched) begin
            rr_q      <= rr_n;
            fresh_q   <= fresh_n;
            deficit_q <= deficit_n;
        end

        if (rst) begin
            qwr_q       <= '0;
            qrd_q       <= '0;
            nonempty_q  <= '0;
            pwr_q       <= '0;
            prd_q       <= '0;
            pvalid_q    <= '0;
            pause_q     <= '0;
            paused_q    <= '0;
            out_valid_q <= 1'b0;
            rr_q        <= 3'd0;
            fresh_q     <= 1'b0;
            deficit_q   <= '0;
        end
    end

    assign m_axis_tkeep  = out_keep_q;
    assign m_axis_tvalid = out_valid_q;
    assign m_axis_tlast  = out_last_q;
    assign m_axis_tuser  = 1'b0;

    assign done_valid = taken && out_last_q && !cur_pfc_q;
    assign done_slot  = cur_desc_q.slot;
    assign done_prio  = cur_prio_q;
    assign done_len   = cur_desc_q.len;

    assign tx_done = taken && out_last_q;
    assign tx_pfc  = taken && out_last_q && cur_pfc_q;
    assign tx_len  = cur_pfc_q ? LEN_W'(PFC_LEN) : cur_desc_q.len;

    assign busy = out_valid_q || pfc_waiting;

endmodule

`resetall
