// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// nic_rx_parse: NIC receive front end: the frame checks of golden/rc Node.Receive, receive buffer, host frames.
//
//   s_axis (in0) --+--> header capture (first 128 bytes), length, tuser
//                  |        L: last beat         L+1: frame checks
//                  |                             D = L+2: address, QP, record <--+
//                  +--> 2-beat delay --+--> nic_rx_store (receive buffer) --> buf_rd_*
//                                      +--> nic_rx_host_fifo --> m_axis (out2)   |
//                    (beat 1 of it) ---+--> icrc_check (verdict only, at D) -----+
//
// Frame layout (RoCEv2, IBA annex A17; BTH, IBA 9.2; byte offsets for IPv4 without options):
//
//   | dst MAC 6 | src MAC 6 | [0x8100 TCI 4] | EtherType 2 |            off = 14 or 18
//   | IPv4 20 (or IPv6 40)  | UDP 8 (dport 4791) | BTH 12 | ext | payload | pad | ICRC 4 | Ethernet pad |
//                                                         ^ off+40      (rc Receive only accepts IHL 5)
//
// Classes (rec_class), decided in exactly the order of golden/rc Node.Receive
// (roce Frame.Decode and BTH.DecodeFromBytes first), n = frame length:
//   9 BAD_FRAME      tuser[0] on any beat (a MAC error): checked first. Not in
//                    golden: nothing marks a NIC's input bad in the harness
//                    (the switch's m_axis_tuser is always 0).
//   3 MALFORMED      n < 14; 0x8100 and n < 18
//                    EtherType 0x8808 at offset 12 (MAC Control, IEEE 802.3
//                    clause 31; never tagged), consumed, golden/pfc's rules:
//   3 MALFORMED        n < 16, or opcode 0x0101 and n < 34, or 0x0001 and n < 18
//  12 MAC_CONTROL      destination not 01:80:C2:00:00:01, or another opcode
//  10 PFC              opcode 0x0101 (802.1Qbb clause 36, 802.3 Annex 31D)
//  11 PAUSE            opcode 0x0001 (802.3 Annex 31B)
//                    then, for EtherType 0x0800
//                    (0x86DD), n < off+20 (off+40)
//   2 NOT_ROCE       EtherType neither 0x0800 nor 0x86DD (0x88A8, a second
//                    0x8100 ...); IPv4 version != 4, IHL < 5 or protocol != 17;
//                    IPv6 version != 6 or next header != 17
//   3 MALFORMED      n < UDP start + 8 (before the port is looked at)
//   2 NOT_ROCE       UDP destination port != 4791
//   3 MALFORMED      IP end (off + total length; off + 40 + payload length)
//                    > n or < UDP start + 8; IP end - BTH start < 12 + the
//                    opcode's extension headers (roce OpCode.Headers: RC
//                    table, UC for ops 0..0x0B, UD SEND ONLY [Imm] + DETH,
//                    0x81 + 16 bytes, else none) + 4 (ICRC)
//   6 BAD_HEADER     IPv6 (counted rx_bad_header, as golden)
//   4 BAD_ICRC       icrc_check's verdict (over the IP packet up to IP end).
//                    Only its verdict: its RoCEv2/other split is not golden's
//                    (it calls UDP 4791 with an IP length too short for the
//                    BTH "other", golden calls it truncated, rx_malformed).
//   3 MALFORMED      IPv4 byte 0 != 0x45 (options: Decode takes them, Receive
//                    does not) or the 20-byte header checksum is wrong
//   5 WRONG_ADDRESS  destination MAC != node_mac or destination IP != node_ip
//   3 MALFORMED      PadCnt > bytes between the extension headers and the ICRC
//   6 BAD_HEADER     TVer != 0 or P_Key != 0xFFFF
//   7 UNKNOWN_QP     DestQP matches no slot with qp_valid (lowest slot wins
//                    if several match)
//   1 CNP            opcode 0x81 (for slot rec_slot)
//   6 BAD_HEADER     opcode[7:5] != 0 (UC, RD, UD, other CNP-range codes)
//   8 BUFFER_FULL    an RC packet with payload that the receive buffer could
//                    not hold (not in golden: see "Receive buffer")
//   0 RC             an RC packet for slot rec_slot (any opcode 0x00-0x1F,
//                    unknown ones included: they have no extension headers).
//                    golden counts it rx_packets, or rx_qp_error when the QP
//                    is in the error state: that is the QP context's call.
// Frame length saturates at 2^17-1, beyond any IP end. Golden does not look
// at the UDP length, IPv4 flags/fragment offset, TTL or source addresses,
// and neither does this unit. Bytes after the IP end are Ethernet padding.
//
// Decision record (rec_*, valid in cycle D only, rec_valid high for one
// cycle per frame, in frame order; made in D from registers and the
// configuration inputs, so the consumer takes it in D). rec_class and rec_frame_len always; the
// other fields for RC, CNP and BUFFER_FULL (BTH fields only for CNP), zero
// otherwise; an extension header's fields are zero when the opcode has none:
//   rec_slot, rec_dest_qp, rec_opcode, rec_psn, rec_ack_req, rec_se,
//   rec_mig_req, rec_fecn, rec_becn, rec_pad (PadCnt)       BTH
//   rec_ecn_ce      IPv4 TOS[1:0] == 3 (CE)
//   rec_va, rec_rkey, rec_dma_len            RETH (0x06, 0x0A, 0x0B, 0x0C)
//   rec_va, rec_rkey, rec_atomic_a (SwapAdd), rec_atomic_b (Compare)
//                                            AtomicETH (0x13, 0x14)
//   rec_syndrome, rec_msn                    AETH (0x0D, 0x0F-0x12)
//   rec_atomic_a (OrigData)                  AtomicAckETH (0x12)
//   rec_imm                                  ImmDt (0x03, 0x05, 0x09, 0x0B)
//   rec_rkey                                 IETH (0x16, 0x17)
//   rec_pay_len     payload bytes (between extension headers and pad)
//   rec_held        RC with rec_pay_len > 0: the frame is in the receive
//                   buffer, its payload at byte rec_pay_addr (modulo
//                   RX_BUF_BYTES: it may wrap), until released
//   rec_host        the frame goes to m_axis (host rule below);
//                   rec_host_drop: it did not fit in the host FIFO
// Pause request (valid in D with rec_valid): pause_load for PFC and PAUSE;
//   pause_mask the priorities it names (PFC: the low byte of the enable
//   vector, the reserved high byte ignored, 802.1Qbb 36.1.3.3; PAUSE: all
//   eight), pause_quanta[p] their times (PAUSE: its one time for all).
// Counters: stat_* are increment strobes, high in cycle D for one frame:
// one of the thirteen classes (stat_rc .. stat_mac_control), plus stat_host_frames
// or stat_host_overflow for host frames. Golden's counters: rx_not_roce,
// rx_malformed, rx_bad_icrc, rx_wrong_address, rx_bad_header, rx_unknown_qp
// one for one; rx_cnp = stat_cnp (per slot); rx_packets + rx_qp_error =
// stat_rc (per slot).
//
// Host frames (m_axis, the NIC's out2): class NOT_ROCE, whatever the
// destination MAC (no MAC filter for non-RoCE traffic, as golden counts
// every such frame rx_not_roce); and class WRONG_ADDRESS when the destination
// MAC is not node_mac and is a group address (byte 0 bit 0: multicast and
// broadcast). Nothing else (not MALFORMED, not BAD_ICRC, not unicast RoCEv2
// for another MAC or our MAC and another IP). They leave whole, as received
// (ICRC and Ethernet padding included), tuser 0, in decision order, from a
// FIFO of HOST_BUF_BYTES; a host frame that does not fit is dropped and
// counted (stat_host_overflow) and changes nothing else.
//
// Receive buffer: RX_BUF_BYTES as RX_BUF_BYTES/KEEP_WIDTH words; every frame
// is written from a word boundary as it arrives (2 cycles late); at D an RC
// frame with payload is kept, anything else gives its words back. Kept
// frames are released in record order: buf_release for one cycle frees the
// oldest (from D on: a release in the record's own cycle D frees it; a
// release with nothing held is ignored). buf_rd_addr (word) gives
// buf_rd_data the next cycle. A frame is dropped when a word of it finds the
// buffer full (kept frames plus its own words so far = RX_BUF_BYTES); only
// an RC packet with payload is then counted BUFFER_FULL, any other class is
// decided as usual (it needed no room). Golden has no buffer: a harness that
// checks against golden must release fast enough that this never happens.
//
// Timing (README "Timing", RX_LATENCY = 2; mirrored in
// rtl/nic/tb/nic_rx_model_test.go):
//   - s_axis_tready is a register: low during reset and in cycle 0, then
//     always high. Frames may come back to back.
//   - icrc_check takes the beats one cycle late, from the delay line (as a
//     unit on the input ports, the simulator evaluated it at every input
//     change): its verdict of a frame comes with the last beat at L+2 = D,
//     and stage D puts BAD_ICRC where stage F's order has it.
//   - a frame whose last beat is taken in cycle L is decided in D = L+2:
//     rec_valid, stat_* and the buffer commit in D. node_mac, node_ip,
//     qp_valid and qp_qpn are looked at in D itself (combinationally): a
//     register written in cycle t applies to the decisions of t+1 on.
//   - a host frame's first beat is on m_axis from D+1 when the host FIFO is
//     empty, else right after the frames before it.
//   - the receive buffer holds a kept frame's words from D (buf_rd_addr in
//     D reads them in D+1).

