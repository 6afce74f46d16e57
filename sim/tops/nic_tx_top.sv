// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_tx_top: test top of the NIC's transmit frame builder, descriptors in on port 0, frames out on port 0.
//
//   s_axis[0] -> records -> [ FIFO, REC_DEPTH ] -> issue at its cycle -> nic_tx_build -> m_axis[0]
//                                                                          | DMA read port
//
// Record (one input frame per descriptor, 80 bytes, little-endian numbers;
// MACs and IPv4 addresses in wire order, first byte first; mirrored by
// rtl/nic/tb/nic_tx_model_test.go):
//
//   bytes  0..7   issue cycle: the descriptor is handed to nic_tx_build in
//                 this cycle (0: as soon as it is at the FIFO head)
//          8..15  payload address
//         16..23  RETH VA
//         24..27  RETH R_Key            28..31  RETH DMA length
//         32..35  immediate (sent big-endian, as the BTH's ImmDt)
//         36..39  DestQP (bits 23:0)    40..43  PSN (bits 23:0)
//         44..47  AETH MSN (bits 23:0)
//         48..53  destination MAC       54..59  source MAC
//         60..63  source IPv4           64..67  destination IPv4
//         68..69  UDP source port       70..71  payload length (0..4096)
//         72      opcode                73      TOS
//         74      AETH syndrome         75      bit 0 AckReq, bit 1 BECN
//         76..79  0
// A shorter frame keeps the previous record's missing bytes; bytes past 80
// are ignored. Unused high bits of DestQP, PSN, MSN and the length are
// ignored.
//
// Timing: a record whose last beat is taken in cycle c is at the FIFO head
// from c+1 if the FIFO was empty; it is handed over (decided) in the first
// cycle, from then on, that is at or after its issue cycle and in which
// nic_tx_build is ready. So with an issue cycle the test fixes the decision
// cycle t exactly (records sent early enough; the issued_late counter says
// when one was not), and the frame's first beat leaves at t + TX_LATENCY
// (nic_tx_build.sv). s_axis_tready is low only while the FIFO is full.
//
// CSR map (read only, 32-bit wrapping counters; read latency 1: csr_re in
// cycle t, csr_rvalid and csr_rdata in t+1; writes are ignored):
//   0x00 frames        nic_tx_build stat_frames
//   0x04 late          stat_late
//   0x08 gaps          stat_gaps
//   0x0C mac_stall     stat_mac_stall
//   0x10 not_roce      stat_not_roce
//   0x14 issued        descriptors handed over
//   0x18 issued_late   of those, with an issue cycle, handed over after it
//   other addresses read 0
// idle is high when no record is inside or half taken and nic_tx_build is
// idle. The DMA write channel is unused (tied off).

