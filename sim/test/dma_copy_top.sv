// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// dma_copy_top: a test top for the DMA port of sim/dma.h. Each input frame
// is a copy command; the top reads the source by DMA, writes the bytes to
// the destination by DMA, then sends the command back as its output frame.
//
// Command (input frame, at least 24 bytes, little-endian; extra bytes are
// ignored, a shorter frame keeps the previous command's missing bytes):
//
//    0                   1                   2                   3
//    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |                   source address (bytes 0..7)                 |
//   +                                                               +
//   |                                                               |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |                destination address (bytes 8..15)              |
//   +                                                               +
//   |                                                               |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |        length (16..17)        |  flags (18)   | reserved ...  |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//   |                     ... reserved (19..23)                     |
//   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
//
//   length: bytes to copy; its low 13 bits go to dma_rd_req_len unchecked,
//           so 0 or more than 4096 breaks the port (the misuse test).
//   flags bit 0: clear lane 0 of dma_wr_keep on every write beat, which
//           breaks the port too.
// The output frame is the first 24 bytes of the command, unchanged.
//
// Commands are read in order, as soon as they are in (up to DEPTH inside),
// so several reads are outstanding; the response beats go straight out as
// write beats (dma_wr_* = dma_rd_resp_*, dma_rd_resp_ready = dma_wr_ready),
// one command at a time.
//
// Timing constants:
//   - A command whose last input beat is taken in cycle t offers its read
//     request from cycle t+1 if no older request waits.
//   - Write beats move in the cycles their response beats do.
//   - The output frame's first beat is offered in the cycle after the
//     write's last beat is taken; the next command's write beats can move
//     from the cycle after the output frame's last beat.
//   So on an idle top with DMA read latency L and no backpressure, a copy of
//   one beat sends its output frame's first beat in cycle t + L + 2.
//   - s_axis_tready is low only while DEPTH commands are inside; idle is
//     high when no command is inside or half taken.