module nic_rx_parse #(
    // width of the AXI-Stream data bus in bits: a multiple of 64, 64 to 512
    parameter int DATA_WIDTH     = 64,
    // byte lanes
    parameter int KEEP_WIDTH     = DATA_WIDTH/8,
    // QP slots
    parameter int QPS            = 16,
    // slot index bits
    parameter int SLOT_WIDTH     = (QPS > 1) ? $clog2(QPS) : 1,
    // receive buffer bytes: KEEP_WIDTH times a power of two
    parameter int RX_BUF_BYTES   = 16384,
    // host frame FIFO bytes: KEEP_WIDTH times a power of two
    parameter int HOST_BUF_BYTES = RX_BUF_BYTES,
    // receive buffer word address bits
    parameter int BUF_AW         = $clog2(RX_BUF_BYTES/KEEP_WIDTH),
    // receive buffer byte address bits
    parameter int BUF_BAW        = $clog2(RX_BUF_BYTES)
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    // frames from the link, no FCS
    input  wire logic [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]   s_axis_tkeep,
    input  wire logic                    s_axis_tvalid,
    output logic                         s_axis_tready,
    input  wire logic                    s_axis_tlast,
    input  wire logic                    s_axis_tuser,

    // frames for the host OS, whole
    output logic [DATA_WIDTH-1:0]        m_axis_tdata,
    output logic [KEEP_WIDTH-1:0]        m_axis_tkeep,
    output logic                         m_axis_tvalid,
    input  wire logic                    m_axis_tready,
    output logic                         m_axis_tlast,
    output logic                         m_axis_tuser,

    // this node: MAC byte 0 in bits 47:40, IPv4 first byte in bits 31:24
    input  wire logic [47:0]             node_mac,
    input  wire logic [31:0]             node_ip,
    // QP table: slot q is QPN qp_qpn[24q +: 24] when qp_valid[q]
    input  wire logic [QPS-1:0]          qp_valid,
    input  wire logic [QPS*24-1:0]       qp_qpn,

    // the decision record (see above)
    output logic                         rec_valid,
    output logic [3:0]                   rec_class,
    output logic [SLOT_WIDTH-1:0]        rec_slot,
    output logic [7:0]                   rec_opcode,
    output logic [23:0]                  rec_dest_qp,
    output logic [23:0]                  rec_psn,
    output logic                         rec_ack_req,
    output logic                         rec_se,
    output logic                         rec_mig_req,
    output logic                         rec_fecn,
    output logic                         rec_becn,
    output logic [1:0]                   rec_pad,
    output logic                         rec_ecn_ce,
    output logic [63:0]                  rec_va,
    output logic [31:0]                  rec_rkey,
    output logic [31:0]                  rec_dma_len,
    output logic [7:0]                   rec_syndrome,
    output logic [23:0]                  rec_msn,
    output logic [31:0]                  rec_imm,
    output logic [63:0]                  rec_atomic_a,
    output logic [63:0]                  rec_atomic_b,
    output logic [15:0]                  rec_pay_len,
    output logic [BUF_BAW-1:0]           rec_pay_addr,
    output logic                         rec_held,
    output logic [16:0]                  rec_frame_len,
    output logic                         rec_host,
    output logic                         rec_host_drop,

    // receive buffer: read port (1 cycle), release, frames held, words in use
    input  wire logic [BUF_AW-1:0]       buf_rd_addr,
    output logic [DATA_WIDTH-1:0]        buf_rd_data,
    input  wire logic                    buf_release,
    output logic [15:0]                  buf_frames,
    output logic [BUF_AW:0]              buf_used,

    // counter increment strobes, one per reason
    output logic                         stat_rc,
    output logic                         stat_cnp,
    output logic                         stat_not_roce,
    output logic                         stat_malformed,
    output logic                         stat_bad_icrc,
    output logic                         stat_wrong_address,
    output logic                         stat_bad_header,
    output logic                         stat_unknown_qp,
    output logic                         stat_buffer_full,
    output logic                         stat_bad_frame,
    output logic                         stat_pfc,
    output logic                         stat_pause,
    output logic                         stat_mac_control,
    // the pause request of a PFC or PAUSE frame (nic_pause), in D
    output logic                         pause_load,
    output logic [7:0]                   pause_mask,
    output logic [7:0][15:0]             pause_quanta,
    output logic                         stat_host_frames,
    output logic                         stat_host_overflow,

    // no frame inside (input, decision, host FIFO)
    output logic                         idle
);

