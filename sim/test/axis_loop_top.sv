// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// axis_loop_top: PORTS independent loops, input port p to output port p,
// each through one axis_skid. A test top for the wrapper's flat multi-port
// buses with narrow and odd widths (DATA_WIDTH 8 gives one tkeep bit per
// port; 24 puts the ports' tkeep fields off byte boundaries).
//
// Timing constants: LATENCY = 1 cycle, THROUGHPUT = 1 beat per cycle per
// port, s_axis_tready low in cycle 0.

module axis_loop_top #(
    // Width of tdata per port in bits; a multiple of 8.
    parameter int DATA_WIDTH = 8,
    // Width of tkeep per port.
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // Number of input ports, and of output ports.
    parameter int PORTS      = 2
) (
    input  wire logic                        clk,
    input  wire logic                        rst,

    input  wire logic [PORTS*DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [PORTS*KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic [PORTS-1:0]            s_axis_tvalid,
    output wire logic [PORTS-1:0]            s_axis_tready,
    input  wire logic [PORTS-1:0]            s_axis_tlast,
    input  wire logic [PORTS-1:0]            s_axis_tuser,

    output wire logic [PORTS*DATA_WIDTH-1:0] m_axis_tdata,
    output wire logic [PORTS*KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire logic [PORTS-1:0]            m_axis_tvalid,
    input  wire logic [PORTS-1:0]            m_axis_tready,
    output wire logic [PORTS-1:0]            m_axis_tlast,
    output wire logic [PORTS-1:0]            m_axis_tuser
);

    initial begin
        if (DATA_WIDTH % 8 != 0 || KEEP_WIDTH * 8 != DATA_WIDTH || PORTS < 1) begin
            $error("axis_loop_top: DATA_WIDTH must be a multiple of 8 and PORTS at least 1");
            $finish;
        end
    end

    for (genvar p = 0; p < PORTS; p++) begin : g_port
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
            .s_axis_tdata (s_axis_tdata[p*DATA_WIDTH +: DATA_WIDTH]),
            .s_axis_tkeep (s_axis_tkeep[p*KEEP_WIDTH +: KEEP_WIDTH]),
            .s_axis_tvalid(s_axis_tvalid[p]),
            .s_axis_tready(s_axis_tready[p]),
            .s_axis_tlast (s_axis_tlast[p]),
            .s_axis_tuser (s_axis_tuser[p]),
            .m_axis_tdata (m_axis_tdata[p*DATA_WIDTH +: DATA_WIDTH]),
            .m_axis_tkeep (m_axis_tkeep[p*KEEP_WIDTH +: KEEP_WIDTH]),
            .m_axis_tvalid(m_axis_tvalid[p]),
            .m_axis_tready(m_axis_tready[p]),
            .m_axis_tlast (m_axis_tlast[p]),
            .m_axis_tuser (m_axis_tuser[p])
        );
    end

endmodule

`resetall
