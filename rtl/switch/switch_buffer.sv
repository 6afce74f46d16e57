// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// switch_buffer: the shared frame buffer of eth_switch: 2^SLOT_W slots of
// 2^BEAT_W beats, one write port per ingress and one registered read port
// per egress, every port usable in every cycle.
//
//   address = { slot[SLOT_W-1:0], beat[BEAT_W-1:0] }
//
//   wr_*[i] ---> [ mem: 2^(SLOT_W+BEAT_W) beats of DATA_WIDTH ] ---> rd_data[e] (register)
//   (PORTS writes per cycle)                        (PORTS reads per cycle)
//
// A simulation model, not a RAM a synthesis tool would map: it takes PORTS
// writes and PORTS reads per cycle (a real switch would bank it or clock
// it faster). Writes land at the rising edge. A read enabled in cycle t
// (rd_en[e]) loads rd_data[e] at the rising edge with the contents as of
// the start of cycle t; rd_data[e] holds it until the next enabled read.
// eth_switch never has two ingress ports write one slot, and never reads a
// slot while it is being written (a slot is written only while it is a
// landing slot and read only while it holds queued copies). The contents
// are not reset.
//
// Registered reads keep the read data off the combinational paths: the
// egress's address depends on m_axis_tready, and a combinational read would
// copy every read port's beat at each Verilator evaluation.

module switch_buffer #(
    // Ports on each side.
    parameter int PORTS      = 4,
    // Bits per beat.
    parameter int DATA_WIDTH = 64,
    // Slot number width; the buffer has 2^SLOT_W slots (eth_switch uses
    // fewer, the rest is never addressed).
    parameter int SLOT_W     = 7,
    // Beat number width within a slot.
    parameter int BEAT_W     = 8,
    // Address width.
    parameter int ADDR_W     = SLOT_W + BEAT_W
) (
    input  wire logic                              clk,

    input  wire logic [PORTS-1:0]                  wr_en,
    input  wire logic [PORTS-1:0][ADDR_W-1:0]      wr_addr,
    input  wire logic [PORTS*DATA_WIDTH-1:0]       wr_data,

    input  wire logic [PORTS-1:0]                  rd_en,
    input  wire logic [PORTS-1:0][ADDR_W-1:0]      rd_addr,
    output logic      [PORTS-1:0][DATA_WIDTH-1:0]  rd_data
);

    initial begin
        if (PORTS < 1 || DATA_WIDTH < 8 || SLOT_W < 1 || BEAT_W < 1 || ADDR_W != SLOT_W + BEAT_W) begin
            $error("switch_buffer: bad parameters (instance %m)");
            $finish;
        end
    end

    logic [DATA_WIDTH-1:0] mem [2**ADDR_W];

    always_ff @(posedge clk) begin
        for (int e = 0; e < PORTS; e++) begin
            if (rd_en[e]) begin
                rd_data[e] <= mem[rd_addr[e]];
            end
        end
        // Blocking writes, after the reads above: nothing else reads mem, so
        // this is a nonblocking write in effect, without the Verilated
        // model's shadow copy of every written beat (a nonblocking write to
        // an unpacked array costs one per write port in every cycle) or the
        // generic bit insertion a packed array would take.
        /* verilator lint_off BLKSEQ */
        for (int i = 0; i < PORTS; i++) begin
            if (wr_en[i]) begin
                mem[wr_addr[i]] = wr_data[i*DATA_WIDTH +: DATA_WIDTH];
            end
        end
        /* verilator lint_on BLKSEQ */
    end

endmodule

`resetall
