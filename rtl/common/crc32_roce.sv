// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// crc32_roce: running RoCEv2 ICRC over the beats of an AXI-Stream Ethernet frame.
//
// The ICRC (IBA annex A17.3.3; PROTOCOL-NOTES section 3; golden/roce/icrc.go
// ComputeICRC) is CRC-32 IEEE (reflected polynomial 0xEDB88320, register
// seeded with all ones, result inverted) over 8 bytes of 0xFF, then the IP
// packet from its first byte, with the variant fields (marked v) fed as ones:
//
//   frame offset 0   Ethernet: dst(6) src(6) EtherType(2)
//                 12 EtherType 0x8100: TCI(2) EtherType(2), L3 = 18 (one tag only)
//                    otherwise L3 = 14
//   IPv4 at L3    | ver/IHL | TOS v   | total length    |   (IHL 5..15, L4 = L3 + 4*IHL)
//                 | ID              | flags/fragment  |
//                 | TTL v   | proto   | checksum v v    |
//                 | source, destination, options ...  |
//   IPv6 at L3    | 6 / TC v(low nibble of byte 0) | TC/FL v v v |   (L4 = L3 + 40)
//                 | payload length  | next hdr | hop limit v |
//                 | source (16), destination (16)              |
//   UDP at L4     | source port     | dest port 4791  | length | checksum v v |
//   BTH at L4+8   | opcode | flags | P_Key | FECN/BECN/resv v | DestQP(3) | A | PSN(3) |
//                 then extension headers, payload, pad, ICRC (LE, 4 bytes)
//
// The masks follow the IP version (EtherType and version nibble), never the
// header length: an IPv4 header with IHL 10 is as long as an IPv6 one, and
// the golden ComputeICRC/ReferenceICRC wrongly give it the IPv6 masks
// (golden/roce/icrc_test.go TestICRCIPv4IHL10); the RTL follows rxe.
//
// Before the first byte of the IP header the register holds the CRC of eight
// 0xFF bytes: 32'hDEBB_20E3 (rxe_icrc.c seed; golden onesCRC is its inverse).
//
// Classification (the same rule for transmit and receive; the Go golden model
// must mirror it): a frame is RoCEv2 when all of these bytes are in the frame
// and
//   EtherType (at 12, or at 16 after one 0x8100 tag) is 0x0800 with version 4,
//   IHL >= 5, protocol 17 and total length >= 4*IHL + 24, or 0x86DD with
//   version 6, next header 17 and payload length >= 24; and the UDP
//   destination port is 4791.
// The length minimum is UDP (8) + BTH (12) + ICRC (4). 802.1ad and stacked
// tags, IPv6 extension headers, and the IP header checksum are not looked at
// (such frames are not RoCEv2 here, or are covered as they come).
//
// Interface: the caller presents a beat (data, keep, last) and pulses
// beat_step in the cycle it consumes it. The outputs describe the presented
// beat combinationally, using the headers seen in earlier beats of the frame
// and in this beat: its byte offset in the frame, its byte count, whether the
// frame is RoCEv2 as far as this beat shows (a RoCEv2 frame reads 0 until the
// beat that holds the UDP destination port), the offset just past the IP
// packet, and the ICRC over the frame up to and including this beat. With
// RX = 1 the CRC stops at ip_end - 4, so on a received frame icrc is the value
// the ICRC field must hold once the beat holding byte ip_end - 5 is in.
// The byte offset saturates at 2**OFFSET_WIDTH * 3/4 (98304 for 17 bits),
// beyond any IP end (at most 18 + 40 + 65535 = 65593).
//
// The CRC folds KEEP_WIDTH bytes a cycle, one byte lane after another, in one
// combinational cone: written for clarity and simulation, not for timing.

module crc32_roce #(
    // width of the AXI-Stream data bus in bits: a multiple of 64, 64 to 512
    parameter int DATA_WIDTH = 64,
    // byte lanes (tkeep bits)
    parameter int KEEP_WIDTH = DATA_WIDTH/8,
    // 0: transmit, the CRC runs to the end of the frame (no ICRC yet);
    // 1: receive, the CRC stops at the IP end minus 4 (excludes ICRC and pad)
    parameter bit RX = 1'b0,
    // width of byte offsets in the frame; 17 holds the largest IP end
    parameter int OFFSET_WIDTH = 17
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    // the beat on the stream (meaningful while the caller presents one)
    input  wire logic [DATA_WIDTH-1:0]   beat_data,
    input  wire logic [KEEP_WIDTH-1:0]   beat_keep,
    input  wire logic                    beat_last,
    // the caller consumes the beat this cycle: advance offset, fields, CRC
    input  wire logic                    beat_step,

    // frame byte offset of byte lane 0 of the beat
    output logic [OFFSET_WIDTH-1:0]      beat_offset,
    // valid bytes in the beat (tkeep is contiguous from bit 0)
    output logic [OFFSET_WIDTH-1:0]      beat_bytes,
    // the frame is RoCEv2 by the headers up to and including this beat
    output logic                         roce,
    // frame offset just past the IP packet (valid when roce)
    output logic [OFFSET_WIDTH-1:0]      ip_end,
    // ICRC (inverted register) over the frame up to and including this beat
    output logic [31:0]                  icrc
);

