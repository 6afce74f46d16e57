// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// axis_fifo_top: harness top for the shared stream helpers: axis_skid then
// axis_fifo, one input and one output port in the sim/ port convention.
//
//   s_axis --> axis_skid --> axis_fifo --> m_axis
//
// Timing constants: LATENCY = 3 cycles (skid 1 + FIFO 2): a beat accepted
// on s_axis in cycle t is offered on m_axis from cycle t+3. THROUGHPUT = 1
// beat per cycle. CAPACITY = DEPTH + 3 beats. s_axis_tready is low in cycle
// 0 (the skid's registered ready leaves reset low). idle is high when no
// beat is inside (registered state only).

module axis_fifo_top #(
    // Width of tdata in bits; a multiple of 8.
    parameter int DATA_WIDTH = 64,
    // Width of tkeep.
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // Depth of the FIFO RAM in beats; a power of two.
    parameter int DEPTH      = 32
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic [0:0]            s_axis_tvalid,
    output wire logic [0:0]            s_axis_tready,
    input  wire logic [0:0]            s_axis_tlast,
    input  wire logic [0:0]            s_axis_tuser,

    output wire logic [DATA_WIDTH-1:0] m_axis_tdata,
    output wire logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire logic [0:0]            m_axis_tvalid,
    input  wire logic [0:0]            m_axis_tready,
    output wire logic [0:0]            m_axis_tlast,
    output wire logic [0:0]            m_axis_tuser,

    output wire logic                  idle
);

    localparam int COUNT_WIDTH = $clog2(DEPTH) + 1;

    initial begin
        if (DATA_WIDTH % 8 != 0 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("axis_fifo_top: DATA_WIDTH must be a multiple of 8 and KEEP_WIDTH = DATA_WIDTH/8");
            $finish;
        end
    end

    logic [DATA_WIDTH-1:0]  mid_tdata;
    logic [KEEP_WIDTH-1:0]  mid_tkeep;
    logic                   mid_tvalid;
    logic                   mid_tready;
    logic                   mid_tlast;
    logic                   mid_tuser;
    logic [COUNT_WIDTH-1:0] fifo_count;

    axis_skid #(
        .DATA_WIDTH (DATA_WIDTH),
        .KEEP_ENABLE(1'b1),
        .KEEP_WIDTH (KEEP_WIDTH),
        .LAST_ENABLE(1'b1),
        .USER_ENABLE(1'b1),
        .USER_WIDTH (1)
    ) u_skid (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (s_axis_tdata),
        .s_axis_tkeep (s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid[0]),
        .s_axis_tready(s_axis_tready[0]),
        .s_axis_tlast (s_axis_tlast[0]),
        .s_axis_tuser (s_axis_tuser),
        .m_axis_tdata (mid_tdata),
        .m_axis_tkeep (mid_tkeep),
        .m_axis_tvalid(mid_tvalid),
        .m_axis_tready(mid_tready),
        .m_axis_tlast (mid_tlast),
        .m_axis_tuser (mid_tuser)
    );

    axis_fifo #(
        .DEPTH      (DEPTH),
        .DATA_WIDTH (DATA_WIDTH),
        .KEEP_ENABLE(1'b1),
        .KEEP_WIDTH (KEEP_WIDTH),
        .LAST_ENABLE(1'b1),
        .USER_ENABLE(1'b1),
        .USER_WIDTH (1),
        .COUNT_WIDTH(COUNT_WIDTH)
    ) u_fifo (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (mid_tdata),
        .s_axis_tkeep (mid_tkeep),
        .s_axis_tvalid(mid_tvalid),
        .s_axis_tready(mid_tready),
        .s_axis_tlast (mid_tlast),
        .s_axis_tuser (mid_tuser),
        .m_axis_tdata (m_axis_tdata),
        .m_axis_tkeep (m_axis_tkeep),
        .m_axis_tvalid(m_axis_tvalid[0]),
        .m_axis_tready(m_axis_tready[0]),
        .m_axis_tlast (m_axis_tlast[0]),
        .m_axis_tuser (m_axis_tuser),
        .status_count (fifo_count)
    );

    assign idle = !mid_tvalid && (fifo_count == '0);

endmodule

`resetall
