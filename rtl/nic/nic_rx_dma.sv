// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// nic_rx_dma: accepted receive payload from the receive buffer to host memory over the DMA write channel.
//
//   nic_engine --job per held frame--> [ job FIFO ] --> R: buffer word reads --> D: realign --> dma_wr_*
//                                                                               \-> buf_release (in order)
//
// Job: every frame nic_rx_parse holds (RC with payload) gets exactly one, in
// decision order (the order the buffer releases frames in). wr = 1: write
// len bytes (1..4096) of the frame's payload, which starts at buffer byte
// buf (modulo the buffer: it may wrap), to host address addr; wr = 0: the
// payload was dropped (duplicate, error, QP in error). Either way the frame
// is released once its job is done.
//
// Timing: two stages, back to back across jobs.
//   R  reads buffer words, one per cycle: a write job of B = ceil(len /
//      KEEP_WIDTH) beats whose payload starts at lane a = buf % KEEP_WIDTH
//      reads B words when a = 0 or the payload lies in one word, else B + 1
//      (the last may be past the payload: it is read and not used); a job
//      without a write takes one cycle. A job pushed in cycle t starts at
//      t+1 when R is free.
//   D  one cycle later, as each word arrives: beat k is word k (a = 0; or
//      the one word, shifted), else bytes a.. of word k and ..a-1 of word
//      k+1, sent as word k+1 arrives;
//      payload byte j in lane j % KEEP_WIDTH whatever the address alignment,
//      as the DMA port wants, the last beat's keep a run from lane 0. The
//      release pulses as the job's last word (or its token) arrives.
// So a job of a decision at D writes its first beat at D+3 at the earliest,
// and writes leave in job order: memory sees the payloads in decision order
// (README "Memory": from D+1 on). R takes no more cycles than the frame
// took to arrive, but for some payloads that end within the 4 ICRC bytes of
// a word boundary (one cycle more); a long run of such back-to-back frames
// is absorbed by the receive buffer, and a frame it cannot hold is counted
// rx_buffer_full (golden has no buffer: a run against golden must not get
// there).
// dma_wr_ready must stay high (the NIC's DMA port does not stall: README
// "No waiting"); a low ready while a beat is offered is an $error.
// Jobs waiting: at most one per frame in the buffer, and a kept frame takes
// at least 64 bytes of it (59 bytes in whole words of 8 bytes or more): the
// job FIFO has RX_BUF_BYTES / 64 entries; a push into a full one is dropped
// and pulses overflow (it cannot happen).

module nic_rx_dma #(
    // bits per beat of the buffer and the DMA port: a multiple of 64, 64 to 512
    parameter int DATA_WIDTH   = 64,
    // byte lanes
    parameter int KEEP_WIDTH   = DATA_WIDTH / 8,
    // receive buffer bytes (nic_rx_parse RX_BUF_BYTES)
    parameter int RX_BUF_BYTES = 16384,
    // jobs waiting at most (a power of two): one per kept frame
    parameter int DEPTH        = RX_BUF_BYTES / 64,
    localparam int BUF_AW      = $clog2(RX_BUF_BYTES / KEEP_WIDTH),
    localparam int BUF_BAW     = $clog2(RX_BUF_BYTES)
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic                  job_valid,
    input  wire logic                  job_wr,
    input  wire logic [63:0]           job_addr,
    input  wire logic [15:0]           job_len,
    input  wire logic [BUF_BAW-1:0]    job_buf,

    output logic      [BUF_AW-1:0]     buf_rd_addr,
    input  wire logic [DATA_WIDTH-1:0] buf_rd_data,
    output logic                       buf_release,

    output logic                       dma_wr_valid,
    input  wire logic                  dma_wr_ready,
    output logic      [63:0]           dma_wr_addr,
    output logic      [DATA_WIDTH-1:0] dma_wr_data,
    output logic      [KEEP_WIDTH-1:0] dma_wr_keep,
    output logic                       dma_wr_last,

    output logic                       overflow,
    output logic                       idle
);

localparam int AW = $clog2(DEPTH);
localparam int LW = $clog2(KEEP_WIDTH);

initial begin
    if (KEEP_WIDTH * 8 != DATA_WIDTH || (1 << AW) != DEPTH || (1 << BUF_BAW) != RX_BUF_BYTES) begin
        $error("nic_rx_dma: KEEP_WIDTH = DATA_WIDTH/8, DEPTH and RX_BUF_BYTES powers of two");
        $finish;
    end
end

typedef struct packed {
    logic               wr;
    logic [63:0]        addr;
    logic [15:0]        len;
    logic [BUF_BAW-1:0] buf_b;
} job_t;

job_t          fifo_q [DEPTH];
logic [AW:0]   wp_q, rp_q;

// R: the job being read
logic          r_act_q, r_act_d;
job_t          r_job_q, r_job_d;
logic [15:0]   r_i_q, r_i_d;        // index of the next word to read
logic [BUF_AW-1:0] r_w_q, r_w_d;    // its buffer word
logic [AW:0]   rp_d;

// D: what arrives on buf_rd_data this cycle (read in R last cycle)
logic          d_word_q, d_word_d;  // a word of a write job
logic          d_rel_q, d_rel_d;    // the job's last word or token: release
logic [15:0]   d_i_q, d_i_d;        // its index
job_t          d_job_q, d_job_d;
logic [DATA_WIDTH-1:0] prev_q;      // the word that arrived before

