// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// crc32_roce: running RoCEv2 ICRC over the beats of an AXI-Stream Ethernet frame.
//
// The ICRC (IBA annex A17.3.3; golden/roce/icrc.go
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
// The CRC of a beat is one step of a linear map over GF(2), evaluated in
// parallel (G. Albertengo, R. Sisto, "Parallel CRC Generation", IEEE Micro
// 10(5), 1990; G. Campobello, G. Patane, M. Russo, "Parallel CRC
// Realization", IEEE Trans. Computers 52(10), 2003). Write CRC(c; m) for the
// register after the bytes m from the register c. Two identities of the
// reflected byte step r' = (r >> 8) ^ T[(r ^ b) & 8'hFF] reduce every beat
// to one map over KEEP_WIDTH bytes:
//   - CRC(c; m) = CRC(0; m ^ c) ^ (c >> 8n) for n bytes m, c XORed into the
//     first bytes of m low byte first (when n < 4, c >> 8n is what is left
//     of c in the register);
//   - CRC(0; zero bytes, then m) = CRC(0; m).
// So the covered lanes lo_off .. hi_off-1, with c XORed in at lane lo_off,
// are moved up by KEEP_WIDTH - hi_off lanes (zeros fill in below; the bytes
// of c past the top lane land in 4 lanes above it, zr), giving zl, and by
// linearity
//   crc_next = zr ^ CRC(0; zl) = zr ^ (XOR over lanes b of TAB_b[zl byte b])
// where TAB_b[v] = CRC(0; v in lane b, zeros in the others) is the XOR of
// the matrix columns of lane b picked by the bits of v (crc_cols: the
// bit-serial CRC run at elaboration). Every bit of crc_next stays the XOR of
// a constant subset of the bits of zl and zr; the per-lane tables evaluate
// that matrix 8 bits at a time (1 KB of constants a lane), which is what
// makes it fast in simulation.
// Fields fed as ones are ORed into the data first. Beats past the headers
// (offset above HDR_LAST) take the frame's classification and IP end from
// registers set by the header beats, so the parser runs only on those.
// One combinational cone: written for simulation speed, not for timing.

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

// lane index width, and the CRC input: a beat with 4 lanes above it
localparam int LW = $clog2(KEEP_WIDTH);
localparam int ZW = DATA_WIDTH + 32;

// the last frame offset a header field or a byte fed as ones can have: BTH
// byte 4 after an 802.1Q tag and a 60-byte IPv4 header (18 + 60 + 12); a
// beat that starts past it holds none of them
localparam int HDR_LAST = 90;

// The 8 matrix columns of lane b: column j is the register after bit j of
// lane b alone went through the bit-serial CRC-32 (LSB first, reflected
// polynomial) from zero, followed by the zero lanes above it. The last bit
// of the beat leaves the polynomial; each earlier bit takes one more
// zero-input shift.
function automatic logic [7:0][31:0] crc_cols(input int b);
    logic [7:0][31:0] cols;
    logic [31:0]      c;
    cols = '0;
    c    = CRC_POLY;
    for (int i = DATA_WIDTH - 1; i >= b * 8; i--) begin
        if (i < b * 8 + 8) begin
            cols[i - b * 8] = c;
        end
        c = c[0] ? ((c >> 1) ^ CRC_POLY) : (c >> 1);
    end
    return cols;
endfunction

// TAB_b[v] = CRC(0; v in lane b): the XOR of the columns picked by the bits
// of v, built up one bit at a time (entries 2**j .. 2**(j+1)-1 add column j)
function automatic logic [255:0][31:0] crc_tab(input int b);
    logic [7:0][31:0]   cols;
    logic [255:0][31:0] tab;
    cols   = crc_cols(b);
    tab[0] = '0;
    for (int j = 0; j < 8; j++) begin
        for (int v = 0; v < (1 << j); v++) begin
            tab[(1 << j) + v] = tab[v] ^ cols[j];
        end
    end
    return tab;
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
// what the captured fields give (so beats past HDR_LAST need no parsing)
logic          cls_q, cls_d;      // the RoCEv2 rule holds, its byte positions aside
logic [OW-1:0] end_q, end_d;      // ip_end

