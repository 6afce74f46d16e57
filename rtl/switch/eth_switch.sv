// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// eth_switch: store-and-forward, output-queued L2 switch with 8 priorities,
// strict or DRR scheduling, ECN marking and 802.1Qbb PFC; the contract,
// cycle by cycle, is rtl/switch/README.md.
//
//   s_axis[i] --> switch_ingress[i] --wr--> switch_buffer --rd--> switch_egress[e] --> m_axis[e]
//       |              | dec_* (D = L+1)                              ^   ^   ^
//       | header beats v                                              |   |   |
//       +-------> switch_decide  --enq_* (copies), pause loads--------+   |   |
//                   |      ^  ^                                           |   |
//   switch_mac_table+      |  +-- done_* (last beat of a copy) -----------+   |
//                          ic --> switch_pfc_ctl --PFC frames to send---------+
//   switch_csr: registers and counters, CSR bus
//
// Ethernet frame as it arrives (byte k in lane k of its beat):
//   +-----+-----+------+--------------------------------+
//   | dst | src | type | payload (VLAN, IPv4, MAC ctrl) |   no FCS
//   +-----+-----+------+--------------------------------+
//   0     6     12     14
//
// Timing constants (mirrored by golden/ethswitch/timing.go; cycle 0 is the
// first cycle after reset; "at cycle t" means effective from t+1):
//   LATENCY = 3: a frame whose last beat is accepted in cycle L leaves an
//     idle egress with its first beat valid in L+3 (the FRAME stamp is L+3
//     when tready is high).
//   Decision at D = L+1, ports in ascending order, each seeing the pool,
//     occupancies and ic as left by the ports before it; MAC lookups of D
//     see the table before the learns of D; learns of D apply in ascending
//     port order (the last wins), stamp D.
//   A copy queued at D is visible to its egress scheduler from D+1.
//   An egress picks in every cycle its transmitter is free (idle, or its
//     last beat taken in that cycle): PFC frames first, then strict/DRR.
//     A pick at t puts the first beat on m_axis at t+1; each further beat
//     the cycle after the previous one was taken.
//   Last beat of a copy taken at z: occ(e), qocc(e,p) drop it from z+1; if
//     it was the slot's last copy, the slot is back in the pool from z+1
//     and its bytes leave ic at z (seen by the PFC evaluation of z).
//     A frame with no copy queued frees its slot at D (usable from D+1).
//   Pause: a PFC frame decided at D on port i sets, for each enabled p,
//     N = time[p] * 512 / DATA_WIDTH; queue p of egress i is paused at the
//     picks of D+1 .. D+N (N = 0 resumes at D+1).
//   PFC generation is evaluated at the end of every cycle t, after all of
//     t's updates; a frame it sends waits on egress i from t+1.
//   CSR writes (csr_we at t) take effect for cycle t+1 (decisions, picks,
//     PFC evaluation). CSR read latency 1: csr_re at t answers at t+1 with
//     the value during t (counters without the events of t).
//   Counters count at D (rx, drops, drop_tail and ecn_marked on the egress)
//     or in the cycle the last beat is taken (tx).
//   RED (CTRL.ecn and CTRL.red): the 16-bit LFSR steps once per candidate
//     copy in decision order (ports ascending, targets ascending), and a
//     RED_LFSR write at t sets the state of t+1 (switch_decide).
//
// Where the README leaves a choice, this RTL does the simplest thing:
//   - rx_bytes counts the length of every frame that ends, as rx_frames
//     counts every frame (runts, bad and MAC control frames too).
//   - MAC control frames stop at step 2: they are not learned from.
//   - A lookup hits only when the entry holds the same MAC (the tag is
//     compared); an entry holding another MAC is a miss.
//   - "IPv4" is EtherType 0x0800 with version 4 and IHL >= 5, for both the
//     priority (untagged only) and ECN (untagged or after one VLAN tag).
//   - Frames longer than the buffer slot (MTU_MAX) keep counting bytes for
//     the oversize check; beats past the slot are not stored.
//   - A PFC frame takes SWITCH_MAC and PFC_QUANTA as they are in the cycle
//     it is generated. One waits per (port, priority): a newer one replaces
//     it in place (README "PFC"), so at most QUEUES wait per port.
//   - With CTRL.pfc_tx clear the PFC states hold; PFC_REFRESH = 0 acts as 1.
//   - A CSR write to a counter wins over that counter's increments of the
//     same cycle.
//   - DRR: the steps run only in a cycle the port picks and no PFC frame
//     waits; the state persists across CTRL.sched changes.
//   - idle also needs every transmitter idle (a PFC frame leaving holds no
//     slot).
//   - csr_rdata holds the last read's answer while csr_rvalid is low.
//
// Simulation speed: this RTL is shaped for Verilator 5, which evaluates
// every combinational block at every clock edge, and those that depend on
// a top-level input (m_axis_tready above all) at every eval. So:
//   - state is updated in always_ff blocks, in the cycles something
//     happens, from block-local copies written back once; combinational
//     blocks are small, or do their work only for a frame being decided;
//   - state is packed, each register read before its nonblocking write
//     (the model then writes it in place: a nonblocking write to an
//     unpacked array, or to a register read after it, costs a shadow copy
//     and bookkeeping in every cycle); the frame buffer and the egress
//     queues are the exceptions: unpacked (a read is a plain array access)
//     and written with blocking assignments where no clocked logic reads
//     them after the write;
//   - a beat updates only what changes with it (the ingress's beat count
//     and write address, the egress's beat and remaining bytes); a frame's
//     fields are written once, at its last beat or its pick;
//   - no wide signal leaves a per-port instance (its copy into the parent's
//     array would be made at every edge): the header beats go from s_axis
//     to switch_decide, the buffer registers the beats the egress reads;
//   - switch_egress is inlined, so its logic on m_axis_tready is evaluated
//     with the rest;
//   - every output is a register or a constant, so the simulation skips
//     the falling-edge eval (sim/tops/switch_top.cpp); keep it so.
// A change made for speed must keep the behaviour cycle for cycle: the
// TestSwitch* tests (rtl/switch/tb) check it against the golden
// model.
//
// The buffer (switch_buffer) is modelled as one array written by every
// ingress and read by every egress in the same cycle: this RTL is for
// simulation, not synthesis.

