// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// switch_csr: eth_switch's registers and per-port counters on the CSR bus
// (sim/README.md: one access at a time, no backpressure).
//
//   0x0000 ID (RO)        0x53570001
//   0x0004 SHAPE (RO)     PORTS[7:0], QUEUES[15:8], BYTES[23:16]
//   0x0010 CTRL           bit 0 sched, 1 ecn, 2 pfc_tx, 3 pfc_rx, 4 red
//   0x0014 MTU            0x0018 AGE_CYCLES     0x001C DEFAULT_PRIO [2:0]
//   0x0020 PFC_XOFF       0x0024 PFC_XON        0x0028 PFC_QUANTA [15:0]
//   0x002C PFC_REFRESH    0x0030 SWITCH_MAC_LO  0x0034 SWITCH_MAC_HI [15:0]
//   0x0038 RED_LFSR [15:0] (the state lives in switch_decide)
//   0x0040 + 4k DSCP_MAP[k]   0x0080 + 4p ECN_K[p]   0x00C0 + 4p QUANTUM[p]
//   0x0100 + 4p ECN_KMAX[p]   0x0140 + 4p ECN_PMAX[p] [7:0]
//   0x1000 + 0x100 i + 4n  counter n of port i (n = 0..11, 16..31)
//
// Timing constants (the golden model relies on these):
//   Write: csr_we in cycle t; the register holds the new value from t+1, so
//   it is seen by the decisions, picks and PFC evaluation of t+1 on. A
//   write to a counter replaces its value: the increments of cycle t to
//   that counter are lost.
//   Read latency 1: csr_re in cycle t, csr_rvalid and csr_rdata in t+1.
//   The value is the register as it was during cycle t: counters include
//   every event up to the end of cycle t-1, not those of cycle t.
//   Counters are 32 bits and wrap; the events of the cycle are added at
//   its end: rx_* (a frame decided: rx_frames, rx_bytes and the drop or
//   MAC control counter rx_ev_num), tail_drop and ecn_mark (per egress and
//   ingress port, counted on the egress at the frame's priority) and tx_*
//   (a frame's last beat taken: tx_frames, tx_bytes, tx_pfc).
//   Read-back: only the bits a register has (CTRL [4:0], DEFAULT_PRIO
//   [2:0], PFC_QUANTA, SWITCH_MAC_HI and RED_LFSR [15:0], ECN_PMAX [7:0],
//   DSCP_MAP bits 4j+2..4j);
//   the others read 0. Unmapped addresses, ports >= PORTS and counters
//   12..15 read 0 and ignore writes; writes to ID and SHAPE are ignored.
//
// csr_rdata changes only in the cycle after a read (csr_re): it holds the
// last answer while csr_rvalid is low.
//
// Simulation speed: registers and counters change only in the always_ff,
// only in a cycle with a write or an event, so Verilator does no work for
// them in a quiet cycle; the counters are an unpacked array (a variable
// index is a plain array access).
//
// Reset (synchronous, active high): every register to its reset value
// (README, CSR map) and every counter to 0.

