// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// icrc_check: verify and strip the RoCEv2 ICRC of received frames, pass other frames through.
//
// Input: Ethernet frames without FCS, byte 0 in tdata[7:0] of the first beat,
// tkeep contiguous from bit 0, only the last beat partial. A RoCEv2 frame
// ends with its ICRC, then Ethernet padding when the frame was short:
//
//   in:  | Ethernet 14 | [802.1Q 4] | IPv4 20..60 or IPv6 40 | UDP 8 | BTH 12 | ... | ICRC 4 | pad |
//        |<---------------------------- IP end from the IP length -------------------->|
//   out: | Ethernet 14 | [802.1Q 4] | IPv4 20..60 or IPv6 40 | UDP 8 | BTH 12 | ... |
//
// A frame is RoCEv2 by the rule in crc32_roce (EtherType 0x0800/0x86DD after
// at most one 0x8100 tag, version matching, IHL >= 5, protocol or next
// header 17, IP length >= headers + 24, UDP destination port 4791). The ICRC
// sits at IP end - 4 .. IP end - 1, where the IP end comes from the IPv4
// total length or 40 + the IPv6 payload length, not from tlast. For a RoCEv2
// frame the output is frame bytes 0 .. IP end - 5 (ICRC and anything after
// it removed). The ICRC is good when the input holds all 4 ICRC bytes and
// they equal, low byte first, the CRC-32 over 8 bytes of 0xFF and the IP
// packet up to the ICRC with TOS/TTL/checksum (IPv4) or traffic class/flow
// label/hop limit (IPv6), UDP checksum and BTH byte 4 fed as ones
// (IBA annex A17.3.3; golden/roce VerifyICRC). A frame whose input
// ends before IP end - 4 leaves whole; one that ends inside the ICRC leaves
// cut at IP end - 4; both count as a bad ICRC.
//
// tuser: other frames and every output beat but a RoCEv2 frame's last carry
// their input tuser unchanged. The last output beat of a RoCEv2 frame has
// tuser[0] = (OR of tuser[0] over all input beats of the frame, dropped ones
// included) | (ICRC bad or missing); its other tuser bits come from the input
// beat that holds the last kept byte. A bad ICRC does not drop the frame:
// the consumer drops on tuser[0] and the counters tell why.
//
// Timing (mirrored by the Go golden model):
//   - latency: an input beat accepted in cycle t is offered on m_axis from
//     cycle t+1 (computed combinationally, registered by the shared axis_skid
//     slice); first beat in to first beat out = 1 cycle. Exception: the last
//     output beat of a RoCEv2 frame waits in a holding register for the
//     frame's input tlast beat and is offered the cycle after that beat is
//     accepted: as many cycles later than its own beat as there are input
//     beats after it (ICRC bytes, padding; 0 or 1 for a well-formed frame).
//     When the frame has a single output beat, its first beat is that late.
//   - throughput: s_axis takes one beat per cycle while m_axis is not
//     stalled; never an input bubble. Input beats that hold no kept byte
//     (ICRC and padding only) are consumed without an output beat.
//   - frames leave in arrival order; none is dropped or reordered.
//   - stat_roce, stat_bad_icrc, stat_other count frames (wrapping) from the
//     cycle after the frame's input tlast beat is accepted; a RoCEv2 frame
//     with a bad ICRC counts in both stat_roce and stat_bad_icrc.
//   - s_axis_tready is a register (axis_skid): low during reset and in the
//     first cycle after it, and when the slice holds 2 beats the output has
//     not taken. No combinational path from m_axis to s_axis.