logic [OW-1:0]  count;            // valid bytes in the beat
logic [OW-1:0]  l3, l4, hlen;     // IP header start, UDP header start, IP header length
logic           vlan, v6;
logic [15:0]    etype;
logic [OW-1:0]  proto_off, len_off;
logic           len_ok, is_ipv4, is_ipv6;
logic [OW-1:0]  crc_lim;          // receive: first offset not covered (ip_end - 4)
logic           lim_on;           // receive: the IP length is known by this beat
logic [OW-1:0]  mask_off [NMASK]; // offsets of the bytes fed as ones
logic [OW-1:0]  mask_rel;         // a mask_off (or l3, IPv6) minus pos_q: a lane if < KEEP_WIDTH
logic [DATA_WIDTH-1:0] subst;     // bits fed as ones (those bytes, IPv6 byte 0 low nibble)
logic [OW-1:0]  lo_off, hi_off;   // the CRC covers lanes lo_off .. hi_off-1
logic           covered;          // it covers any lane
logic [LW:0]    nlo, hi;          // KEEP_WIDTH - lo_off, and hi_off (when covered)
logic [LW-1:0]  up;               // the lanes above hi_off - 1 (when covered)
logic [DATA_WIDTH-1:0] zd;        // the covered bytes in their lanes
logic [ZW-1:0]  z;                // and the register at lane lo_off, then moved up
logic [DATA_WIDTH-1:0] zl;        // its KEEP_WIDTH lanes, through the tables
logic [31:0]    zr;               // its 4 lanes above: register bytes past the last covered one
logic [31:0]    lane_crc [KEEP_WIDTH];  // TAB_b[zl byte b]
logic [31:0]    crc_next;

// the field byte at frame offset off: from the presented beat (beat_data,
// lane 0 at pos_q) if it is there, else the captured one; an offset below
// pos_q wraps to far more than KEEP_WIDTH (pos_q <= HDR_LAST where it is used)
function automatic logic [7:0] field(input logic [OW-1:0] off, input logic [7:0] held);
    logic [OW-1:0] rel;
    rel = off - pos_q;
    return (rel < OW'(KEEP_WIDTH)) ? beat_data[{rel[LW-1:0], 3'b000} +: 8] : held;
endfunction

