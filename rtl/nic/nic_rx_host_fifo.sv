// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// nic_rx_host_fifo: frames written beat by beat, kept or dropped at their last beat, then streamed out whole.
//
//   wr_* (every frame, as it arrives) --> nic_rx_store --> out register --> m_axis
//                          wr_keep on the last beat ^ decides
//
// Every beat of every frame is written (tdata, tkeep, tlast); with the last
// beat the caller says whether the frame is one to send (wr_keep). A kept
// frame that fit leaves on m_axis; a dropped one, or one that did not fit
// (the FIFO held DEPTH_BYTES of frames the output has not taken), leaves no
// trace. wr_fit tells the caller, with the last beat, whether a kept frame
// made it (nic_rx_parse counts host_rx_overflow from it).
//
// Timing: a frame whose last beat is written in cycle t is offered on m_axis
// from t+1 when the output is free (commit and first read in the same cycle:
// the store's read port passes the word written that cycle through), else
// right after the frames before it; then one beat per cycle while
// m_axis_tready is high. m_axis_tvalid is a register. tuser is always 0.

module nic_rx_host_fifo #(
    // width of the AXI-Stream data bus in bits
    parameter int DATA_WIDTH = 64,
    // byte lanes
    parameter int KEEP_WIDTH = DATA_WIDTH/8,
    // beats the FIFO holds: a power of two
    parameter int DEPTH = 256
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic                  wr_valid,
    input  wire logic                  wr_first,
    input  wire logic                  wr_last,
    input  wire logic [DATA_WIDTH-1:0] wr_data,
    input  wire logic [KEEP_WIDTH-1:0] wr_tkeep,
    input  wire logic                  wr_keep,
    output logic                       wr_fit,

    output logic [DATA_WIDTH-1:0]      m_axis_tdata,
    output logic [KEEP_WIDTH-1:0]      m_axis_tkeep,
    output logic                       m_axis_tvalid,
    input  wire logic                  m_axis_tready,
    output logic                       m_axis_tlast,
    output logic                       m_axis_tuser,

    // nothing stored, nothing offered
    output logic                       empty
);

localparam int AW = $clog2(DEPTH);
localparam int WW = DATA_WIDTH + KEEP_WIDTH + 1;

logic [AW:0]    rd_ptr_q, rd_ptr_d;   // next word to load into the output
logic           ov_q, ov_d;           // the output holds a beat
logic [AW:0]    commit_next;
logic [AW:0]    free_ptr;
logic [AW-1:0]  rd_addr;
logic [WW-1:0]  rd_data;
logic           load;
logic [AW:0]    unused_start, unused_used;

nic_rx_store #(
    .WIDTH(WW),
    .WORDS(DEPTH),
    .AW(AW)
) u_store (
    .clk(clk),
    .rst(rst),
    .wr_valid(wr_valid),
    .wr_first(wr_first),
    .wr_last(wr_last),
    .wr_data({wr_last, wr_tkeep, wr_data}),
    .wr_keep(wr_keep),
    .wr_fit(wr_fit),
    .wr_start(unused_start),
    .used(unused_used),
    .commit_next(commit_next),
    .free_ptr(free_ptr),
    .rd_addr(rd_addr),
    .rd_data(rd_data)
);

always_comb begin
    // load the next committed word when the output is free or being taken
    load     = (commit_next != rd_ptr_q) && (!ov_q || m_axis_tready);
    rd_ptr_d = rd_ptr_q + (AW+1)'(load);
    ov_d     = load || (ov_q && !m_axis_tready);
    // the read port is a register: re-read the word on offer while it waits
    rd_addr  = load ? rd_ptr_q[AW-1:0] : rd_ptr_q[AW-1:0] - AW'(1);
    // the word on offer is still in use
    free_ptr = rd_ptr_q - (AW+1)'(ov_q);

    {m_axis_tlast, m_axis_tkeep, m_axis_tdata} = rd_data;
    m_axis_tvalid = ov_q;
    m_axis_tuser  = 1'b0;
    empty         = !ov_q && commit_next == rd_ptr_q;
end

always_ff @(posedge clk) begin
    rd_ptr_q <= rd_ptr_d;
    ov_q     <= ov_d;
    if (rst) begin
        rd_ptr_q <= '0;
        ov_q     <= 1'b0;
    end
end

endmodule

`resetall