import nic_pkg::*;   // opcodes, their headers, the decision classes (CLS_*)

localparam logic [3:0] CLS_PASS = 4'd15;  // stage F: no verdict yet (not a class of nic_pkg's)

// header bytes captured: 18 + 60 + 8 + 1 (opcode after the longest IPv4
// header) and 18 + 20 + 8 + 12 + 28 (AtomicETH) both fit
localparam int HDR_MIN   = 128;
localparam int HBEATS    = (HDR_MIN + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam int HDR_BYTES = HBEATS * KEEP_WIDTH;
localparam int BIW       = $clog2(HBEATS + 1);
localparam int BUF_WORDS = RX_BUF_BYTES / KEEP_WIDTH;
// smallest kept frame: 14 + 20 + 8 + 12 + 1 payload byte + 4 (no pad)
localparam int MIN_HELD  = (59 + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam int HELD_AW   = $clog2(BUF_WORDS / MIN_HELD + 1);
localparam int LW        = 17;     // frame length bits
localparam logic [LW-1:0] LEN_MAX = '1;
localparam int HIW       = $clog2(HDR_BYTES * 8);   // bit index into the header

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("nic_rx_parse: DATA_WIDTH %0d must be a multiple of 64 from 64 to 512", DATA_WIDTH);
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("nic_rx_parse: KEEP_WIDTH %0d must be DATA_WIDTH/8", KEEP_WIDTH);
        $finish;
    end
    if (QPS < 1 || QPS > 256 || SLOT_WIDTH < $clog2(QPS)) begin
        $error("nic_rx_parse: QPS %0d must be 1 to 256, SLOT_WIDTH %0d wide enough", QPS, SLOT_WIDTH);
        $finish;
    end
    if (RX_BUF_BYTES % KEEP_WIDTH != 0 || (1 << BUF_AW) != BUF_WORDS || BUF_WORDS < 2 ||
        RX_BUF_BYTES < 128 || BUF_BAW != $clog2(RX_BUF_BYTES)) begin
        $error("nic_rx_parse: RX_BUF_BYTES %0d must be KEEP_WIDTH times a power of two, at least 128",
               RX_BUF_BYTES);
        $finish;
    end
    if (HOST_BUF_BYTES % KEEP_WIDTH != 0 || HOST_BUF_BYTES / KEEP_WIDTH < 2 ||
        (1 << $clog2(HOST_BUF_BYTES / KEEP_WIDTH)) != HOST_BUF_BYTES / KEEP_WIDTH) begin
        $error("nic_rx_parse: HOST_BUF_BYTES %0d must be KEEP_WIDTH times a power of two", HOST_BUF_BYTES);
        $finish;
    end
end

// ---- input: icrc_check, header capture, 2-beat delay ----

logic                       s_fire;
logic                       rdy_q;           // s_axis_tready
logic                       chk_valid, chk_last, chk_user, chk_ready;
logic [DATA_WIDTH-1:0]      unused_chk_data;
logic [KEEP_WIDTH-1:0]      unused_chk_keep;
logic [31:0]                unused_chk_stat [3];

// the delay line to the buffers (below): beat taken in t is d1 in t+1, d2 in t+2
logic                       d1_v_q, d2_v_q;
logic                       d1_first_q, d2_first_q;
logic                       d1_last_q, d2_last_q;
logic [DATA_WIDTH-1:0]      d1_data_q, d2_data_q;
logic [KEEP_WIDTH-1:0]      d1_keep_q, d2_keep_q;

// low during reset and in cycle 0, then high (what icrc_check's own tready
// was when it took the input)
always_ff @(posedge clk) begin
    rdy_q <= !rst;
end

icrc_check #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .USER_WIDTH(1)
) u_icrc (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(d1_data_q),
    .s_axis_tkeep(d1_keep_q),
    .s_axis_tvalid(d1_v_q),
    .s_axis_tready(chk_ready),          // always high when d1 holds a beat (checked below)
    .s_axis_tlast(d1_last_q),
    .s_axis_tuser(1'b0),                // tuser is ours: the verdict is the ICRC's alone
    .m_axis_tdata(unused_chk_data),
    .m_axis_tkeep(unused_chk_keep),
    .m_axis_tvalid(chk_valid),
    .m_axis_tready(1'b1),
    .m_axis_tlast(chk_last),
    .m_axis_tuser(chk_user),
    .stat_roce(unused_chk_stat[0]),
    .stat_bad_icrc(unused_chk_stat[1]),
    .stat_other(unused_chk_stat[2])
);

logic [HDR_BYTES*8-1:0] hdr_q;           // first HDR_BYTES bytes of the frame
logic [BIW-1:0]         bidx_q;          // beats of the frame taken (saturating)
logic [LW-1:0]          len_q;           // bytes of the frame taken (saturating)
logic                   mid_q;           // a frame is partly taken
logic                   bad_q;           // tuser[0] seen on the frame
logic [LW-1:0]          flen_q;          // the last frame's length
logic                   fbad_q;          // and its tuser
logic                   fin_q;           // its last beat was taken last cycle (L+1)
logic [LW:0]            len_sum;


always_comb begin
    s_axis_tready = rdy_q;
    s_fire  = s_axis_tvalid && s_axis_tready;
    len_sum = {1'b0, len_q} + (LW+1)'($countones(s_axis_tkeep));
end

always_ff @(posedge clk) begin
    fin_q <= s_fire && s_axis_tlast;
    if (s_fire) begin
        for (int b = 0; b < HBEATS; b++) begin
            if (BIW'(b) == bidx_q) begin
                hdr_q[b*DATA_WIDTH +: DATA_WIDTH] <= s_axis_tdata;
            end
        end
        if (s_axis_tlast) begin
            flen_q <= len_sum[LW] ? LEN_MAX : len_sum[LW-1:0];
            fbad_q <= bad_q || s_axis_tuser;
            bidx_q <= '0;
            len_q  <= '0;
            bad_q  <= 1'b0;
            mid_q  <= 1'b0;
        end else begin
            len_q  <= len_sum[LW] ? LEN_MAX : len_sum[LW-1:0];
            bidx_q <= (bidx_q == BIW'(HBEATS)) ? bidx_q : bidx_q + BIW'(1);
            bad_q  <= bad_q || s_axis_tuser;
            mid_q  <= 1'b1;
        end
    end

    d1_v_q     <= s_fire;
    d1_first_q <= !mid_q;
    d1_last_q  <= s_axis_tlast;
    d1_data_q  <= s_axis_tdata;
    d1_keep_q  <= s_axis_tkeep;
    d2_v_q     <= d1_v_q;
    d2_first_q <= d1_first_q;
    d2_last_q  <= d1_last_q;
    d2_data_q  <= d1_data_q;
    d2_keep_q  <= d1_keep_q;

    if (rst) begin
        fin_q  <= 1'b0;
        bidx_q <= '0;
        len_q  <= '0;
        bad_q  <= 1'b0;
        mid_q  <= 1'b0;
        d1_v_q <= 1'b0;
        d2_v_q <= 1'b0;
    end
end

// ---- stage F (cycle L+1): the checks that need nothing but the frame ----
// Decoded once per frame, at the edge that ends L+1 (fin_q), straight into
// the stage D registers: as a combinational block it was re-evaluated every
// cycle, a hundred variable-offset reads from the 1024-bit header each time.

// header byte o and the big-endian fields at o (they read hdr_q itself:
// passing the header by value copied it at every call; one select per
// field, not one per byte: every inlined call has locals the simulator
// clears in every cycle). Offsets stay below 128 (at most 86 + 7).
function automatic logic [7:0] hb(input logic [7:0] o);
    return hdr_q[HIW'({3'b000, o, 3'b000}) +: 8];
endfunction

function automatic logic [15:0] hb16(input logic [7:0] o);
    logic [15:0] x;
    x = hdr_q[HIW'({3'b000, o, 3'b000}) +: 16];
    return {x[7:0], x[15:8]};
endfunction

function automatic logic [31:0] hb32(input logic [7:0] o);
    logic [31:0] x;
    x = hdr_q[HIW'({3'b000, o, 3'b000}) +: 32];
    return {x[7:0], x[15:8], x[23:16], x[31:24]};
endfunction

function automatic logic [23:0] hb24(input logic [7:0] o);
    logic [23:0] x;
    x = hdr_q[HIW'({3'b000, o, 3'b000}) +: 24];
    return {x[7:0], x[15:8], x[23:16]};
endfunction

function automatic logic [63:0] hb64(input logic [7:0] o);
    logic [63:0] x;
    x = hdr_q[HIW'({3'b000, o, 3'b000}) +: 64];
    return {x[7:0], x[15:8], x[23:16], x[31:24], x[39:32], x[47:40], x[55:48], x[63:56]};
endfunction

// what stage D needs of a frame
typedef struct packed {
    logic [3:0]  cls;
    logic [47:0] mac;
    logic [31:0] ip;
    logic        pad_bad, hdr_bad;
    logic        icrc_at;        // the ICRC check is next in the order (verdict at D)
    logic [23:0] qp, psn;
    logic [7:0]  opc, syndrome;
    logic [7:4]  flags;          // SE, M, PadCnt
    logic [7:6]  b4;             // FECN, BECN
    logic        ack, ce;
    logic [63:0] va, atomic_a, atomic_b;
    logic [31:0] rkey, dma_len, imm;
    logic [23:0] msn;
    logic [15:0] pay_len;
    logic [7:0]  pay_off;
    logic [7:0]  pause_mask;     // PFC and PAUSE
    logic [7:0][15:0] pause_q;
} dec_t;

// the frame checks and fields of the frame in hdr_q, flen_q, fbad_q; the
// ICRC verdict comes at D: icrc_at marks the place of its check in the order
function automatic dec_t decode();
    dec_t         r;
    logic [3:0]   f_class;
    logic [15:0]  f_et0, f_et, f_dport;
    logic         f_vlan, f_is4, f_is6;
    logic [7:0]   f_off, f_b0, f_ihl, f_udp, f_proto, f_opc, f_bth, f_ext;
    logic [16:0]  f_iplen;
    logic [17:0]  f_end, f_n, f_blen, f_need, f_rest;
    logic [4:0]   f_hl;
    logic [19:0]  f_sum;
    logic [16:0]  f_sum1;
    logic [15:0]  f_sum2;
    logic         f_csum_ok;
    logic [7:0]   f_flags;
    logic         f_icrc_at;
    logic [15:0]  f_mop;
    logic         f_mc_dst;

    f_n     = {1'b0, flen_q};
    f_mop   = hb16(8'd14);   // MAC Control opcode
    f_mc_dst = {hb16(8'd0), hb32(8'd2)} == 48'h0180_C200_0001;
    f_et0   = hb16(8'd12);
    f_vlan  = f_et0 == 16'h8100;
    f_off   = f_vlan ? 8'd18 : 8'd14;
    f_et    = f_vlan ? hb16(8'd16) : f_et0;
    f_is4   = f_et == 16'h0800;
    f_is6   = f_et == 16'h86DD;
    f_b0    = hb(f_off);
    f_ihl   = {2'b00, f_b0[3:0], 2'b00};
    f_udp   = f_off + (f_is6 ? 8'd40 : f_ihl);
    f_proto = f_is6 ? hb(f_off + 8'd6) : hb(f_off + 8'd9);
    f_iplen = f_is6 ? 17'd40 + {1'b0, hb16(f_off + 8'd4)} : {1'b0, hb16(f_off + 8'd2)};
    f_end   = 18'(f_off) + 18'(f_iplen);
    f_dport = hb16(f_udp + 8'd2);
    f_opc   = hb(f_udp + 8'd8);
    f_hl    = ext_len(f_opc);   // nic_pkg's opcode table
    // bytes from the BTH to the IP end (used once the IP end is past the UDP header)
    f_blen  = f_end - 18'(f_udp) - 18'd8;
    f_need  = 18'd16 + 18'(f_hl);

    // IPv4 header checksum over 20 bytes (used only when byte 0 is 0x45)
    f_sum = '0;
    for (int k = 0; k < 10; k++) begin
        f_sum = f_sum + 20'(hb16(f_off + 8'(2 * k)));
    end
    f_sum1    = {1'b0, f_sum[15:0]} + 17'(f_sum[19:16]);
    // no carry out: a carry above leaves at most 0x000E below
    f_sum2    = f_sum1[15:0] + 16'(f_sum1[16]);
    f_csum_ok = f_sum2 == 16'hFFFF;

    f_icrc_at = 1'b0;
    if (fbad_q) begin
        f_class = CLS_BAD_FRAME;
    end else if (f_n < 18'd14 || (f_vlan && f_n < 18'd18)) begin
        f_class = CLS_MALFORMED;
    end else if (f_et0 == 16'h8808) begin
        // MAC Control: too short for the opcode's parameters (golden/pfc
        // Decode), then PFC and PAUSE to the reserved address act
        if (f_n < 18'd16 || (f_mop == 16'h0101 && f_n < 18'd34) || (f_mop == 16'h0001 && f_n < 18'd18)) begin
            f_class = CLS_MALFORMED;
        end else if (f_mc_dst && f_mop == 16'h0101) begin
            f_class = CLS_PFC;
        end else if (f_mc_dst && f_mop == 16'h0001) begin
            f_class = CLS_PAUSE;
        end else begin
            f_class = CLS_MAC_CONTROL;
        end
    end else if (!f_is4 && !f_is6) begin
        f_class = CLS_NOT_ROCE;
    end else if (f_n < 18'(f_off) + (f_is6 ? 18'd40 : 18'd20)) begin
        f_class = CLS_MALFORMED;
    end else if (f_is4 ? (f_b0[7:4] != 4'd4 || f_b0[3:0] < 4'd5 || f_proto != 8'd17)
                       : (f_b0[7:4] != 4'd6 || f_proto != 8'd17)) begin
        f_class = CLS_NOT_ROCE;
    end else if (f_n < 18'(f_udp) + 18'd8) begin
        f_class = CLS_MALFORMED;
    end else if (f_dport != 16'd4791) begin
        f_class = CLS_NOT_ROCE;
    end else if (f_end > f_n || f_end < 18'(f_udp) + 18'd8 || f_blen < f_need) begin
        f_class = CLS_MALFORMED;
    end else if (f_is6) begin
        f_class = CLS_BAD_HEADER;
    end else begin
        // here comes BAD_ICRC (stage D, with the verdict), then:
        f_icrc_at = 1'b1;
        if (f_b0 != 8'h45 || !f_csum_ok) begin
            f_class = CLS_MALFORMED;
        end else begin
            f_class = CLS_PASS;
        end
    end

    // from here on the frame is IPv4 without options: fixed offsets
    f_bth     = f_off + 8'd28;
    f_ext     = f_off + 8'd40;
    f_flags   = hb(f_bth + 8'd1);
    f_rest    = f_blen - f_need;
    r.cls     = f_class;
    r.icrc_at = f_icrc_at;
    r.b4      = 2'(hb(f_bth + 8'd4) >> 6);
    r.pad_bad = 18'(f_flags[5:4]) > f_rest;
    r.hdr_bad = f_flags[3:0] != 4'd0 || hb16(f_bth + 8'd2) != 16'hFFFF;
    r.pay_len = 16'(f_rest - 18'(f_flags[5:4]));
    r.pay_off = f_ext + 8'(f_hl);
    r.flags   = f_flags[7:4];
    r.opc     = f_opc;
    r.mac     = {hb16(8'd0), hb32(8'd2)};
    r.ip      = hb32(f_off + 8'd16);
    r.qp      = hb24(f_bth + 8'd5);
    r.psn     = hb24(f_bth + 8'd9);
    r.ack     = hb(f_bth + 8'd8) >= 8'h80;
    r.ce      = (hb(f_off + 8'd1) & 8'h03) == 8'h03;

    // PAUSE (802.3 31B.2): one time for the whole link; PFC (802.3 31D.2):
    // enable vector, then priority 0's time first
    r.pause_mask = f_mop == 16'h0001 ? 8'hFF : hb(8'd17);
    for (int k = 0; k < 8; k++) begin
        r.pause_q[k] = f_mop == 16'h0001 ? hb16(8'd16) : hb16(8'(18 + 2 * k));
    end

    r.va       = '0;
    r.rkey     = '0;
    r.dma_len  = '0;
    r.syndrome = '0;
    r.msn      = '0;
    r.imm      = '0;
    r.atomic_a = '0;
    r.atomic_b = '0;
    unique case (f_opc)
        OP_WRITE_FIRST, OP_WRITE_ONLY, OP_READ_REQ: begin
            r.va      = hb64(f_ext);
            r.rkey    = hb32(f_ext + 8'd8);
            r.dma_len = hb32(f_ext + 8'd12);
        end
        OP_WRITE_ONLY_IMM: begin
            r.va      = hb64(f_ext);
            r.rkey    = hb32(f_ext + 8'd8);
            r.dma_len = hb32(f_ext + 8'd12);
            r.imm     = hb32(f_ext + 8'd16);
        end
        OP_SEND_LAST_IMM, OP_SEND_ONLY_IMM, OP_WRITE_LAST_IMM: r.imm = hb32(f_ext);
        OP_RR_FIRST, OP_RR_LAST, OP_RR_ONLY, OP_ACK: begin
            r.syndrome = hb(f_ext);
            r.msn      = hb24(f_ext + 8'd1);
        end
        OP_ATOMIC_ACK: begin
            r.syndrome = hb(f_ext);
            r.msn      = hb24(f_ext + 8'd1);
            r.atomic_a = hb64(f_ext + 8'd4);
        end
        OP_CMP_SWAP, OP_FETCH_ADD: begin
            r.va       = hb64(f_ext);
            r.rkey     = hb32(f_ext + 8'd8);
            r.atomic_a = hb64(f_ext + 8'd12);
            r.atomic_b = hb64(f_ext + 8'd20);
        end
        OP_SEND_LAST_INV, OP_SEND_ONLY_INV: r.rkey = hb32(f_ext);
        default: ;
    endcase
    return r;
endfunction

// ---- stage D (cycle L+2): address, QP, buffer; the record ----

logic                  dec_v_q;
dec_t                  dec_q;
logic [LW-1:0]         dec_flen_q;

always_ff @(posedge clk) begin
    dec_v_q <= fin_q;
    if (fin_q) begin
        dec_q      <= decode();
        dec_flen_q <= flen_q;
    end
    if (rst) begin
        dec_v_q <= 1'b0;
    end
end

logic [3:0]            dec_cls;          // stage F's class with the ICRC verdict
logic                  qp_hit;
logic [SLOT_WIDTH-1:0] qp_slot;
logic                  mac_ok, ip_ok;
logic                  rc_ok;            // an RC packet, buffer aside
logic                  want_buf;         // it needs the buffer
logic                  buf_fit, host_fit;
logic                  host;
logic [3:0]            cls0, cls;
logic                  fields;
logic [BUF_AW:0]       buf_start, buf_end;
logic [BUF_AW:0]       buf_free;         // the reader's pointer: oldest held word
logic [31:0]           pay_addr;
logic                  host_empty;

always_comb begin
    dec_cls = (dec_q.icrc_at && chk_user) ? CLS_BAD_ICRC : dec_q.cls;
    qp_hit  = 1'b0;
    qp_slot = '0;
    // the QP table is searched only in a decision cycle, for a frame that
    // passed stage F (no other record reads qp_hit or qp_slot)
    if (dec_v_q && dec_cls == CLS_PASS) begin
        for (int q = QPS - 1; q >= 0; q--) begin
            if (qp_valid[q] && qp_qpn[q*24 +: 24] == dec_q.qp) begin
                qp_hit  = 1'b1;
                qp_slot = SLOT_WIDTH'(q);
            end
        end
    end
    mac_ok = dec_q.mac == node_mac;
    ip_ok  = dec_q.ip == node_ip;

    rc_ok = 1'b0;
    if (dec_cls != CLS_PASS) begin
        cls0 = dec_cls;
    end else if (!mac_ok || !ip_ok) begin
        cls0 = CLS_WRONG_ADDRESS;
    end else if (dec_q.pad_bad) begin
        cls0 = CLS_MALFORMED;
    end else if (dec_q.hdr_bad) begin
        cls0 = CLS_BAD_HEADER;
    end else if (!qp_hit) begin
        cls0 = CLS_UNKNOWN_QP;
    end else if (dec_q.opc == OP_CNP) begin
        cls0 = CLS_CNP;
    end else if (dec_q.opc[7:5] != TR_RC) begin
        cls0 = CLS_BAD_HEADER;
    end else begin
        cls0  = CLS_RC;
        rc_ok = 1'b1;
    end
    want_buf = dec_v_q && rc_ok && dec_q.pay_len != 16'd0;
end

// apart from the block above: the buffers answer want_buf with buf_fit
always_comb begin
    cls  = (want_buf && !buf_fit) ? CLS_BUFFER_FULL : cls0;
    host = dec_v_q && (cls == CLS_NOT_ROCE ||
                       (cls == CLS_WRONG_ADDRESS && !mac_ok && dec_q.mac[40]));
    fields = cls == CLS_RC || cls == CLS_CNP || cls == CLS_BUFFER_FULL;

    // payload byte address: frame start word, plus its offset, modulo the buffer
    pay_addr = 32'(buf_start[BUF_AW-1:0]) * 32'(KEEP_WIDTH) + 32'(dec_q.pay_off);
    if (pay_addr >= 32'(RX_BUF_BYTES)) begin
        pay_addr = pay_addr - 32'(RX_BUF_BYTES);
    end

    rec_valid     = dec_v_q;
    rec_class     = cls;
    rec_slot      = fields ? qp_slot : '0;
    rec_opcode    = fields ? dec_q.opc : '0;
    rec_dest_qp   = fields ? dec_q.qp : '0;
    rec_psn       = fields ? dec_q.psn : '0;
    rec_ack_req   = fields && dec_q.ack;
    rec_se        = fields && dec_q.flags[7];
    rec_mig_req   = fields && dec_q.flags[6];
    rec_pad       = fields ? dec_q.flags[5:4] : '0;
    rec_fecn      = fields && dec_q.b4[7];
    rec_becn      = fields && dec_q.b4[6];
    rec_ecn_ce    = fields && dec_q.ce;
    rec_va        = fields ? dec_q.va : '0;
    rec_rkey      = fields ? dec_q.rkey : '0;
    rec_dma_len   = fields ? dec_q.dma_len : '0;
    rec_syndrome  = fields ? dec_q.syndrome : '0;
    rec_msn       = fields ? dec_q.msn : '0;
    rec_imm       = fields ? dec_q.imm : '0;
    rec_atomic_a  = fields ? dec_q.atomic_a : '0;
    rec_atomic_b  = fields ? dec_q.atomic_b : '0;
    rec_pay_len   = (fields && cls != CLS_CNP) ? dec_q.pay_len : '0;
    rec_held      = want_buf && buf_fit;
    rec_pay_addr  = rec_held ? BUF_BAW'(pay_addr) : '0;
    rec_frame_len = dec_flen_q;
    rec_host      = host;
    rec_host_drop = host && !host_fit;

    stat_rc            = dec_v_q && cls == CLS_RC;
    stat_cnp           = dec_v_q && cls == CLS_CNP;
    stat_not_roce      = dec_v_q && cls == CLS_NOT_ROCE;
    stat_malformed     = dec_v_q && cls == CLS_MALFORMED;
    stat_bad_icrc      = dec_v_q && cls == CLS_BAD_ICRC;
    stat_wrong_address = dec_v_q && cls == CLS_WRONG_ADDRESS;
    stat_bad_header    = dec_v_q && cls == CLS_BAD_HEADER;
    stat_unknown_qp    = dec_v_q && cls == CLS_UNKNOWN_QP;
    stat_buffer_full   = dec_v_q && cls == CLS_BUFFER_FULL;
    stat_bad_frame     = dec_v_q && cls == CLS_BAD_FRAME;
    stat_pfc           = dec_v_q && cls == CLS_PFC;
    stat_pause         = dec_v_q && cls == CLS_PAUSE;
    stat_mac_control   = dec_v_q && cls == CLS_MAC_CONTROL;
    pause_load         = stat_pfc || stat_pause;
    pause_mask         = pause_load ? dec_q.pause_mask : '0;
    pause_quanta       = dec_q.pause_q;
    stat_host_frames   = host && host_fit;
    stat_host_overflow = host && !host_fit;
end

assign idle = !mid_q && !fin_q && !dec_v_q && !d1_v_q && !d2_v_q && host_empty;

// ---- receive buffer and the list of kept frames ----

nic_rx_store #(
    .WIDTH(DATA_WIDTH),
    .WORDS(BUF_WORDS),
    .AW(BUF_AW)
) u_buf (
    .clk(clk),
    .rst(rst),
    .wr_valid(d2_v_q),
    .wr_first(d2_first_q),
    .wr_last(d2_last_q),
    .wr_data(d2_data_q),
    .wr_keep(want_buf),
    .wr_fit(buf_fit),
    .wr_start(buf_start),
    .used(buf_used),
    .commit_next(buf_end),
    .free_ptr(buf_free),
    .rd_addr(buf_rd_addr),
    .rd_data(buf_rd_data)
);

// ends of the kept frames, oldest first; releasing one frees up to its end
logic [BUF_AW:0]  held_mem [1 << HELD_AW];
logic [HELD_AW:0] held_wr_q, held_rd_q;
logic [BUF_AW:0]  buf_free_q, buf_free_d;
logic             held_push, held_pop, held_any;
logic [HELD_AW:0] held_wr_d, held_rd_d, held_n;

always_comb begin
    held_push  = rec_held;
    held_any   = held_wr_q != held_rd_q;
    held_pop   = buf_release && (held_any || held_push);
    held_wr_d  = held_wr_q + (HELD_AW+1)'(held_push);
    held_rd_d  = held_rd_q + (HELD_AW+1)'(held_pop);
    buf_free_d = buf_free_q;
    if (held_pop) begin
        // the oldest, or the one kept this very cycle
        buf_free_d = held_any ? held_mem[held_rd_q[HELD_AW-1:0]] : buf_end;
    end
    buf_free   = buf_free_q;
    held_n     = held_wr_q - held_rd_q;
    buf_frames = 16'(held_n);
end

always_ff @(posedge clk) begin
    if (held_push) begin
        held_mem[held_wr_q[HELD_AW-1:0]] <= buf_end;
    end
    held_wr_q  <= held_wr_d;
    held_rd_q  <= held_rd_d;
    buf_free_q <= buf_free_d;
    if (rst) begin
        held_wr_q  <= '0;
        held_rd_q  <= '0;
        buf_free_q <= '0;
    end
end

// ---- host frames ----

nic_rx_host_fifo #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .DEPTH(HOST_BUF_BYTES / KEEP_WIDTH)
) u_host (
    .clk(clk),
    .rst(rst),
    .wr_valid(d2_v_q),
    .wr_first(d2_first_q),
    .wr_last(d2_last_q),
    .wr_data(d2_data_q),
    .wr_tkeep(d2_keep_q),
    .wr_keep(host),
    .wr_fit(host_fit),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser),
    .empty(host_empty)
);

// ---- the pipeline's own promises, checked ----

always_ff @(posedge clk) begin
    if (!rst) begin
        // icrc_check (one beat late) hands out a frame's last beat, with
        // its verdict, at L+2, and never holds a beat back
        if (dec_v_q != (chk_valid && chk_last)) begin
            $error("nic_rx_parse: icrc_check verdict not at L+2 (dec %0d, last %0d)", dec_v_q, chk_valid && chk_last);
        end
        if (d1_v_q && !chk_ready) begin
            $error("nic_rx_parse: icrc_check not ready");
        end
        // the buffers see the frame's last beat in the decision cycle
        if (dec_v_q != (d2_v_q && d2_last_q)) begin
            $error("nic_rx_parse: decision and last buffer write apart");
        end
    end
end

// the ICRC unit's stream and counters are not needed: the verdict is
logic unused;
assign unused = ^{unused_chk_data, unused_chk_keep, unused_chk_stat[0], unused_chk_stat[1],
                  unused_chk_stat[2], buf_start[BUF_AW]};

endmodule

`resetall
