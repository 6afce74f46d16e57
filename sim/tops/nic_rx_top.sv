// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// nic_rx_top: nic_rx_parse (the NIC's receive front end) in the harness port convention, records out as frames.
//
//   s_axis[0] (in0) --> nic_rx_parse --> decision records --> record FIFO --> emitter --> m_axis[0]
//                            |                         receive buffer --^ (payload)
//                            +--> host frames --------------------------------------> m_axis[1]
//   csr_* <--> node MAC/IP, QP table, counters, release
//
// m_axis[0]: one record frame per input frame, in input order: 64 bytes,
// then, when the record copies a payload (flag below), its payload bytes as
// read from the receive buffer at the record's address. Little-endian:
//   0       class (nic_rx_parse: 0 RC, 1 CNP, 2 NOT_ROCE, 3 MALFORMED,
//           4 BAD_ICRC, 5 WRONG_ADDRESS, 6 BAD_HEADER, 7 UNKNOWN_QP,
//           8 BUFFER_FULL, 9 BAD_FRAME)
//   1       bit 0 held, 1 ECN CE, 2 AckReq, 3 SE, 4 MigReq, 5 FECN, 6 BECN,
//           7 host frame (offered to m_axis[1])
//   2       bits 1:0 PadCnt, bit 4 host frame dropped (host FIFO full),
//           bit 5 payload copied after these 64 bytes
//   3       opcode
//   4..6    DestQP              7       slot
//   8..10   PSN                 11      AETH syndrome
//   12..14  AETH MSN            15      0
//   16..23  VA (RETH, AtomicETH)
//   24..27  R_Key (RETH, AtomicETH, IETH)
//   28..31  DMA length (RETH)
//   32..35  ImmDt
//   36..37  payload length      38..39  payload address in the receive buffer
//   40..47  SwapAdd (AtomicETH) or OrigData (AtomicAckETH)
//   48..55  Compare (AtomicETH)
//   56..59  frame length (bytes)
//   60..63  the decision cycle D (cycles since reset, cycle 0 first)
// Fields as nic_rx_parse drives them (zero where it does).
//
// Receive buffer use: with CTRL.HOLD = 0 the emitter copies every held
// frame's payload after its record and then releases it. With HOLD = 1
// records carry no payload and held frames stay until a write to RELEASE
// (one frame per write, oldest first).
//
// Flow control (this wrapper's, not the parse unit's): s_axis is held off
// while the record FIFO is nearly full, and, with HOLD = 0, a new frame does
// not start while the receive buffer lacks room for a MAX_FRAME-byte frame.
// The records carry their own cycle, so nothing is lost by waiting.
//
// CSR map (32-bit registers, byte addresses; read latency 1 cycle: csr_re
// in t, csr_rvalid and csr_rdata in t+1; a write in t applies from t+1):
//   0x0000 ID (RO)       0x4E520001 ("NR", version 1)
//   0x0004 SHAPE (RO)    QPS[7:0], DATA_WIDTH/8 [23:16]
//   0x0008 BUF (RO)      RX_BUF_BYTES
//   0x000C HELD (RO)     frames held in the receive buffer
//   0x0010 CTRL          bit 0 HOLD
//   0x0014 MAC_LO        MAC bytes 2..5 (byte 5 in bits 7:0)
//   0x0018 MAC_HI        MAC bytes 0..1 in bits 15:0
//   0x001C IP            IPv4 address, first byte in bits 31:24
//   0x0020 RELEASE (WO)  release the oldest held frame
//   0x1000 + 0x80 q      QP slot q: +0x00 QPN (bits 23:0), +0x7C STATE
//                        (bit 0: the slot is valid)
//   0x4000 + 4n          counters (32 bits, wrap, writable), n as golden/rc
//                        Counter: 0 rx_not_roce, 1 rx_malformed,
//                        2 rx_bad_icrc, 3 rx_wrong_address, 4 rx_bad_header,
//                        5 rx_unknown_qp, 6 RC records (rx_packets +
//                        rx_qp_error), 11 rx_cnp
//   0x4100 rx_buffer_full  0x4104 rx_bad_frame  0x4108 host_rx_frames
//   0x410C host_rx_overflow
//   other addresses read 0. A write to a counter wins over its increment.

