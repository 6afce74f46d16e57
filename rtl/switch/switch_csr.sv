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
//   Counters are 32 bits and wrap; cnt_add holds the increments of the
//   cycle, added at its end, with those of tx_* (a frame's last beat taken:
//   tx_frames, tx_bytes, tx_pfc).
//   Read-back: only the bits a register has (CTRL [4:0], DEFAULT_PRIO
//   [2:0], PFC_QUANTA, SWITCH_MAC_HI and RED_LFSR [15:0], ECN_PMAX [7:0],
//   DSCP_MAP bits 4j+2..4j);
//   the others read 0. Unmapped addresses, ports >= PORTS and counters
//   12..15 read 0 and ignore writes; writes to ID and SHAPE are ignored.
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
    parameter int MTU_MAX    = 2048,
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

    // counter increments of this cycle, [port][counter]
    input  wire logic [31:0]                       cnt_add [PORTS][32],
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
    // the counters tx_* adds to
    localparam int          CNT_TX_FRAMES = 2;
    localparam int          CNT_TX_BYTES  = 3;
    localparam int          CNT_TX_PFC    = 11;

    initial begin
        if (PORTS < 1 || PORTS > 16 || QUEUES != 8 || DATA_WIDTH / 8 > 255) begin
            $error("switch_csr: PORTS must be 1..16, QUEUES 8 (instance %m)");
            $finish;
        end
    end

    logic [4:0]               ctrl_q, ctrl_d;
    logic [31:0]              mtu_q, mtu_d;
    logic [31:0]              age_q, age_d;
    logic [2:0]               dprio_q, dprio_d;
    logic [31:0]              xoff_q, xoff_d;
    logic [31:0]              xon_q, xon_d;
    logic [15:0]              quanta_q, quanta_d;
    logic [31:0]              refresh_q, refresh_d;
    logic [31:0]              mac_lo_q, mac_lo_d;
    logic [15:0]              mac_hi_q, mac_hi_d;
    logic [7:0][31:0]         dscp_q, dscp_d;
    logic [QUEUES-1:0][31:0]  ecn_k_q, ecn_k_d;
    logic [QUEUES-1:0][31:0]  quantum_q, quantum_d;
    logic [QUEUES-1:0][31:0]  kmax_q, kmax_d;
    logic [QUEUES-1:0][7:0]   pmax_q, pmax_d;
    logic [PORTS-1:0][31:0][31:0] cnt_q;
    logic                     cnt_we;
    logic [31:0]              rdata_d;

    // address decode
    logic       a_cnt;
    logic [3:0] a_port;
    logic [5:0] a_num;
    logic [2:0] a_idx;

    always_comb begin
        a_cnt  = (csr_addr[15:12] == 4'h1);
        a_port = csr_addr[11:8];
        a_num  = csr_addr[7:2];
        a_idx  = csr_addr[4:2];
    end

    always_comb begin
        ctrl_d    = ctrl_q;
        mtu_d     = mtu_q;
        age_d     = age_q;
        dprio_d   = dprio_q;
        xoff_d    = xoff_q;
        xon_d     = xon_q;
        quanta_d  = quanta_q;
        refresh_d = refresh_q;
        mac_lo_d  = mac_lo_q;
        mac_hi_d  = mac_hi_q;
        dscp_d    = dscp_q;
        ecn_k_d   = ecn_k_q;
        quantum_d = quantum_q;
        kmax_d    = kmax_q;
        pmax_d    = pmax_q;
        red_lfsr_we    = 1'b0;
        red_lfsr_wdata = (csr_wdata[15:0] == 16'd0) ? 16'd1 : csr_wdata[15:0];

        // counters are written by the always_ff below (cnt_we: a CSR write
        // that wins over the increments of its cycle)
        cnt_we    = 1'b0;

        if (csr_we) begin
            unique casez (csr_addr)
                16'h0010: ctrl_d    = csr_wdata[4:0];
                16'h0014: mtu_d     = csr_wdata;
                16'h0018: age_d     = csr_wdata;
                16'h001C: dprio_d   = csr_wdata[2:0];
                16'h0020: xoff_d    = csr_wdata;
                16'h0024: xon_d     = csr_wdata;
                16'h0028: quanta_d  = csr_wdata[15:0];
                16'h002C: refresh_d = csr_wdata;
                16'h0030: mac_lo_d  = csr_wdata;
                16'h0034: mac_hi_d  = csr_wdata[15:0];
                16'h0038: red_lfsr_we = 1'b1;
                16'b0000_0000_010?_??00: dscp_d[a_idx]    = csr_wdata & DSCP_BITS;
                16'b0000_0000_100?_??00: ecn_k_d[a_idx]   = csr_wdata;
                16'b0000_0000_110?_??00: quantum_d[a_idx] = csr_wdata;
                16'b0000_0001_000?_??00: kmax_d[a_idx]    = csr_wdata;
                16'b0000_0001_010?_??00: pmax_d[a_idx]    = csr_wdata[7:0];
                default: ;
            endcase
            if (a_cnt && a_port < 4'(PORTS) && a_num < 6'd32 && CNT_EXISTS[a_num[4:0]] &&
                csr_addr[1:0] == 2'b00) begin
                cnt_we = 1'b1;
            end
        end

        rdata_d = 32'd0;
        unique casez (csr_addr)
            16'h0000: rdata_d = ID_VALUE;
            16'h0004: rdata_d = SHAPE;
            16'h0010: rdata_d = {27'd0, ctrl_q};
            16'h0014: rdata_d = mtu_q;
            16'h0018: rdata_d = age_q;
            16'h001C: rdata_d = {29'd0, dprio_q};
            16'h0020: rdata_d = xoff_q;
            16'h0024: rdata_d = xon_q;
            16'h0028: rdata_d = {16'd0, quanta_q};
            16'h002C: rdata_d = refresh_q;
            16'h0030: rdata_d = mac_lo_q;
            16'h0034: rdata_d = {16'd0, mac_hi_q};
            16'h0038: rdata_d = {16'd0, red_lfsr};
            16'b0000_0000_010?_??00: rdata_d = dscp_q[a_idx];
            16'b0000_0000_100?_??00: rdata_d = ecn_k_q[a_idx];
            16'b0000_0000_110?_??00: rdata_d = quantum_q[a_idx];
            16'b0000_0001_000?_??00: rdata_d = kmax_q[a_idx];
            16'b0000_0001_010?_??00: rdata_d = {24'd0, pmax_q[a_idx]};
            default: rdata_d = 32'd0;
        endcase
        if (a_cnt && a_port < 4'(PORTS) && a_num < 6'd32 && csr_addr[1:0] == 2'b00) begin
            rdata_d = cnt_q[a_port[PORT_W-1:0]][a_num[4:0]];
        end
    end

    always_ff @(posedge clk) begin
        csr_rdata <= rdata_d;
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
            for (int p = 0; p < QUEUES; p++) begin
                ecn_k_q[p]   <= 32'd4096;
                quantum_q[p] <= 32'(MTU_MAX);
                kmax_q[p]    <= 32'd16384;
                pmax_q[p]    <= 8'd26;
            end
            cnt_q      <= '0;
        end else begin
            csr_rvalid <= csr_re;
            ctrl_q     <= ctrl_d;
            mtu_q      <= mtu_d;
            age_q      <= age_d;
            dprio_q    <= dprio_d;
            xoff_q     <= xoff_d;
            xon_q      <= xon_d;
            quanta_q   <= quanta_d;
            refresh_q  <= refresh_d;
            mac_lo_q   <= mac_lo_d;
            mac_hi_q   <= mac_hi_d;
            dscp_q     <= dscp_d;
            ecn_k_q    <= ecn_k_d;
            quantum_q  <= quantum_d;
            kmax_q     <= kmax_d;
            pmax_q     <= pmax_d;
            for (int i = 0; i < PORTS; i++) begin
                for (int n = 0; n < 32; n++) begin
                    if (!CNT_EXISTS[n]) begin
                        cnt_q[i][n] <= 32'd0;
                    end else if (cnt_we && a_port[PORT_W-1:0] == PORT_W'(i) && a_num[4:0] == 5'(n)) begin
                        cnt_q[i][n] <= csr_wdata;
                    end else if (n == CNT_TX_FRAMES) begin
                        cnt_q[i][n] <= cnt_q[i][n] + cnt_add[i][n] + {31'd0, tx_done[i]};
                    end else if (n == CNT_TX_BYTES) begin
                        cnt_q[i][n] <= cnt_q[i][n] + cnt_add[i][n] + (tx_done[i] ? 32'(tx_len[i]) : 32'd0);
                    end else if (n == CNT_TX_PFC) begin
                        cnt_q[i][n] <= cnt_q[i][n] + cnt_add[i][n] + {31'd0, tx_pfc[i]};
                    end else begin
                        cnt_q[i][n] <= cnt_q[i][n] + cnt_add[i][n];
                    end
                end
            end
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