module dma_copy_top #(
    // Width of tdata and of the DMA data in bits; a multiple of 8.
    parameter int DATA_WIDTH = 64,
    // Width of tkeep and of the DMA keep.
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // Commands inside at most; a power of two, 2..128.
    parameter int DEPTH      = 32
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic [0:0]            s_axis_tvalid,
    output wire logic [0:0]            s_axis_tready,
    input  wire logic [0:0]            s_axis_tlast,
    input  wire logic [0:0]            s_axis_tuser,

    output      logic [DATA_WIDTH-1:0] m_axis_tdata,
    output wire logic [KEEP_WIDTH-1:0] m_axis_tkeep,
    output wire logic [0:0]            m_axis_tvalid,
    input  wire logic [0:0]            m_axis_tready,
    output wire logic [0:0]            m_axis_tlast,
    output wire logic [0:0]            m_axis_tuser,

    output wire logic                  dma_rd_req_valid,
    input  wire logic                  dma_rd_req_ready,
    output wire logic [63:0]           dma_rd_req_addr,
    output wire logic [12:0]           dma_rd_req_len,
    output wire logic [7:0]            dma_rd_req_tag,

    input  wire logic [DATA_WIDTH-1:0] dma_rd_resp_data,
    input  wire logic [KEEP_WIDTH-1:0] dma_rd_resp_keep,
    input  wire logic                  dma_rd_resp_valid,
    output wire logic                  dma_rd_resp_ready,
    input  wire logic                  dma_rd_resp_last,
    input  wire logic [7:0]            dma_rd_resp_tag,

    output wire logic                  dma_wr_valid,
    input  wire logic                  dma_wr_ready,
    output wire logic [63:0]           dma_wr_addr,
    output wire logic [DATA_WIDTH-1:0] dma_wr_data,
    output wire logic [KEEP_WIDTH-1:0] dma_wr_keep,
    output wire logic                  dma_wr_last,

    output wire logic                  idle
);

    initial begin
        if (DATA_WIDTH % 8 != 0 || KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("dma_copy_top: DATA_WIDTH must be a multiple of 8 and KEEP_WIDTH = DATA_WIDTH/8");
            $finish;
        end
        if (DEPTH < 2 || DEPTH > 128 || (DEPTH & (DEPTH - 1)) != 0) begin
            $error("dma_copy_top: DEPTH must be a power of two, 2..128");
            $finish;
        end
    end

    localparam int CMD_BYTES  = 24;
    // Beats of a command frame, and the valid lanes of its last beat.
    localparam int BEATS      = (CMD_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int LAST_BYTES = CMD_BYTES - (BEATS - 1) * KEEP_WIDTH;
    localparam int BEAT_W     = $clog2(BEATS + 1);
    localparam int IDX_W      = $clog2(DEPTH);

    localparam logic [KEEP_WIDTH-1:0] LAST_KEEP = {KEEP_WIDTH{1'b1}} >> (KEEP_WIDTH - LAST_BYTES);

    // The command, byte 0 in bits [7:0].
    typedef struct packed {
        logic [39:0] reserved;
        logic [7:0]  flags;
        logic [15:0] len;
        logic [63:0] dst;
        logic [63:0] src;
    } cmd_t;

    cmd_t ring_q [DEPTH];  // the commands inside, by counter modulo DEPTH
    // Commands taken, read (request taken) and completed (output sent);
    // modulo 256, so the read counter doubles as the DMA tag.
    logic [7:0]        in_q;
    logic [7:0]        req_q;
    logic [7:0]        cpl_q;
    cmd_t              cmd_q;       // the command frame being taken
    cmd_t              cmd_d;
    logic [BEAT_W-1:0] in_beat_q;   // its beats taken so far, saturating at BEATS
    logic              echo_q;      // sending the output frame of command cpl_q
    logic [BEAT_W-1:0] out_beat_q;  // beat of it on m_axis

    cmd_t              req_cmd;
    cmd_t              cpl_cmd;
    logic              full;
    logic              take;
    logic              wrote;
    logic              sent;

    assign req_cmd = ring_q[req_q[IDX_W-1:0]];
    assign cpl_cmd = ring_q[cpl_q[IDX_W-1:0]];
    assign full    = (in_q - cpl_q) == 8'(DEPTH);
    assign take    = s_axis_tvalid[0] && s_axis_tready[0];
    assign wrote   = dma_wr_valid && dma_wr_ready && dma_wr_last;
    assign sent    = m_axis_tvalid[0] && m_axis_tready[0] && m_axis_tlast[0];

    // Byte i of a command frame is lane i % KEEP_WIDTH of beat i / KEEP_WIDTH.
    always_comb begin
        cmd_d = cmd_q;
        for (int i = 0; i < CMD_BYTES; i++) begin
            if (int'(in_beat_q) == i / KEEP_WIDTH) cmd_d[8*i +: 8] = s_axis_tdata[8*(i % KEEP_WIDTH) +: 8];
        end
    end

    always_comb begin
        m_axis_tdata = '0;
        for (int i = 0; i < CMD_BYTES; i++) begin
            if (int'(out_beat_q) == i / KEEP_WIDTH) m_axis_tdata[8*(i % KEEP_WIDTH) +: 8] = cpl_cmd[8*i +: 8];
        end
    end

    always_ff @(posedge clk) begin
        if (take) begin
            cmd_q <= cmd_d;
            if (s_axis_tlast[0]) ring_q[in_q[IDX_W-1:0]] <= cmd_d;
        end
        if (rst) begin
            in_q       <= '0;
            req_q      <= '0;
            cpl_q      <= '0;
            in_beat_q  <= '0;
            echo_q     <= 1'b0;
            out_beat_q <= '0;
        end else begin
            if (take) begin
                if (s_axis_tlast[0]) begin
                    in_q      <= in_q + 8'd1;
                    in_beat_q <= '0;
                end else if (int'(in_beat_q) != BEATS) begin
                    in_beat_q <= in_beat_q + 1'b1;
                end
            end
            if (dma_rd_req_valid && dma_rd_req_ready) req_q <= req_q + 8'd1;
            if (wrote) begin
                echo_q     <= 1'b1;
                out_beat_q <= '0;
            end else if (sent) begin
                echo_q <= 1'b0;
                cpl_q  <= cpl_q + 8'd1;
            end else if (m_axis_tvalid[0] && m_axis_tready[0]) begin
                out_beat_q <= out_beat_q + 1'b1;
            end
        end
    end

    // Responses come in request order: while copying, they are command cpl_q's.
    always_comb begin
        if (!rst) begin
            assert (!(dma_rd_resp_valid && !echo_q && dma_rd_resp_tag != cpl_q))
            else $error("dma_copy_top: response tag %0d while copying command %0d", dma_rd_resp_tag, cpl_q);
        end
    end

    assign s_axis_tready[0] = !full;

    assign dma_rd_req_valid = req_q != in_q;
    assign dma_rd_req_addr  = req_cmd.src;
    assign dma_rd_req_len   = req_cmd.len[12:0];
    assign dma_rd_req_tag   = req_q;

    assign dma_rd_resp_ready = dma_wr_ready && !echo_q;
    assign dma_wr_valid      = dma_rd_resp_valid && !echo_q;
    assign dma_wr_addr       = cpl_cmd.dst;
    assign dma_wr_data       = dma_rd_resp_data;
    assign dma_wr_keep       = dma_rd_resp_keep & ~KEEP_WIDTH'(cpl_cmd.flags[0]);
    assign dma_wr_last       = dma_rd_resp_last;

    assign m_axis_tvalid[0] = echo_q;
    assign m_axis_tlast[0]  = int'(out_beat_q) == BEATS - 1;
    assign m_axis_tkeep     = m_axis_tlast[0] ? LAST_KEEP : {KEEP_WIDTH{1'b1}};
    assign m_axis_tuser[0]  = 1'b0;

    assign idle = in_q == cpl_q && in_beat_q == '0;

    // Part of the convention but not needed here: frames are commands, and
    // only the fields above of a command are used.
    logic unused;
    assign unused = ^{s_axis_tkeep, s_axis_tuser, req_cmd, cpl_cmd};

endmodule

`resetall