module icrc_check #(
    // width of the AXI-Stream data bus in bits: a multiple of 64, 64 to 512
    parameter int DATA_WIDTH = 64,
    // byte lanes (tkeep bits)
    parameter int KEEP_WIDTH = DATA_WIDTH/8,
    // tuser bits; bit 0 marks a bad frame
    parameter int USER_WIDTH = 1
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    // frames as received, ICRC and padding included
    input  wire logic [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]   s_axis_tkeep,
    input  wire logic                    s_axis_tvalid,
    output logic                         s_axis_tready,
    input  wire logic                    s_axis_tlast,
    input  wire logic [USER_WIDTH-1:0]   s_axis_tuser,

    // frames with the ICRC checked and stripped when RoCEv2
    output logic [DATA_WIDTH-1:0]        m_axis_tdata,
    output logic [KEEP_WIDTH-1:0]        m_axis_tkeep,
    output logic                         m_axis_tvalid,
    input  wire logic                    m_axis_tready,
    output logic                         m_axis_tlast,
    output logic [USER_WIDTH-1:0]        m_axis_tuser,

    // RoCEv2 frames / of those, bad or missing ICRC / other frames
    output logic [31:0]                  stat_roce,
    output logic [31:0]                  stat_bad_icrc,
    output logic [31:0]                  stat_other
);

localparam int OW = 17;
localparam int LW = $clog2(KEEP_WIDTH);   // lane index width

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("icrc_check: DATA_WIDTH %0d must be a multiple of 64 from 64 to 512", DATA_WIDTH);
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("icrc_check: KEEP_WIDTH %0d must be DATA_WIDTH/8", KEEP_WIDTH);
        $finish;
    end
    if (USER_WIDTH < 1) begin
        $error("icrc_check: USER_WIDTH %0d must be at least 1", USER_WIDTH);
        $finish;
    end
end

logic                  s_fire;

logic [OW-1:0]         beat_offset;
logic [OW-1:0]         beat_bytes;
logic                  roce;
logic [OW-1:0]         ip_end;
logic [31:0]           icrc;

// the beat handed to the output register slice
logic [DATA_WIDTH-1:0] o_data;
logic [KEEP_WIDTH-1:0] o_keep;
logic                  o_valid;
logic                  o_ready;
logic                  o_last;
logic [USER_WIDTH-1:0] o_user;

// a RoCEv2 frame's last output beat, held until the input tlast brings the
// rest of the ICRC (and padding, dropped) and with it the verdict
logic [DATA_WIDTH-1:0] h_data_q, h_data_d;
logic [KEEP_WIDTH-1:0] h_keep_q, h_keep_d;
logic [USER_WIDTH-1:0] h_user_q, h_user_d;
logic                  h_wait_q, h_wait_d;

logic [31:0]           icrc_q, icrc_d;  // ICRC bytes captured so far, byte 0 low
logic                  bad_q, bad_d;    // tuser[0] seen on an earlier beat of the frame

logic [31:0]           stat_roce_q, stat_roce_d;
logic [31:0]           stat_bad_q, stat_bad_d;
logic [31:0]           stat_other_q, stat_other_d;

logic [OW-1:0]         out_end;         // first frame offset not sent (ICRC start)
logic                  end_here;        // the beat holds the last kept byte
logic [KEEP_WIDTH-1:0] keep_lim;        // lanes below out_end
logic                  complete;        // all ICRC bytes are in by this beat
logic [31:0]           icrc_in;         // ICRC bytes with this beat's
logic [OW-1:0]         icrc_off;        // frame offset of one ICRC byte
logic                  icrc_ok;
logic                  frame_bad;       // tuser[0] of the last output beat

crc32_roce #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .RX(1'b1),
    .OFFSET_WIDTH(OW)
) u_crc (
    .clk(clk),
    .rst(rst),
    .beat_data(s_axis_tdata),
    .beat_keep(s_axis_tkeep),
    .beat_last(s_axis_tlast),
    .beat_step(s_fire),
    .beat_offset(beat_offset),
    .beat_bytes(beat_bytes),
    .roce(roce),
    .ip_end(ip_end),
    .icrc(icrc)
);

