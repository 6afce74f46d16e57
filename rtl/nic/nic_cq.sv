// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_cq: the NIC's completion queue: a FIFO of completion records sent to
// the host on out1, one 32-byte frame per record (rtl/nic/README.md "Host
// records", little-endian):
//
//   byte 0 kind (1 send, 2 receive)   1 op   2 status   3 bit 0 immediate valid
//        4 QPN [23:0]   8 work request ID   16 bytes   20 immediate   24..31 0
//
// Timing (the golden model relies on these):
//   A record written at cycle C (wr_valid) is offered on m_axis from C+1
//   when the FIFO holds nothing older; records leave in write order, each
//   as one frame of ceil(32 / (DATA_WIDTH/8)) beats, back to back while
//   m_axis_tready is high.
//   Capacity DEPTH records. A write when DEPTH records wait (the one
//   leaving in that cycle still counts) is dropped and pulses overflow
//   (README "Bounded queues": cq_overflow).
//
// Reset (synchronous, active high) empties the FIFO.

module nic_cq #(
    // Bits per beat: a multiple of 64, 64 to 512.
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // Records held, a power of two.
    parameter int DEPTH      = 128
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic                  wr_valid,
    input  wire logic                  wr_recv,
    input  wire logic [2:0]            wr_op,
    input  wire logic [7:0]            wr_status,
    input  wire logic                  wr_has_imm,
    input  wire logic [23:0]           wr_qpn,
    input  wire logic [63:0]           wr_id,
    input  wire logic [31:0]           wr_bytes,
    input  wire logic [31:0]           wr_imm,
    output logic                       overflow,

    output logic      [DATA_WIDTH-1:0] m_axis_tdata,
    output logic      [KEEP_WIDTH-1:0] m_axis_tkeep,
    output logic                       m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output logic                       m_axis_tlast,
    output logic                       m_axis_tuser
);

    localparam int REC_BYTES = 32;
    localparam int BEATS     = (REC_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int PTR_W     = $clog2(DEPTH);
    localparam int BEAT_W    = (BEATS > 1) ? $clog2(BEATS) : 1;

    initial begin
        if (DATA_WIDTH % 64 != 0 || DATA_WIDTH < 64 || DATA_WIDTH > 512 || KEEP_WIDTH * 8 != DATA_WIDTH ||
            DEPTH < 2 || (DEPTH & (DEPTH - 1)) != 0) begin
            $error("nic_cq: DATA_WIDTH a multiple of 64 (64..512), DEPTH a power of two (instance %m)");
            $finish;
        end
    end

    logic [8*REC_BYTES-1:0] mem [DEPTH];
    logic [PTR_W:0]         head_q, tail_q;   // one extra bit tells full from empty
    logic [BEAT_W-1:0]      beat_q;

    wire empty = head_q == tail_q;
    wire full  = (head_q[PTR_W] != tail_q[PTR_W]) && (head_q[PTR_W-1:0] == tail_q[PTR_W-1:0]);

    logic [8*REC_BYTES-1:0] rec_in;
    always_comb begin
        rec_in = '0;
        rec_in[0 +: 8]    = wr_recv ? nic_pkg::KIND_RECV : nic_pkg::KIND_SEND;
        rec_in[8 +: 8]    = {5'd0, wr_op};
        rec_in[16 +: 8]   = wr_status;
        rec_in[24 +: 8]   = {7'd0, wr_has_imm};
        rec_in[32 +: 32]  = {8'd0, wr_qpn};
        rec_in[64 +: 64]  = wr_id;
        rec_in[128 +: 32] = wr_bytes;
        rec_in[160 +: 32] = wr_imm;
    end

    // The beat on offer: bytes beat*KEEP_WIDTH .. of the head record.
    logic [8*REC_BYTES-1:0] head_rec;
    always_comb begin
        head_rec      = mem[head_q[PTR_W-1:0]];
        m_axis_tvalid = !empty;
        m_axis_tlast  = 32'(beat_q) == BEATS - 1;
        m_axis_tuser  = 1'b0;
        m_axis_tdata  = '0;
        m_axis_tkeep  = '0;
        for (int k = 0; k < KEEP_WIDTH; k++) begin
            if (32'(beat_q) * KEEP_WIDTH + k < REC_BYTES) begin
                m_axis_tdata[8 * k +: 8] = head_rec[8 * (32'(beat_q) * KEEP_WIDTH + k) +: 8];
                m_axis_tkeep[k]          = 1'b1;
            end
        end
    end

    wire take = m_axis_tvalid && m_axis_tready;

    always_ff @(posedge clk) begin
        overflow <= 1'b0;
        if (wr_valid) begin
            if (full) begin
                overflow <= 1'b1;
            end else begin
                mem[tail_q[PTR_W-1:0]] <= rec_in;
                tail_q                 <= tail_q + 1'b1;
            end
        end
        if (take) begin
            if (m_axis_tlast) begin
                beat_q <= '0;
                head_q <= head_q + 1'b1;
            end else begin
                beat_q <= beat_q + 1'b1;
            end
        end
        if (rst) begin
            head_q   <= '0;
            tail_q   <= '0;
            beat_q   <= '0;
            overflow <= 1'b0;
        end
    end

endmodule

`resetall
