// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// switch_pfc_ctl: eth_switch's 802.1Qbb PFC generation: one XON/XOFF state
// machine per (ingress port i, priority p), driven by ic(i,p), the bytes of
// frames that came in on i with priority p and still hold a slot.
//
//            ic(i,p) > PFC_XOFF: send XOFF, refresh := t + PFC_REFRESH
//   OFF  ------------------------------------------------------------->  ON
//   OFF  <-------------------------------------------------------------  ON
//            ic(i,p) <= PFC_XON: send XON
//   ON, t == refresh (and not the above): send XOFF, refresh := t + PFC_REFRESH
//
// Timing constants (the golden model relies on these):
//   Evaluated at the end of every cycle t on ic after all of cycle t's
//   updates (ic at the start of t with the changes of t applied, see
//   switch_decide), with the CTRL.pfc_tx, PFC_XOFF, PFC_XON and
//   PFC_REFRESH values of cycle t (a CSR write of cycle t is seen from
//   t+1). A frame to send is pushed (push[i][p]) in cycle t; the egress
//   queues it on port i, visible to its scheduler from t+1; pushes of one
//   port are queued in ascending p.
//   The refresh cycle is absolute (64 bits); PFC_REFRESH = 0 acts as 1.
//   With CTRL.pfc_tx clear nothing is evaluated: the states hold.
//
// Simulation speed: ic after the cycle's changes depends on m_axis_tready
// (a departure frees a slot), so Verilator evaluates this block at every
// eval; with CTRL.pfc_tx clear it does nothing.
//
// Reset (synchronous, active high) sets every state to OFF.

