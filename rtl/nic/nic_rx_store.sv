// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// nic_rx_store: a ring of words that takes whole frames, keeps the ones it is told to keep.
//
// Used twice by nic_rx_parse: as the receive buffer (frames kept until the
// consumer releases them) and inside nic_rx_host_fifo (frames for the host).
//
//   words:  | kept frames ............ | frame being written | free ......... |
//           ^ free_ptr (reader)        ^ commit (base)       ^ write pointer
//
// Write side: one word per wr_valid, the frame's first with wr_first and its
// last with wr_last. A frame starts at the committed end (base) and its words
// follow, wrapping at WORDS. A word is written only when the ring has room
// (write pointer - free_ptr < WORDS) and no earlier word of the frame was
// refused: a frame is stored whole or it "does not fit" (wr_fit low from the
// refused word on). With the last word the caller says whether to keep the
// frame (wr_keep): a kept frame that fit moves base past its last word; any
// other frame gives its words back (the next frame starts where it did).
//
// Read side: rd_data is a register: mem[rd_addr] as of the previous cycle,
// with that cycle's write to the same word passed through. The reader owns
// free_ptr: words from free_ptr up to base hold kept frames and are never
// overwritten. Pointers carry one wrap bit (AW+1 bits).
//
// Timing: commit_next is base as it will be in the next cycle (this cycle's
// commit included), so a reader can start on a frame in the cycle its last
// word is written. Reset empties the ring (base, write state); free_ptr is
// the reader's and must be reset with it.

module nic_rx_store #(
    // bits per word
    parameter int WIDTH = 64,
    // words in the ring: a power of two, at least 2
    parameter int WORDS = 2048,
    // word address bits
    parameter int AW = $clog2(WORDS)
) (
    input  wire logic             clk,
    input  wire logic             rst,

    input  wire logic             wr_valid,
    input  wire logic             wr_first,
    input  wire logic             wr_last,
    input  wire logic [WIDTH-1:0] wr_data,
    // with wr_valid && wr_last: keep the frame (when it fit)
    input  wire logic             wr_keep,
    // with wr_valid: every word of the frame so far, this one included, is stored
    output logic                  wr_fit,
    // with wr_valid: pointer of the frame's first word
    output logic [AW:0]           wr_start,
    // words in use: kept frames and the frame being written (its words so far)
    output logic [AW:0]           used,

    output logic [AW:0]           commit_next,
    input  wire logic [AW:0]      free_ptr,
    input  wire logic [AW-1:0]    rd_addr,
    output logic [WIDTH-1:0]      rd_data
);

initial begin
    if (WORDS < 2 || (1 << AW) != WORDS) begin
        $error("nic_rx_store: WORDS %0d must be a power of two, at least 2", WORDS);
        $finish;
    end
end

logic [WIDTH-1:0] mem [WORDS];

logic [AW:0]  base_q, base_d;    // committed end: where the next frame starts
logic [AW:0]  cur_q, cur_d;      // next word of the frame being written
logic [AW:0]  start_q, start_d;  // first word of the frame being written
logic         mid_q, mid_d;      // a frame is partly written
logic         ovf_q, ovf_d;      // a word of that frame was refused

logic [AW:0]  ptr;               // where this word goes
logic [AW:0]  fill;              // words in use before this word
logic         refused;
logic         we;
logic [WIDTH-1:0] rd_data_q;

always_comb begin
    ptr      = wr_first ? base_q : cur_q;
    fill     = ptr - free_ptr;
    // fill never exceeds WORDS, so its top bit alone says "full"
    refused  = (!wr_first && ovf_q) || fill[AW];
    we       = wr_valid && !refused;
    wr_fit   = !refused;
    wr_start = wr_first ? base_q : start_q;
    used     = (mid_q ? cur_q : base_q) - free_ptr;
    rd_data  = rd_data_q;
end

// apart from the block above: wr_keep may depend on wr_fit
always_comb begin
    base_d  = base_q;
    cur_d   = cur_q;
    start_d = start_q;
    mid_d   = mid_q;
    ovf_d   = ovf_q;
    if (wr_valid) begin
        cur_d   = ptr + (AW+1)'(we);
        start_d = wr_start;
        ovf_d   = refused;
        mid_d   = !wr_last;
        if (wr_last && wr_keep && !refused) begin
            base_d = cur_d;
        end
    end
    commit_next = base_d;
end

always_ff @(posedge clk) begin
    if (we) begin
        mem[ptr[AW-1:0]] <= wr_data;
    end
    rd_data_q <= (we && ptr[AW-1:0] == rd_addr) ? wr_data : mem[rd_addr];
    base_q  <= base_d;
    cur_q   <= cur_d;
    start_q <= start_d;
    mid_q   <= mid_d;
    ovf_q   <= ovf_d;
    if (rst) begin
        base_q <= '0;
        cur_q  <= '0;
        mid_q  <= 1'b0;
        ovf_q  <= 1'b0;
    end
end

endmodule

`resetall