module eth_switch #(
    // AXI-Stream ports in and out (2 to 16).
    parameter int PORTS       = 4,
    // Bits per beat: 64, 128, 256 or 512.
    parameter int DATA_WIDTH  = 64,
    // Byte lanes per beat.
    parameter int KEEP_WIDTH  = DATA_WIDTH / 8,
    // Priority queues per egress port; queue index = priority, so 8.
    parameter int QUEUES      = 8,
    // Largest frame the buffer holds, bytes (60 to 65535). 4224: the
    // longest RoCEv2 packet of path MTU 4096 (4178 bytes with a VLAN tag,
    // IBTA annex A17; no FCS here) in whole 64-byte beats (README).
    parameter int MTU_MAX     = 4224,
    // Frame slots of MTU_MAX bytes in the shared pool (plus 2 per port):
    // enough for 4 ports' BUF_BYTES of 1518-byte frames (README).
    parameter int SLOTS       = 96,
    // Bytes of frames one egress port may hold queued: 7 such packets.
    parameter int BUF_BYTES   = 32768,
    // MAC table entries, a power of two from 2 to 256.
    parameter int MAC_ENTRIES = 64
) (
    input  wire logic                          clk,
    input  wire logic                          rst,

    input  wire logic [PORTS*DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire logic [PORTS*KEEP_WIDTH-1:0]   s_axis_tkeep,
    input  wire logic [PORTS-1:0]              s_axis_tvalid,
    output wire logic [PORTS-1:0]              s_axis_tready,
    input  wire logic [PORTS-1:0]              s_axis_tlast,
    input  wire logic [PORTS-1:0]              s_axis_tuser,

    output wire logic [PORTS*DATA_WIDTH-1:0]   m_axis_tdata,
    output wire logic [PORTS*KEEP_WIDTH-1:0]   m_axis_tkeep,
    output wire logic [PORTS-1:0]              m_axis_tvalid,
    input  wire logic [PORTS-1:0]              m_axis_tready,
    output wire logic [PORTS-1:0]              m_axis_tlast,
    output wire logic [PORTS-1:0]              m_axis_tuser,

    input  wire logic [15:0]                   csr_addr,
    input  wire logic [31:0]                   csr_wdata,
    input  wire logic                          csr_we,
    input  wire logic                          csr_re,
    output wire logic [31:0]                   csr_rdata,
    output wire logic                          csr_rvalid,

    output wire logic                          idle
);

    // Pipeline latency, last beat in to first beat out (see above).
    localparam int LATENCY    = 3;
    localparam int NSLOT      = SLOTS + 2 * PORTS;
    localparam int SLOT_W     = $clog2(NSLOT);
    localparam int SLOT_BEATS = (MTU_MAX + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int BEAT_W     = $clog2(SLOT_BEATS);
    localparam int ADDR_W     = SLOT_W + BEAT_W;
    localparam int PORT_W     = $clog2(PORTS);
    localparam int LEN_W      = 16;
    localparam int HDR_BYTES  = 48;
    localparam int HDR_BEATS  = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;

    initial begin
        if (PORTS < 2 || PORTS > 16) begin
            $error("eth_switch: PORTS must be 2 to 16");
            $finish;
        end
        if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || (DATA_WIDTH & (DATA_WIDTH - 1)) != 0 ||
            KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("eth_switch: DATA_WIDTH must be 64, 128, 256 or 512 and KEEP_WIDTH DATA_WIDTH/8");
            $finish;
        end
        if (QUEUES != 8) begin
            $error("eth_switch: QUEUES must be 8 (queue index = priority)");
            $finish;
        end
        if (MTU_MAX < 64 || MTU_MAX >= (1 << LEN_W) || SLOT_BEATS < 2) begin
            $error("eth_switch: MTU_MAX must be 64 to 65535 and at least two beats");
            $finish;
        end
        if (SLOTS < 1 || BUF_BYTES < 1) begin
            $error("eth_switch: SLOTS and BUF_BYTES must be positive");
            $finish;
        end
        if (MAC_ENTRIES < 2 || MAC_ENTRIES > 256 || (MAC_ENTRIES & (MAC_ENTRIES - 1)) != 0) begin
            $error("eth_switch: MAC_ENTRIES must be a power of two, 2 to 256");
            $finish;
        end
        if (LATENCY != 3) begin
            $error("eth_switch: LATENCY is 3 by construction");
            $finish;
        end
    end

    // ---- cycle count (cycle 0 is the first cycle after reset) ----

    logic [63:0] cycle_q;

    always_ff @(posedge clk) begin
        if (rst) begin
            cycle_q <= 64'd0;
        end else begin
            cycle_q <= cycle_q + 64'd1;
        end
    end

    // ---- configuration ----

    logic                     ctrl_sched;
    logic                     ctrl_ecn;
    logic                     ctrl_pfc_tx;
    logic                     ctrl_pfc_rx;
    logic                     ctrl_red;
    logic [31:0]              cfg_mtu;
    logic [31:0]              cfg_age;
    logic [2:0]               cfg_default_prio;
    logic [31:0]              cfg_pfc_xoff;
    logic [31:0]              cfg_pfc_xon;
    logic [15:0]              cfg_pfc_quanta;
    logic [31:0]              cfg_pfc_refresh;
    logic [47:0]              cfg_switch_mac;
    logic [7:0][31:0]         cfg_dscp_map;
    logic [QUEUES-1:0][31:0]  cfg_ecn_k;
    logic [QUEUES-1:0][31:0]  cfg_quantum;
    logic [QUEUES-1:0][31:0]  cfg_ecn_kmax;
    logic [QUEUES-1:0][7:0]   cfg_ecn_pmax;
    logic                     red_lfsr_we;
    logic [15:0]              red_lfsr_wdata;
    logic [15:0]              red_lfsr;

    // ---- ingress ----

    logic [PORTS-1:0]                   wr_en;
    logic [PORTS-1:0][ADDR_W-1:0]       wr_addr;
    logic [PORTS-1:0]                   dec_valid;
    logic [PORTS-1:0][31:0]             dec_len;
    logic [PORTS-1:0]                   dec_bad;
    logic [PORTS-1:0][SLOT_W-1:0]       dec_slot;
    logic [PORTS-1:0][HDR_BEATS-1:0]    hdr_sel;
    logic [PORTS-1:0]                   land_swap;
    logic [PORTS-1:0][SLOT_W-1:0]       land_new;
    logic [PORTS-1:0]                   ing_busy;

    for (genvar i = 0; i < PORTS; i++) begin : g_ingress
        switch_ingress #(
            .DATA_WIDTH(DATA_WIDTH),
            .KEEP_WIDTH(KEEP_WIDTH),
            .HDR_BYTES (HDR_BYTES),
            .HDR_BEATS (HDR_BEATS),
            .SLOT_W    (SLOT_W),
            .BEAT_W    (BEAT_W),
            .SLOT_BEATS(SLOT_BEATS),
            .LAND0     (SLOTS + 2 * i),
            .LAND1     (SLOTS + 2 * i + 1)
        ) u_ingress (
            .clk          (clk),
            .rst          (rst),
            .s_axis_tkeep (s_axis_tkeep[i*KEEP_WIDTH +: KEEP_WIDTH]),
            .s_axis_tvalid(s_axis_tvalid[i]),
            .s_axis_tready(s_axis_tready[i]),
            .s_axis_tlast (s_axis_tlast[i]),
            .s_axis_tuser (s_axis_tuser[i]),
            .wr_en        (wr_en[i]),
            .wr_addr      (wr_addr[i]),
            .dec_valid    (dec_valid[i]),
            .dec_len      (dec_len[i]),
            .dec_bad      (dec_bad[i]),
            .dec_slot     (dec_slot[i]),
            .hdr_sel      (hdr_sel[i]),
            .land_swap    (land_swap[i]),
            .land_new     (land_new[i]),
            .busy         (ing_busy[i])
        );
    end

    // ---- buffer ----

    logic [PORTS-1:0]                   rd_en;
    logic [PORTS-1:0][ADDR_W-1:0]       rd_addr;
    logic [PORTS-1:0][DATA_WIDTH-1:0]   rd_data;

    switch_buffer #(
        .PORTS     (PORTS),
        .DATA_WIDTH(DATA_WIDTH),
        .SLOT_W    (SLOT_W),
        .BEAT_W    (BEAT_W),
        .ADDR_W    (ADDR_W)
    ) u_buffer (
        .clk    (clk),
        .wr_en  (wr_en),
        .wr_addr(wr_addr),
        .wr_data(s_axis_tdata),
        .rd_en  (rd_en),
        .rd_addr(rd_addr),
        .rd_data(rd_data)
    );

    // ---- MAC table ----

    logic [PORTS-1:0]              lookup_valid;
    logic [PORTS-1:0][47:0]        lookup_mac;
    logic [PORTS-1:0]              lookup_hit;
    logic [PORTS-1:0][PORT_W-1:0]  lookup_port;
    logic [PORTS-1:0]              learn_valid;
    logic [PORTS-1:0][47:0]        learn_mac;

    switch_mac_table #(
        .PORTS      (PORTS),
        .MAC_ENTRIES(MAC_ENTRIES),
        .PORT_W     (PORT_W)
    ) u_mac_table (
        .clk        (clk),
        .rst        (rst),
        .cycle      (cycle_q),
        .age_cycles (cfg_age),
        .lookup_valid(lookup_valid),
        .lookup_mac (lookup_mac),
        .lookup_hit (lookup_hit),
        .lookup_port(lookup_port),
        .learn_valid(learn_valid),
        .learn_mac  (learn_mac)
    );

    // ---- decision ----

    logic [PORTS-1:0][PORTS-1:0]          enq_valid;
    logic [PORTS-1:0][PORTS-1:0]          enq_mark;
    logic [PORTS-1:0][2:0]                enq_prio;
    logic [PORTS-1:0][SLOT_W-1:0]         enq_slot;
    logic [PORTS-1:0][LEN_W-1:0]          enq_len;
    logic [PORTS-1:0]                     enq_tagged;
    logic [PORTS-1:0][7:0]                enq_tos;
    logic [PORTS-1:0][15:0]               enq_csum;
    logic [PORTS-1:0][PORTS-1:0]          tail_drop;
    logic [PORTS-1:0][QUEUES-1:0]         pause_load;
    logic [PORTS-1:0][QUEUES-1:0][15:0]   pause_quanta;
    logic [PORTS-1:0]                     done_valid;
    logic [PORTS-1:0][SLOT_W-1:0]         done_slot;
    logic [PORTS-1:0][2:0]                done_prio;
    logic [PORTS-1:0][LEN_W-1:0]          done_len;
    logic [PORTS-1:0][QUEUES-1:0][31:0]   ic;
    logic [PORTS-1:0]                     ic_add;
    logic [PORTS-1:0]                     ic_sub;
    logic [PORTS-1:0][PORT_W-1:0]         ic_sub_port;
    logic [PORTS-1:0][2:0]                ic_sub_prio;
    logic [PORTS-1:0][LEN_W-1:0]          ic_sub_len;
    logic [PORTS-1:0]                     rx_ev;
    logic [PORTS-1:0][3:0]                rx_ev_num;
    logic                                 dec_busy;

    switch_decide #(
        .PORTS     (PORTS),
        .DATA_WIDTH(DATA_WIDTH),
        .QUEUES    (QUEUES),
        .MTU_MAX   (MTU_MAX),
        .SLOTS     (SLOTS),
        .NSLOT     (NSLOT),
        .BUF_BYTES (BUF_BYTES),
        .HDR_BYTES (HDR_BYTES),
        .HDR_BEATS (HDR_BEATS),
        .SLOT_W    (SLOT_W),
        .PORT_W    (PORT_W),
        .LEN_W     (LEN_W)
    ) u_decide (
        .clk         (clk),
        .rst         (rst),
        .dec_valid   (dec_valid),
        .dec_len     (dec_len),
        .dec_bad     (dec_bad),
        .dec_slot    (dec_slot),
        .s_axis_tdata(s_axis_tdata),
        .hdr_sel     (hdr_sel),
        .ctrl_ecn    (ctrl_ecn),
        .ctrl_pfc_rx (ctrl_pfc_rx),
        .ctrl_pfc_tx (ctrl_pfc_tx),
        .mtu         (cfg_mtu),
        .default_prio(cfg_default_prio),
        .dscp_map    (cfg_dscp_map),
        .ecn_k       (cfg_ecn_k),
        .ctrl_red    (ctrl_red),
        .ecn_kmax    (cfg_ecn_kmax),
        .ecn_pmax    (cfg_ecn_pmax),
        .red_lfsr_we (red_lfsr_we),
        .red_lfsr_wdata(red_lfsr_wdata),
        .red_lfsr    (red_lfsr),
        .lookup_valid(lookup_valid),
        .lookup_mac  (lookup_mac),
        .lookup_hit  (lookup_hit),
        .lookup_port (lookup_port),
        .learn_valid (learn_valid),
        .learn_mac   (learn_mac),
        .land_swap   (land_swap),
        .land_new    (land_new),
        .enq_valid   (enq_valid),
        .enq_mark    (enq_mark),
        .enq_prio    (enq_prio),
        .enq_slot    (enq_slot),
        .enq_len     (enq_len),
        .enq_tagged  (enq_tagged),
        .enq_tos     (enq_tos),
        .enq_csum    (enq_csum),
        .tail_drop   (tail_drop),
        .pause_load  (pause_load),
        .pause_quanta(pause_quanta),
        .done_valid  (done_valid),
        .done_slot   (done_slot),
        .done_prio   (done_prio),
        .done_len    (done_len),
        .ic          (ic),
        .ic_add      (ic_add),
        .ic_sub      (ic_sub),
        .ic_sub_port (ic_sub_port),
        .ic_sub_prio (ic_sub_prio),
        .ic_sub_len  (ic_sub_len),
        .rx_ev       (rx_ev),
        .rx_ev_num   (rx_ev_num),
        .busy        (dec_busy)
    );

    // ---- PFC generation ----

    logic [PORTS-1:0][QUEUES-1:0] pfc_push;
    logic [PORTS-1:0][QUEUES-1:0] pfc_xoff;

    switch_pfc_ctl #(
        .PORTS (PORTS),
        .QUEUES(QUEUES),
        .PORT_W(PORT_W),
        .LEN_W (LEN_W)
    ) u_pfc_ctl (
        .clk           (clk),
        .rst           (rst),
        .cycle         (cycle_q),
        .enable        (ctrl_pfc_tx),
        .xoff_bytes    (cfg_pfc_xoff),
        .xon_bytes     (cfg_pfc_xon),
        .refresh_cycles(cfg_pfc_refresh),
        .ic            (ic),
        .add           (ic_add),
        .add_prio      (enq_prio),
        .add_len       (enq_len),
        .sub           (ic_sub),
        .sub_port      (ic_sub_port),
        .sub_prio      (ic_sub_prio),
        .sub_len       (ic_sub_len),
        .push          (pfc_push),
        .push_xoff     (pfc_xoff)
    );

    // ---- egress ----

    logic [PORTS-1:0]             tx_done;
    logic [PORTS-1:0]             tx_pfc;
    logic [PORTS-1:0][LEN_W-1:0]  tx_len;
    logic [PORTS-1:0]             eg_busy;

    for (genvar e = 0; e < PORTS; e++) begin : g_egress
        switch_egress #(
            .PORTS     (PORTS),
            .DATA_WIDTH(DATA_WIDTH),
            .KEEP_WIDTH(KEEP_WIDTH),
            .QUEUES    (QUEUES),
            .SLOT_W    (SLOT_W),
            .BEAT_W    (BEAT_W),
            .LEN_W     (LEN_W),
            .QDEPTH    (2 ** SLOT_W)
        ) u_egress (
            .clk          (clk),
            .rst          (rst),
            .ctrl_sched   (ctrl_sched),
            .quantum      (cfg_quantum),
            .pfc_quanta   (cfg_pfc_quanta),
            .switch_mac   (cfg_switch_mac),
            .enq_valid    (enq_valid[e]),
            .enq_mark     (enq_mark[e]),
            .enq_prio     (enq_prio),
            .enq_slot     (enq_slot),
            .enq_len      (enq_len),
            .enq_tagged   (enq_tagged),
            .enq_tos      (enq_tos),
            .enq_csum     (enq_csum),
            .pause_load   (pause_load[e]),
            .pause_quanta (pause_quanta[e]),
            .pfc_push     (pfc_push[e]),
            .pfc_xoff     (pfc_xoff[e]),
            .rd_en        (rd_en[e]),
            .rd_addr      (rd_addr[e]),
            .rd_data      (rd_data[e]),
            .m_axis_tdata (m_axis_tdata[e*DATA_WIDTH +: DATA_WIDTH]),
            .m_axis_tkeep (m_axis_tkeep[e*KEEP_WIDTH +: KEEP_WIDTH]),
            .m_axis_tvalid(m_axis_tvalid[e]),
            .m_axis_tready(m_axis_tready[e]),
            .m_axis_tlast (m_axis_tlast[e]),
            .m_axis_tuser (m_axis_tuser[e]),
            .done_valid   (done_valid[e]),
            .done_slot    (done_slot[e]),
            .done_prio    (done_prio[e]),
            .done_len     (done_len[e]),
            .tx_done      (tx_done[e]),
            .tx_pfc       (tx_pfc[e]),
            .tx_len       (tx_len[e]),
            .busy         (eg_busy[e])
        );
    end

    // ---- registers and counters ----

    switch_csr #(
        .PORTS     (PORTS),
        .DATA_WIDTH(DATA_WIDTH),
        .QUEUES    (QUEUES),
        .MTU_MAX   (MTU_MAX),
        .LEN_W     (LEN_W)
    ) u_csr (
        .clk         (clk),
        .rst         (rst),
        .csr_addr    (csr_addr),
        .csr_wdata   (csr_wdata),
        .csr_we      (csr_we),
        .csr_re      (csr_re),
        .csr_rdata   (csr_rdata),
        .csr_rvalid  (csr_rvalid),
        .ctrl_sched  (ctrl_sched),
        .ctrl_ecn    (ctrl_ecn),
        .ctrl_pfc_tx (ctrl_pfc_tx),
        .ctrl_pfc_rx (ctrl_pfc_rx),
        .ctrl_red    (ctrl_red),
        .mtu         (cfg_mtu),
        .age_cycles  (cfg_age),
        .default_prio(cfg_default_prio),
        .pfc_xoff    (cfg_pfc_xoff),
        .pfc_xon     (cfg_pfc_xon),
        .pfc_quanta  (cfg_pfc_quanta),
        .pfc_refresh (cfg_pfc_refresh),
        .switch_mac  (cfg_switch_mac),
        .dscp_map    (cfg_dscp_map),
        .ecn_k       (cfg_ecn_k),
        .quantum     (cfg_quantum),
        .ecn_kmax    (cfg_ecn_kmax),
        .ecn_pmax    (cfg_ecn_pmax),
        .red_lfsr_we (red_lfsr_we),
        .red_lfsr_wdata(red_lfsr_wdata),
        .red_lfsr    (red_lfsr),
        .rx_valid    (dec_valid),
        .rx_len      (dec_len),
        .rx_ev       (rx_ev),
        .rx_ev_num   (rx_ev_num),
        .tail_drop   (tail_drop),
        .ecn_mark    (enq_mark),
        .frame_prio  (enq_prio),
        .tx_done     (tx_done),
        .tx_pfc      (tx_pfc),
        .tx_len      (tx_len)
    );

    // no frame arriving or waiting for its decision, no slot holding a
    // copy, no PFC frame waiting, every transmitter idle
    assign idle = !(|ing_busy) && !dec_busy && !(|eg_busy);

endmodule

`resetall
