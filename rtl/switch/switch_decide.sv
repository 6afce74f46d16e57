// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// switch_decide: eth_switch's decision stage: every frame that ended in
// cycle L is decided in D = L+1, ports in ascending order (rtl/switch/
// README.md, "A frame's life", step 2). It owns the slot pool, the per-slot
// copy bookkeeping, occ(e), qocc(e,p) and ic(i,p).
//
// Header fields it reads (byte offsets in the frame):
//
//   Ethernet     0       6       12    14
//               +-------+-------+-----+---------------
//               |  dst  |  src  | type| payload ...
//               +-------+-------+-----+---------------
//   VLAN tag     12: 0x8100, 14: TCI (PCP = byte 14 bits 7:5), 16: inner type
//   MAC control  12: 0x8808, 14: opcode (0x0101 = PFC), 16: class-enable
//                vector (priority p = bit p, byte 17), 18+2p: time[p]
//   IPv4 at o = 14 (untagged) or 18 (one VLAN tag):
//                o: version (bits 7:4) = 4, IHL (bits 3:0) >= 5
//                o+1: TOS = DSCP (bits 7:2), ECN (bits 1:0)
//                o+10: header checksum
//
// Per frame (README step numbers):
//   2.1 validity    len < 60: runt; len > min(MTU, MTU_MAX): oversize;
//                   tuser: bad (first match)
//   2.2 MAC control type 0x8808: consumed (no learning, no forwarding);
//                   PFC: rx_pfc and, with CTRL.pfc_rx, pause loads for
//                   egress i; other: rx_mac_control
//   2.3 priority    tagged: PCP; untagged IPv4: DSCP_MAP; else DEFAULT_PRIO
//   2.4 learning    source without the group bit (to switch_mac_table)
//   2.5 forwarding  group bit or miss: flood; hit on the ingress: filtered
//   2.6 slot        first free pool slot (lowest number) becomes the port's
//                   landing slot; none: no_slot
//   2.7 admission   per target e ascending: occ(e)+len > BUF_BYTES: tail;
//                   else queue on (e,p), ECN mark when CTRL.ecn, IPv4 with
//                   ECN 01/10 and q = qocc(e,p) (before the add) > ECN_K[p];
//                   with CTRL.red too, a q in (ECN_K[p], ECN_KMAX[p]] makes
//                   the copy a RED candidate: the LFSR steps, then it marks
//                   when lfsr * (KMAX - K) < (q - K) * PMAX * 256
//   2.8             no copy queued: the frame's slot is free from D+1
//
// Timing constants (the golden model relies on these):
//   Each port's decision sees the pool, occ, qocc and ic as updated by the
//   ports before it in the same cycle. Copies whose last beat is taken in
//   cycle z (done_*) still count in occ/qocc during z; they are removed at
//   the end of z together with the slot's bit, and a slot whose last copy
//   left is back in the pool from z+1, its bytes removed from ic at the end
//   of z (so the PFC evaluation of cycle z sees ic without them).
//   Slots freed in cycle z are not allocated before z+1; a frame's own slot
//   freed at step 2.8 is not reused by a later port in the same cycle.
//   ic holds ic at the start of the cycle; ic_add_* and ic_sub_* are the
//   cycle's changes to it (switch_pfc_ctl applies them to see ic after every
//   update of the cycle; ic_sub_* only with CTRL.pfc_tx, the only time it
//   looks).
//   Every counter event of the cycle is on rx_ev_* (the ingress drop or
//   MAC control counter of each decided frame), tail_drop and enq_mark
//   (counted at the end of the cycle by switch_csr).
//   RED LFSR: 16-bit Galois, right shift, taps 0xB400 (x^16 + x^14 + x^13 +
//   x^11 + 1, maximal length), one step per candidate in decision order
//   (ports ascending, each port's targets ascending), so one cycle may step
//   it several times. A RED_LFSR write at t sets the state seen at t+1 and
//   replaces the steps of t. Reset state 1.
//
// Simulation speed (Verilator evaluates every combinational block at every
// clock edge, and those that depend on top-level inputs at every eval):
// the decisions depend on registers only and do their work only for ports
// with dec_valid; the state is updated in the always_ff, only in cycles
// with a decision or a departure, from block-local copies written back
// once (Verilator then assigns the registers in place; a nonblocking write
// to an unpacked array, or a register read after its own nonblocking
// write, costs bookkeeping in every cycle).
//
// Reset (synchronous, active high) puts slots 0..SLOTS-1 in the pool, clears
// every copy bit and every byte count; the per-slot length, port and
// priority are not reset.

