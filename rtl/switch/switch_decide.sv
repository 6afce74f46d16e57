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
//   ic_next is ic after every update of the cycle (for switch_pfc_ctl).
//   Every counter increment of the cycle is on cnt_add (added at the end of
//   the cycle by switch_csr).
//   RED LFSR: 16-bit Galois, right shift, taps 0xB400 (x^16 + x^14 + x^13 +
//   x^11 + 1, maximal length), one step per candidate in decision order
//   (ports ascending, each port's targets ascending), so one cycle may step
//   it several times. A RED_LFSR write at t sets the state seen at t+1 and
//   replaces the steps of t. Reset state 1.
//
// Reset (synchronous, active high) puts slots 0..SLOTS-1 in the pool, clears
// every copy bit and every byte count; the per-slot length, port and
// priority are not reset.

module switch_decide #(
    // Switch ports.
    parameter int PORTS      = 4,
    // Bits per beat (the pause time unit is 512 bits).
    parameter int DATA_WIDTH = 64,
    // Priority queues per egress port; must be 8.
    parameter int QUEUES     = 8,
    // Largest frame, bytes.
    parameter int MTU_MAX    = 2048,
    // Pool slots; slots SLOTS..NSLOT-1 are the initial landing slots.
    parameter int SLOTS      = 64,
    // All slots.
    parameter int NSLOT      = SLOTS + 2 * PORTS,
    // Queued bytes one egress port may hold.
    parameter int BUF_BYTES  = 16384,
    // Header bytes captured.
    parameter int HDR_BYTES  = 48,
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
    input  wire logic [PORTS-1:0][HDR_BYTES*8-1:0]     dec_hdr,

    // configuration (switch_csr)
    input  wire logic                                  ctrl_ecn,
    input  wire logic                                  ctrl_pfc_rx,
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

    // pause timer loads for egress i (PFC received on port i)
    output logic      [PORTS-1:0][QUEUES-1:0]          pause_load,
    output logic      [PORTS-1:0][QUEUES-1:0][31:0]    pause_time,

    // copies whose last beat was taken (one per egress per cycle)
    input  wire logic [PORTS-1:0]                      done_valid,
    input  wire logic [PORTS-1:0][SLOT_W-1:0]          done_slot,
    input  wire logic [PORTS-1:0][2:0]                 done_prio,
    input  wire logic [PORTS-1:0][LEN_W-1:0]           done_len,

    // ic after this cycle's updates (for switch_pfc_ctl)
    output logic      [31:0]                           ic_next [PORTS][QUEUES],

    // counter increments of this cycle, [port][counter]
    output logic      [31:0]                           cnt_add [PORTS][32],

    // some slot holds a queued copy
    output logic                                       busy
);

    // Counter numbers (README, CSR map).
    localparam int CNT_RX_FRAMES    = 0;
    localparam int CNT_RX_BYTES     = 1;
    localparam int CNT_DROP_RUNT    = 4;
    localparam int CNT_DROP_OVER    = 5;
    localparam int CNT_DROP_BAD     = 6;
    localparam int CNT_DROP_NO_SLOT = 7;
    localparam int CNT_DROP_FILTER  = 8;
    localparam int CNT_RX_PFC       = 9;
    localparam int CNT_RX_MAC_CTRL  = 10;

    localparam int MIN_LEN     = 60;
    // time[p] * 512 / DATA_WIDTH cycles = time[p] << PAUSE_SHIFT
    localparam int PAUSE_SHIFT = $clog2(512 / DATA_WIDTH);

    initial begin
        if (QUEUES != 8) begin
            $error("switch_decide: QUEUES must be 8 (queue index = 3-bit priority) (instance %m)");
            $finish;
        end
        if (DATA_WIDTH < 8 || DATA_WIDTH > 512 || (512 / DATA_WIDTH) * DATA_WIDTH != 512 ||
            (1 << PAUSE_SHIFT) != 512 / DATA_WIDTH) begin
            $error("switch_decide: DATA_WIDTH must be a power of two, 8 to 512 (instance %m)");
            $finish;
        end
        if (NSLOT != SLOTS + 2 * PORTS || (1 << SLOT_W) < NSLOT || SLOTS < 1) begin
            $error("switch_decide: NSLOT must be SLOTS + 2*PORTS and fit SLOT_W bits (instance %m)");
            $finish;
        end
        if (HDR_BYTES < 38 || MTU_MAX >= (1 << LEN_W) || MTU_MAX < MIN_LEN) begin
            $error("switch_decide: HDR_BYTES must be at least 38, MTU_MAX 60..2^LEN_W-1 (instance %m)");
            $finish;
        end
        if (PORTS < 2 || (1 << PORT_W) < PORTS) begin
            $error("switch_decide: PORTS must be at least 2 and fit PORT_W bits (instance %m)");
            $finish;
        end
    end

    // ---- header fields, per ingress port ----

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
    logic [31:0]                         mtu_eff;

    always_comb begin
        logic [HDR_BYTES-1:0][7:0] h;     // h[b] is byte b of the frame
        logic [15:0] etype;
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

        mtu_eff    = (mtu > 32'(MTU_MAX)) ? 32'(MTU_MAX) : mtu;
        pause_time = '0;
        for (int i = 0; i < PORTS; i++) begin
            h        = dec_hdr[i];
            f_dst[i] = {h[0], h[1], h[2], h[3], h[4], h[5]};
            f_src[i] = {h[6], h[7], h[8], h[9], h[10], h[11]};
            etype    = {h[12], h[13]};

            // MAC control and PFC
            f_mac_ctrl[i] = (etype == 16'h8808);
            f_pfc[i]      = (f_dst[i] == 48'h0180_C200_0001) && ({h[14], h[15]} == 16'h0101);
            f_pfc_en[i]   = h[17];
            for (int p = 0; p < QUEUES; p++) begin
                pause_time[i][p] = {16'd0, h[18 + 2 * p], h[19 + 2 * p]} << PAUSE_SHIFT;
            end

            // IPv4, untagged or after one VLAN tag
            f_tagged[i] = (etype == 16'h8100);
            v4_plain    = (etype == 16'h0800) && (h[14][7:4] == 4'd4) && (h[14][3:0] >= 4'd5);
            v4_tagged   = f_tagged[i] && ({h[16], h[17]} == 16'h0800) && (h[18][7:4] == 4'd4) &&
                          (h[18][3:0] >= 4'd5);

            // priority
            dscp = h[15][7:2];
            map  = dscp_map[dscp[5:3]];
            if (f_tagged[i]) begin
                f_prio[i] = h[14][7:5];
            end else if (v4_plain) begin
                f_prio[i] = map[4*dscp[2:0] +: 3];
            end else begin
                f_prio[i] = default_prio;
            end

            // ECN: the rewritten TOS and checksum (RFC 1624 eqn. 3 over the
            // 16-bit word {version/IHL, TOS}, one's complement sums)
            vihl  = f_tagged[i] ? h[18] : h[14];
            tos   = f_tagged[i] ? h[19] : h[15];
            hc    = f_tagged[i] ? {h[28], h[29]} : {h[24], h[25]};
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

    // ---- state ----

    logic [NSLOT-1:0]                    free_q, free_d;
    logic [NSLOT-1:0][PORTS-1:0]         holders_q, holders_d;
    logic [PORTS-1:0][31:0]              occ_q, occ_d;
    logic [31:0]                         qocc_q [PORTS][QUEUES];
    logic [31:0]                         qocc_d [PORTS][QUEUES];
    logic [31:0]                         ic_q [PORTS][QUEUES];
    logic [31:0]                         ic_d [PORTS][QUEUES];

    // per slot holding copies: the ingress port, priority and length of its
    // frame, written at the decision (store) and read when its last copy
    // leaves
    logic [PORT_W-1:0]                   sin_q [NSLOT];
    logic [2:0]                          sprio_q [NSLOT];
    logic [LEN_W-1:0]                    slen_q [NSLOT];
    logic [PORTS-1:0]                    store;

    // ---- the decisions, in ascending port order ----
    // (registers only: the pool, copies and byte counts after them, _dc)

    logic [NSLOT-1:0]                    free_dc;
    logic [NSLOT-1:0]                    freed_dc;
    logic [NSLOT-1:0][PORTS-1:0]         holders_dc;
    logic [PORTS-1:0][31:0]              occ_dc;
    logic [31:0]                         qocc_dc [PORTS][QUEUES];
    logic [31:0]                         ic_dc [PORTS][QUEUES];
    logic [15:0]                         lfsr_q, lfsr_dc;

    always_comb begin
        logic [PORTS-1:0]  targets;
        logic [PORTS-1:0]  copies;
        logic              found;
        logic [SLOT_W-1:0] new_slot;
        logic [LEN_W-1:0]  flen;
        logic [2:0]        prio;
        logic              mark;
        logic [31:0]       q;
        logic [31:0]       span;
        logic [31:0]       over;

        free_dc     = free_q;
        freed_dc    = '0;
        holders_dc  = holders_q;
        store       = '0;
        occ_dc      = occ_q;
        qocc_dc     = qocc_q;
        ic_dc       = ic_q;
        lfsr_dc     = lfsr_q;
        for (int e = 0; e < PORTS; e++) begin
            for (int n = 0; n < 32; n++) begin
                cnt_add[e][n] = 32'd0;
            end
        end
        land_swap   = '0;
        land_new    = '0;
        enq_valid   = '0;
        enq_mark    = '0;
        pause_load  = '0;
        learn_valid = '0;

        for (int i = 0; i < PORTS; i++) begin
            targets  = '0;
            copies   = '0;
            found    = 1'b0;
            new_slot = '0;
            flen     = dec_len[i][LEN_W-1:0];
            prio     = f_prio[i];
            mark     = 1'b0;
            q        = '0;
            span     = '0;
            over     = '0;

            if (dec_valid[i]) begin
                cnt_add[i][CNT_RX_FRAMES] = cnt_add[i][CNT_RX_FRAMES] + 32'd1;
                cnt_add[i][CNT_RX_BYTES]  = cnt_add[i][CNT_RX_BYTES] + dec_len[i];

                if (dec_len[i] < 32'(MIN_LEN)) begin
                    cnt_add[i][CNT_DROP_RUNT] = cnt_add[i][CNT_DROP_RUNT] + 32'd1;
                end else if (dec_len[i] > mtu_eff) begin
                    cnt_add[i][CNT_DROP_OVER] = cnt_add[i][CNT_DROP_OVER] + 32'd1;
                end else if (dec_bad[i]) begin
                    cnt_add[i][CNT_DROP_BAD] = cnt_add[i][CNT_DROP_BAD] + 32'd1;
                end else if (f_mac_ctrl[i]) begin
                    if (f_pfc[i]) begin
                        cnt_add[i][CNT_RX_PFC] = cnt_add[i][CNT_RX_PFC] + 32'd1;
                        if (ctrl_pfc_rx) begin
                            pause_load[i] = f_pfc_en[i];
                        end
                    end else begin
                        cnt_add[i][CNT_RX_MAC_CTRL] = cnt_add[i][CNT_RX_MAC_CTRL] + 32'd1;
                    end
                end else begin
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
                        cnt_add[i][CNT_DROP_FILTER] = cnt_add[i][CNT_DROP_FILTER] + 32'd1;
                    end else begin
                        // a pool slot to replace the landing slot
                        for (int s = 0; s < NSLOT; s++) begin
                            if (!found && free_dc[s]) begin
                                found    = 1'b1;
                                new_slot = SLOT_W'(s);
                            end
                        end
                        if (!found) begin
                            cnt_add[i][CNT_DROP_NO_SLOT] = cnt_add[i][CNT_DROP_NO_SLOT] + 32'd1;
                        end else begin
                            free_dc[new_slot] = 1'b0;
                            land_swap[i]      = 1'b1;
                            land_new[i]       = new_slot;

                            // admission, per target in ascending order
                            for (int e = 0; e < PORTS; e++) begin
                                if (targets[e]) begin
                                    if (occ_dc[e] + 32'(flen) > 32'(BUF_BYTES)) begin
                                        cnt_add[e][{2'b10, prio}] = cnt_add[e][{2'b10, prio}] + 32'd1;
                                    end else begin
                                        q    = qocc_dc[e][prio];
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
                                        if (mark) begin
                                            cnt_add[e][{2'b11, prio}] = cnt_add[e][{2'b11, prio}] + 32'd1;
                                        end
                                        occ_dc[e]        = occ_dc[e] + 32'(flen);
                                        qocc_dc[e][prio] = qocc_dc[e][prio] + 32'(flen);
                                        copies[e]        = 1'b1;
                                    end
                                end
                            end

                            if (copies == '0) begin
                                // back to the pool from D+1
                                freed_dc[dec_slot[i]] = 1'b1;
                            end else begin
                                holders_dc[dec_slot[i]] = copies;
                                store[i]                = 1'b1;
                                ic_dc[i][prio]          = ic_dc[i][prio] + 32'(flen);
                            end
                        end
                    end
                end
            end
        end
    end

    // ---- departures of this cycle (done_*), after the decisions ----

    always_comb begin
        logic [NSLOT-1:0]  freed;
        logic              dup;
        logic [SLOT_W-1:0] ds;

        free_d    = free_dc;
        freed     = freed_dc;
        holders_d = holders_dc;
        occ_d     = occ_dc;
        qocc_d    = qocc_dc;
        ic_d      = ic_dc;

        // departures of this cycle: effective from the next one
        for (int e = 0; e < PORTS; e++) begin
            if (done_valid[e]) begin
                occ_d[e]                   = occ_d[e] - 32'(done_len[e]);
                qocc_d[e][done_prio[e]]    = qocc_d[e][done_prio[e]] - 32'(done_len[e]);
                holders_d[done_slot[e]][e] = 1'b0;
            end
        end
        // a slot whose last copy left: only a done slot can be one (a
        // decision sets copies, never clears them); each such slot once
        for (int e = 0; e < PORTS; e++) begin
            ds  = done_slot[e];
            dup = 1'b0;
            for (int f = 0; f < e; f++) begin
                if (done_valid[f] && done_slot[f] == ds) begin
                    dup = 1'b1;
                end
            end
            if (done_valid[e] && !dup && 32'(ds) < NSLOT &&
                holders_q[ds] != '0 && holders_d[ds] == '0) begin
                freed[ds] = 1'b1;
                ic_d[sin_q[ds]][sprio_q[ds]] = ic_d[sin_q[ds]][sprio_q[ds]] - 32'(slen_q[ds]);
            end
        end
        free_d = free_d | freed;
    end

    always_comb begin
        for (int i = 0; i < PORTS; i++) begin
            lookup_mac[i] = f_dst[i];
            learn_mac[i]  = f_src[i];
            enq_prio[i]   = f_prio[i];
            enq_slot[i]   = dec_slot[i];
            enq_len[i]    = dec_len[i][LEN_W-1:0];
            enq_tagged[i] = f_tagged[i];
            enq_tos[i]    = f_tos[i];
            enq_csum[i]   = f_csum[i];
        end
    end

    assign ic_next  = ic_d;
    assign red_lfsr = lfsr_q;
    assign busy    = (holders_q != '0);

    always_ff @(posedge clk) begin
        for (int i = 0; i < PORTS; i++) begin
            if (store[i]) begin
                sin_q[dec_slot[i]]   <= PORT_W'(i);
                sprio_q[dec_slot[i]] <= f_prio[i];
                slen_q[dec_slot[i]]  <= dec_len[i][LEN_W-1:0];
            end
        end
        if (rst) begin
            free_q    <= {{(NSLOT - SLOTS){1'b0}}, {SLOTS{1'b1}}};
            lfsr_q    <= 16'd1;
            holders_q <= '0;
            occ_q     <= '0;
            for (int e = 0; e < PORTS; e++) begin
                for (int p = 0; p < QUEUES; p++) begin
                    qocc_q[e][p] <= 32'd0;
                    ic_q[e][p]   <= 32'd0;
                end
            end
        end else begin
            free_q    <= free_d;
            holders_q <= holders_d;
            occ_q     <= occ_d;
            qocc_q    <= qocc_d;
            ic_q      <= ic_d;
            lfsr_q    <= red_lfsr_we ? red_lfsr_wdata : lfsr_dc;
        end
    end

endmodule

`resetall