module switch_csr #(
    // Switch ports (at most 16).
    parameter int PORTS      = 4,
    // Bits per beat.
    parameter int DATA_WIDTH = 64,
    // Priority queues per port; must be 8.
    parameter int QUEUES     = 8,
    // Largest frame, bytes (reset value of MTU and QUANTUM).
    parameter int MTU_MAX    = 4224,
    // Width of a frame length on tx_len.
    parameter int LEN_W      = 16
) (
    input  wire logic                              clk,
    input  wire logic                              rst,

    input  wire logic [15:0]                       csr_addr,
    input  wire logic [31:0]                       csr_wdata,
    input  wire logic                              csr_we,
    input  wire logic                              csr_re,
    output logic      [31:0]                       csr_rdata,
    output logic                                   csr_rvalid,

    output logic                                   ctrl_sched,
    output logic                                   ctrl_ecn,
    output logic                                   ctrl_pfc_tx,
    output logic                                   ctrl_pfc_rx,
    output logic                                   ctrl_red,
    output logic      [31:0]                       mtu,
    output logic      [31:0]                       age_cycles,
    output logic      [2:0]                        default_prio,
    output logic      [31:0]                       pfc_xoff,
    output logic      [31:0]                       pfc_xon,
    output logic      [15:0]                       pfc_quanta,
    output logic      [31:0]                       pfc_refresh,
    output logic      [47:0]                       switch_mac,
    output logic      [7:0][31:0]                  dscp_map,
    output logic      [QUEUES-1:0][31:0]           ecn_k,
    output logic      [QUEUES-1:0][31:0]           quantum,
    output logic      [QUEUES-1:0][31:0]           ecn_kmax,
    output logic      [QUEUES-1:0][7:0]            ecn_pmax,
    // RED_LFSR: a write loads the state (0 loads 1); reads return it
    output logic                                   red_lfsr_we,
    output logic      [15:0]                       red_lfsr_wdata,
    input  wire logic [15:0]                       red_lfsr,

    // counter events of this cycle (switch_decide, switch_egress)
    input  wire logic [PORTS-1:0]                  rx_valid,
    input  wire logic [PORTS-1:0][31:0]            rx_len,
    input  wire logic [PORTS-1:0]                  rx_ev,
    input  wire logic [PORTS-1:0][3:0]             rx_ev_num,
    input  wire logic [PORTS-1:0][PORTS-1:0]       tail_drop,
    input  wire logic [PORTS-1:0][PORTS-1:0]       ecn_mark,
    input  wire logic [PORTS-1:0][2:0]             frame_prio,
    input  wire logic [PORTS-1:0]                  tx_done,
    input  wire logic [PORTS-1:0]                  tx_pfc,
    input  wire logic [PORTS-1:0][LEN_W-1:0]       tx_len
);

    localparam logic [31:0] ID_VALUE   = 32'h5357_0001;
    localparam logic [31:0] SHAPE      = {8'd0, 8'(DATA_WIDTH / 8), 8'(QUEUES), 8'(PORTS)};
    // counters that exist: 0..11 and 16..31
    localparam logic [31:0] CNT_EXISTS = 32'hFFFF_0FFF;
    localparam logic [31:0] DSCP_BITS  = 32'h7777_7777;
    localparam int          PORT_W     = (PORTS > 1) ? $clog2(PORTS) : 1;

    initial begin
        if (PORTS < 1 || PORTS > 16 || QUEUES != 8 || DATA_WIDTH / 8 > 255) begin
            $error("switch_csr: PORTS must be 1..16, QUEUES 8 (instance %m)");
            $finish;
        end
    end

    logic [4:0]               ctrl_q;
    logic [31:0]              mtu_q;
    logic [31:0]              age_q;
    logic [2:0]               dprio_q;
    logic [31:0]              xoff_q;
    logic [31:0]              xon_q;
    logic [15:0]              quanta_q;
    logic [31:0]              refresh_q;
    logic [31:0]              mac_lo_q;
    logic [15:0]              mac_hi_q;
    logic [7:0][31:0]         dscp_q;
    logic [QUEUES-1:0][31:0]  ecn_k_q;
    logic [QUEUES-1:0][31:0]  quantum_q;
    logic [QUEUES-1:0][31:0]  kmax_q;
    logic [QUEUES-1:0][7:0]   pmax_q;
    // a read's answer: the register (0 for a counter address) ORed with
    // the counter of the port that was read (the others answer 0)
    logic [31:0]              reg_rd_q;
    logic [PORTS-1:0][31:0]   cnt_rd;

    // address decode
    logic       a_cnt;      // a counter address (port < PORTS, n < 32)
    logic [3:0] a_port;
    logic [5:0] a_num;
    logic [2:0] a_idx;

    always_comb begin
        a_port = csr_addr[11:8];
        a_num  = csr_addr[7:2];
        a_idx  = csr_addr[4:2];
        a_cnt  = (csr_addr[15:12] == 4'h1) && a_port < 4'(PORTS) && a_num < 6'd32 && csr_addr[1:0] == 2'b00;
        // the RED_LFSR state lives in switch_decide
        red_lfsr_we    = csr_we && csr_addr == 16'h0038;
        red_lfsr_wdata = (csr_wdata[15:0] == 16'd0) ? 16'd1 : csr_wdata[15:0];
    end

    always_ff @(posedge clk) begin
        if (csr_re) begin
            unique casez (csr_addr)
                16'h0000: reg_rd_q <= ID_VALUE;
                16'h0004: reg_rd_q <= SHAPE;
                16'h0010: reg_rd_q <= {27'd0, ctrl_q};
                16'h0014: reg_rd_q <= mtu_q;
                16'h0018: reg_rd_q <= age_q;
                16'h001C: reg_rd_q <= {29'd0, dprio_q};
                16'h0020: reg_rd_q <= xoff_q;
                16'h0024: reg_rd_q <= xon_q;
                16'h0028: reg_rd_q <= {16'd0, quanta_q};
                16'h002C: reg_rd_q <= refresh_q;
                16'h0030: reg_rd_q <= mac_lo_q;
                16'h0034: reg_rd_q <= {16'd0, mac_hi_q};
                16'h0038: reg_rd_q <= {16'd0, red_lfsr};
                16'b0000_0000_010?_??00: reg_rd_q <= dscp_q[a_idx];
                16'b0000_0000_100?_??00: reg_rd_q <= ecn_k_q[a_idx];
                16'b0000_0000_110?_??00: reg_rd_q <= quantum_q[a_idx];
                16'b0000_0001_000?_??00: reg_rd_q <= kmax_q[a_idx];
                16'b0000_0001_010?_??00: reg_rd_q <= {24'd0, pmax_q[a_idx]};
                default: reg_rd_q <= 32'd0;
            endcase
        end
        if (rst) begin
            csr_rvalid <= 1'b0;
            ctrl_q     <= 5'd0;
            mtu_q      <= 32'(MTU_MAX);
            age_q      <= 32'd0;
            dprio_q    <= 3'd0;
            xoff_q     <= 32'd8192;
            xon_q      <= 32'd4096;
            quanta_q   <= 16'hFFFF;
            refresh_q  <= 32'd32768;
            mac_lo_q   <= 32'd0;
            mac_hi_q   <= 16'd0;
            dscp_q     <= '0;
            for (int q = 0; q < QUEUES; q++) begin
                ecn_k_q[q]   <= 32'd4096;
                quantum_q[q] <= 32'(MTU_MAX);
                kmax_q[q]    <= 32'd16384;
                pmax_q[q]    <= 8'd26;
            end
        end else begin
            csr_rvalid <= csr_re;

            if (csr_we) begin
                unique casez (csr_addr)
                    16'h0010: ctrl_q    <= csr_wdata[4:0];
                    16'h0014: mtu_q     <= csr_wdata;
                    16'h0018: age_q     <= csr_wdata;
                    16'h001C: dprio_q   <= csr_wdata[2:0];
                    16'h0020: xoff_q    <= csr_wdata;
                    16'h0024: xon_q     <= csr_wdata;
                    16'h0028: quanta_q  <= csr_wdata[15:0];
                    16'h002C: refresh_q <= csr_wdata;
                    16'h0030: mac_lo_q  <= csr_wdata;
                    16'h0034: mac_hi_q  <= csr_wdata[15:0];
                    16'b0000_0000_010?_??00: dscp_q[a_idx]    <= csr_wdata & DSCP_BITS;
                    16'b0000_0000_100?_??00: ecn_k_q[a_idx]   <= csr_wdata;
                    16'b0000_0000_110?_??00: quantum_q[a_idx] <= csr_wdata;
                    16'b0000_0001_000?_??00: kmax_q[a_idx]    <= csr_wdata;
                    16'b0000_0001_010?_??00: pmax_q[a_idx]    <= csr_wdata[7:0];
                    default: ;
                endcase
            end
        end
    end

    // Counters of port i, one block per port (a loop over the ports would
    // be too big for Verilator to unroll), each group of counters a packed
    // register updated through a block-local copy in the cycles it counts:
    // the events of the cycle, then a CSR write, which wins (the later
    // nonblocking assignment).
    for (genvar i = 0; i < PORTS; i++) begin : g_cnt
        logic [31:0]      rxf_q;    // 0 rx_frames
        logic [31:0]      rxb_q;    // 1 rx_bytes
        logic [31:0]      txf_q;    // 2 tx_frames
        logic [31:0]      txb_q;    // 3 tx_bytes
        logic [6:0][31:0] rxe_q;    // 4..10: drops, rx_pfc, rx_mac_control
        logic [31:0]      txp_q;    // 11 tx_pfc
        logic [7:0][31:0] tail_q;   // 16+p drop_tail[p]
        logic [7:0][31:0] mark_q;   // 24+p ecn_marked[p]
        logic [31:0]      rd_q;

        always_ff @(posedge clk) begin
            logic [6:0][31:0] e;
            logic [7:0][31:0] t;
            logic [4:0]       n;

            n = a_num[4:0];
            if (csr_re) begin
                rd_q <= 32'd0;
                if (a_cnt && a_port[PORT_W-1:0] == PORT_W'(i)) begin
                    if (n == 5'd0) begin
                        rd_q <= rxf_q;
                    end else if (n == 5'd1) begin
                        rd_q <= rxb_q;
                    end else if (n == 5'd2) begin
                        rd_q <= txf_q;
                    end else if (n == 5'd3) begin
                        rd_q <= txb_q;
                    end else if (n >= 5'd4 && n <= 5'd10) begin
                        rd_q <= rxe_q[3'(n - 5'd4)];
                    end else if (n == 5'd11) begin
                        rd_q <= txp_q;
                    end else if (n >= 5'd16 && n <= 5'd23) begin
                        rd_q <= tail_q[n[2:0]];
                    end else if (n >= 5'd24) begin
                        rd_q <= mark_q[n[2:0]];
                    end
                end
            end

            if (rx_valid[i]) begin
                rxf_q <= rxf_q + 32'd1;
                rxb_q <= rxb_q + rx_len[i];
                if (rx_ev[i]) begin
                    e                          = rxe_q;
                    e[3'(rx_ev_num[i] - 4'd4)] = e[3'(rx_ev_num[i] - 4'd4)] + 32'd1;
                    rxe_q                     <= e;
                end
            end
            if (tx_done[i]) begin
                txf_q <= txf_q + 32'd1;
                txb_q <= txb_q + 32'(tx_len[i]);
                if (tx_pfc[i]) begin
                    txp_q <= txp_q + 32'd1;
                end
            end
            // egress i: the copies of the cycle (ingress j's frame at its
            // priority)
            if (tail_drop[i] != '0) begin
                t = tail_q;
                for (int j = 0; j < PORTS; j++) begin
                    if (tail_drop[i][j]) begin
                        t[frame_prio[j]] = t[frame_prio[j]] + 32'd1;
                    end
                end
                tail_q <= t;
            end
            if (ecn_mark[i] != '0) begin
                t = mark_q;
                for (int j = 0; j < PORTS; j++) begin
                    if (ecn_mark[i][j]) begin
                        t[frame_prio[j]] = t[frame_prio[j]] + 32'd1;
                    end
                end
                mark_q <= t;
            end

            if (csr_we && a_cnt && a_port[PORT_W-1:0] == PORT_W'(i) && CNT_EXISTS[n]) begin
                if (n == 5'd0) begin
                    rxf_q <= csr_wdata;
                end else if (n == 5'd1) begin
                    rxb_q <= csr_wdata;
                end else if (n == 5'd2) begin
                    txf_q <= csr_wdata;
                end else if (n == 5'd3) begin
                    txb_q <= csr_wdata;
                end else if (n <= 5'd10) begin
                    rxe_q[3'(n - 5'd4)] <= csr_wdata;
                end else if (n == 5'd11) begin
                    txp_q <= csr_wdata;
                end else if (n <= 5'd23) begin
                    tail_q[n[2:0]] <= csr_wdata;
                end else begin
                    mark_q[n[2:0]] <= csr_wdata;
                end
            end

            if (rst) begin
                rxf_q  <= 32'd0;
                rxb_q  <= 32'd0;
                txf_q  <= 32'd0;
                txb_q  <= 32'd0;
                rxe_q  <= '0;
                txp_q  <= 32'd0;
                tail_q <= '0;
                mark_q <= '0;
            end
        end

        assign cnt_rd[i] = rd_q;
    end

    always_comb begin
        csr_rdata = reg_rd_q;
        for (int i = 0; i < PORTS; i++) begin
            csr_rdata = csr_rdata | cnt_rd[i];
        end
    end

    assign ctrl_sched   = ctrl_q[0];
    assign ctrl_ecn     = ctrl_q[1];
    assign ctrl_pfc_tx  = ctrl_q[2];
    assign ctrl_pfc_rx  = ctrl_q[3];
    assign ctrl_red     = ctrl_q[4];
    assign mtu          = mtu_q;
    assign age_cycles   = age_q;
    assign default_prio = dprio_q;
    assign pfc_xoff     = xoff_q;
    assign pfc_xon      = xon_q;
    assign pfc_quanta   = quanta_q;
    assign pfc_refresh  = refresh_q;
    assign switch_mac   = {mac_hi_q, mac_lo_q};
    assign dscp_map     = dscp_q;
    assign ecn_k        = ecn_k_q;
    assign quantum      = quantum_q;
    assign ecn_kmax     = kmax_q;
    assign ecn_pmax     = pmax_q;

endmodule

`resetall