module nic_rx_top #(
    // width of each AXI-Stream data bus in bits: 64, 128, 256 or 512
    parameter int DATA_WIDTH   = 64,
    // byte lanes per port
    parameter int KEEP_WIDTH   = DATA_WIDTH / 8,
    // QP slots
    parameter int QPS          = 16,
    // receive buffer bytes (and host FIFO bytes)
    parameter int RX_BUF_BYTES = 16384,
    // the largest frame the HOLD = 0 flow control makes room for
    parameter int MAX_FRAME    = 4352
) (
    input  wire logic                    clk,
    input  wire logic                    rst,

    input  wire logic [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire logic [KEEP_WIDTH-1:0]   s_axis_tkeep,
    input  wire logic [0:0]              s_axis_tvalid,
    output logic      [0:0]              s_axis_tready,
    input  wire logic [0:0]              s_axis_tlast,
    input  wire logic [0:0]              s_axis_tuser,

    output logic [2*DATA_WIDTH-1:0]      m_axis_tdata,
    output logic [2*KEEP_WIDTH-1:0]      m_axis_tkeep,
    output logic [1:0]                   m_axis_tvalid,
    input  wire logic [1:0]              m_axis_tready,
    output logic [1:0]                   m_axis_tlast,
    output logic [1:0]                   m_axis_tuser,

    input  wire logic [15:0]             csr_addr,
    input  wire logic [31:0]             csr_wdata,
    input  wire logic                    csr_we,
    input  wire logic                    csr_re,
    output logic      [31:0]             csr_rdata,
    output logic                         csr_rvalid,

    output logic                         idle
);

localparam int SW       = (QPS > 1) ? $clog2(QPS) : 1;
localparam int WORDS    = RX_BUF_BYTES / KEEP_WIDTH;
localparam int BUF_AW   = $clog2(WORDS);
localparam int BUF_BAW  = $clog2(RX_BUF_BYTES);
localparam int LANEW    = $clog2(KEEP_WIDTH);
localparam int REC_BEATS = 64 / KEEP_WIDTH;
localparam int RF_DEPTH = 16;
localparam int RF_AW    = $clog2(RF_DEPTH);
localparam int MAXW     = (MAX_FRAME + KEEP_WIDTH - 1) / KEEP_WIDTH;
localparam int NCNT     = 12;
localparam int WQ       = 4;       // payload words read ahead

initial begin
    if (KEEP_WIDTH * 8 != DATA_WIDTH || 64 % KEEP_WIDTH != 0 || DATA_WIDTH < 64) begin
        $error("nic_rx_top: DATA_WIDTH %0d must be 64, 128, 256 or 512", DATA_WIDTH);
        $finish;
    end
    if (MAXW + 3 > WORDS) begin
        $error("nic_rx_top: MAX_FRAME %0d does not fit RX_BUF_BYTES %0d", MAX_FRAME, RX_BUF_BYTES);
        $finish;
    end
end

// ---- registers ----

logic [31:0]       cyc_q;
logic              hold_q;
logic [47:0]       mac_q;
logic [31:0]       ip_q;
logic [QPS-1:0]    qp_valid_q;
logic [QPS*24-1:0] qp_qpn_q;
logic [31:0]       cnt_q [NCNT];
logic [NCNT-1:0]   cnt_inc;
logic [7:0]        rel_pend_q;       // RELEASE writes not yet passed on

// counter index of a CSR address, NCNT when none
function automatic int cnt_index(input logic [15:0] a);
    unique case (a)
        16'h4000: return 0;
        16'h4004: return 1;
        16'h4008: return 2;
        16'h400C: return 3;
        16'h4010: return 4;
        16'h4014: return 5;
        16'h4018: return 6;
        16'h402C: return 7;
        16'h4100: return 8;
        16'h4104: return 9;
        16'h4108: return 10;
        16'h410C: return 11;
        default:  return NCNT;
    endcase
endfunction

// ---- the unit ----

logic                  p_valid, p_ready;
logic                  rec_valid, rec_ack_req, rec_se, rec_mig_req, rec_fecn, rec_becn, rec_ecn_ce;
logic                  rec_held, rec_host, rec_host_drop;
logic [3:0]            rec_class;
logic [SW-1:0]         rec_slot;
logic [7:0]            rec_opcode, rec_syndrome;
logic [23:0]           rec_dest_qp, rec_psn, rec_msn;
logic [1:0]            rec_pad;
logic [63:0]           rec_va, rec_atomic_a, rec_atomic_b;
logic [31:0]           rec_rkey, rec_dma_len, rec_imm;
logic [15:0]           rec_pay_len;
logic [BUF_BAW-1:0]    rec_pay_addr;
logic [16:0]           rec_frame_len;
logic [BUF_AW-1:0]     buf_rd_addr;
logic [DATA_WIDTH-1:0] buf_rd_data;
logic                  buf_release;
logic [15:0]           buf_frames;
logic [BUF_AW:0]       buf_used;
logic                  p_idle;
logic                  gate;
logic                  in_mid_q;
// MAC Control: the class is in the record; roce_nic's nic_pause acts on the rest
logic [2:0]            mc_stat;
logic                  pause_load;
logic [7:0]            pause_mask;
logic [7:0][15:0]      pause_quanta;

nic_rx_parse #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .QPS(QPS),
    .SLOT_WIDTH(SW),
    .RX_BUF_BYTES(RX_BUF_BYTES),
    .HOST_BUF_BYTES(RX_BUF_BYTES),
    .BUF_AW(BUF_AW),
    .BUF_BAW(BUF_BAW)
) u_parse (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(p_valid),
    .s_axis_tready(p_ready),
    .s_axis_tlast(s_axis_tlast[0]),
    .s_axis_tuser(s_axis_tuser[0]),
    .m_axis_tdata(m_axis_tdata[DATA_WIDTH +: DATA_WIDTH]),
    .m_axis_tkeep(m_axis_tkeep[KEEP_WIDTH +: KEEP_WIDTH]),
    .m_axis_tvalid(m_axis_tvalid[1]),
    .m_axis_tready(m_axis_tready[1]),
    .m_axis_tlast(m_axis_tlast[1]),
    .m_axis_tuser(m_axis_tuser[1]),
    .node_mac(mac_q),
    .node_ip(ip_q),
    .qp_valid(qp_valid_q),
    .qp_qpn(qp_qpn_q),
    .rec_valid(rec_valid),
    .rec_class(rec_class),
    .rec_slot(rec_slot),
    .rec_opcode(rec_opcode),
    .rec_dest_qp(rec_dest_qp),
    .rec_psn(rec_psn),
    .rec_ack_req(rec_ack_req),
    .rec_se(rec_se),
    .rec_mig_req(rec_mig_req),
    .rec_fecn(rec_fecn),
    .rec_becn(rec_becn),
    .rec_pad(rec_pad),
    .rec_ecn_ce(rec_ecn_ce),
    .rec_va(rec_va),
    .rec_rkey(rec_rkey),
    .rec_dma_len(rec_dma_len),
    .rec_syndrome(rec_syndrome),
    .rec_msn(rec_msn),
    .rec_imm(rec_imm),
    .rec_atomic_a(rec_atomic_a),
    .rec_atomic_b(rec_atomic_b),
    .rec_pay_len(rec_pay_len),
    .rec_pay_addr(rec_pay_addr),
    .rec_held(rec_held),
    .rec_frame_len(rec_frame_len),
    .rec_host(rec_host),
    .rec_host_drop(rec_host_drop),
    .buf_rd_addr(buf_rd_addr),
    .buf_rd_data(buf_rd_data),
    .buf_release(buf_release),
    .buf_frames(buf_frames),
    .buf_used(buf_used),
    .stat_not_roce(cnt_inc[0]),
    .stat_malformed(cnt_inc[1]),
    .stat_bad_icrc(cnt_inc[2]),
    .stat_wrong_address(cnt_inc[3]),
    .stat_bad_header(cnt_inc[4]),
    .stat_unknown_qp(cnt_inc[5]),
    .stat_rc(cnt_inc[6]),
    .stat_cnp(cnt_inc[7]),
    .stat_buffer_full(cnt_inc[8]),
    .stat_bad_frame(cnt_inc[9]),
    .stat_host_frames(cnt_inc[10]),
    .stat_host_overflow(cnt_inc[11]),
    .stat_pfc(mc_stat[0]),
    .stat_pause(mc_stat[1]),
    .stat_mac_control(mc_stat[2]),
    .pause_load(pause_load),
    .pause_mask(pause_mask),
    .pause_quanta(pause_quanta),
    .idle(p_idle)
);

