// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// axis_fifo: frame-agnostic AXI-Stream beat FIFO (stores beats, not frames).
//
//   s_axis --> [ RAM, DEPTH beats ] --> [ output register ] --> m_axis
//                 wr_ptr_q   rd_ptr_q        out_valid_q
//
// Beats leave in the order they came; tlast and tuser travel with each beat
// and are not interpreted, so a frame may be partly inside.
//
// Timing constants (the golden models rely on these):
//   LATENCY    = 2 cycles: a beat accepted on s_axis in cycle t is offered on
//                m_axis from cycle t+2 (cycle t writes the RAM, cycle t+1
//                reads it into the output register).
//   THROUGHPUT = 1 beat per cycle in and out at the same time, sustained.
//   CAPACITY   = DEPTH + 1 beats: DEPTH in the RAM plus the output register.
//                s_axis_tready is low exactly when the RAM holds DEPTH beats
//                (so it is high from the first cycle after reset).
//   status_count = beats accepted and not yet taken from m_axis, as of the
//                start of the cycle (a register, 0 .. DEPTH+1).
//   s_axis_tready and m_axis_tvalid are driven from registers only.
//
// Reset (synchronous, active high) empties the FIFO: it clears the pointers,
// the output valid flag and the count; the RAM and data registers keep
// their contents.

module axis_fifo #(
    // Depth of the RAM in beats; a power of two, at least 2.
    parameter int DEPTH       = 32,
    // Width of tdata in bits.
    parameter int DATA_WIDTH  = 64,
    // Carry tkeep (meaningful only for byte multiples wider than one byte).
    parameter bit KEEP_ENABLE = (DATA_WIDTH > 8),
    // Width of tkeep: one bit per byte of tdata.
    parameter int KEEP_WIDTH  = (DATA_WIDTH + 7) / 8,
    // Carry tlast.
    parameter bit LAST_ENABLE = 1'b1,
    // Carry tuser.
    parameter bit USER_ENABLE = 1'b1,
    // Width of tuser; tuser[0] marks a bad frame.
    parameter int USER_WIDTH  = 1,
    // Width of status_count; holds DEPTH+1.
    parameter int COUNT_WIDTH = $clog2(DEPTH) + 1
) (
    input  wire logic                   clk,
    input  wire logic                   rst,

    input  wire logic [DATA_WIDTH-1:0]  s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]  s_axis_tkeep,
    input  wire logic                   s_axis_tvalid,
    output wire logic                   s_axis_tready,
    input  wire logic                   s_axis_tlast,
    input  wire logic [USER_WIDTH-1:0]  s_axis_tuser,

    output wire logic [DATA_WIDTH-1:0]  m_axis_tdata,
    output wire logic [KEEP_WIDTH-1:0]  m_axis_tkeep,
    output wire logic                   m_axis_tvalid,
    input  wire logic                   m_axis_tready,
    output wire logic                   m_axis_tlast,
    output wire logic [USER_WIDTH-1:0]  m_axis_tuser,

    output wire logic [COUNT_WIDTH-1:0] status_count
);

    localparam int ADDR_WIDTH = $clog2(DEPTH);

    // Illegal parameter combinations stop the simulation at start.
    initial begin
        if (DEPTH < 2 || (1 << ADDR_WIDTH) != DEPTH) begin
            $error("axis_fifo: DEPTH must be a power of two, at least 2 (instance %m)");
            $finish;
        end
        if (DATA_WIDTH < 1) begin
            $error("axis_fifo: DATA_WIDTH must be at least 1 (instance %m)");
            $finish;
        end
        if (KEEP_ENABLE && (KEEP_WIDTH * 8 != DATA_WIDTH)) begin
            $error("axis_fifo: KEEP_WIDTH*8 must equal DATA_WIDTH when KEEP_ENABLE (instance %m)");
            $finish;
        end
        if (USER_WIDTH < 1) begin
            $error("axis_fifo: USER_WIDTH must be at least 1 (instance %m)");
            $finish;
        end
        if ((1 << COUNT_WIDTH) <= DEPTH + 1) begin
            $error("axis_fifo: COUNT_WIDTH too small for DEPTH+1 (instance %m)");
            $finish;
        end
    end

    // One beat of payload as stored in the RAM.
    localparam int PW = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH;

    logic [PW-1:0] mem [DEPTH];

    logic [PW-1:0] s_beat;
    logic [PW-1:0] out_beat_q;

    // Pointers carry one extra bit to tell full from empty.
    logic [ADDR_WIDTH:0] wr_ptr_q;
    logic [ADDR_WIDTH:0] wr_ptr_d;
    logic [ADDR_WIDTH:0] rd_ptr_q;
    logic [ADDR_WIDTH:0] rd_ptr_d;
    logic                out_valid_q;
    logic                out_valid_d;
    logic [COUNT_WIDTH-1:0] count_q;
    logic [COUNT_WIDTH-1:0] count_d;

    logic full;
    logic empty;
    logic push;
    logic load;
    logic pop;

    assign s_beat = {
        s_axis_tdata,
        KEEP_ENABLE ? s_axis_tkeep : {KEEP_WIDTH{1'b1}},
        LAST_ENABLE ? s_axis_tlast : 1'b1,
        USER_ENABLE ? s_axis_tuser : {USER_WIDTH{1'b0}}
    };

    assign full  = (wr_ptr_q == {~rd_ptr_q[ADDR_WIDTH], rd_ptr_q[ADDR_WIDTH-1:0]});
    assign empty = (wr_ptr_q == rd_ptr_q);

    always_comb begin
        // A beat enters the RAM.
        push = s_axis_tvalid && !full;
        // A beat leaves through m_axis.
        pop = out_valid_q && m_axis_tready;
        // The output register takes the oldest RAM beat when it is free or
        // being emptied this cycle.
        load = !empty && (!out_valid_q || m_axis_tready);

        wr_ptr_d    = wr_ptr_q;
        rd_ptr_d    = rd_ptr_q;
        out_valid_d = out_valid_q;
        count_d     = count_q;

        if (push) begin
            wr_ptr_d = wr_ptr_q + 1'b1;
        end
        if (load) begin
            rd_ptr_d    = rd_ptr_q + 1'b1;
            out_valid_d = 1'b1;
        end else if (pop) begin
            out_valid_d = 1'b0;
        end
        if (push && !pop) begin
            count_d = count_q + 1'b1;
        end else if (pop && !push) begin
            count_d = count_q - 1'b1;
        end
    end

    always_ff @(posedge clk) begin
        if (push) begin
            mem[wr_ptr_q[ADDR_WIDTH-1:0]] <= s_beat;
        end
        if (load) begin
            out_beat_q <= mem[rd_ptr_q[ADDR_WIDTH-1:0]];
        end
        if (rst) begin
            wr_ptr_q    <= '0;
            rd_ptr_q    <= '0;
            out_valid_q <= 1'b0;
            count_q     <= '0;
        end else begin
            wr_ptr_q    <= wr_ptr_d;
            rd_ptr_q    <= rd_ptr_d;
            out_valid_q <= out_valid_d;
            count_q     <= count_d;
        end
    end

    assign s_axis_tready = !full;
    assign m_axis_tvalid = out_valid_q;
    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = out_beat_q;
    assign status_count  = count_q;

endmodule

`resetall
