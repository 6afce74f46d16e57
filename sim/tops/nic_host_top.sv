// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_host_top: a test top for the NIC's host interface blocks: command
// records on in0 go through nic_cmd, and every post comes straight back as
// a completion record through nic_cq on out0, so the harness can check the
// record formats and the timing of both blocks (rtl/nic/README.md "Host
// records", "Timing") against golden/nic's codec:
//
//   post at P = L+1 (L: the command's last beat) -> completion written at P
//   -> first beat on out0 at P+1 = L+2 when the queue holds nothing older.
//
// The completion echoes the command: kind send/receive, op, status 0, the
// immediate flag for SEND/WRITE with immediate, QPN, ID, bytes = length,
// immediate. CSR (read latency 1): 0x0 cmd_bad, 0x4 cq_overflow, 0x8 posts;
// 32-bit counters, read only.

module nic_host_top #(
    parameter int DATA_WIDTH = 64,
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // Completion queue records (small, so a test can overflow it).
    parameter int CQ_DEPTH   = 16
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

    input  wire logic [15:0]           csr_addr,
    input  wire logic [31:0]           csr_wdata,
    input  wire logic                  csr_we,
    input  wire logic                  csr_re,
    output logic      [31:0]           csr_rdata,
    output logic                       csr_rvalid
);

    logic        post_valid, post_recv, bad, overflow;
    logic [2:0]  post_op;
    logic [23:0] post_qpn;
    logic [63:0] post_id, post_laddr, post_raddr;
    logic [31:0] post_len, post_rkey, post_imm;

    nic_cmd #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH)
    ) u_cmd (
        .clk          (clk),
        .rst          (rst),
        .s_axis_tdata (s_axis_tdata),
        .s_axis_tkeep (s_axis_tkeep),
        .s_axis_tvalid(s_axis_tvalid[0]),
        .s_axis_tready(s_axis_tready[0]),
        .s_axis_tlast (s_axis_tlast[0]),
        .s_axis_tuser (s_axis_tuser[0]),
        .post_valid   (post_valid),
        .post_recv    (post_recv),
        .post_op      (post_op),
        .post_qpn     (post_qpn),
        .post_id      (post_id),
        .post_laddr   (post_laddr),
        .post_len     (post_len),
        .post_rkey    (post_rkey),
        .post_raddr   (post_raddr),
        .post_imm     (post_imm),
        .bad          (bad)
    );

    nic_cq #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH),
        .DEPTH     (CQ_DEPTH)
    ) u_cq (
        .clk          (clk),
        .rst          (rst),
        .wr_valid     (post_valid),
        .wr_recv      (post_recv),
        .wr_op        (post_recv ? nic_pkg::WR_SEND : post_op),
        .wr_status    (8'd0),
        .wr_has_imm   (!post_recv && (post_op == nic_pkg::WR_SEND_IMM || post_op == nic_pkg::WR_WRITE_IMM)),
        .wr_qpn       (post_qpn),
        .wr_id        (post_id),
        .wr_bytes     (post_len),
        .wr_imm       (post_imm),
        .overflow     (overflow),
        .m_axis_tdata (m_axis_tdata),
        .m_axis_tkeep (m_axis_tkeep),
        .m_axis_tvalid(m_axis_tvalid[0]),
        .m_axis_tready(m_axis_tready[0]),
        .m_axis_tlast (m_axis_tlast[0]),
        .m_axis_tuser (m_axis_tuser[0])
    );

    logic [31:0] n_bad, n_overflow, n_posts;

    always_ff @(posedge clk) begin
        n_bad      <= n_bad + {31'd0, bad};
        n_overflow <= n_overflow + {31'd0, overflow};
        n_posts    <= n_posts + {31'd0, post_valid};
        csr_rvalid <= csr_re;
        unique case (csr_addr)
            16'h0000: csr_rdata <= n_bad;
            16'h0004: csr_rdata <= n_overflow;
            16'h0008: csr_rdata <= n_posts;
            default:  csr_rdata <= 32'd0;
        endcase
        if (rst) begin
            n_bad      <= '0;
            n_overflow <= '0;
            n_posts    <= '0;
            csr_rvalid <= 1'b0;
        end
    end

    // The echo does not need these fields; the NIC's engine will.
    logic unused;
    assign unused = ^{post_laddr, post_rkey, post_raddr, csr_wdata, csr_we};

endmodule

`resetall