// ---- record FIFO ----

typedef struct packed {
    logic [511:0]       img;
    logic [BUF_BAW-1:0] addr;
    logic [15:0]        len;
    logic               copy;
} rec_t;

rec_t              rf_mem [RF_DEPTH];
logic [RF_AW:0]    rf_wr_q, rf_rd_q;
logic [RF_AW:0]    rf_n;
rec_t              rec_in;
logic              rf_pop;

always_comb begin
    rec_in.img             = '0;
    rec_in.img[7:0]        = {4'd0, rec_class};
    rec_in.img[15:8]       = {rec_host, rec_becn, rec_fecn, rec_mig_req, rec_se, rec_ack_req, rec_ecn_ce, rec_held};
    rec_in.img[23:16]      = {2'b00, rec_held && !hold_q, rec_host_drop, 2'b00, rec_pad};
    rec_in.img[31:24]      = rec_opcode;
    rec_in.img[55:32]      = rec_dest_qp;
    rec_in.img[63:56]      = 8'(rec_slot);
    rec_in.img[87:64]      = rec_psn;
    rec_in.img[95:88]      = rec_syndrome;
    rec_in.img[119:96]     = rec_msn;
    rec_in.img[191:128]    = rec_va;
    rec_in.img[223:192]    = rec_rkey;
    rec_in.img[255:224]    = rec_dma_len;
    rec_in.img[287:256]    = rec_imm;
    rec_in.img[303:288]    = rec_pay_len;
    rec_in.img[319:304]    = 16'(rec_pay_addr);
    rec_in.img[383:320]    = rec_atomic_a;
    rec_in.img[447:384]    = rec_atomic_b;
    rec_in.img[479:448]    = 32'(rec_frame_len);
    rec_in.img[511:480]    = cyc_q;
    rec_in.addr            = rec_pay_addr;
    rec_in.len             = rec_pay_len;
    rec_in.copy            = rec_held && !hold_q;
    rf_n                   = rf_wr_q - rf_rd_q;
end

always_ff @(posedge clk) begin
    if (rec_valid) begin
        rf_mem[rf_wr_q[RF_AW-1:0]] <= rec_in;
        rf_wr_q <= rf_wr_q + 1'b1;
    end
    if (rf_pop) begin
        rf_rd_q <= rf_rd_q + 1'b1;
    end
    if (rst) begin
        rf_wr_q <= '0;
        rf_rd_q <= '0;
    end else if (rec_valid && rf_n == (RF_AW+1)'(RF_DEPTH)) begin
        $error("nic_rx_top: record FIFO overflow");
    end
end

// ---- input flow control ----

always_comb begin
    // the FIFO takes a record per frame decided; at most 3 are on the way
    gate = rf_n >= (RF_AW+1)'(RF_DEPTH - 4);
    // a frame starts only with room for the largest one, the beats of the
    // one before that are not written yet, and one more
    if (!hold_q && !in_mid_q && 32'(buf_used) + 32'(MAXW + 3) > 32'(WORDS)) begin
        gate = 1'b1;
    end
end

// two assigns, not one block: icrc_check's tready and its use of tvalid share one
assign p_valid          = s_axis_tvalid[0] && !gate;
assign s_axis_tready[0] = p_ready && !gate;

always_ff @(posedge clk) begin
    if (p_valid && p_ready) begin
        in_mid_q <= !s_axis_tlast[0];
    end
    if (rst) begin
        in_mid_q <= 1'b0;
    end
end

// ---- emitter: record beats, then the payload realigned to lane 0 ----

logic                  em_busy_q;
logic [$clog2(REC_BEATS+1)-1:0] em_hb_q;     // header beats sent
rec_t                  em_q;
logic [BUF_AW-1:0]     rw_q;                  // next buffer word to read
logic [17:0]           rleft_q;               // words still to read
logic [17:0]           wleft_q;               // words still to use
logic [16:0]           bleft_q;               // payload bytes still to send
logic [LANEW-1:0]      sh_q;                  // payload lane in its first word
logic                  inflight_q;            // a read answers this cycle
logic [DATA_WIDTH-1:0] wq_q [WQ];
logic [2:0]            wq_n_q;

logic                  rd_issue;
logic                  in_hdr;
logic                  pay_ok;
logic                  em_fire;
logic                  em_last;
logic [DATA_WIDTH-1:0] em_data, pbeat;
logic [KEEP_WIDTH-1:0] em_keep;
logic [17:0]           nwords;
logic [LANEW-1:0]      ld_sh;
logic                  em_rel;

always_comb begin
    in_hdr   = em_busy_q && em_hb_q != ($clog2(REC_BEATS+1))'(REC_BEATS);
    rd_issue = em_busy_q && rleft_q != '0 && 32'(wq_n_q) + 32'(inflight_q) < WQ;
    buf_rd_addr = rw_q;

    // payload beat: bytes sh.. of the oldest word, then the next word's first ones
    if (sh_q == '0) begin
        pbeat = wq_q[0];
    end else begin
        pbeat = (wq_q[0] >> {sh_q, 3'b000}) |
                (wq_q[1] << {LANEW'(KEEP_WIDTH - 32'(sh_q)), 3'b000});
    end
    // a shifted beat needs the next word too, when that word holds payload
    pay_ok = !in_hdr && em_busy_q && 32'(wq_n_q) >= ((sh_q != '0 && wleft_q >= 18'd2) ? 32'd2 : 32'd1);

    if (in_hdr) begin
        em_data = em_q.img[em_hb_q * DATA_WIDTH +: DATA_WIDTH];
        em_keep = '1;
        em_last = (em_hb_q == ($clog2(REC_BEATS+1))'(REC_BEATS - 1)) && !em_q.copy;
    end else begin
        em_data = pbeat;
        em_last = bleft_q <= 17'(KEEP_WIDTH);
        em_keep = em_last ? ~({KEEP_WIDTH{1'b1}} << bleft_q) : '1;
    end

    m_axis_tdata[0 +: DATA_WIDTH] = em_data;
    m_axis_tkeep[0 +: KEEP_WIDTH] = em_keep;
    m_axis_tvalid[0] = in_hdr || pay_ok;
    m_axis_tlast[0]  = em_last;
    m_axis_tuser[0]  = 1'b0;
    em_fire = m_axis_tvalid[0] && m_axis_tready[0];
    em_rel  = em_fire && !in_hdr && em_last;

    rf_pop = !em_busy_q && rf_n != '0;
    ld_sh  = LANEW'(rf_mem[rf_rd_q[RF_AW-1:0]].addr);
    nwords = (18'(ld_sh) + 18'(rf_mem[rf_rd_q[RF_AW-1:0]].len) + 18'(KEEP_WIDTH - 1)) / 18'(KEEP_WIDTH);
end

always_ff @(posedge clk) begin
    if (rf_pop) begin
        em_q      <= rf_mem[rf_rd_q[RF_AW-1:0]];
        em_busy_q <= 1'b1;
        em_hb_q   <= '0;
        rw_q      <= BUF_AW'(rf_mem[rf_rd_q[RF_AW-1:0]].addr >> LANEW);
        sh_q      <= ld_sh;
        rleft_q   <= rf_mem[rf_rd_q[RF_AW-1:0]].copy ? nwords : '0;
        wleft_q   <= nwords;
        bleft_q   <= 17'(rf_mem[rf_rd_q[RF_AW-1:0]].len);
    end else begin
        if (rd_issue) begin
            rw_q    <= rw_q + 1'b1;
            rleft_q <= rleft_q - 1'b1;
        end
        if (em_fire && in_hdr) begin
            em_hb_q <= em_hb_q + 1'b1;
            if (em_last) begin
                em_busy_q <= 1'b0;
            end
        end
        if (em_fire && !in_hdr) begin
            wleft_q <= wleft_q - 1'b1;
            bleft_q <= bleft_q - 17'(KEEP_WIDTH);
            if (em_last) begin
                em_busy_q <= 1'b0;
            end
        end
    end
    inflight_q <= rd_issue;

    // the word queue: pop what the beat used, push what the read brought
    begin
        logic [DATA_WIDTH-1:0] q [WQ + 1];
        int n;
        n = 32'(wq_n_q);
        for (int i = 0; i < WQ; i++) begin
            q[i] = wq_q[i];
        end
        q[WQ] = '0;
        if (em_fire && !in_hdr) begin
            for (int i = 0; i < WQ; i++) begin
                q[i] = q[i + 1];
            end
            n = n - 1;
        end
        if (inflight_q) begin
            q[n] = buf_rd_data;
            n = n + 1;
        end
        if (em_rel) begin
            n = 0;  // the last beat leaves the unused rest of its word
        end
        for (int i = 0; i < WQ; i++) begin
            wq_q[i] <= q[i];
        end
        wq_n_q <= 3'(n);
    end

    if (rst) begin
        em_busy_q  <= 1'b0;
        inflight_q <= 1'b0;
        wq_n_q     <= '0;
    end
end

// ---- releases: the emitter's, and RELEASE writes when it is not releasing ----

logic csr_release;

always_comb begin
    csr_release = csr_we && csr_addr == 16'h0020;
    buf_release = (em_rel && em_q.copy) || (!(em_rel && em_q.copy) && rel_pend_q != 8'd0);
end

always_ff @(posedge clk) begin
    rel_pend_q <= rel_pend_q + 8'(csr_release) - 8'(!(em_rel && em_q.copy) && rel_pend_q != 8'd0);
    if (rst) begin
        rel_pend_q <= '0;
    end
end

// ---- CSR ----

logic [31:0] rdata_d;
int          ci;      // counter index of csr_addr, NCNT when none
int          qi;      // QP slot of csr_addr, -1 when none

always_comb begin
    ci = cnt_index(csr_addr);
    qi = (csr_addr[15:12] == 4'h1 && 32'(csr_addr[11:7]) < QPS) ? 32'(csr_addr[11:7]) : -1;
    rdata_d = 32'd0;
    for (int q = 0; q < QPS; q++) begin
        if (qi == q && csr_addr[6:0] == 7'h00) begin
            rdata_d = {8'd0, qp_qpn_q[q*24 +: 24]};
        end
        if (qi == q && csr_addr[6:0] == 7'h7C) begin
            rdata_d = {31'd0, qp_valid_q[q]};
        end
    end
    for (int i = 0; i < NCNT; i++) begin
        if (ci == i) begin
            rdata_d = cnt_q[i];
        end
    end
    unique case (csr_addr)
        16'h0000: rdata_d = 32'h4E52_0001;
        16'h0004: rdata_d = {8'd0, 8'(KEEP_WIDTH), 8'd0, 8'(QPS)};
        16'h0008: rdata_d = 32'(RX_BUF_BYTES);
        16'h000C: rdata_d = 32'(buf_frames);
        16'h0010: rdata_d = {31'd0, hold_q};
        16'h0014: rdata_d = mac_q[31:0];
        16'h0018: rdata_d = {16'd0, mac_q[47:32]};
        16'h001C: rdata_d = ip_q;
        default: ;
    endcase
end

always_ff @(posedge clk) begin
    cyc_q <= cyc_q + 32'd1;
    for (int i = 0; i < NCNT; i++) begin
        cnt_q[i] <= cnt_q[i] + 32'(cnt_inc[i]);
        if (csr_we && ci == i) begin
            cnt_q[i] <= csr_wdata;
        end
    end
    for (int q = 0; q < QPS; q++) begin
        if (csr_we && qi == q && csr_addr[6:0] == 7'h00) begin
            qp_qpn_q[q*24 +: 24] <= csr_wdata[23:0];
        end
        if (csr_we && qi == q && csr_addr[6:0] == 7'h7C) begin
            qp_valid_q[q] <= csr_wdata[0];
        end
    end
    if (csr_we) begin
        unique case (csr_addr)
            16'h0010: hold_q       <= csr_wdata[0];
            16'h0014: mac_q[31:0]  <= csr_wdata;
            16'h0018: mac_q[47:32] <= csr_wdata[15:0];
            16'h001C: ip_q         <= csr_wdata;
            default: ;
        endcase
    end
    csr_rvalid <= csr_re;
    csr_rdata  <= rdata_d;
    if (rst) begin
        cyc_q      <= '0;
        csr_rvalid <= 1'b0;
        hold_q     <= 1'b0;
        mac_q      <= '0;
        ip_q       <= '0;
        qp_valid_q <= '0;
        qp_qpn_q   <= '0;
        for (int i = 0; i < NCNT; i++) begin
            cnt_q[i] <= '0;
        end
    end
end

assign idle = p_idle && rf_n == '0 && !em_busy_q && rel_pend_q == 8'd0;

// the emitter takes address and length from the FIFO when it loads a record
logic unused;
assign unused = ^{em_q.addr, em_q.len, mc_stat, pause_load, pause_mask, pause_quanta};

endmodule

`resetall
