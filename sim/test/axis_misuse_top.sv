// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// axis_misuse_top: a deliberately broken top for the smoke test. It passes
// frames through one register stage, except that the first byte of a frame
// (the mode) makes it break a rule while that frame goes out:
//   1 tkeep not contiguous on the last beat     5 an assertion fails ($error)
//   2 tkeep zero                                6 partial tkeep without tlast
//   3 tvalid dropped while stalled              7 tdata changed while stalled
//   4 $finish                                   other: a correct pass-through
// The wrapper must turn each into ERROR kErrModel, never drop it silently.
//
// It also has the CSR bus of sim/csr.h, answering reads one cycle after
// csr_re:
//   0x0000 scratch (read/write)    0x0008 frames out so far (read only)
//   0x0004 0xC0FFEE01 (read only)  other  0xDEADBEEF
//   0x00F8 answers twice (misuse)  0x00FC never answers (misuse)

module axis_misuse_top #(
    // Width of tdata in bits; a multiple of 8, at least 32.
    parameter int DATA_WIDTH = 64,
    // Width of tkeep.
    parameter int KEEP_WIDTH = DATA_WIDTH / 8
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
    output wire logic [31:0]           csr_rdata,
    output wire logic                  csr_rvalid
);

    initial begin
        if (DATA_WIDTH < 32 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("axis_misuse_top: DATA_WIDTH must be a multiple of 8, at least 32");
            $finish;
        end
    end

    logic [DATA_WIDTH-1:0] data_q;
    logic [KEEP_WIDTH-1:0] keep_q;
    logic                  valid_q;
    logic                  last_q;
    logic                  user_q;
    logic [7:0]            mode_q;
    logic                  first_q;    // the next input beat starts a frame
    logic                  stalled_q;  // the output was stalled last cycle
    logic                  take;

    assign take = s_axis_tvalid[0] && s_axis_tready[0];

    always_ff @(posedge clk) begin
        if (take) begin
            data_q <= s_axis_tdata;
            keep_q <= s_axis_tkeep;
            last_q <= s_axis_tlast[0];
            user_q <= s_axis_tuser[0];
            if (first_q) mode_q <= s_axis_tdata[7:0];
        end
        if (rst) begin
            valid_q   <= 1'b0;
            first_q   <= 1'b1;
            stalled_q <= 1'b0;
        end else begin
            if (take) begin
                valid_q <= 1'b1;
                first_q <= s_axis_tlast[0];
            end else if (m_axis_tready[0]) begin
                valid_q <= 1'b0;
            end
            stalled_q <= m_axis_tvalid[0] && !m_axis_tready[0];
            if (valid_q && mode_q == 8'd4) $finish;
        end
    end

    // CSR registers.
    logic [31:0] scratch_q;
    logic [31:0] frames_q;
    logic [31:0] rdata_q;
    logic        rvalid_q;
    logic        echo1_q;
    logic        echo2_q;

    always_ff @(posedge clk) begin
        if (csr_we && csr_addr == 16'h0000) scratch_q <= csr_wdata;
        if (csr_re) begin
            case (csr_addr)
                16'h0000: rdata_q <= scratch_q;
                16'h0004: rdata_q <= 32'hC0FF_EE01;
                16'h0008: rdata_q <= frames_q;
                default:  rdata_q <= 32'hDEAD_BEEF;
            endcase
        end
        if (rst) begin
            frames_q <= '0;
            rvalid_q <= 1'b0;
            echo1_q  <= 1'b0;
            echo2_q  <= 1'b0;
        end else begin
            if (m_axis_tvalid[0] && m_axis_tready[0] && m_axis_tlast[0]) frames_q <= frames_q + 32'd1;
            rvalid_q <= csr_re && csr_addr != 16'h00FC;
            echo1_q  <= csr_re && csr_addr == 16'h00F8;
            echo2_q  <= echo1_q;
        end
    end

    assign csr_rdata  = rdata_q;
    assign csr_rvalid = rvalid_q || echo2_q;

    always_comb begin
        if (!rst) begin
            assert (!(valid_q && mode_q == 8'd5)) else $error("axis_misuse_top: mode 5 assertion");
        end
    end

    assign s_axis_tready[0] = !valid_q || m_axis_tready[0];
    assign m_axis_tvalid[0] = valid_q && !(mode_q == 8'd3 && stalled_q);
    assign m_axis_tlast[0]  = last_q && !(mode_q == 8'd6);
    assign m_axis_tuser[0]  = user_q;
    assign m_axis_tdata     = (mode_q == 8'd7 && stalled_q) ? ~data_q : data_q;
    assign m_axis_tkeep     = (mode_q == 8'd1 && last_q) ? {{(KEEP_WIDTH - 3){1'b0}}, 3'b101} :
                              (mode_q == 8'd2)           ? '0 :
                              (mode_q == 8'd6)           ? {{(KEEP_WIDTH - 1){1'b0}}, 1'b1} :
                                                           keep_q;

endmodule

`resetall