localparam int OW = OFFSET_WIDTH;

// register after eight 0xFF bytes, starting from all ones
localparam logic [31:0] CRC_SEED = 32'hDEBB_20E3;
localparam logic [31:0] CRC_POLY = 32'hEDB8_8320;

localparam logic [15:0] ETH_TYPE_VLAN = 16'h8100;
localparam logic [15:0] ETH_TYPE_IPV4 = 16'h0800;
localparam logic [15:0] ETH_TYPE_IPV6 = 16'h86DD;
localparam logic [7:0]  IP_PROTO_UDP  = 8'd17;
localparam logic [15:0] ROCE_PORT     = 16'd4791;

// masked offsets: TOS/TC+FL, TTL/TC+FL, checksum/FL, checksum/hop limit,
// UDP checksum (2), BTH byte 4
localparam int NMASK = 7;

initial begin
    if (DATA_WIDTH < 64 || DATA_WIDTH > 512 || DATA_WIDTH % 64 != 0) begin
        $error("crc32_roce: DATA_WIDTH %0d must be a multiple of 64 from 64 to 512", DATA_WIDTH);
        $finish;
    end
    if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
        $error("crc32_roce: KEEP_WIDTH %0d must be DATA_WIDTH/8", KEEP_WIDTH);
        $finish;
    end
    if (OFFSET_WIDTH < 17 || OFFSET_WIDTH > 31) begin
        $error("crc32_roce: OFFSET_WIDTH %0d must be 17 to 31", OFFSET_WIDTH);
        $finish;
    end
end

