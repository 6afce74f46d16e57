// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// switch_mac_table: eth_switch's direct-mapped MAC address table, with one
// lookup and one learn port per switch port.
//
//   MAC address as a 48-bit big-endian number (byte 0 in bits 47:40):
//   +--------+--------+--------+--------+--------+--------+
//   | byte 0 | byte 1 | byte 2 | byte 3 | byte 4 | byte 5 |   bit 40 = group
//   +--------+--------+--------+--------+--------+--------+
//
//   h     = mac[47:32] ^ mac[31:16] ^ mac[15:0]
//   index = (h ^ (h >> 8)) mod MAC_ENTRIES
//   entry = { valid, mac, port, stamp }       one per index
//
// Timing constants (eth_switch relies on these):
//   Lookups are combinational on the table as it was at the start of the
//   cycle: no learn of the same cycle is seen (README: "every lookup at
//   cycle D sees the table as it was before any learn of cycle D").
//   A lookup hits when the entry is valid, holds the same MAC and is live:
//   age_cycles == 0 or cycle - stamp < age_cycles (64-bit cycle count).
//   Learns of cycle D are written at the end of D in ascending port order:
//   a later port's learn to the same index wins. Every learn is written
//   (newest wins on a collision); the stamp is the cycle of the learn.
//   Only ports with lookup_valid look up (the others answer a miss): the
//   table is read only in the cycles a frame is decided.
//
// Reset (synchronous, active high) clears the valid bits only.

module switch_mac_table #(
    // Switch ports (lookup and learn ports).
    parameter int PORTS       = 4,
    // Entries; a power of two, 2 to 256.
    parameter int MAC_ENTRIES = 64,
    // Port number width.
    parameter int PORT_W      = $clog2(PORTS)
) (
    input  wire logic                          clk,
    input  wire logic                          rst,

    input  wire logic [63:0]                   cycle,
    input  wire logic [31:0]                   age_cycles,

    input  wire logic [PORTS-1:0]              lookup_valid,
    input  wire logic [PORTS-1:0][47:0]        lookup_mac,
    output logic      [PORTS-1:0]              lookup_hit,
    output logic      [PORTS-1:0][PORT_W-1:0]  lookup_port,

    input  wire logic [PORTS-1:0]              learn_valid,
    input  wire logic [PORTS-1:0][47:0]        learn_mac
);

    localparam int IDX_W = $clog2(MAC_ENTRIES);

    initial begin
        if (MAC_ENTRIES < 2 || MAC_ENTRIES > 256 || (1 << IDX_W) != MAC_ENTRIES) begin
            $error("switch_mac_table: MAC_ENTRIES must be a power of two, 2 to 256 (instance %m)");
            $finish;
        end
        if (PORTS < 2 || (1 << PORT_W) < PORTS) begin
            $error("switch_mac_table: PORTS must be at least 2 and fit PORT_W bits (instance %m)");
            $finish;
        end
    end

    function automatic logic [IDX_W-1:0] mac_index(input logic [47:0] mac);
        logic [15:0] h;
        h = mac[47:32] ^ mac[31:16] ^ mac[15:0];
        h = h ^ (h >> 8);
        return h[IDX_W-1:0];
    endfunction

    // Packed: in the Verilated model a nonblocking write to an unpacked
    // array costs bookkeeping in every cycle, used or not; one vector per
    // field, as a write of a whole 115-bit entry takes a slow generic insert.
    logic [MAC_ENTRIES-1:0]              valid_q;
    logic [MAC_ENTRIES-1:0][PORT_W-1:0]  port_q;
    /* verilator tracing_off */
    logic [MAC_ENTRIES-1:0][47:0]        mac_q;     // (too wide to trace usefully)
    logic [MAC_ENTRIES-1:0][63:0]        stamp_q;
    /* verilator tracing_on */

    always_comb begin
        logic [IDX_W-1:0] idx;
        idx = '0;
        for (int i = 0; i < PORTS; i++) begin
            lookup_hit[i]  = 1'b0;
            lookup_port[i] = '0;
            if (lookup_valid[i]) begin
                idx            = mac_index(lookup_mac[i]);
                lookup_port[i] = port_q[idx];
                lookup_hit[i]  = valid_q[idx] && (mac_q[idx] == lookup_mac[i]) &&
                                 (age_cycles == 32'd0 || (cycle - stamp_q[idx]) < {32'd0, age_cycles});
            end
        end
    end

    always_ff @(posedge clk) begin
        logic [IDX_W-1:0] idx;
        // Ascending port order: the last nonblocking write to an index wins.
        for (int i = 0; i < PORTS; i++) begin
            if (learn_valid[i]) begin
                idx           = mac_index(learn_mac[i]);
                mac_q[idx]   <= learn_mac[i];
                port_q[idx]  <= PORT_W'(i);
                stamp_q[idx] <= cycle;
                valid_q[idx] <= 1'b1;
            end
        end
        if (rst) begin
            valid_q <= '0;
        end
    end

endmodule

`resetall
