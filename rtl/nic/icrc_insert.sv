// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// icrc_insert: append the RoCEv2 ICRC to transmitted frames, pass other frames through.
//
// Input: Ethernet frames without FCS, byte 0 in tdata[7:0] of the first beat,
// tkeep contiguous from bit 0, only the last beat partial. A RoCEv2 frame
// arrives without its ICRC but with IP and UDP lengths that already count it:
//
//   | Ethernet 14 | [802.1Q 4] | IPv4 20..60 or IPv6 40 | UDP 8 | BTH 12 | ext | payload | pad |
//   out:                                                            ... | pad | ICRC 4 (LE) |
//
// A frame is RoCEv2 by the rule in crc32_roce (EtherType 0x0800/0x86DD after
// at most one 0x8100 tag, version matching, IHL >= 5, protocol or next
// header 17, IP length >= headers + 24, UDP destination port 4791). For it
// the ICRC over 8 bytes of 0xFF, the IP packet with TOS/TTL/checksum (IPv4)
// or traffic class/flow label/hop limit (IPv6), UDP checksum and BTH byte 4
// fed as ones, up to the last input byte, is appended low byte first
// (IBA annex A17.3.3; golden/roce ComputeICRC). The frame's lengths
// are not checked: the transport engine ends the frame 4 bytes before the
// IP end. Other frames leave unchanged. tuser rides with its beat; when the
// ICRC spills into an extra beat, that beat carries the last input beat's
// tuser too, so a bad input frame stays bad and still gets its ICRC. No
// Ethernet padding is added (a RoCEv2 frame can leave 58 bytes long;
// nic_tx_build pads its output to 60, as a MAC does).
//
// Timing (mirrored by the Go golden model):
//   - latency: an input beat accepted in cycle t is offered on m_axis from
//     cycle t+1 (the beat is computed combinationally and registered by the
//     shared axis_skid slice); first beat in to first beat out = 1 cycle.
//   - throughput: one beat per cycle. A RoCEv2 frame whose last input beat
//     holds more than KEEP_WIDTH-4 bytes leaves with one extra beat (the rest
//     of the ICRC), offered in cycle t+2; s_axis_tready is low in cycle t+1
//     for it. No other bubbles: non-RoCE frames and RoCE frames whose ICRC
//     fits cost nothing.
//   - frames leave in arrival order; nothing is dropped.
//   - stat_roce / stat_other count frames (wrapping) from the cycle after
//     the last input beat of the frame is accepted.
//   - s_axis_tready is a register (axis_skid): low during reset and in the
//     first cycle after it, and when the slice holds 2 beats the output has
//     not taken. No combinational path from m_axis to s_axis.

module icrc_insert #(
    // width of the AXI-Stream data bus in bits: a multiple of 64, 64 to 512
    parameter int DATA_WIDTH = 64,
    // byte lanes (tkeep bits)
    parameter int KEEP_WIDTH = DATA_WIDTH/8,
    // tuser bits; bit 0 marks a bad frame
    parameter int USER_WIDTH = 1
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    // frames without ICRC
    input  wire logic [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]   s_axis_tkeep,
    input  wire logic                    s_axis_tvalid,
    output logic                         s_axis_tready,
    input  wire logic                    s_axis_tlast,
    input  wire logic [USER_WIDTH-1:0]   s_axis_tuser,

    // frames with ICRC appended when RoCEv2
    output logic [DATA_WIDTH-1:0]        m_axis_tdata,
    output logic [KEEP_WIDTH-1:0]        m_axis_tkeep,
    output logic                         m_axis_tvalid,
    input  wire logic                    m_axis_tready,
    output logic                         m_axis_tlast,
    output logic [USER_WIDTH-1:0]        m_axis_tuser,

    // frames that got an ICRC / frames passed through unchanged
    output logic [31:0]                  stat_roce,
    output logic [31:0]                  stat_other
);

localparam int OW = 17;

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("icrc_insert: DATA_WIDTH %0d must be a multiple of 64 from 64 to 512", DATA_WIDTH);
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("icrc_insert: KEEP_WIDTH %0d must be DATA_WIDTH/8", KEEP_WIDTH);
        $finish;
    end
    if (USER_WIDTH < 1) begin
        $error("icrc_insert: USER_WIDTH %0d must be at least 1", USER_WIDTH);
        $finish;
    end