axis_skid #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_ENABLE(1'b1),
    .KEEP_WIDTH(KEEP_WIDTH),
    .LAST_ENABLE(1'b1),
    .USER_ENABLE(1'b1),
    .USER_WIDTH(USER_WIDTH)
) u_out (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(o_data),
    .s_axis_tkeep(o_keep),
    .s_axis_tvalid(o_valid),
    .s_axis_tready(o_ready),
    .s_axis_tlast(o_last),
    .s_axis_tuser(o_user),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .m_axis_tuser(m_axis_tuser)
);

always_comb begin
    // every input beat either goes to the slice, or goes to h, or is dropped
    s_axis_tready = o_ready;
    s_fire        = s_axis_tvalid && s_axis_tready;
end

always_comb begin
    // a RoCEv2 frame has ip_end >= 58, so out_end never wraps
    out_end  = ip_end - OW'(4);
    end_here = roce && (out_end <= beat_offset + OW'(KEEP_WIDTH));
    complete = ip_end <= beat_offset + beat_bytes;

    // lanes below out_end, and the ICRC bytes that lie in the beat
    if (out_end <= beat_offset) begin
        keep_lim = '0;
    end else if (out_end - beat_offset >= OW'(KEEP_WIDTH)) begin
        keep_lim = '1;
    end else begin
        keep_lim = ~({KEEP_WIDTH{1'b1}} << LW'(out_end - beat_offset));
    end
    icrc_in = icrc_q;
    for (int j = 0; j < 4; j++) begin
        icrc_off = out_end + OW'(j);
        if (icrc_off >= beat_offset && icrc_off - beat_offset < OW'(KEEP_WIDTH)) begin
            icrc_in[j*8 +: 8] = s_axis_tdata[{LW'(icrc_off - beat_offset), 3'b000} +: 8];
        end
    end
    icrc_ok   = complete && icrc == icrc_in;
    frame_bad = bad_q || s_axis_tuser[0] || !icrc_ok;
end

always_comb begin
    o_data       = s_axis_tdata;
    o_keep       = s_axis_tkeep;
    o_valid      = s_axis_tvalid;
    o_last       = s_axis_tlast;
    o_user       = s_axis_tuser;
    h_data_d     = h_data_q;
    h_keep_d     = h_keep_q;
    h_user_d     = h_user_q;
    h_wait_d     = h_wait_q;
    icrc_d       = icrc_q;
    bad_d        = bad_q;
    stat_roce_d  = stat_roce_q;
    stat_bad_d   = stat_bad_q;
    stat_other_d = stat_other_q;

    if (h_wait_q) begin
        // ICRC or padding only: dropped; the tlast beat releases h
        o_data    = h_data_q;
        o_keep    = h_keep_q;
        o_valid   = s_axis_tvalid && s_axis_tlast;
        o_last    = 1'b1;
        o_user    = h_user_q;
        o_user[0] = frame_bad;
        if (s_fire && s_axis_tlast) begin
            h_wait_d = 1'b0;
        end
    end else if (roce && (end_here || s_axis_tlast)) begin
        // the RoCEv2 frame's last output beat (or the frame is cut short)
        o_keep    = s_axis_tkeep & keep_lim;
        o_last    = 1'b1;
        o_user[0] = frame_bad;
        if (!s_axis_tlast) begin
            o_valid = 1'b0;
            if (s_fire) begin
                h_wait_d = 1'b1;
                h_data_d = s_axis_tdata;
                h_keep_d = s_axis_tkeep & keep_lim;
                h_user_d = s_axis_tuser;
            end
        end
    end

    if (s_fire) begin
        icrc_d = icrc_in;
        bad_d  = !s_axis_tlast && (bad_q || s_axis_tuser[0]);
        if (s_axis_tlast) begin
            if (roce) begin
                stat_roce_d = stat_roce_q + 32'd1;
                if (!icrc_ok) begin
                    stat_bad_d = stat_bad_q + 32'd1;
                end
            end else begin
                stat_other_d = stat_other_q + 32'd1;
            end
        end
    end

    stat_roce     = stat_roce_q;
    stat_bad_icrc = stat_bad_q;
    stat_other    = stat_other_q;
end

always_ff @(posedge clk) begin
    h_data_q     <= h_data_d;
    h_keep_q     <= h_keep_d;
    h_user_q     <= h_user_d;
    h_wait_q     <= h_wait_d;
    icrc_q       <= icrc_d;
    bad_q        <= bad_d;
    stat_roce_q  <= stat_roce_d;
    stat_bad_q   <= stat_bad_d;
    stat_other_q <= stat_other_d;
    if (rst) begin
        h_wait_q     <= 1'b0;
        bad_q        <= 1'b0;
        stat_roce_q  <= 32'd0;
        stat_bad_q   <= 32'd0;
        stat_other_q <= 32'd0;
    end
end

endmodule

`resetall
