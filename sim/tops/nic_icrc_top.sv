// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_icrc_top: the NIC's two ICRC units side by side, in the harness port convention.
//
//   port 0: s_axis[0] -> icrc_insert -> m_axis[0]   (transmit: append the ICRC)
//   port 1: s_axis[1] -> icrc_check  -> m_axis[1]   (receive: check and strip it)
//
// Timing: that of the units (see their header comments); this wrapper adds
// no register on the data path.
//
// CSR map (read only, 32-bit wrapping counters; writes are ignored; read
// latency 1 cycle: csr_re in cycle t, csr_rvalid and csr_rdata in t+1;
// mirrored by harness/engine, top "nic_icrc"):
//   0x00 insert.roce      RoCEv2 frames that got an ICRC
//   0x04 insert.other     other frames passed through
//   0x10 check.roce       RoCEv2 frames checked (bad ones included)
//   0x14 check.other      other frames passed through
//   0x18 check.bad_icrc   RoCEv2 frames whose ICRC was wrong or missing
//   other addresses read 0

module nic_icrc_top #(
    // width of each AXI-Stream data bus in bits: a multiple of 64, 64 to 512
    parameter int DATA_WIDTH = 64,
    // byte lanes per port
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire logic [2*DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [2*KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic [1:0]              s_axis_tvalid,
    output wire logic [1:0]              s_axis_tready,
    input  wire logic [1:0]              s_axis_tlast,
    input  wire logic [1:0]              s_axis_tuser,

    output wire logic [2*DATA_WIDTH-1:0] m_axis_tdata,
    output wire logic [2*KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire logic [1:0]              m_axis_tvalid,
    input  wire logic [1:0]              m_axis_tready,
    output wire logic [1:0]              m_axis_tlast,
    output wire logic [1:0]              m_axis_tuser,

    input  wire logic [15:0]             csr_addr,
    input  wire logic [31:0]             csr_wdata,
    input  wire logic                    csr_we,
    input  wire logic                    csr_re,
    output logic      [31:0]             csr_rdata,
    output logic                         csr_rvalid
);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("nic_icrc_top: KEEP_WIDTH must be DATA_WIDTH/8");
            $finish;
        end
    end

    logic [31:0] ins_roce, ins_other, chk_roce, chk_other, chk_bad;

    icrc_insert #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH),
        .USER_WIDTH(1)
    ) u_insert (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (s_axis_tdata[0 +: DATA_WIDTH]),
        .s_axis_tkeep (s_axis_tkeep[0 +: KEEP_WIDTH]),
        .s_axis_tvalid(s_axis_tvalid[0]),
        .s_axis_tready(s_axis_tready[0]),
        .s_axis_tlast (s_axis_tlast[0]),
        .s_axis_tuser (s_axis_tuser[0 +: 1]),
        .m_axis_tdata (m_axis_tdata[0 +: DATA_WIDTH]),
        .m_axis_tkeep (m_axis_tkeep[0 +: KEEP_WIDTH]),
        .m_axis_tvalid(m_axis_tvalid[0]),
        .m_axis_tready(m_axis_tready[0]),
        .m_axis_tlast (m_axis_tlast[0]),
        .m_axis_tuser (m_axis_tuser[0 +: 1]),
        .stat_roce    (ins_roce),
        .stat_other   (ins_other)
    );

    icrc_check #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH),
        .USER_WIDTH(1)
    ) u_check (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (s_axis_tdata[DATA_WIDTH +: DATA_WIDTH]),
        .s_axis_tkeep (s_axis_tkeep[KEEP_WIDTH +: KEEP_WIDTH]),
        .s_axis_tvalid(s_axis_tvalid[1]),
        .s_axis_tready(s_axis_tready[1]),
        .s_axis_tlast (s_axis_tlast[1]),
        .s_axis_tuser (s_axis_tuser[1 +: 1]),
        .m_axis_tdata (m_axis_tdata[DATA_WIDTH +: DATA_WIDTH]),
        .m_axis_tkeep (m_axis_tkeep[KEEP_WIDTH +: KEEP_WIDTH]),
        .m_axis_tvalid(m_axis_tvalid[1]),
        .m_axis_tready(m_axis_tready[1]),
        .m_axis_tlast (m_axis_tlast[1]),
        .m_axis_tuser (m_axis_tuser[1 +: 1]),
        .stat_roce    (chk_roce),
        .stat_bad_icrc(chk_bad),
        .stat_other   (chk_other)
    );

    // One-cycle read port; writes have nothing to change.
    logic [31:0] rdata_d;
    always_comb begin
        rdata_d = 32'd0;
        unique case (csr_addr)
            16'h0000: rdata_d = ins_roce;
            16'h0004: rdata_d = ins_other;
            16'h0010: rdata_d = chk_roce;
            16'h0014: rdata_d = chk_other;
            16'h0018: rdata_d = chk_bad;
            default:  rdata_d = 32'd0;
        endcase
    end

    always_ff @(posedge clk) begin
        if (rst) begin
            csr_rvalid <= 1'b0;
        end else begin
            csr_rvalid <= csr_re;
        end
        csr_rdata <= rdata_d;
    end

    // csr_wdata and csr_we are part of the bus; nothing here is writable.
    logic unused_csr;
    assign unused_csr = ^{csr_wdata, csr_we};

endmodule

`resetall
