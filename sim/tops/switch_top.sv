// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// switch_top: eth_switch (rtl/switch) in the harness port convention:
// PORTS AXI-Stream ports in and out, the CSR bus, idle.
//
//   s_axis[0..PORTS-1] --> eth_switch --> m_axis[0..PORTS-1]
//   csr_* <--> registers and counters (rtl/switch/README.md, CSR map)
//
// Timing: that of eth_switch (its header comment; LATENCY = 3 cycles from
// a frame's last beat in to its first beat out of an idle egress; CSR read
// latency 1 cycle: csr_re in t, csr_rvalid in t+1). This wrapper adds no
// register on any path. s_axis_tready is always 1.
//
// Every output is a register or a constant (no input reaches an output in
// the same cycle): switch_top.cpp declares it (Ports::clk_prev)
// and the simulation then evaluates only the rising edge. A change to
// eth_switch that adds such a path must drop that declaration.

module switch_top #(
    // AXI-Stream ports in and out.
    parameter int PORTS       = 4,
    // Width of each AXI-Stream data bus in bits: 64, 128, 256 or 512.
    parameter int DATA_WIDTH  = 64,
    // Byte lanes per port.
    parameter int KEEP_WIDTH  = DATA_WIDTH / 8,
    // Priority queues per egress port.
    parameter int QUEUES      = 8,
    // Largest frame the buffer holds, bytes (jumbo: path MTU 4096).
    parameter int MTU_MAX     = 4224,
    // Pool slots of MTU_MAX bytes.
    parameter int SLOTS       = 96,
    // Queued bytes per egress port.
    parameter int BUF_BYTES   = 32768,
    // MAC table entries.
    parameter int MAC_ENTRIES = 64
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
    output wire logic [PORTS-1:0]            m_axis_tuser,

    input  wire logic [15:0]                 csr_addr,
    input  wire logic [31:0]                 csr_wdata,
    input  wire logic                        csr_we,
    input  wire logic                        csr_re,
    output wire logic [31:0]                 csr_rdata,
    output wire logic                        csr_rvalid,

    output wire logic                        idle
);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("switch_top: KEEP_WIDTH must be DATA_WIDTH/8");
            $finish;
        end
    end

    eth_switch #(
        .PORTS      (PORTS),
        .DATA_WIDTH (DATA_WIDTH),
        .KEEP_WIDTH (KEEP_WIDTH),
        .QUEUES     (QUEUES),
        .MTU_MAX    (MTU_MAX),
        .SLOTS      (SLOTS),
        .BUF_BYTES  (BUF_BYTES),
        .MAC_ENTRIES(MAC_ENTRIES)
    ) u_switch (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (s_axis_tdata),
        .s_axis_tkeep (s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid),
        .s_axis_tready(s_axis_tready),
        .s_axis_tlast (s_axis_tlast),
        .s_axis_tuser (s_axis_tuser),
        .m_axis_tdata (m_axis_tdata),
        .m_axis_tkeep (m_axis_tkeep),
        .m_axis_tvalid(m_axis_tvalid),
        .m_axis_tready(m_axis_tready),
        .m_axis_tlast (m_axis_tlast),
        .m_axis_tuser (m_axis_tuser),
        .csr_addr     (csr_addr),
        .csr_wdata    (csr_wdata),
        .csr_we       (csr_we),
        .csr_re       (csr_re),
        .csr_rdata    (csr_rdata),
        .csr_rvalid   (csr_rvalid),
        .idle         (idle)
    );

endmodule

`resetall