always_comb begin
    // tkeep is contiguous from bit 0: its ones are the byte count
    count = OW'($countones(beat_keep));

    // a beat past HDR_LAST: every field as captured, every header byte the
    // rule reads (up to l4 + 3) and the IP length (len_off + 1) in earlier
    // beats, nothing fed as ones, nothing before the IP header
    et0_d     = et0_q;
    et1_d     = et1_q;
    ipb0_d    = ipb0_q;
    proto_d   = proto_q;
    iplen_d   = iplen_q;
    dport_d   = dport_q;
    cls_d     = cls_q;
    end_d     = end_q;
    roce      = cls_q;
    lim_on    = RX;
    lo_off    = '0;
    vlan      = 1'b0;
    etype     = '0;
    l3        = '0;
    v6        = 1'b0;
    hlen      = '0;
    l4        = '0;
    proto_off = '0;
    len_off   = '0;
    len_ok    = 1'b0;
    is_ipv4   = 1'b0;
    is_ipv6   = 1'b0;
    subst     = '0;
    mask_rel  = '0;
    for (int j = 0; j < NMASK; j++) begin
        mask_off[j] = '0;
    end

    if (pos_q <= OW'(HDR_LAST)) begin
        // headers, each byte from this beat or captured from an earlier
        // one; a position computed from a field not yet seen is never
        // inside the beat, since every field lies after the ones that place it
        et0_d     = {field(OW'(12), et0_q[15:8]), field(OW'(13), et0_q[7:0])};
        et1_d     = {field(OW'(16), et1_q[15:8]), field(OW'(17), et1_q[7:0])};
        vlan      = et0_d == ETH_TYPE_VLAN;
        etype     = vlan ? et1_d : et0_d;
        l3        = vlan ? OW'(18) : OW'(14);
        v6        = etype == ETH_TYPE_IPV6;
        ipb0_d    = field(l3, ipb0_q);
        hlen      = v6 ? OW'(40) : OW'({ipb0_d[3:0], 2'b00});
        l4        = l3 + hlen;
        proto_off = l3 + (v6 ? OW'(6) : OW'(9));
        len_off   = l3 + (v6 ? OW'(4) : OW'(2));
        proto_d   = field(proto_off, proto_q);
        iplen_d   = {field(len_off, iplen_q[15:8]), field(len_off + OW'(1), iplen_q[7:0])};
        dport_d   = {field(l4 + OW'(2), dport_q[15:8]), field(l4 + OW'(3), dport_q[7:0])};

        end_d   = l3 + OW'(iplen_d) + (v6 ? OW'(40) : OW'(0));
        len_ok  = OW'(iplen_d) >= (v6 ? OW'(24) : hlen + OW'(24));
        is_ipv4 = etype == ETH_TYPE_IPV4 && ipb0_d[7:4] == 4'd4 && ipb0_d[3:0] >= 4'd5;
        is_ipv6 = v6 && ipb0_d[7:4] == 4'd6;
        cls_d   = (is_ipv4 || is_ipv6) && proto_d == IP_PROTO_UDP && len_ok && dport_d == ROCE_PORT;
        // l4 + 3 is the last header byte the rule reads; it is in the frame
        // once it is below the end of this beat
        roce    = cls_d && (l4 + OW'(3) < pos_q + count);
        lim_on  = RX && (len_off + OW'(1) < pos_q + count);

        mask_off[0] = l3 + OW'(1);                   // TOS / TC low nibble, FL high nibble
        mask_off[1] = l3 + (v6 ? OW'(2) : OW'(8));   // FL / TTL
        mask_off[2] = l3 + (v6 ? OW'(3) : OW'(10));  // FL / checksum high
        mask_off[3] = l3 + (v6 ? OW'(7) : OW'(11));  // hop limit / checksum low
        mask_off[4] = l4 + OW'(6);                   // UDP checksum
        mask_off[5] = l4 + OW'(7);
        mask_off[6] = l4 + OW'(12);                  // BTH FECN, BECN, reserved
        for (int j = 0; j < NMASK; j++) begin
            mask_rel = mask_off[j] - pos_q;
            if (mask_rel < OW'(KEEP_WIDTH)) begin
                subst[{mask_rel[LW-1:0], 3'b000} +: 8] = 8'hFF;
            end
        end
        mask_rel = l3 - pos_q;
        if (v6 && mask_rel < OW'(KEEP_WIDTH)) begin
            subst[{mask_rel[LW-1:0], 3'b000} +: 4] = 4'hF;
        end

        // the CRC starts at the IP header
        lo_off = (l3 > pos_q) ? l3 - pos_q : '0;
    end
    ip_end  = end_d;
    crc_lim = end_d - OW'(4);

    // covered lanes: from the IP header on, kept, and (receive) before the ICRC
    hi_off = count;
    if (lim_on) begin
        if (crc_lim <= pos_q) begin
            hi_off = '0;
        end else if (crc_lim - pos_q < count) begin
            hi_off = crc_lim - pos_q;
        end
    end
    covered = lo_off < hi_off;

    // when covered, lo_off < KEEP_WIDTH and 0 < hi_off <= KEEP_WIDTH; every
    // move below is a right shift of a wider vector: a plain word loop in
    // the simulator, where an unaligned wide left shift is a slow bit insert
    nlo = (LW+1)'(OW'(KEEP_WIDTH) - lo_off);
    hi  = (LW+1)'(hi_off);
    up  = LW'(OW'(KEEP_WIDTH) - hi_off);
    zd  = '0;
    z   = '0;
    zl  = '0;
    zr  = '0;
    if (covered) begin
        if (lo_off == '0 && hi_off == OW'(KEEP_WIDTH)) begin
            // a whole beat (the common case): nothing to move
            zl = (beat_data | subst) ^ DATA_WIDTH'(crc_q);
        end else begin
            // lanes lo_off .. hi_off-1, the others zero
            zd = (beat_data | subst) & ~({DATA_WIDTH{1'b1}} >> {nlo, 3'b000})
                                     & ({DATA_WIDTH{1'b1}} >> {up, 3'b000});
            // the register XORed in at lane lo_off
            z  = {32'd0, zd} ^ ({crc_q, {DATA_WIDTH{1'b0}}} >> {nlo, 3'b000});
            // moved up by KEEP_WIDTH - hi_off lanes
            z  = ZW'({z, {DATA_WIDTH{1'b0}}} >> {hi, 3'b000});
            zl = z[DATA_WIDTH-1:0];
            zr = z[DATA_WIDTH +: 32];
        end
    end

    beat_offset = pos_q;
    beat_bytes  = count;
end

// one table per lane, looked up with that byte of zl
for (genvar b = 0; b < KEEP_WIDTH; b++) begin : g_lane
    localparam logic [255:0][31:0] TAB = crc_tab(b);
    assign lane_crc[b] = TAB[zl[b*8 +: 8]];
end

always_comb begin
    crc_next = crc_q;
    if (covered) begin
        crc_next = zr;
        for (int b = 0; b < KEEP_WIDTH; b++) begin
            crc_next = crc_next ^ lane_crc[b];
        end
    end
    icrc = ~crc_next;
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
        cls_q   <= cls_d;
        end_q   <= end_d;
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