// words R reads for job j
function automatic logic [15:0] reads_of(input logic [15:0] len, input logic [LW-1:0] lane);
    logic [15:0] b;
    b = 16'((32'(len) + KEEP_WIDTH - 1) / KEEP_WIDTH);
    return (lane == '0 || single(len, lane)) ? b : b + 16'd1;
endfunction

// the payload lies in one buffer word: one read, one beat as it arrives
function automatic logic single(input logic [15:0] len, input logic [LW-1:0] lane);
    return 32'(lane) + 32'(len) <= KEEP_WIDTH;
endfunction

always_comb begin
    job_t        j;
    logic [15:0] n;
    logic [15:0] k;
    logic [LW-1:0] lane;
    logic        one;    // beat k is word k (lane 0, or the payload in one word)

    n        = '0;
    r_act_d  = r_act_q;
    r_job_d  = r_job_q;
    r_i_d    = r_i_q;
    r_w_d    = r_w_q;
    rp_d     = rp_q;
    d_word_d = 1'b0;
    d_rel_d  = 1'b0;
    d_i_d    = r_i_q;
    d_job_d  = r_job_q;
    buf_rd_addr = r_w_q;

    // R: continue the job under way, or start the next in this cycle
    j = r_job_q;
    if (!r_act_q && wp_q != rp_q) begin
        j     = fifo_q[rp_q[AW-1:0]];
        rp_d  = rp_q + 1'b1;
        r_i_d = '0;
        d_i_d = '0;
        if (j.wr) begin
            r_act_d     = 1'b1;
            buf_rd_addr = j.buf_b[BUF_BAW-1:LW];
            r_w_d       = buf_rd_addr;
        end else begin
            d_rel_d = 1'b1;   // a token: release in order
        end
        r_job_d = j;
        d_job_d = j;
    end
    if (r_act_d) begin
        n        = reads_of(j.len, j.buf_b[LW-1:0]);
        d_word_d = 1'b1;
        d_rel_d  = r_i_d + 16'd1 == n;
        r_w_d    = buf_rd_addr + 1'b1;
        r_i_d    = r_i_d + 16'd1;
        if (d_rel_d) r_act_d = 1'b0;
    end

    // D: realign and write
    lane         = d_job_q.buf_b[LW-1:0];
    one          = lane == '0 || single(d_job_q.len, lane);
    k            = one ? d_i_q : d_i_q - 16'd1;
    dma_wr_valid = d_word_q && (one || d_i_q != 16'd0);
    dma_wr_addr  = d_job_q.addr;
    if (lane == '0) begin
        dma_wr_data = buf_rd_data;
    end else if (one) begin
        dma_wr_data = DATA_WIDTH'({{DATA_WIDTH{1'b0}}, buf_rd_data} >> (8 * 32'(lane)));
    end else begin
        dma_wr_data = DATA_WIDTH'({buf_rd_data, prev_q} >> (8 * 32'(lane)));
    end
    dma_wr_last  = 32'(k) + 1 == (32'(d_job_q.len) + KEEP_WIDTH - 1) / KEEP_WIDTH;
    dma_wr_keep  = '1;
    if (dma_wr_last && (32'(d_job_q.len) % KEEP_WIDTH) != 0) begin
        dma_wr_keep = ~({KEEP_WIDTH{1'b1}} << (32'(d_job_q.len) % KEEP_WIDTH));
    end
    buf_release  = d_rel_q;
end

always_ff @(posedge clk) begin
    if (job_valid && (wp_q - rp_q) != (AW+1)'(DEPTH)) begin
        fifo_q[wp_q[AW-1:0]] <= '{wr: job_wr, addr: job_addr, len: job_len, buf_b: job_buf};
    end
    r_job_q <= r_job_d;
    r_i_q   <= r_i_d;
    r_w_q   <= r_w_d;
    d_i_q   <= d_i_d;
    d_job_q <= d_job_d;
    if (d_word_q) prev_q <= buf_rd_data;
    if (rst) begin
        wp_q     <= '0;
        rp_q     <= '0;
        r_act_q  <= 1'b0;
        d_word_q <= 1'b0;
        d_rel_q  <= 1'b0;
        overflow <= 1'b0;
    end else begin
        r_act_q  <= r_act_d;
        rp_q     <= rp_d;
        d_word_q <= d_word_d;
        d_rel_q  <= d_rel_d;
        overflow <= job_valid && (wp_q - rp_q) == (AW+1)'(DEPTH);
        if (job_valid && (wp_q - rp_q) != (AW+1)'(DEPTH)) wp_q <= wp_q + 1'b1;
    end
end

always_comb begin
    idle = wp_q == rp_q && !r_act_q && !d_word_q && !d_rel_q;
end

// d_job_q.wr: only write jobs send words to D
logic unused;
assign unused = d_job_q.wr;

always_ff @(posedge clk) begin
    if (!rst) begin
        assert (!(dma_wr_valid && !dma_wr_ready))
        else $error("nic_rx_dma: dma_wr_ready low: the NIC's DMA port must not stall");
    end
end

endmodule

`resetall
