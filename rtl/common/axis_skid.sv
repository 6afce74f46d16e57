// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// axis_skid: AXI-Stream register slice (skid buffer); registers every output.
//
// The one shared handshake helper: modules that need to cut a timing path
// on a stream instantiate this instead of writing their own handshake.
//
//            +--------- s_axis_tready_q <----------+
//            v                                     |
//   s_axis --+--> [ out regs ] ---------------> m_axis
//            |        ^
//            +--> [ skid regs ] (filled only when the output stalls)
//
// Timing constants (the golden models rely on these):
//   LATENCY    = 1 cycle: a beat accepted on s_axis in cycle t is offered on
//                m_axis from cycle t+1 (m_axis_tvalid is a register).
//   THROUGHPUT = 1 beat per cycle, sustained, in any mix of stalls.
//   CAPACITY   = 2 beats (output register + skid register).
//   s_axis_tready is a register: it is low in cycle t+1 only when both
//   registers hold a beat at the end of cycle t, and it is low during reset
//   and in the first cycle after it (cycle 0), high from cycle 1 on.
//   No combinational path from any input to any output.
//
// Reset (synchronous, active high) clears the valid flags and tready only;
// the data registers are not reset.

module axis_skid #(
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
    parameter int USER_WIDTH  = 1
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic                  s_axis_tvalid,
    output wire logic                  s_axis_tready,
    input  wire logic                  s_axis_tlast,
    input  wire logic [USER_WIDTH-1:0] s_axis_tuser,

    output wire logic [DATA_WIDTH-1:0] m_axis_tdata,
    output wire logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire logic                  m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output wire logic                  m_axis_tlast,
    output wire logic [USER_WIDTH-1:0] m_axis_tuser
);

    // Illegal parameter combinations stop the simulation at start.
    initial begin
        if (DATA_WIDTH < 1) begin
            $error("axis_skid: DATA_WIDTH must be at least 1 (instance %m)");
            $finish;
        end
        if (KEEP_ENABLE && (KEEP_WIDTH * 8 != DATA_WIDTH)) begin
            $error("axis_skid: KEEP_WIDTH*8 must equal DATA_WIDTH when KEEP_ENABLE (instance %m)");
            $finish;
        end
        if (USER_WIDTH < 1) begin
            $error("axis_skid: USER_WIDTH must be at least 1 (instance %m)");
            $finish;
        end
    end

    // One beat of payload, packed so that the two registers move it as one.
    localparam int PW = DATA_WIDTH + KEEP_WIDTH + 1 + USER_WIDTH;

    logic [PW-1:0] s_beat;
    logic [PW-1:0] out_beat_q;
    logic [PW-1:0] out_beat_d;
    logic [PW-1:0] skid_beat_q;
    logic [PW-1:0] skid_beat_d;

    logic out_valid_q;
    logic out_valid_d;
    logic skid_valid_q;
    logic skid_valid_d;
    logic ready_q;
    logic ready_d;

    assign s_beat = {
        s_axis_tdata,
        KEEP_ENABLE ? s_axis_tkeep : {KEEP_WIDTH{1'b1}},
        LAST_ENABLE ? s_axis_tlast : 1'b1,
        USER_ENABLE ? s_axis_tuser : {USER_WIDTH{1'b0}}
    };

    always_comb begin
        out_valid_d  = out_valid_q;
        skid_valid_d = skid_valid_q;
        out_beat_d   = out_beat_q;
        skid_beat_d  = skid_beat_q;

        if (ready_q) begin
            // The input side may hand over a beat this cycle.
            if (m_axis_tready || !out_valid_q) begin
                out_valid_d = s_axis_tvalid;
                out_beat_d  = s_beat;
            end else begin
                skid_valid_d = s_axis_tvalid;
                skid_beat_d  = s_beat;
            end
        end else if (m_axis_tready) begin
            // Input stalled: drain the skid register into the output.
            out_valid_d  = skid_valid_q;
            out_beat_d   = skid_beat_q;
            skid_valid_d = 1'b0;
        end

        // Ready next cycle unless both registers will hold a beat.
        ready_d = !(out_valid_d && skid_valid_d);
    end

    always_ff @(posedge clk) begin
        out_beat_q  <= out_beat_d;
        skid_beat_q <= skid_beat_d;
        if (rst) begin
            out_valid_q  <= 1'b0;
            skid_valid_q <= 1'b0;
            ready_q      <= 1'b0;
        end else begin
            out_valid_q  <= out_valid_d;
            skid_valid_q <= skid_valid_d;
            ready_q      <= ready_d;
        end
    end

    assign s_axis_tready = ready_q;
    assign m_axis_tvalid = out_valid_q;
    assign {m_axis_tdata, m_axis_tkeep, m_axis_tlast, m_axis_tuser} = out_beat_q;

endmodule

`resetall