// one byte through the bit-serial CRC-32 (LSB first, reflected polynomial)
function automatic logic [31:0] crc32_byte(input logic [31:0] crc, input logic [7:0] data);
    logic [31:0] c;
    c = crc ^ {24'd0, data};
    for (int b = 0; b < 8; b++) begin
        c = c[0] ? ((c >> 1) ^ CRC_POLY) : (c >> 1);
    end
    return c;
endfunction

// the byte at frame offset off, if it lies in the beat starting at base
function automatic logic in_beat(input logic [OW-1:0] off, input logic [OW-1:0] base);
    return (off >= base) && ((off - base) < OW'(KEEP_WIDTH));
endfunction

function automatic logic [7:0] byte_at(input logic [DATA_WIDTH-1:0] data,
                                       input logic [OW-1:0] off, input logic [OW-1:0] base);
    logic [7:0] v;
    v = 8'd0;
    for (int i = 0; i < KEEP_WIDTH; i++) begin
        if (off - base == OW'(i)) begin
            v = data[i*8 +: 8];
        end
    end
    return v;
endfunction

// the field byte at off: from this beat if it is here, else the captured one
function automatic logic [7:0] field(input logic [DATA_WIDTH-1:0] data, input logic [OW-1:0] off,
                                     input logic [OW-1:0] base, input logic [7:0] held);
    return in_beat(off, base) ? byte_at(data, off, base) : held;
endfunction

logic [OW-1:0] pos_q, pos_d;      // frame offset of the beat's lane 0
logic [31:0]   crc_q, crc_d;      // CRC register before the beat
// header fields as captured (bytes of the current frame once passed)
logic [15:0]   et0_q, et0_d;      // EtherType at 12
logic [15:0]   et1_q, et1_d;      // EtherType after a tag, at 16
logic [7:0]    ipb0_q, ipb0_d;    // IP version / IHL
logic [7:0]    proto_q, proto_d;  // IPv4 protocol or IPv6 next header
logic [15:0]   iplen_q, iplen_d;  // IPv4 total length or IPv6 payload length
logic [15:0]   dport_q, dport_d;  // UDP destination port

logic [OW-1:0]  count;            // valid bytes in the beat
logic [OW-1:0]  l3, l4, hlen;     // IP header start, UDP header start, IP header length
logic           vlan, v6;
logic [15:0]    etype;
logic [OW-1:0]  proto_off, len_off;
logic           len_ok, is_ipv4, is_ipv6;
logic [OW-1:0]  crc_lim;          // receive: first offset not covered (ip_end - 4)
logic           lim_on;           // receive: the IP length is known by this beat
logic [NMASK-1:0][OW-1:0] mask_off;
logic [KEEP_WIDTH-1:0] ones;      // lanes fed as 0xFF
logic [KEEP_WIDTH-1:0] nibble;    // lane fed with its low nibble set (IPv6 byte 0)
logic [KEEP_WIDTH-1:0] crc_en;    // lanes the CRC covers
logic [31:0]    crc_next;
logic [7:0]     lane;

always_comb begin
    count = '0;
    for (int i = 0; i < KEEP_WIDTH; i++) begin
        if (beat_keep[i]) begin
            count = OW'(i + 1);
        end
    end

    // headers, each byte from this beat or captured from an earlier one; a
    // position computed from a field not yet seen is never inside the beat,
    // since every field lies after the ones that place it
    et0_d   = {field(beat_data, OW'(12), pos_q, et0_q[15:8]), field(beat_data, OW'(13), pos_q, et0_q[7:0])};
    et1_d   = {field(beat_data, OW'(16), pos_q, et1_q[15:8]), field(beat_data, OW'(17), pos_q, et1_q[7:0])};
    vlan    = et0_d == ETH_TYPE_VLAN;
    etype   = vlan ? et1_d : et0_d;
    l3      = vlan ? OW'(18) : OW'(14);
    v6      = etype == ETH_TYPE_IPV6;
    ipb0_d  = field(beat_data, l3, pos_q, ipb0_q);
    hlen    = v6 ? OW'(40) : OW'({ipb0_d[3:0], 2'b00});
    l4      = l3 + hlen;
    proto_off = l3 + (v6 ? OW'(6) : OW'(9));
    len_off   = l3 + (v6 ? OW'(4) : OW'(2));
    proto_d = field(beat_data, proto_off, pos_q, proto_q);
    iplen_d = {field(beat_data, len_off, pos_q, iplen_q[15:8]),
               field(beat_data, len_off + OW'(1), pos_q, iplen_q[7:0])};
    dport_d = {field(beat_data, l4 + OW'(2), pos_q, dport_q[15:8]),
               field(beat_data, l4 + OW'(3), pos_q, dport_q[7:0])};

    ip_end  = l3 + OW'(iplen_d) + (v6 ? OW'(40) : OW'(0));
    len_ok  = OW'(iplen_d) >= (v6 ? OW'(24) : hlen + OW'(24));
    is_ipv4 = etype == ETH_TYPE_IPV4 && ipb0_d[7:4] == 4'd4 && ipb0_d[3:0] >= 4'd5;
    is_ipv6 = v6 && ipb0_d[7:4] == 4'd6;
    // l4 + 3 is the last header byte the rule reads; it is in the frame once
    // it is below the end of this beat
    roce    = (is_ipv4 || is_ipv6) && proto_d == IP_PROTO_UDP && len_ok &&
              dport_d == ROCE_PORT && (l4 + OW'(3) < pos_q + count);

    crc_lim = ip_end - OW'(4);
    lim_on  = RX && (len_off + OW'(1) < pos_q + count);

    mask_off[0] = l3 + OW'(1);                       // TOS / TC low nibble, FL high nibble
    mask_off[1] = l3 + (v6 ? OW'(2) : OW'(8));       // FL / TTL
    mask_off[2] = l3 + (v6 ? OW'(3) : OW'(10));      // FL / checksum high
    mask_off[3] = l3 + (v6 ? OW'(7) : OW'(11));      // hop limit / checksum low
    mask_off[4] = l4 + OW'(6);                       // UDP checksum
    mask_off[5] = l4 + OW'(7);
    mask_off[6] = l4 + OW'(12);                      // BTH FECN, BECN, reserved

    ones   = '0;
    nibble = '0;
    crc_en = '0;
    for (int i = 0; i < KEEP_WIDTH; i++) begin
        for (int j = 0; j < NMASK; j++) begin
            if (in_beat(mask_off[j], pos_q) && mask_off[j] - pos_q == OW'(i)) begin
                ones[i] = 1'b1;
            end
        end
        if (v6 && in_beat(l3, pos_q) && l3 - pos_q == OW'(i)) begin
            nibble[i] = 1'b1;
        end
        crc_en[i] = beat_keep[i] &&
                    (l3 <= pos_q || OW'(i) >= l3 - pos_q) &&
                    (!lim_on || (crc_lim > pos_q && OW'(i) < crc_lim - pos_q));
    end

    crc_next = crc_q;
    for (int i = 0; i < KEEP_WIDTH; i++) begin
        lane = beat_data[i*8 +: 8];
        if (ones[i]) begin
            lane = 8'hFF;
        end else if (nibble[i]) begin
            lane = lane | 8'h0F;
        end
        if (crc_en[i]) begin
            crc_next = crc32_byte(crc_next, lane);
        end
    end

    beat_offset = pos_q;
    beat_bytes  = count;
    icrc        = ~crc_next;
end

// next state, kept apart so that beat_step may depend on the outputs above
always_comb begin
    pos_d = pos_q;
    crc_d = crc_q;
    if (beat_step) begin
        if (beat_last) begin
            pos_d = '0;
            crc_d = CRC_SEED;
        end else begin
            // saturate at 3/4 of the range: far beyond any IP end
            pos_d = (&pos_q[OW-1:OW-2]) ? pos_q : pos_q + OW'(KEEP_WIDTH);
            crc_d = crc_next;
        end
    end
end

always_ff @(posedge clk) begin
    if (beat_step) begin
        et0_q   <= et0_d;
        et1_q   <= et1_d;
        ipb0_q  <= ipb0_d;
        proto_q <= proto_d;
        iplen_q <= iplen_d;
        dport_q <= dport_d;
    end
    pos_q <= pos_d;
    crc_q <= crc_d;
    if (rst) begin
        pos_q <= '0;
        crc_q <= CRC_SEED;
    end
end

endmodule

`resetall