module switch_pfc_ctl #(
    // Switch ports.
    parameter int PORTS  = 4,
    // Priorities (queues) per port.
    parameter int QUEUES = 8,
    // Port number width.
    parameter int PORT_W = $clog2(PORTS),
    // Width of a frame length.
    parameter int LEN_W  = 16
) (
    input  wire logic                                 clk,
    input  wire logic                                 rst,

    input  wire logic [63:0]                          cycle,
    input  wire logic                                 enable,
    input  wire logic [31:0]                          xoff_bytes,
    input  wire logic [31:0]                          xon_bytes,
    input  wire logic [31:0]                          refresh_cycles,

    // ic at the start of the cycle and its changes (switch_decide): add
    // add_len[i] to ic(i, add_prio[i]) when add[i]; take sub_len[e] from
    // ic(sub_port[e], sub_prio[e]) when sub[e]
    input  wire logic [PORTS-1:0][QUEUES-1:0][31:0]   ic,
    input  wire logic [PORTS-1:0]                     add,
    input  wire logic [PORTS-1:0][2:0]                add_prio,
    input  wire logic [PORTS-1:0][LEN_W-1:0]          add_len,
    input  wire logic [PORTS-1:0]                     sub,
    input  wire logic [PORTS-1:0][PORT_W-1:0]         sub_port,
    input  wire logic [PORTS-1:0][2:0]                sub_prio,
    input  wire logic [PORTS-1:0][LEN_W-1:0]          sub_len,

    output logic      [PORTS-1:0][QUEUES-1:0]         push,
    output logic      [PORTS-1:0][QUEUES-1:0]         push_xoff
);

    initial begin
        if (PORTS < 1 || QUEUES != 8 || (1 << PORT_W) < PORTS) begin
            $error("switch_pfc_ctl: PORTS must be at least 1 and fit PORT_W bits, QUEUES 8 (instance %m)");
            $finish;
        end
    end

    logic [PORTS-1:0][QUEUES-1:0]        on_q;
    logic [PORTS-1:0][QUEUES-1:0][63:0]  refresh_q;

    // push with push_xoff (XOFF or refresh) restarts the refresh timer; on
    // follows the last frame pushed
    always_comb begin
        logic [QUEUES-1:0][31:0] row;   // ic(i, 0..QUEUES-1) after the cycle's changes

        push      = '0;
        push_xoff = '0;
        row       = '0;
        if (enable) begin
            for (int i = 0; i < PORTS; i++) begin
                row = ic[i];
                if (add[i]) begin
                    row[add_prio[i]] = row[add_prio[i]] + 32'(add_len[i]);
                end
                for (int e = 0; e < PORTS; e++) begin
                    if (sub[e] && sub_port[e] == PORT_W'(i)) begin
                        row[sub_prio[e]] = row[sub_prio[e]] - 32'(sub_len[e]);
                    end
                end
                for (int p = 0; p < QUEUES; p++) begin
                    if (!on_q[i][p]) begin
                        if (row[p] > xoff_bytes) begin
                            push[i][p]      = 1'b1;
                            push_xoff[i][p] = 1'b1;
                        end
                    end else if (row[p] <= xon_bytes) begin
                        push[i][p]      = 1'b1;
                        push_xoff[i][p] = 1'b0;
                    end else if (cycle == refresh_q[i][p]) begin
                        push[i][p]      = 1'b1;
                        push_xoff[i][p] = 1'b1;
                    end
                end
            end
        end
    end

    always_ff @(posedge clk) begin
        if (push != '0) begin
            for (int i = 0; i < PORTS; i++) begin
                for (int p = 0; p < QUEUES; p++) begin
                    if (push[i][p] && push_xoff[i][p]) begin
                        refresh_q[i][p] <= cycle + {32'd0, refresh_cycles == 32'd0 ? 32'd1 : refresh_cycles};
                    end
                end
            end
            on_q <= (on_q & ~push) | (push & push_xoff);
        end
        if (rst) begin
            on_q <= '0;
        end
    end


    // ---- Cover points (coverage build only: Verilator --coverage-user;
    // rtl/switch/README.md, "Cover points"): per priority, an XOFF that
    // starts a pause (OFF to ON) and an XON that ends one; XOFF refreshes.
    // One line each: Verilator merges the points of a generate loop. No
    // functions in them (switch_decide's). The signals below feed only the
    // properties and are untraced: the other builds drop them.
    /* verilator tracing_off */
    logic [QUEUES-1:0] cov_xoff;  // some ingress port's state of priority p turns ON
    logic [QUEUES-1:0] cov_xon;   // ... turns OFF
    always_comb begin : cov_signals
        cov_xoff = '0;
        cov_xon  = '0;
        for (int i = 0; i < PORTS; i++) begin
            cov_xoff = cov_xoff | (push[i] & push_xoff[i] & ~on_q[i]);
            cov_xon  = cov_xon | (push[i] & ~push_xoff[i] & on_q[i]);
        end
    end

    cov_pfc_xoff_prio0: cover property (@(posedge clk) disable iff (rst) cov_xoff[0]);
    cov_pfc_xon_prio0:  cover property (@(posedge clk) disable iff (rst) cov_xon[0]);
    cov_pfc_xoff_prio1: cover property (@(posedge clk) disable iff (rst) cov_xoff[1]);
    cov_pfc_xon_prio1:  cover property (@(posedge clk) disable iff (rst) cov_xon[1]);
    cov_pfc_xoff_prio2: cover property (@(posedge clk) disable iff (rst) cov_xoff[2]);
    cov_pfc_xon_prio2:  cover property (@(posedge clk) disable iff (rst) cov_xon[2]);
    cov_pfc_xoff_prio3: cover property (@(posedge clk) disable iff (rst) cov_xoff[3]);
    cov_pfc_xon_prio3:  cover property (@(posedge clk) disable iff (rst) cov_xon[3]);
    cov_pfc_xoff_prio4: cover property (@(posedge clk) disable iff (rst) cov_xoff[4]);
    cov_pfc_xon_prio4:  cover property (@(posedge clk) disable iff (rst) cov_xon[4]);
    cov_pfc_xoff_prio5: cover property (@(posedge clk) disable iff (rst) cov_xoff[5]);
    cov_pfc_xon_prio5:  cover property (@(posedge clk) disable iff (rst) cov_xon[5]);
    cov_pfc_xoff_prio6: cover property (@(posedge clk) disable iff (rst) cov_xoff[6]);
    cov_pfc_xon_prio6:  cover property (@(posedge clk) disable iff (rst) cov_xon[6]);
    cov_pfc_xoff_prio7: cover property (@(posedge clk) disable iff (rst) cov_xoff[7]);
    cov_pfc_xon_prio7:  cover property (@(posedge clk) disable iff (rst) cov_xon[7]);
    cov_pfc_xoff_refresh: cover property (@(posedge clk) disable iff (rst) (push & push_xoff & on_q) != '0);
    /* verilator tracing_on */

endmodule

`resetall