end

logic                  s_fire;

logic [OW-1:0]         beat_bytes;
logic                  roce;
logic [31:0]           icrc;
// the transmit side appends at the frame end: offsets and IP end unused
/* verilator lint_off UNUSEDSIGNAL */
logic [OW-1:0]         beat_offset;
logic [OW-1:0]         ip_end;
/* verilator lint_on UNUSEDSIGNAL */

// the beat handed to the output register slice
logic [DATA_WIDTH-1:0] o_data;
logic [KEEP_WIDTH-1:0] o_keep;
logic                  o_valid;
logic                  o_ready;
logic                  o_last;
logic [USER_WIDTH-1:0] o_user;

// ICRC bytes that did not fit the last beat, sent as one more beat
logic [31:0]           spill_data_q, spill_data_d;
logic [3:0]            spill_keep_q, spill_keep_d;
logic                  spill_valid_q, spill_valid_d;
logic [USER_WIDTH-1:0] spill_user_q, spill_user_d;

logic [31:0]           stat_roce_q, stat_roce_d;
logic [31:0]           stat_other_q, stat_other_d;

logic [OW-1:0]         fit;             // free lanes after the last byte of the last beat

crc32_roce #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .RX(1'b0),
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
    s_axis_tready = o_ready && !spill_valid_q;
    s_fire        = s_axis_tvalid && s_axis_tready;
end

always_comb begin
    o_data        = s_axis_tdata;
    o_keep        = s_axis_tkeep;
    o_valid       = s_axis_tvalid && !spill_valid_q;
    o_last        = s_axis_tlast;
    o_user        = s_axis_tuser;
    spill_data_d  = spill_data_q;
    spill_keep_d  = spill_keep_q;
    spill_valid_d = spill_valid_q;
    spill_user_d  = spill_user_q;
    stat_roce_d   = stat_roce_q;
    stat_other_d  = stat_other_q;
    fit           = OW'(KEEP_WIDTH) - beat_bytes;

    if (spill_valid_q) begin
        // the rest of the ICRC, in lanes 0 up
        o_data        = '0;
        o_data[31:0]  = spill_data_q;
        o_keep        = '0;
        o_keep[3:0]   = spill_keep_q;
        o_valid       = 1'b1;
        o_last        = 1'b1;
        o_user        = spill_user_q;
        spill_valid_d = !o_ready;
    end else if (s_axis_tlast && roce) begin
        // ICRC byte j goes to lane beat_bytes + j while that is a lane (a
        // right shift from above the beat: cheaper to simulate than a wide
        // left shift)
        o_data = (s_axis_tdata & ~DATA_WIDTH'({32'hFFFF_FFFF, {DATA_WIDTH{1'b0}}} >> {fit, 3'b000}))
               | DATA_WIDTH'({icrc, {DATA_WIDTH{1'b0}}} >> {fit, 3'b000});
        o_keep = s_axis_tkeep | (KEEP_WIDTH'(4'hF) << beat_bytes);
        if (fit < OW'(4)) begin
            o_last = 1'b0;
            if (s_fire) begin
                spill_valid_d = 1'b1;
                spill_data_d  = icrc >> {fit[1:0], 3'b000};
                spill_keep_d  = 4'hF >> fit[1:0];
                spill_user_d  = s_axis_tuser;
            end
        end
    end

    if (s_fire && s_axis_tlast) begin
        if (roce) begin
            stat_roce_d = stat_roce_q + 32'd1;
        end else begin
            stat_other_d = stat_other_q + 32'd1;
        end
    end

    stat_roce  = stat_roce_q;
    stat_other = stat_other_q;
end

always_ff @(posedge clk) begin
    spill_data_q  <= spill_data_d;
    spill_keep_q  <= spill_keep_d;
    spill_valid_q <= spill_valid_d;
    spill_user_q  <= spill_user_d;
    stat_roce_q   <= stat_roce_d;
    stat_other_q  <= stat_other_d;
    if (rst) begin
        spill_valid_q <= 1'b0;
        stat_roce_q   <= 32'd0;
        stat_other_q  <= 32'd0;
    end
end

endmodule

`resetall
