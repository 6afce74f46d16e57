// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_cmd: the NIC's host command port (in1): assembles each 64-byte
// command record (rtl/nic/README.md "Host records", little-endian) and posts
// it, or drops it as cmd_bad.
//
//   byte  0 kind (1 post send, 2 post receive)   1 op (send: 0..4)   2..3 0
//         4 QPN [23:0], byte 7 = 0               8 work request ID
//        16 local address    24 length    28 R_Key    32 remote address
//        40 immediate        44..63 0     (receive: bytes 1 and 28..43 are 0 too)
//
// Timing (the golden model relies on these; README "Timing", CMD_LATENCY):
//   A record whose last beat is taken at cycle L is posted at L+1:
//   post_valid is high for exactly cycle L+1 with the record's fields, or
//   bad is high in L+1 when the record is dropped. s_axis_tready is always
//   high: one record per beat at most, so at 512 bits one post per cycle.
//   A frame that is not exactly 64 bytes, has tuser[0] on its last beat, an
//   unknown kind or op, or a reserved byte not 0 is bad (golden/nic
//   DecodeCommand). Bytes past the 64th are not kept, only counted.
//
// Reset (synchronous, active high) forgets a half-received record.

module nic_cmd #(
    // Bits per beat: a multiple of 64, 64 to 512.
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output wire logic                  s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic                  s_axis_tuser,

    output logic                       post_valid,
    output logic                       post_recv,   // 0 post send, 1 post receive
    output logic      [2:0]            post_op,
    output logic      [23:0]           post_qpn,
    output logic      [63:0]           post_id,
    output logic      [63:0]           post_laddr,
    output logic      [31:0]           post_len,
    output logic      [31:0]           post_rkey,
    output logic      [63:0]           post_raddr,
    output logic      [31:0]           post_imm,
    output logic                       bad
);

    localparam int REC_BYTES = 64;
    localparam int REC_BITS  = 8 * REC_BYTES;

    initial begin
        if (DATA_WIDTH % 64 != 0 || DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("nic_cmd: DATA_WIDTH must be a multiple of 64, 64 to 512 (instance %m)");
            $finish;
        end
    end

    assign s_axis_tready = 1'b1;

    // Bytes of the record so far (lane k of beat b is record byte
    // b*KEEP_WIDTH + k), and the frame's length so far, saturating.
    logic [REC_BITS-1:0] rec_q;
    logic [15:0]         len_q;

    // The record as it stands with the current beat merged in, and its
    // length. Evaluated at the clock edge of a beat only: as combinational
    // logic of the inputs it ran at every input change, beat or not.
    // Every lane goes in, kept or not. A beat that starts at a lane boundary
    // and fits (every beat of a record but a short last one) goes in whole.
    function automatic logic [REC_BITS-1:0] merged();
        logic [REC_BITS-1:0] r;
        r = rec_q;
        if (32'(len_q) % KEEP_WIDTH == 0 && 32'(len_q) + KEEP_WIDTH <= REC_BYTES) begin
            r[8 * 32'(len_q) +: DATA_WIDTH] = s_axis_tdata;
        end else begin
            for (int k = 0; k < KEEP_WIDTH; k++) begin
                if (32'(len_q) + 32'(k) < REC_BYTES) begin
                    r[8 * (32'(len_q) + 32'(k)) +: 8] = s_axis_tdata[8 * k +: 8];
                end
            end
        end
        return r;
    endfunction

    function automatic logic [15:0] merged_len();
        logic [7:0] nkeep;
        nkeep = '0;
        for (int k = 0; k < KEEP_WIDTH; k++) begin
            if (s_axis_tkeep[k]) begin
                nkeep = nkeep + 8'd1;
            end
        end
        return (len_q > 16'hFF00) ? len_q : len_q + 16'(nkeep);
    endfunction

    // Validity of the whole record (golden/nic DecodeCommand); it reads
    // only the bytes that must be 0 or are checked.
    /* verilator lint_off UNUSEDSIGNAL */
    function automatic logic rec_ok(input logic [REC_BITS-1:0] r);
        logic zero;
        zero = (r[16 +: 16] == '0) && (r[56 +: 8] == '0) && (r[44 * 8 +: 20 * 8] == '0);
        unique case (r[0 +: 8])
            nic_pkg::KIND_SEND: return zero && r[8 +: 8] <= 8'(nic_pkg::WR_READ);
            nic_pkg::KIND_RECV: return zero && r[8 +: 8] == 8'd0 && r[28 * 8 +: 16 * 8] == '0;
            default:            return 1'b0;
        endcase
    endfunction
    /* verilator lint_on UNUSEDSIGNAL */

    wire take_last = s_axis_tvalid && s_axis_tlast;

    always_ff @(posedge clk) begin : take
        logic [REC_BITS-1:0] rec;
        logic [15:0]         len;
        post_valid <= 1'b0;
        bad        <= 1'b0;
        if (s_axis_tvalid) begin
            rec = merged();
            len = merged_len();
            rec_q <= rec;
            len_q <= len;
            if (take_last) begin
                rec_q <= '0;
                len_q <= '0;
                if (len == 16'(REC_BYTES) && !s_axis_tuser && rec_ok(rec)) begin
                    post_valid <= 1'b1;
                end else begin
                    bad <= 1'b1;
                end
                post_recv  <= rec[0 +: 8] == nic_pkg::KIND_RECV;
                post_op    <= rec[8 +: 3];
                post_qpn   <= rec[32 +: 24];
                post_id    <= rec[64 +: 64];
                post_laddr <= rec[128 +: 64];
                post_len   <= rec[192 +: 32];
                post_rkey  <= rec[224 +: 32];
                post_raddr <= rec[256 +: 64];
                post_imm   <= rec[320 +: 32];
            end
        end
        if (rst) begin
            rec_q      <= '0;
            len_q      <= '0;
            post_valid <= 1'b0;
            bad        <= 1'b0;
        end
    end

endmodule

`resetall
