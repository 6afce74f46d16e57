// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_top: model top of the RoCEv2 NIC (rtl/nic/roce_nic.sv) in the sim/ port convention.
//
//   port  in                          out
//   0     frames from the link        frames to the link
//   1     command records (64 B)      completion records (32 B)
//   2     frames the host OS sends    received frames for the host OS
//
// Plus the CSR bus (roce_nic's map, read latency 1), the DMA port (payload
// read for sending, written on receive) and idle. DMA_LATENCY must equal
// the model's --dma-read-latency (default 64). Timing: roce_nic.sv header.

module nic_top #(
    // roce_nic's parameters (see its header); the in2 FIFO has RX_BUF_BYTES
    parameter int DATA_WIDTH   = 64,
    parameter int KEEP_WIDTH   = DATA_WIDTH / 8,
    parameter int QPS          = 16,
    parameter int MRS          = 16,
    parameter int SQ_DEPTH     = 32,
    parameter int RQ_DEPTH     = 32,
    parameter int MAX_READS    = 4,
    parameter int RX_BUF_BYTES = 16384,
    // the DMA port's read latency: the model's --dma-read-latency
    parameter int DMA_LATENCY  = 64
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire logic [3*DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [3*KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic [2:0]              s_axis_tvalid,
    output logic      [2:0]              s_axis_tready,
    input  wire logic [2:0]              s_axis_tlast,
    input  wire logic [2:0]              s_axis_tuser,

    output logic      [3*DATA_WIDTH-1:0] m_axis_tdata,
    output logic      [3*KEEP_WIDTH-1:0] m_axis_tkeep,
    output logic      [2:0]              m_axis_tvalid,
    input  wire logic [2:0]              m_axis_tready,
    output logic      [2:0]              m_axis_tlast,
    output logic      [2:0]              m_axis_tuser,

    input  wire logic [15:0]             csr_addr,
    input  wire logic [31:0]             csr_wdata,
    input  wire logic                    csr_we,
    input  wire logic                    csr_re,
    output logic      [31:0]             csr_rdata,
    output logic                         csr_rvalid,

    output logic                         dma_rd_req_valid,
    input  wire logic                    dma_rd_req_ready,
    output logic      [63:0]             dma_rd_req_addr,
    output logic      [12:0]             dma_rd_req_len,
    output logic      [7:0]              dma_rd_req_tag,
    input  wire logic [DATA_WIDTH-1:0]   dma_rd_resp_data,
    input  wire logic [KEEP_WIDTH-1:0]   dma_rd_resp_keep,
    input  wire logic                    dma_rd_resp_valid,
    output logic                         dma_rd_resp_ready,
    input  wire logic                    dma_rd_resp_last,
    input  wire logic [7:0]              dma_rd_resp_tag,
    output logic                         dma_wr_valid,
    input  wire logic                    dma_wr_ready,
    output logic      [63:0]             dma_wr_addr,
    output logic      [DATA_WIDTH-1:0]   dma_wr_data,
    output logic      [KEEP_WIDTH-1:0]   dma_wr_keep,
    output logic                         dma_wr_last,

    output logic                         idle
);

roce_nic #(
    .DATA_WIDTH(DATA_WIDTH), .KEEP_WIDTH(KEEP_WIDTH), .QPS(QPS), .MRS(MRS), .SQ_DEPTH(SQ_DEPTH),
    .RQ_DEPTH(RQ_DEPTH), .MAX_READS(MAX_READS), .RX_BUF_BYTES(RX_BUF_BYTES), .HOST_BUF_BYTES(RX_BUF_BYTES),
    .DMA_LATENCY(DMA_LATENCY)
) u_nic (
    .clk(clk), .rst(rst),
    .s_net_tdata(s_axis_tdata[0 +: DATA_WIDTH]), .s_net_tkeep(s_axis_tkeep[0 +: KEEP_WIDTH]),
    .s_net_tvalid(s_axis_tvalid[0]), .s_net_tready(s_axis_tready[0]), .s_net_tlast(s_axis_tlast[0]),
    .s_net_tuser(s_axis_tuser[0]),
    .s_cmd_tdata(s_axis_tdata[DATA_WIDTH +: DATA_WIDTH]), .s_cmd_tkeep(s_axis_tkeep[KEEP_WIDTH +: KEEP_WIDTH]),
    .s_cmd_tvalid(s_axis_tvalid[1]), .s_cmd_tready(s_axis_tready[1]), .s_cmd_tlast(s_axis_tlast[1]),
    .s_cmd_tuser(s_axis_tuser[1]),
    .s_host_tdata(s_axis_tdata[2*DATA_WIDTH +: DATA_WIDTH]),
    .s_host_tkeep(s_axis_tkeep[2*KEEP_WIDTH +: KEEP_WIDTH]),
    .s_host_tvalid(s_axis_tvalid[2]), .s_host_tready(s_axis_tready[2]), .s_host_tlast(s_axis_tlast[2]),
    .s_host_tuser(s_axis_tuser[2]),
    .m_net_tdata(m_axis_tdata[0 +: DATA_WIDTH]), .m_net_tkeep(m_axis_tkeep[0 +: KEEP_WIDTH]),
    .m_net_tvalid(m_axis_tvalid[0]), .m_net_tready(m_axis_tready[0]), .m_net_tlast(m_axis_tlast[0]),
    .m_net_tuser(m_axis_tuser[0]),
    .m_cq_tdata(m_axis_tdata[DATA_WIDTH +: DATA_WIDTH]), .m_cq_tkeep(m_axis_tkeep[KEEP_WIDTH +: KEEP_WIDTH]),
    .m_cq_tvalid(m_axis_tvalid[1]), .m_cq_tready(m_axis_tready[1]), .m_cq_tlast(m_axis_tlast[1]),
    .m_cq_tuser(m_axis_tuser[1]),
    .m_host_tdata(m_axis_tdata[2*DATA_WIDTH +: DATA_WIDTH]),
    .m_host_tkeep(m_axis_tkeep[2*KEEP_WIDTH +: KEEP_WIDTH]),
    .m_host_tvalid(m_axis_tvalid[2]), .m_host_tready(m_axis_tready[2]), .m_host_tlast(m_axis_tlast[2]),
    .m_host_tuser(m_axis_tuser[2]),
    .csr_addr(csr_addr), .csr_wdata(csr_wdata), .csr_we(csr_we), .csr_re(csr_re), .csr_rdata(csr_rdata),
    .csr_rvalid(csr_rvalid),
    .dma_rd_req_valid(dma_rd_req_valid), .dma_rd_req_ready(dma_rd_req_ready), .dma_rd_req_addr(dma_rd_req_addr),
    .dma_rd_req_len(dma_rd_req_len), .dma_rd_req_tag(dma_rd_req_tag), .dma_rd_resp_data(dma_rd_resp_data),
    .dma_rd_resp_keep(dma_rd_resp_keep), .dma_rd_resp_valid(dma_rd_resp_valid),
    .dma_rd_resp_ready(dma_rd_resp_ready), .dma_rd_resp_last(dma_rd_resp_last),
    .dma_rd_resp_tag(dma_rd_resp_tag),
    .dma_wr_valid(dma_wr_valid), .dma_wr_ready(dma_wr_ready), .dma_wr_addr(dma_wr_addr),
    .dma_wr_data(dma_wr_data), .dma_wr_keep(dma_wr_keep), .dma_wr_last(dma_wr_last),
    .idle(idle)
);

endmodule

`resetall
