// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// nic_pause: the transmitter's pause timers, one per priority, loaded by the
// PFC (IEEE 802.1Qbb clause 36; 802.3 Annex 31D) and PAUSE (802.3 Annex
// 31B) frames nic_rx_parse decides. The rule is the switch's
// (rtl/switch/README.md "PFC", Pause; rtl/nic/README.md "PFC"):
//   - a frame decided at D (load high in D) sets, for every priority p in
//     mask, p's timer to N = ceil(quanta[p] * 512 / DATA_WIDTH) (a quantum is
//     512 bit times; exact for DATA_WIDTH 64, 128, 256, 512). A running
//     timer is replaced, shorter or not.
//   - p is paused at the transmit decisions of cycles D+1 .. D+N: paused[p]
//     is high in exactly those cycles (N = 0 resumes from D+1).
//   - cycles_inc[p] is paused[p] of the cycle before (the paused-cycles
//     counter counts a cycle late, as the engine's counters do).
//   - idle: no timer running and no count left to make.

module nic_pause #(
    parameter int DATA_WIDTH = 64
) (
    input  wire logic             clk,
    input  wire logic             rst,
    input  wire logic             load,
    input  wire logic [7:0]       mask,
    input  wire logic [7:0][15:0] quanta,
    output logic      [7:0]       paused,
    output logic      [7:0]       cycles_inc,
    output logic                  idle
);

// 65535 quanta at 64 bits are 524280 cycles
localparam int TW = 20;

// N for a pause time of q quanta
function automatic logic [TW-1:0] pause_cycles(input logic [15:0] q);
    return TW'((32'(q) * 32'd512 + 32'(DATA_WIDTH) - 32'd1) / 32'(DATA_WIDTH));
endfunction

logic [7:0][TW-1:0] timer_q;   // decisions left to pause, this cycle's included
logic [7:0]         was_q;     // the timer ran in the cycle before

always_comb begin
    for (int p = 0; p < 8; p++) begin
        paused[p] = timer_q[p] != '0;
    end
    cycles_inc = was_q;
    idle = timer_q == '0 && was_q == '0;
end

always_ff @(posedge clk) begin
    for (int p = 0; p < 8; p++) begin
        was_q[p] <= timer_q[p] != '0;
        if (timer_q[p] != '0) timer_q[p] <= timer_q[p] - 1'b1;
        if (load && mask[p]) timer_q[p] <= pause_cycles(quanta[p]);
    end
    if (rst) begin
        timer_q <= '0;
        was_q   <= '0;
    end
end

endmodule

`resetall
