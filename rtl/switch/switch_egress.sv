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
//   pick --> { slot, beat } --> rd_addr / rd_data --> ECN rewrite --> out regs --> m_axis
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
//   Pause: pause_load in cycle D sets the timer to N; queue p is paused at
//   the picks of cycles D+1..D+N (timer != 0; it counts down once a cycle).
//   tx_* in the cycle a frame's last beat is taken.
//   PFC frames wait one per priority: a frame generated while its priority
//   still has one waiting replaces it in place (content, not turn); they
//   leave in the order their priorities started waiting (README "PFC").
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

    // pause timers (a PFC frame received on this port)
    input  wire logic [QUEUES-1:0]                 pause_load,
    input  wire logic [QUEUES-1:0][31:0]           pause_time,

    // PFC frames to send from this port (switch_pfc_ctl)
    input  wire logic [QUEUES-1:0]                 pfc_push,
    input  wire logic [QUEUES-1:0]                 pfc_xoff,

    // buffer read port
    output logic      [SLOT_W+BEAT_W-1:0]          rd_addr,
    input  wire logic [DATA_WIDTH-1:0]             rd_data,

    output wire logic [DATA_WIDTH-1:0]             m_axis_tdata,
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

    localparam int QPTR_W  = $clog2(QDEPTH);
    localparam int PPTR_W  = $clog2(QUEUES);   // the order of the waiting PFC frames
    localparam int PFC_LEN = 60;
    localparam int PFC_VEC = 64;    // the PFC frame, zero padded

    initial begin
        if (QUEUES != 8) begin
            $error("switch_egress: QUEUES must be 8 (instance %m)");
            $finish;
        end
        if (KEEP_WIDTH * 8 != DATA_WIDTH || KEEP_WIDTH > PFC_VEC || PFC_VEC % KEEP_WIDTH != 0) begin
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

    // ---- queues ----

    desc_t                            qmem [QUEUES][QDEPTH];
    logic [QUEUES-1:0][QPTR_W:0]      qwr_q, qwr_d;
    logic [QUEUES-1:0][QPTR_W:0]      qrd_q, qrd_d;
    logic [PORTS-1:0][QPTR_W-1:0]     q_push_at;
    desc_t [PORTS-1:0]                enq_desc;
    desc_t [QUEUES-1:0]               head;
    logic [QUEUES-1:0]                nonempty;

    always_comb begin
        // copy i lands at the write pointer of its queue as advanced by the
        // copies of lower ports
        qwr_d = qwr_q;
        for (int i = 0; i < PORTS; i++) begin
            enq_desc[i]  = '{slot: enq_slot[i], len: enq_len[i], mark: enq_mark[i], vlan: enq_tagged[i],
                             tos: enq_tos[i], csum: enq_csum[i]};
            q_push_at[i] = qwr_d[enq_prio[i]][QPTR_W-1:0];
            if (enq_valid[i]) begin
                qwr_d[enq_prio[i]] = qwr_d[enq_prio[i]] + 1'b1;
            end
        end
        for (int q = 0; q < QUEUES; q++) begin
            head[q]     = qmem[q][qrd_q[q][QPTR_W-1:0]];
            nonempty[q] = (qwr_q[q] != qrd_q[q]);
        end
    end

    // ---- PFC frames waiting: one per priority, in order of arrival ----

    logic                         pick_pfc;          // the scheduler takes the oldest (below)

    pfc_t [QUEUES-1:0]            pwait;             // the frame waiting per priority
    logic [QUEUES-1:0]            pvalid_q, pvalid_d;
    logic [2:0]                   pord [QUEUES];     // priorities in the order they started waiting
    logic [PPTR_W:0]              pwr_q, pwr_d;
    logic [PPTR_W:0]              prd_q, prd_d;
    logic [QUEUES-1:0]            p_new;             // a push that takes a new turn
    logic [QUEUES-1:0][PPTR_W-1:0] p_new_at;
    logic [2:0]                   phead;
    logic                         pfc_waiting;

    always_comb begin
        logic [PPTR_W:0] n;
        n           = '0;
        pfc_waiting = (pwr_q != prd_q);
        phead       = pord[prd_q[PPTR_W-1:0]];
        for (int p = 0; p < QUEUES; p++) begin
            // The head leaves at this cycle's pick, before this cycle's
            // pushes: a push for it takes a new turn.
            p_new[p]    = pfc_push[p] && (!pvalid_q[p] || (pick_pfc && phead == 3'(p)));
            p_new_at[p] = pwr_q[PPTR_W-1:0] + n[PPTR_W-1:0];
            if (p_new[p]) begin
                n = n + 1'b1;
            end
            pvalid_d[p] = (pvalid_q[p] && !(pick_pfc && phead == 3'(p))) || pfc_push[p];
        end
        pwr_d = pwr_q + n;
    end

    // ---- pause timers ----

    logic [QUEUES-1:0][31:0] pause_q, pause_d;
    logic [QUEUES-1:0]       paused;

    always_comb begin
        for (int q = 0; q < QUEUES; q++) begin
            paused[q] = (pause_q[q] != 32'd0);
            if (pause_load[q]) begin
                pause_d[q] = pause_time[q];
            end else if (paused[q]) begin
                pause_d[q] = pause_q[q] - 32'd1;
            end else begin
                pause_d[q] = 32'd0;
            end
        end
    end

    // ---- scheduler ----

    logic                    out_valid_q, out_valid_d;
    logic                    out_last_q, out_last_d;
    logic [DATA_WIDTH-1:0]   out_data_q, out_data_d;
    logic [KEEP_WIDTH-1:0]   out_keep_q, out_keep_d;

    logic [2:0]                 rr_q, rr_d;
    logic                       fresh_q, fresh_d;
    logic [QUEUES-1:0][33:0]    deficit_q, deficit_d;

    logic              taken;
    logic              tx_free;
    logic              pick_queue;
    logic [2:0]        pick_q;

    always_comb begin
        logic [QUEUES-1:0] elig;
        logic              strict_ok;
        logic [2:0]        strict_q;
        logic              drr_ok;
        logic [2:0]        drr_q;

        taken   = out_valid_q && m_axis_tready;
        tx_free = !out_valid_q || (taken && out_last_q);
        elig    = nonempty & ~paused;

        // strict priority: the highest eligible queue
        strict_ok = 1'b0;
        strict_q  = 3'd0;
        for (int q = 0; q < QUEUES; q++) begin
            if (elig[q]) begin
                strict_ok = 1'b1;
                strict_q  = 3'(q);
            end
        end

        // deficit round robin: at most QUEUES steps, run only in a cycle
        // whose pick it makes (its state changes only then)
        rr_d      = rr_q;
        fresh_d   = fresh_q;
        deficit_d = deficit_q;
        drr_ok    = 1'b0;
        drr_q     = 3'd0;
        if (tx_free && !pfc_waiting && ctrl_sched) begin
            for (int step = 0; step < QUEUES; step++) begin
                if (!drr_ok) begin
                    if (!elig[rr_d]) begin
                        if (!nonempty[rr_d]) begin
                            deficit_d[rr_d] = '0;
                        end
                        rr_d    = rr_d + 3'd1;
                        fresh_d = 1'b0;
                    end else begin
                        if (!fresh_d) begin
                            deficit_d[rr_d] = deficit_d[rr_d] + {2'b00, quantum[rr_d]};
                            fresh_d         = 1'b1;
                        end
                        if (deficit_d[rr_d] >= 34'(head[rr_d].len)) begin
                            deficit_d[rr_d] = deficit_d[rr_d] - 34'(head[rr_d].len);
                            drr_ok          = 1'b1;
                            drr_q           = rr_d;
                        end else begin
                            rr_d    = rr_d + 3'd1;
                            fresh_d = 1'b0;
                        end
                    end
                end
            end
        end

        pick_pfc   = tx_free && pfc_waiting;
        pick_queue = 1'b0;
        pick_q     = 3'd0;
        if (tx_free && !pfc_waiting) begin
            if (ctrl_sched) begin
                pick_queue = drr_ok;
                pick_q     = drr_q;
            end else begin
                pick_queue = strict_ok;
                pick_q     = strict_q;
            end
        end

        prd_d = prd_q + (PPTR_W + 1)'(pick_pfc);
        qrd_d = qrd_q;
        if (pick_queue) begin
            qrd_d[pick_q] = qrd_q[pick_q] + 1'b1;
        end
    end

    // ---- beat output ----

    logic              cur_pfc_q, cur_pfc_d;
    desc_t             cur_desc_q, cur_desc_d;
    pfc_t              cur_pent_q, cur_pent_d;
    logic [2:0]        cur_prio_q, cur_prio_d;
    logic [BEAT_W-1:0] cur_beat_q, cur_beat_d;

    // what the output registers load next: the pick's first beat or the
    // current frame's next beat (rd_addr is kept apart from the use of
    // rd_data, so that the buffer read is not a combinational loop)
    logic              nx_pfc;
    desc_t             nx_desc;
    pfc_t              nx_pent;
    logic [BEAT_W-1:0] nx_beat;

    always_comb begin
        if (pick_pfc) begin
            nx_pfc  = 1'b1;
            nx_desc = cur_desc_q;
            nx_pent = pwait[phead];
            nx_beat = '0;
        end else if (pick_queue) begin
            nx_pfc  = 1'b0;
            nx_desc = head[pick_q];
            nx_pent = cur_pent_q;
            nx_beat = '0;
        end else begin
            nx_pfc  = cur_pfc_q;
            nx_desc = cur_desc_q;
            nx_pent = cur_pent_q;
            nx_beat = cur_beat_q + 1'b1;
        end
        rd_addr = {nx_desc.slot, nx_beat};
    end

    always_comb begin
        logic [PFC_VEC-1:0][7:0] pv;
        int                base;
        int                len;
        int                rem;
        int                tos_at;
        int                csum_at;

        base    = int'(nx_beat) * KEEP_WIDTH;
        len     = nx_pfc ? PFC_LEN : int'(nx_desc.len);
        rem     = len - base;
        tos_at  = nx_desc.vlan ? 19 : 15;
        csum_at = nx_desc.vlan ? 28 : 24;
        if (rem >= KEEP_WIDTH) begin
            out_keep_d = '1;
        end else if (rem <= 0) begin
            out_keep_d = '0;
        end else begin
            out_keep_d = ~({KEEP_WIDTH{1'b1}} << rem);
        end
        out_data_d = rd_data;
        pv         = '0;
        if (nx_pfc) begin
            // the PFC frame, built only for its own beats
            pv[0]   = 8'h01;
            pv[1]   = 8'h80;
            pv[2]   = 8'hC2;
            pv[3]   = 8'h00;
            pv[4]   = 8'h00;
            pv[5]   = 8'h01;
            for (int k = 0; k < 6; k++) begin
                pv[6 + k] = nx_pent.mac[8*(5-k) +: 8];
            end
            pv[12]  = 8'h88;
            pv[13]  = 8'h08;
            pv[14]  = 8'h01;
            pv[15]  = 8'h01;
            pv[16]  = 8'h00;
            pv[17]  = 8'h01 << nx_pent.prio;
            if (nx_pent.xoff) begin
                pv[18 + 2 * int'(nx_pent.prio)] = nx_pent.quanta[15:8];
                pv[19 + 2 * int'(nx_pent.prio)] = nx_pent.quanta[7:0];
            end
            // base is a multiple of KEEP_WIDTH, which divides PFC_VEC
            if (base < PFC_VEC) begin
                out_data_d = pv[base +: KEEP_WIDTH];
            end else begin
                out_data_d = '0;
            end
        end else if (nx_desc.mark) begin
            // the rewritten bytes that fall in this beat
            if (tos_at >= base && tos_at < base + KEEP_WIDTH) begin
                out_data_d[8*(tos_at - base) +: 8] = nx_desc.tos;
            end
            if (csum_at >= base && csum_at < base + KEEP_WIDTH) begin
                out_data_d[8*(csum_at - base) +: 8] = nx_desc.csum[15:8];
            end
            if (csum_at + 1 >= base && csum_at + 1 < base + KEEP_WIDTH) begin
                out_data_d[8*(csum_at + 1 - base) +: 8] = nx_desc.csum[7:0];
            end
        end
        out_last_d = (rem <= KEEP_WIDTH);

        out_valid_d = out_valid_q;
        cur_pfc_d   = cur_pfc_q;
        cur_desc_d  = cur_desc_q;
        cur_pent_d  = cur_pent_q;
        cur_prio_d  = cur_prio_q;
        cur_beat_d  = cur_beat_q;
        if (pick_pfc || pick_queue) begin
            out_valid_d = 1'b1;
            cur_pfc_d   = nx_pfc;
            cur_desc_d  = nx_desc;
            cur_pent_d  = nx_pent;
            cur_prio_d  = pick_pfc ? nx_pent.prio : pick_q;
            cur_beat_d  = nx_beat;
        end else if (taken && !out_last_q) begin
            cur_beat_d  = nx_beat;
        end else if (taken) begin
            out_valid_d = 1'b0;
        end
    end

    // The output registers load a new beat only when one is picked or the
    // current one is taken.
    logic out_load;
    assign out_load = pick_pfc || pick_queue || (taken && !out_last_q);

    always_ff @(posedge clk) begin
        for (int i = 0; i < PORTS; i++) begin
            if (enq_valid[i]) begin
                qmem[enq_prio[i]][q_push_at[i]] <= enq_desc[i];
            end
        end
        for (int p = 0; p < QUEUES; p++) begin
            if (pfc_push[p]) begin
                pwait[p] <= '{xoff: pfc_xoff[p], prio: 3'(p), quanta: pfc_quanta, mac: switch_mac};
            end
            if (p_new[p]) begin
                pord[p_new_at[p]] <= 3'(p);
            end
        end
        if (out_load) begin
            out_data_q <= out_data_d;
            out_keep_q <= out_keep_d;
            out_last_q <= out_last_d;
        end
        cur_pfc_q  <= cur_pfc_d;
        cur_desc_q <= cur_desc_d;
        cur_pent_q <= cur_pent_d;
        cur_prio_q <= cur_prio_d;
        cur_beat_q <= cur_beat_d;
        if (rst) begin
            qwr_q       <= '0;
            qrd_q       <= '0;
            pwr_q       <= '0;
            prd_q       <= '0;
            pvalid_q    <= '0;
            pause_q     <= '0;
            out_valid_q <= 1'b0;
            rr_q        <= 3'd0;
            fresh_q     <= 1'b0;
            deficit_q   <= '0;
        end else begin
            qwr_q       <= qwr_d;
            qrd_q       <= qrd_d;
            pwr_q       <= pwr_d;
            prd_q       <= prd_d;
            pvalid_q    <= pvalid_d;
            pause_q     <= pause_d;
            out_valid_q <= out_valid_d;
            rr_q        <= rr_d;
            fresh_q     <= fresh_d;
            deficit_q   <= deficit_d;
        end
    end

    assign m_axis_tdata  = out_data_q;
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