module nic_tx_top #(
    // width of the AXI-Stream and DMA data buses in bits: a multiple of 64, 64 to 512
    parameter int DATA_WIDTH  = 64,
    // byte lanes
    parameter int KEEP_WIDTH  = DATA_WIDTH / 8,
    // the DMA port's read latency, as the model is run (--dma-read-latency)
    parameter int DMA_LATENCY = 64,
    // records the FIFO holds; a power of two, at least 2
    parameter int REC_DEPTH   = 128
) (
    input  wire logic                  clk,
    input  wire logic                  rst,

    input  wire logic [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire logic [0:0]            s_axis_tvalid,
    output logic      [0:0]            s_axis_tready,
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
    output logic                       csr_rvalid,

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

    output logic                       idle
);

    localparam int REC_BYTES = 80;
    localparam int BEATS     = (REC_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH;
    localparam int BEAT_W    = $clog2(BEATS + 1);
    localparam int IDX_W     = $clog2(REC_DEPTH);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("nic_tx_top: KEEP_WIDTH must be DATA_WIDTH/8");
            $finish;
        end
        if (REC_DEPTH < 2 || (1 << IDX_W) != REC_DEPTH) begin
            $error("nic_tx_top: REC_DEPTH must be a power of two, at least 2");
            $finish;
        end
    end

    // A record as it waits: the cycle to issue it and the descriptor.
    typedef struct packed {
        logic [63:0]        at;
        nic_pkg::desc_t     desc;
    } item_t;

    // Record bytes to fields: numbers little-endian, addresses wire order.
    function automatic item_t decode(input logic [8*REC_BYTES-1:0] r);
        item_t it;
        it.at                = r[8*0 +: 64];
        it.desc.pay_addr     = r[8*8 +: 64];
        it.desc.reth_va      = r[8*16 +: 64];
        it.desc.reth_rkey    = r[8*24 +: 32];
        it.desc.reth_dma_len = r[8*28 +: 32];
        it.desc.imm          = r[8*32 +: 32];
        it.desc.dest_qp      = r[8*36 +: 24];
        it.desc.psn          = r[8*40 +: 24];
        it.desc.aeth_msn     = r[8*44 +: 24];
        for (int i = 0; i < 6; i++) begin
            it.desc.dst_mac[8*(5-i) +: 8] = r[8*(48+i) +: 8];
            it.desc.src_mac[8*(5-i) +: 8] = r[8*(54+i) +: 8];
        end
        for (int i = 0; i < 4; i++) begin
            it.desc.src_ip[8*(3-i) +: 8] = r[8*(60+i) +: 8];
            it.desc.dst_ip[8*(3-i) +: 8] = r[8*(64+i) +: 8];
        end
        it.desc.udp_sport     = r[8*68 +: 16];
        it.desc.pay_len       = r[8*70 +: 13];
        it.desc.vlan          = 1'b0;   // untagged: the record has no tag
        it.desc.tci           = '0;
        it.desc.opcode        = r[8*72 +: 8];
        it.desc.tos           = r[8*73 +: 8];
        it.desc.aeth_syndrome = r[8*74 +: 8];
        it.desc.ack_req       = r[8*75];
        it.desc.becn          = r[8*75+1];
        return it;
    endfunction

    logic [8*REC_BYTES-1:0] rec_q, rec_d;  // the record being taken
    logic [BEAT_W-1:0]      in_beat_q;     // its beats taken so far, saturating at BEATS
    item_t                  fifo_q [REC_DEPTH];
    logic [IDX_W:0]         wr_q, rd_q;
    logic [63:0]            now_q;         // the cycle number (cycle 0 follows reset)
    logic [31:0]            issued_q, issued_late_q;

    item_t                  head;
    logic                   have;
    logic                   take_rec;
    logic                   desc_valid;
    logic                   desc_ready;
    logic                   issue;

    // Byte i of a record is lane i % KEEP_WIDTH of beat i / KEEP_WIDTH.
    always_comb begin
        rec_d = rec_q;
        for (int i = 0; i < REC_BYTES; i++) begin
            if (int'(in_beat_q) == i / KEEP_WIDTH) rec_d[8*i +: 8] = s_axis_tdata[8*(i % KEEP_WIDTH) +: 8];
        end
    end

    always_comb begin
        s_axis_tready[0] = (wr_q - rd_q) != (IDX_W+1)'(REC_DEPTH);
        take_rec         = s_axis_tvalid[0] && s_axis_tready[0];
        head             = fifo_q[rd_q[IDX_W-1:0]];
        have             = wr_q != rd_q;
        desc_valid       = have && (head.at == 64'd0 || now_q >= head.at);
    end

    always_comb begin
        issue = desc_valid && desc_ready;
    end

    always_ff @(posedge clk) begin
        if (take_rec) begin
            rec_q <= rec_d;
            if (s_axis_tlast[0]) fifo_q[wr_q[IDX_W-1:0]] <= decode(rec_d);
        end
        if (rst) begin
            in_beat_q     <= '0;
            wr_q          <= '0;
            rd_q          <= '0;
            now_q         <= '0;
            issued_q      <= '0;
            issued_late_q <= '0;
        end else begin
            now_q <= now_q + 64'd1;
            if (take_rec) begin
                if (s_axis_tlast[0]) begin
                    wr_q      <= wr_q + 1'b1;
                    in_beat_q <= '0;
                end else if (int'(in_beat_q) != BEATS) begin
                    in_beat_q <= in_beat_q + 1'b1;
                end
            end
            if (issue) begin
                rd_q     <= rd_q + 1'b1;
                issued_q <= issued_q + 32'd1;
                if (head.at != 64'd0 && now_q > head.at) issued_late_q <= issued_late_q + 32'd1;
            end
        end
    end

    logic [31:0] st_frames, st_late, st_gaps, st_mac_stall, st_not_roce;
    logic        tx_idle;

    nic_tx_build #(
        .DATA_WIDTH(DATA_WIDTH),
        .KEEP_WIDTH(KEEP_WIDTH),
        .DMA_LATENCY(DMA_LATENCY)
    ) u_tx (
        .clk              (clk),
        .rst              (rst),
        .s_desc           (head.desc),
        .s_desc_valid     (desc_valid),
        .s_desc_ready     (desc_ready),
        .m_axis_tdata     (m_axis_tdata),
        .m_axis_tkeep     (m_axis_tkeep),
        .m_axis_tvalid    (m_axis_tvalid[0]),
        .m_axis_tready    (m_axis_tready[0]),
        .m_axis_tlast     (m_axis_tlast[0]),
        .m_axis_tuser     (m_axis_tuser[0]),
        .dma_rd_req_valid (dma_rd_req_valid),
        .dma_rd_req_ready (dma_rd_req_ready),
        .dma_rd_req_addr  (dma_rd_req_addr),
        .dma_rd_req_len   (dma_rd_req_len),
        .dma_rd_req_tag   (dma_rd_req_tag),
        .dma_rd_resp_data (dma_rd_resp_data),
        .dma_rd_resp_keep (dma_rd_resp_keep),
        .dma_rd_resp_valid(dma_rd_resp_valid),
        .dma_rd_resp_ready(dma_rd_resp_ready),
        .dma_rd_resp_last (dma_rd_resp_last),
        .dma_rd_resp_tag  (dma_rd_resp_tag),
        .stat_frames      (st_frames),
        .stat_late        (st_late),
        .stat_gaps        (st_gaps),
        .stat_mac_stall   (st_mac_stall),
        .stat_not_roce    (st_not_roce),
        .idle             (tx_idle)
    );

    assign dma_wr_valid = 1'b0;
    assign dma_wr_addr  = '0;
    assign dma_wr_data  = '0;
    assign dma_wr_keep  = '0;
    assign dma_wr_last  = 1'b0;

    always_comb begin
        idle = tx_idle && !have && in_beat_q == '0;
    end

    // One-cycle read port; writes have nothing to change.
    logic [31:0] rdata_d;
    always_comb begin
        unique case (csr_addr)
            16'h0000: rdata_d = st_frames;
            16'h0004: rdata_d = st_late;
            16'h0008: rdata_d = st_gaps;
            16'h000C: rdata_d = st_mac_stall;
            16'h0010: rdata_d = st_not_roce;
            16'h0014: rdata_d = issued_q;
            16'h0018: rdata_d = issued_late_q;
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

    // Part of the convention but not needed here: records are fixed-layout
    // frames, the CSRs are read only, nothing is written by DMA.
    logic unused;
    assign unused = ^{s_axis_tkeep, s_axis_tuser, csr_wdata, csr_we, dma_wr_ready};

endmodule

`resetall