module switch_decide #(
    // Switch ports.
    parameter int PORTS      = 4,
    // Bits per beat.
    parameter int DATA_WIDTH = 64,
    // Priority queues per egress port; must be 8.
    parameter int QUEUES     = 8,
    // Largest frame, bytes.
    parameter int MTU_MAX    = 4224,
    // Pool slots; slots SLOTS..NSLOT-1 are the initial landing slots.
    parameter int SLOTS      = 96,
    // All slots.
    parameter int NSLOT      = SLOTS + 2 * PORTS,
    // Queued bytes one egress port may hold.
    parameter int BUF_BYTES  = 32768,
    // Header bytes kept (the first HDR_BEATS beats of each frame).
    parameter int HDR_BYTES  = 48,
    parameter int HDR_BEATS  = (HDR_BYTES + DATA_WIDTH / 8 - 1) / (DATA_WIDTH / 8),
    // Slot number width.
    parameter int SLOT_W     = $clog2(NSLOT),
    // Port number width.
    parameter int PORT_W     = $clog2(PORTS),
    // Width of a stored frame length.
    parameter int LEN_W      = 16
) (
    input  wire logic                                  clk,
    input  wire logic                                  rst,

    // frames that ended in the previous cycle
    input  wire logic [PORTS-1:0]                      dec_valid,
    input  wire logic [PORTS-1:0][31:0]                dec_len,
    input  wire logic [PORTS-1:0]                      dec_bad,
    input  wire logic [PORTS-1:0][SLOT_W-1:0]          dec_slot,

    // the input beats and which of them are header beat b (switch_ingress)
    input  wire logic [PORTS*DATA_WIDTH-1:0]           s_axis_tdata,
    input  wire logic [PORTS-1:0][HDR_BEATS-1:0]       hdr_sel,

    // configuration (switch_csr)
    input  wire logic                                  ctrl_ecn,
    input  wire logic                                  ctrl_pfc_rx,
    input  wire logic                                  ctrl_pfc_tx,
    input  wire logic [31:0]                           mtu,
    input  wire logic [2:0]                            default_prio,
    input  wire logic [7:0][31:0]                      dscp_map,
    input  wire logic [QUEUES-1:0][31:0]               ecn_k,
    input  wire logic                                  ctrl_red,
    input  wire logic [QUEUES-1:0][31:0]               ecn_kmax,
    input  wire logic [QUEUES-1:0][7:0]                ecn_pmax,
    input  wire logic                                  red_lfsr_we,
    input  wire logic [15:0]                           red_lfsr_wdata,
    output logic      [15:0]                           red_lfsr,

    // MAC table
    output logic      [PORTS-1:0]                      lookup_valid,
    output logic      [PORTS-1:0][47:0]                lookup_mac,
    input  wire logic [PORTS-1:0]                      lookup_hit,
    input  wire logic [PORTS-1:0][PORT_W-1:0]          lookup_port,
    output logic      [PORTS-1:0]                      learn_valid,
    output logic      [PORTS-1:0][47:0]                learn_mac,

    // new landing slots (to each ingress)
    output logic      [PORTS-1:0]                      land_swap,
    output logic      [PORTS-1:0][SLOT_W-1:0]          land_new,

    // copies to queue: enq_valid[e][i] queues ingress i's frame on egress e
    output logic      [PORTS-1:0][PORTS-1:0]           enq_valid,
    output logic      [PORTS-1:0][PORTS-1:0]           enq_mark,
    output logic      [PORTS-1:0][2:0]                 enq_prio,
    output logic      [PORTS-1:0][SLOT_W-1:0]          enq_slot,
    output logic      [PORTS-1:0][LEN_W-1:0]           enq_len,
    output logic      [PORTS-1:0]                      enq_tagged,
    output logic      [PORTS-1:0][7:0]                 enq_tos,
    output logic      [PORTS-1:0][15:0]                enq_csum,
    // copies dropped: tail_drop[e][i] (ingress i's frame on egress e)
    output logic      [PORTS-1:0][PORTS-1:0]           tail_drop,

    // pause timer loads for egress i (PFC received on port i): the frame's
    // time[q] fields, in pause quanta
    output logic      [PORTS-1:0][QUEUES-1:0]          pause_load,
    output logic      [PORTS-1:0][QUEUES-1:0][15:0]    pause_quanta,

    // copies whose last beat was taken (one per egress per cycle)
    input  wire logic [PORTS-1:0]                      done_valid,
    input  wire logic [PORTS-1:0][SLOT_W-1:0]          done_slot,
    input  wire logic [PORTS-1:0][2:0]                 done_prio,
    input  wire logic [PORTS-1:0][LEN_W-1:0]           done_len,

    // ic at the start of the cycle and the cycle's changes to it: ingress
    // i's frame adds enq_len[i] to ic(i, enq_prio[i]) when ic_add[i]; a
    // slot freed by egress e's departure takes ic_sub_len[e] from
    // ic(ic_sub_port[e], ic_sub_prio[e]) when ic_sub[e]
    output logic      [PORTS-1:0][QUEUES-1:0][31:0]    ic,
    output logic      [PORTS-1:0]                      ic_add,
    output logic      [PORTS-1:0]                      ic_sub,
    output logic      [PORTS-1:0][PORT_W-1:0]          ic_sub_port,
    output logic      [PORTS-1:0][2:0]                 ic_sub_prio,
    output logic      [PORTS-1:0][LEN_W-1:0]           ic_sub_len,

    // counter events: rx_ev_num[i] of ingress i counts one (drops 4..8,
    // rx_pfc 9, rx_mac_control 10) when rx_ev[i]
    output logic      [PORTS-1:0]                      rx_ev,
    output logic      [PORTS-1:0][3:0]                 rx_ev_num,

    // some slot holds a queued copy
    output logic                                       busy
);

    // Counter numbers (README, CSR map).
    localparam logic [3:0] CNT_DROP_RUNT    = 4'd4;
    localparam logic [3:0] CNT_DROP_OVER    = 4'd5;
    localparam logic [3:0] CNT_DROP_BAD     = 4'd6;
    localparam logic [3:0] CNT_DROP_NO_SLOT = 4'd7;
    localparam logic [3:0] CNT_DROP_FILTER  = 4'd8;
    localparam logic [3:0] CNT_RX_PFC       = 4'd9;
    localparam logic [3:0] CNT_RX_MAC_CTRL  = 4'd10;

    localparam int MIN_LEN    = 60;
    // the pool searched 32 slots at a time
    localparam int FREE_WORDS = (NSLOT + 31) / 32;

    initial begin
        if (QUEUES != 8) begin
            $error("switch_decide: QUEUES must be 8 (queue index = 3-bit priority) (instance %m)");
            $finish;
        end
        if (DATA_WIDTH < 8 || DATA_WIDTH > 512 || (512 / DATA_WIDTH) * DATA_WIDTH != 512) begin
            $error("switch_decide: DATA_WIDTH must be a power of two, 8 to 512 (instance %m)");
            $finish;
        end
        if (NSLOT != SLOTS + 2 * PORTS || (1 << SLOT_W) < NSLOT || SLOTS < 1) begin
            $error("switch_decide: NSLOT must be SLOTS + 2*PORTS and fit SLOT_W bits (instance %m)");
            $finish;
        end
        if (HDR_BYTES < 38 || MTU_MAX >= (1 << LEN_W) || MTU_MAX < MIN_LEN ||
            HDR_BEATS * DATA_WIDTH < HDR_BYTES * 8) begin
            $error("switch_decide: HDR_BYTES must be at least 38 and fit HDR_BEATS beats, MTU_MAX 60..2^LEN_W-1 (instance %m)");
            $finish;
        end
        if (PORTS < 2 || (1 << PORT_W) < PORTS) begin
            $error("switch_decide: PORTS must be at least 2 and fit PORT_W bits (instance %m)");
            $finish;
        end
    end

    // ---- the header of the frame each port decides ----
    // Kept here as its beats arrive (a frame whose last beat came in L has
    // its header here in D = L+1, before the port's next frame overwrites
    // it). Not reset.

    /* verilator lint_off UNUSEDSIGNAL */
    logic [PORTS-1:0][HDR_BEATS*DATA_WIDTH-1:0] hdr_q;
    /* verilator lint_on UNUSEDSIGNAL */

    always_ff @(posedge clk) begin
        for (int i = 0; i < PORTS; i++) begin
            for (int b = 0; b < HDR_BEATS; b++) begin
                if (hdr_sel[i][b]) begin
                    hdr_q[i][b*DATA_WIDTH +: DATA_WIDTH] <= s_axis_tdata[i*DATA_WIDTH +: DATA_WIDTH];
                end
            end
        end
    end

    // byte b of port i's header (constant arguments: a fixed bit field)
    function automatic logic [7:0] hb(input int i, input int b);
        return hdr_q[i][8*b +: 8];
    endfunction

    // {found, lowest set bit of v}
    function automatic logic [SLOT_W:0] lowest_set(input logic [NSLOT-1:0] v);
        logic [FREE_WORDS*32-1:0] w;
        logic [31:0]              c;
        logic [SLOT_W:0]          r;
        w = (FREE_WORDS * 32)'(v);
        r = '0;
        // the lowest non-zero word is the last one assigned
        for (int k = FREE_WORDS - 1; k >= 0; k--) begin
            c = w[k*32 +: 32];
            if (c != 32'd0) begin
                r = {1'b1, SLOT_W'(k * 32 + $countones((c & (~c + 32'd1)) - 32'd1))};
            end
        end
        return r;
    endfunction

    // ---- header fields, per ingress port (only for frames decided now) ----

    logic [PORTS-1:0][47:0]              f_dst;
    logic [PORTS-1:0][47:0]              f_src;
    logic [PORTS-1:0]                    f_mac_ctrl;
    logic [PORTS-1:0]                    f_pfc;
    logic [PORTS-1:0][7:0]               f_pfc_en;
    logic [PORTS-1:0][2:0]               f_prio;
    logic [PORTS-1:0]                    f_ecn_ok;
    logic [PORTS-1:0]                    f_tagged;
    logic [PORTS-1:0][7:0]               f_tos;
    logic [PORTS-1:0][15:0]              f_csum;

    always_comb begin
        logic [15:0] etype;
        logic [7:0]  b14;
        logic [7:0]  b18;
        logic        v4_plain;
        logic        v4_tagged;
        logic [7:0]  vihl;
        logic [7:0]  tos;
        logic [15:0] hc;
        logic [15:0] m_old;
        logic [15:0] m_new;
        logic [17:0] sum;
        logic [16:0] fold1;
        logic [15:0] fold2;
        logic [5:0]  dscp;
        logic [31:0] map;

        f_dst        = '0;
        f_src        = '0;
        f_mac_ctrl   = '0;
        f_pfc        = '0;
        f_pfc_en     = '0;
        f_prio       = '0;
        f_ecn_ok     = '0;
        f_tagged     = '0;
        f_tos        = '0;
        f_csum       = '0;
        pause_quanta = '0;
        etype        = '0;
        b14          = '0;
        b18          = '0;
        v4_plain     = 1'b0;
        v4_tagged    = 1'b0;
        vihl         = '0;
        tos          = '0;
        hc           = '0;
        m_old        = '0;
        m_new        = '0;
        sum          = '0;
        fold1        = '0;
        fold2        = '0;
        dscp         = '0;
        map          = '0;
        for (int i = 0; i < PORTS; i++) begin
            if (dec_valid[i]) begin
                f_dst[i] = {hb(i, 0), hb(i, 1), hb(i, 2), hb(i, 3), hb(i, 4), hb(i, 5)};
                f_src[i] = {hb(i, 6), hb(i, 7), hb(i, 8), hb(i, 9), hb(i, 10), hb(i, 11)};
                etype    = {hb(i, 12), hb(i, 13)};

                // MAC control and PFC
                f_mac_ctrl[i] = (etype == 16'h8808);
                f_pfc[i]      = (f_dst[i] == 48'h0180_C200_0001) && ({hb(i, 14), hb(i, 15)} == 16'h0101);
                f_pfc_en[i]   = hb(i, 17);
                for (int p = 0; p < QUEUES; p++) begin
                    pause_quanta[i][p] = {hb(i, 18 + 2 * p), hb(i, 19 + 2 * p)};
                end

                // IPv4, untagged or after one VLAN tag
                f_tagged[i] = (etype == 16'h8100);
                b14         = hb(i, 14);
                b18         = hb(i, 18);
                v4_plain    = (etype == 16'h0800) && (b14[7:4] == 4'd4) && (b14[3:0] >= 4'd5);
                v4_tagged   = f_tagged[i] && ({hb(i, 16), hb(i, 17)} == 16'h0800) &&
                              (b18[7:4] == 4'd4) && (b18[3:0] >= 4'd5);

                // priority
                dscp = 6'(hb(i, 15) >> 2);
                map  = dscp_map[dscp[5:3]];
                if (f_tagged[i]) begin
                    f_prio[i] = b14[7:5];
                end else if (v4_plain) begin
                    f_prio[i] = map[4*dscp[2:0] +: 3];
                end else begin
                    f_prio[i] = default_prio;
                end

                // ECN: the rewritten TOS and checksum (RFC 1624 eqn. 3 over
                // the 16-bit word {version/IHL, TOS}, one's complement sums)
                vihl  = f_tagged[i] ? hb(i, 18) : hb(i, 14);
                tos   = f_tagged[i] ? hb(i, 19) : hb(i, 15);
                hc    = f_tagged[i] ? {hb(i, 28), hb(i, 29)} : {hb(i, 24), hb(i, 25)};
                m_old = {vihl, tos};
                m_new = {vihl, tos | 8'h03};
                sum   = {2'b00, ~hc} + {2'b00, ~m_old} + {2'b00, m_new};
                fold1 = {1'b0, sum[15:0]} + {15'd0, sum[17:16]};
                fold2 = fold1[15:0] + {15'd0, fold1[16]};   // cannot carry again
                f_ecn_ok[i] = (v4_plain || v4_tagged) && (tos[1:0] == 2'b01 || tos[1:0] == 2'b10);
                f_tos[i]    = tos | 8'h03;
                f_csum[i]   = ~fold2[15:0];
            end
        end
    end

    // ---- state ----

    logic [NSLOT-1:0]                    free_q;
    logic [NSLOT-1:0][PORTS-1:0]         holders_q;
    logic [PORTS-1:0][31:0]              occ_q;
    logic [PORTS-1:0][QUEUES-1:0][31:0]  qocc_q;
    logic [PORTS-1:0][QUEUES-1:0][31:0]  ic_q;
    logic [15:0]                         lfsr_q;

    // per slot holding copies: the ingress port, priority and length of its
    // frame, written at the decision (store) and read when its last copy
    // leaves
    typedef struct packed {
        logic [PORT_W-1:0] port;
        logic [2:0]        prio;
        logic [LEN_W-1:0]  len;
    } sinfo_t;
    sinfo_t [NSLOT-1:0]                  sinfo_q;

    // ---- the decisions, in ascending port order (registers only) ----

    // the decided frame keeps its slot for its copies (store, copies[i] the
    // egress ports holding one) or gives it back to the pool (free_own)
    logic [PORTS-1:0]                    store;
    logic [PORTS-1:0]                    free_own;
    logic [PORTS-1:0][PORTS-1:0]         copies;
    logic [15:0]                         lfsr_dc;

    always_comb begin
        logic [NSLOT-1:0]  free_run;       // the pool as the ports before left it
        logic [PORTS-1:0][31:0] occ_run;
        logic [31:0]       mtu_eff;
        logic [PORTS-1:0]  targets;
        logic [SLOT_W:0]   pick;
        logic [LEN_W-1:0]  flen;
        logic [2:0]        prio;
        logic              mark;
        logic [31:0]       q;
        logic [31:0]       span;
        logic [31:0]       over;

        land_swap   = '0;
        land_new    = '0;
        enq_valid   = '0;
        enq_mark    = '0;
        tail_drop   = '0;
        pause_load  = '0;
        learn_valid = '0;
        store       = '0;
        free_own    = '0;
        copies      = '0;
        rx_ev       = '0;
        rx_ev_num   = '0;
        lfsr_dc     = lfsr_q;
        free_run    = free_q;
        occ_run     = occ_q;
        mtu_eff     = (mtu > 32'(MTU_MAX)) ? 32'(MTU_MAX) : mtu;
        targets     = '0;
        pick        = '0;
        flen        = '0;
        prio        = '0;
        mark        = 1'b0;
        q           = '0;
        span        = '0;
        over        = '0;

        for (int i = 0; i < PORTS; i++) begin
            if (dec_valid[i]) begin
                flen    = dec_len[i][LEN_W-1:0];
                prio    = f_prio[i];
                targets = '0;
                rx_ev[i] = 1'b1;

                if (dec_len[i] < 32'(MIN_LEN)) begin
                    rx_ev_num[i] = CNT_DROP_RUNT;
                end else if (dec_len[i] > mtu_eff) begin
                    rx_ev_num[i] = CNT_DROP_OVER;
                end else if (dec_bad[i]) begin
                    rx_ev_num[i] = CNT_DROP_BAD;
                end else if (f_mac_ctrl[i]) begin
                    if (f_pfc[i]) begin
                        rx_ev_num[i] = CNT_RX_PFC;
                        if (ctrl_pfc_rx) begin
                            pause_load[i] = f_pfc_en[i];
                        end
                    end else begin
                        rx_ev_num[i] = CNT_RX_MAC_CTRL;
                    end
                end else begin
                    rx_ev[i] = 1'b0;

                    // learning (applied by the table at the end of the cycle)
                    learn_valid[i] = !f_src[i][40];

                    // forwarding
                    if (f_dst[i][40] || !lookup_hit[i]) begin
                        targets    = '1;
                        targets[i] = 1'b0;
                    end else if (lookup_port[i] != PORT_W'(i)) begin
                        targets[lookup_port[i]] = 1'b1;
                    end

                    if (targets == '0) begin
                        rx_ev[i]     = 1'b1;
                        rx_ev_num[i] = CNT_DROP_FILTER;
                    end else begin
                        // a pool slot to replace the landing slot
                        pick = lowest_set(free_run);
                        if (!pick[SLOT_W]) begin
                            rx_ev[i]     = 1'b1;
                            rx_ev_num[i] = CNT_DROP_NO_SLOT;
                        end else begin
                            free_run[pick[SLOT_W-1:0]] = 1'b0;
                            land_swap[i] = 1'b1;
                            land_new[i]  = pick[SLOT_W-1:0];

                            // admission, per target in ascending order
                            for (int e = 0; e < PORTS; e++) begin
                                if (targets[e]) begin
                                    if (occ_run[e] + 32'(flen) > 32'(BUF_BYTES)) begin
                                        tail_drop[e][i] = 1'b1;
                                    end else begin
                                        // qocc(e,p) with the copies the ports before
                                        // this one queued on it in this cycle
                                        q = qocc_q[e][prio];
                                        for (int j = 0; j < i; j++) begin
                                            if (enq_valid[e][j] && f_prio[j] == prio) begin
                                                q = q + 32'(dec_len[j][LEN_W-1:0]);
                                            end
                                        end
                                        mark = 1'b0;
                                        if (ctrl_ecn && f_ecn_ok[i] && q > ecn_k[prio]) begin
                                            if (!ctrl_red || q > ecn_kmax[prio]) begin
                                                mark = 1'b1;
                                            end else begin
                                                lfsr_dc = {1'b0, lfsr_dc[15:1]} ^ (lfsr_dc[0] ? 16'hB400 : 16'h0000);
                                                span    = ecn_kmax[prio] - ecn_k[prio];
                                                over    = q - ecn_k[prio];
                                                mark    = (64'(lfsr_dc) * 64'(span)) <
                                                          ((64'(over) * 64'(ecn_pmax[prio])) << 8);
                                            end
                                        end
                                        enq_valid[e][i] = 1'b1;
                                        enq_mark[e][i]  = mark;
                                        copies[i][e]    = 1'b1;
                                        occ_run[e]      = occ_run[e] + 32'(flen);
                                    end
                                end
                            end

                            if (copies[i] == '0) begin
                                // back to the pool from D+1
                                free_own[i] = 1'b1;
                            end else begin
                                store[i] = 1'b1;
                            end
                        end
                    end
                end
            end
        end
    end

    // ---- departures of this cycle (done_*) ----

    // The egress ports whose departing copy is its slot's last (for a slot
    // two ports finish at once, the lower one): only a done slot can be
    // one, as a decision sets copies and never clears them.
    function automatic logic [PORTS-1:0] last_copies();
        logic [PORTS-1:0] fr;
        logic [PORTS-1:0] mask;
        logic             first;
        fr = '0;
        for (int e = 0; e < PORTS; e++) begin
            if (done_valid[e]) begin
                mask  = '0;
                first = 1'b1;
                for (int f = 0; f < PORTS; f++) begin
                    if (done_valid[f] && done_slot[f] == done_slot[e]) begin
                        mask[f] = 1'b1;
                        if (f < e) begin
                            first = 1'b0;
                        end
                    end
                end
                if (first && 32'(done_slot[e]) < NSLOT && holders_q[done_slot[e]] != '0 &&
                    (holders_q[done_slot[e]] & ~mask) == '0) begin
                    fr[e] = 1'b1;
                end
            end
        end
        return fr;
    endfunction

    // The slots freed, as switch_pfc_ctl sees them: only with CTRL.pfc_tx,
    // as this block runs at every evaluation (done_* follow m_axis_tready);
    // the always_ff finds them again for the state.
    always_comb begin
        sinfo_t si;
        ic_sub      = '0;
        ic_sub_port = '0;
        ic_sub_prio = '0;
        ic_sub_len  = '0;
        si          = '0;
        if (ctrl_pfc_tx && done_valid != '0) begin
            ic_sub = last_copies();
            for (int e = 0; e < PORTS; e++) begin
                if (ic_sub[e]) begin
                    si             = sinfo_q[done_slot[e]];
                    ic_sub_port[e] = si.port;
                    ic_sub_prio[e] = si.prio;
                    ic_sub_len[e]  = si.len;
                end
            end
        end
    end

    always_comb begin
        for (int i = 0; i < PORTS; i++) begin
            lookup_valid[i] = dec_valid[i];
            lookup_mac[i]   = f_dst[i];
            learn_mac[i]    = f_src[i];
            enq_prio[i]     = f_prio[i];
            enq_slot[i]     = dec_slot[i];
            enq_len[i]      = dec_len[i][LEN_W-1:0];
            enq_tagged[i]   = f_tagged[i];
            enq_tos[i]      = f_tos[i];
            enq_csum[i]     = f_csum[i];
        end
    end

    assign ic       = ic_q;
    assign ic_add   = store;
    assign red_lfsr = lfsr_q;

    // a copy is queued or leaving (lengths are never 0)
    assign busy = (occ_q != '0);

    always_ff @(posedge clk) begin
        logic [NSLOT-1:0]                   f;
        logic [NSLOT-1:0][PORTS-1:0]        h;
        logic [PORTS-1:0][31:0]             o;
        logic [PORTS-1:0][QUEUES-1:0][31:0] qo;
        logic [PORTS-1:0][QUEUES-1:0][31:0] ico;
        logic [LEN_W-1:0]                   len;
        logic [PORTS-1:0]                   fr;
        sinfo_t                             si;

        for (int i = 0; i < PORTS; i++) begin
            if (store[i]) begin
                sinfo_q[dec_slot[i]] <= '{port: PORT_W'(i), prio: f_prio[i], len: dec_len[i][LEN_W-1:0]};
            end
        end
        lfsr_q <= red_lfsr_we ? red_lfsr_wdata : lfsr_dc;
        if (dec_valid != '0 || done_valid != '0) begin
            f   = free_q;
            h   = holders_q;
            o   = occ_q;
            qo  = qocc_q;
            ico = ic_q;
            // the decisions: slots taken from the pool, the frames' slots
            // back to it or holding copies, occ/qocc/ic grown
            for (int i = 0; i < PORTS; i++) begin
                len = dec_len[i][LEN_W-1:0];
                if (land_swap[i]) begin
                    f[land_new[i]] = 1'b0;
                end
                if (free_own[i]) begin
                    f[dec_slot[i]] = 1'b1;
                end
                if (store[i]) begin
                    h[dec_slot[i]]     = copies[i];
                    ico[i][f_prio[i]] = ico[i][f_prio[i]] + 32'(len);
                end
                for (int e = 0; e < PORTS; e++) begin
                    if (enq_valid[e][i]) begin
                        o[e]            = o[e] + 32'(len);
                        qo[e][f_prio[i]] = qo[e][f_prio[i]] + 32'(len);
                    end
                end
            end
            // the departures (a decided frame's landing slot never holds a
            // leaving copy): a slot whose last copy left goes back to the
            // pool and its frame's bytes leave ic
            fr = last_copies();
            for (int e = 0; e < PORTS; e++) begin
                if (done_valid[e]) begin
                    h[done_slot[e]][e]  = 1'b0;
                    o[e]                = o[e] - 32'(done_len[e]);
                    qo[e][done_prio[e]] = qo[e][done_prio[e]] - 32'(done_len[e]);
                end
                if (fr[e]) begin
                    si                    = sinfo_q[done_slot[e]];
                    f[done_slot[e]]       = 1'b1;
                    ico[si.port][si.prio] = ico[si.port][si.prio] - 32'(si.len);
                end
            end
            free_q    <= f;
            holders_q <= h;
            occ_q     <= o;
            qocc_q    <= qo;
            ic_q      <= ico;
        end
        if (rst) begin
            free_q    <= {{(NSLOT - SLOTS){1'b0}}, {SLOTS{1'b1}}};
            lfsr_q    <= 16'd1;
            holders_q <= '0;
            occ_q     <= '0;
            qocc_q    <= '0;
            ic_q      <= '0;
        end
    end


    // ---- Cover points (coverage build only: Verilator --coverage-user;
    // rtl/switch/README.md, "Cover points"): each drop reason, each full
    // buffer, ECN marks, PFC frames received. No functions in them (see
    // nic_engine's: 5.006 computes a function's result after the property
    // that reads it). cov_rx feeds only the properties and is untraced:
    // other builds drop it.
    /* verilator tracing_off */
    logic [15:0] cov_rx;  // some port's frame decided this cycle counts counter n
    always_comb begin : cov_signals
        cov_rx = '0;
        for (int i = 0; i < PORTS; i++) begin
            if (rx_ev[i]) cov_rx[rx_ev_num[i]] = 1'b1;
        end
    end

    cov_drop_runt:        cover property (@(posedge clk) disable iff (rst) cov_rx[CNT_DROP_RUNT]);
    cov_drop_oversize:    cover property (@(posedge clk) disable iff (rst) cov_rx[CNT_DROP_OVER]);
    cov_drop_bad:         cover property (@(posedge clk) disable iff (rst) cov_rx[CNT_DROP_BAD]);
    cov_drop_filtered:    cover property (@(posedge clk) disable iff (rst) cov_rx[CNT_DROP_FILTER]);
    // the shared pool has no slot: the frame is dropped before admission
    cov_drop_no_slot:     cover property (@(posedge clk) disable iff (rst) cov_rx[CNT_DROP_NO_SLOT]);
    // an egress port's buffer is full: a copy is tail dropped
    cov_drop_tail:        cover property (@(posedge clk) disable iff (rst) tail_drop != '0);
    cov_ecn_mark:         cover property (@(posedge clk) disable iff (rst) enq_mark != '0);
    cov_ecn_mark_red:     cover property (@(posedge clk) disable iff (rst) enq_mark != '0 && ctrl_red);
    // an ECN-capable copy above ECN_K left unmarked by RED's draw
    cov_ecn_red_spared:   cover property (@(posedge clk) disable iff (rst) lfsr_dc != lfsr_q && enq_mark == '0);
    cov_pfc_received:     cover property (@(posedge clk) disable iff (rst) cov_rx[CNT_RX_PFC]);
    cov_pfc_pause_loaded: cover property (@(posedge clk) disable iff (rst) pause_load != '0);
    cov_mac_control_received: cover property (@(posedge clk) disable iff (rst) cov_rx[CNT_RX_MAC_CTRL]);
    /* verilator tracing_on */

endmodule

`resetall
