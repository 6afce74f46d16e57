// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns/1ps
`default_nettype none

// nic_pkg: the constants and types the NIC's modules share.
//
// One definition of each: the BTH opcodes and the extension headers each
// one carries (parser, transmit builder and engine all read the same
// table), AETH syndromes, the receive decision classes, the counter
// numbers (rc.Counter), completion statuses, work request ops and the
// transmit descriptor. Compile it before any NIC module (sim/build.mk
// lists it first; the Makefile's lint loop reads it before each file).
// Each user reads a few of these: an unused one is no defect here.
/* verilator lint_off UNUSEDPARAM */
package nic_pkg;

    // ---- BTH opcodes (IBA 9.2; golden/roce OpCode) ----
    localparam logic [7:0] OP_SEND_FIRST     = 8'h00;
    localparam logic [7:0] OP_SEND_MIDDLE    = 8'h01;
    localparam logic [7:0] OP_SEND_LAST      = 8'h02;
    localparam logic [7:0] OP_SEND_LAST_IMM  = 8'h03;
    localparam logic [7:0] OP_SEND_ONLY      = 8'h04;
    localparam logic [7:0] OP_SEND_ONLY_IMM  = 8'h05;
    localparam logic [7:0] OP_WRITE_FIRST    = 8'h06;
    localparam logic [7:0] OP_WRITE_MIDDLE   = 8'h07;
    localparam logic [7:0] OP_WRITE_LAST     = 8'h08;
    localparam logic [7:0] OP_WRITE_LAST_IMM = 8'h09;
    localparam logic [7:0] OP_WRITE_ONLY     = 8'h0A;
    localparam logic [7:0] OP_WRITE_ONLY_IMM = 8'h0B;
    localparam logic [7:0] OP_READ_REQ       = 8'h0C;
    localparam logic [7:0] OP_RR_FIRST       = 8'h0D;
    localparam logic [7:0] OP_RR_MIDDLE      = 8'h0E;
    localparam logic [7:0] OP_RR_LAST        = 8'h0F;
    localparam logic [7:0] OP_RR_ONLY        = 8'h10;
    localparam logic [7:0] OP_ACK            = 8'h11;
    localparam logic [7:0] OP_ATOMIC_ACK     = 8'h12;
    localparam logic [7:0] OP_CMP_SWAP       = 8'h13;
    localparam logic [7:0] OP_FETCH_ADD      = 8'h14;
    localparam logic [7:0] OP_SEND_LAST_INV  = 8'h16;
    localparam logic [7:0] OP_SEND_ONLY_INV  = 8'h17;
    localparam logic [7:0] OP_CNP            = 8'h81;

    // opcode[7:5]: the transport
    localparam logic [2:0] TR_RC  = 3'd0;
    localparam logic [2:0] TR_UC  = 3'd1;
    localparam logic [2:0] TR_UD  = 3'd3;
    localparam logic [2:0] TR_CNP = 3'd4;

    // ---- the extension headers after the BTH, by opcode ----
    // roce OpCode.Headers. nic_tx_build writes RETH, AETH, ImmDt and the
    // CNP's 16 zero bytes (the only ones the NIC sends); nic_rx_parse
    // skips all of them.
    typedef struct packed {
        logic reth;        // 16 B: VA, R_Key, DMA length
        logic aeth;        // 4 B: syndrome, MSN
        logic imm;         // 4 B: ImmDt
        logic cnp;         // 16 B reserved, the CNP's only header
        logic deth;        // 8 B: UD
        logic ieth;        // 4 B: SEND with invalidate
        logic atomic_eth;  // 28 B: compare-swap, fetch-add requests
        logic atomic_ack;  // 8 B: AtomicAckETH, after the AETH
    } hdrs_t;

    function automatic hdrs_t op_hdrs(input logic [7:0] op);
        hdrs_t      h;
        logic [4:0] o;
        o = op[4:0];
        h = '0;
        unique case (op[7:5])
            TR_RC: begin
                h.reth       = o == 5'h06 || o == 5'h0A || o == 5'h0B || o == 5'h0C;
                h.aeth       = o == 5'h0D || (o >= 5'h0F && o <= 5'h12);
                h.imm        = o == 5'h03 || o == 5'h05 || o == 5'h09 || o == 5'h0B;
                h.ieth       = o == 5'h16 || o == 5'h17;
                h.atomic_eth = o == 5'h13 || o == 5'h14;
                h.atomic_ack = o == 5'h12;
            end
            TR_UC: begin // the SEND and WRITE operations of RC
                h.reth = o == 5'h06 || o == 5'h0A || o == 5'h0B;
                h.imm  = o == 5'h03 || o == 5'h05 || o == 5'h09 || o == 5'h0B;
            end
            TR_UD: begin // SEND ONLY, and with immediate
                h.deth = o == 5'h04 || o == 5'h05;
                h.imm  = o == 5'h05;
            end
            TR_CNP: begin // the CNP is the only opcode of this transport
                h.cnp = op == OP_CNP;
            end
            default: begin
            end
        endcase
        return h;
    endfunction

    // bytes of the extension headers (roce HeaderLen - 12), at most 28
    function automatic logic [4:0] ext_len(input logic [7:0] op);
        hdrs_t h;
        h = op_hdrs(op);
        return (h.reth ? 5'd16 : 5'd0) + (h.aeth ? 5'd4 : 5'd0) + (h.imm ? 5'd4 : 5'd0) +
               (h.cnp ? 5'd16 : 5'd0) + (h.deth ? 5'd8 : 5'd0) + (h.ieth ? 5'd4 : 5'd0) +
               (h.atomic_eth ? 5'd28 : 5'd0) + (h.atomic_ack ? 5'd8 : 5'd0);
    endfunction

    // bytes of the extension headers nic_tx_build writes for op: the
    // engine spaces its frames by this length, so it must be the builder's
    function automatic logic [4:0] tx_ext_len(input logic [7:0] op);
        /* verilator lint_off UNUSEDSIGNAL */
        hdrs_t h;  // of which the builder's four headers only
        /* verilator lint_on UNUSEDSIGNAL */
        h = op_hdrs(op);
        return (h.reth ? 5'd16 : 5'd0) + (h.aeth ? 5'd4 : 5'd0) + (h.imm ? 5'd4 : 5'd0) +
               (h.cnp ? 5'd16 : 5'd0);
    endfunction

    // ---- AETH syndromes (IBA 9.3.5) ----
    localparam logic [7:0] SYN_ACK     = 8'h1F;  // ACK, credit code 0x1F (rc ACKSyndrome(0x1F))
    localparam logic [7:0] SYN_NAK_SEQ = 8'h60;  // NAK: PSN sequence error
    localparam logic [7:0] SYN_NAK_INV = 8'h61;  // NAK: invalid request
    localparam logic [7:0] SYN_NAK_ACC = 8'h62;  // NAK: remote access error
    // syndrome[6:5]: ACK, RNR NAK, NAK
    localparam logic [1:0] SYN_KIND_ACK = 2'b00;
    localparam logic [1:0] SYN_KIND_RNR = 2'b01;
    localparam logic [1:0] SYN_KIND_NAK = 2'b11;

    // ---- the receive decision of a frame (nic_rx_parse rec_class) ----
    localparam logic [3:0] CLS_RC            = 4'd0;
    localparam logic [3:0] CLS_CNP           = 4'd1;
    localparam logic [3:0] CLS_NOT_ROCE      = 4'd2;
    localparam logic [3:0] CLS_MALFORMED     = 4'd3;
    localparam logic [3:0] CLS_BAD_ICRC      = 4'd4;
    localparam logic [3:0] CLS_WRONG_ADDRESS = 4'd5;
    localparam logic [3:0] CLS_BAD_HEADER    = 4'd6;
    localparam logic [3:0] CLS_UNKNOWN_QP    = 4'd7;
    localparam logic [3:0] CLS_BUFFER_FULL   = 4'd8;
    localparam logic [3:0] CLS_BAD_FRAME     = 4'd9;
    localparam logic [3:0] CLS_PFC           = 4'd10;  // MAC Control, consumed (README "PFC")
    localparam logic [3:0] CLS_PAUSE         = 4'd11;
    localparam logic [3:0] CLS_MAC_CONTROL   = 4'd12;

    // ---- counters: rc.Counter numbers, then the NIC's own node drops ----
    localparam int NODE_CNT = 31;  // node counters 0..30
    localparam int QP_CNT   = 39;  // QP counter numbers 0..38; 0..5 are node-only
    localparam int QP_FIRST = 6;   // the first per-QP counter
    // node counters
    localparam int N_RX_NOT_ROCE      = 0;
    localparam int N_RX_MALFORMED     = 1;
    localparam int N_RX_BAD_ICRC      = 2;
    localparam int N_RX_WRONG_ADDRESS = 3;
    localparam int N_RX_BAD_HEADER    = 4;
    localparam int N_RX_UNKNOWN_QP    = 5;
    localparam int N_CMD_BAD          = 6;
    localparam int N_CMD_REJECTED     = 7;
    localparam int N_CQ_OVERFLOW      = 8;
    localparam int N_HOST_RX_OVERFLOW = 9;
    localparam int N_RX_BAD_FRAME     = 10;
    localparam int N_RX_BUFFER_FULL   = 11;
    localparam int N_RX_PFC           = 12;  // MAC Control (README "PFC")
    localparam int N_RX_PAUSE         = 13;
    localparam int N_RX_MAC_CONTROL   = 14;
    localparam int N_PAUSE_NAMED      = 15;  // + priority
    localparam int N_PAUSED_CYCLES    = 23;  // + priority
    // QP counters
    localparam int C_RX_PACKETS          = 6;
    localparam int C_RX_QP_ERROR         = 7;
    localparam int C_RX_CE               = 8;
    localparam int C_TX_CNP              = 9;
    localparam int C_CNP_SUPPRESSED      = 10;
    localparam int C_RX_CNP              = 11;
    localparam int C_RESP_OOS            = 12;
    localparam int C_RESP_NAK_SEQ        = 13;
    localparam int C_RESP_GAP_SILENT     = 14;
    localparam int C_RESP_DUP            = 15;
    localparam int C_RESP_DUP_READ       = 16;
    localparam int C_RESP_DUP_DROP       = 17;
    localparam int C_RESP_RNR            = 18;
    localparam int C_RESP_INVALID        = 19;
    localparam int C_RESP_ACCESS         = 20;
    localparam int C_RESP_ACK            = 21;
    localparam int C_RESP_READ_RESP      = 22;
    localparam int C_TX_PACKETS          = 23;
    localparam int C_TX_RETRANSMITS      = 24;
    localparam int C_REQ_STALE_ACK       = 25;
    localparam int C_REQ_BOGUS_ACK       = 26;
    localparam int C_REQ_DUP_RESP        = 27;
    localparam int C_REQ_BAD_RESP        = 28;
    localparam int C_REQ_RETRY_NAK       = 29;
    localparam int C_REQ_RETRY_TIMEOUT   = 30;
    localparam int C_REQ_RETRY_READ_GAP  = 31;
    localparam int C_REQ_RETRY_IGNORED   = 32;
    localparam int C_REQ_RNR_WAIT        = 33;
    localparam int C_REQ_RETRY_EXCEEDED  = 34;
    localparam int C_REQ_RNR_EXCEEDED    = 35;
    localparam int C_REQ_REMOTE_ERROR    = 36;
    localparam int C_COMP_SUCCESS        = 37;
    localparam int C_COMP_ERROR          = 38;

    // ---- completion statuses (rc.Status) ----
    localparam logic [7:0] ST_SUCCESS      = 8'd0;
    localparam logic [7:0] ST_LOC_LEN      = 8'd1;
    localparam logic [7:0] ST_REM_INV      = 8'd2;
    localparam logic [7:0] ST_REM_ACCESS   = 8'd3;
    localparam logic [7:0] ST_REM_OP       = 8'd4;
    localparam logic [7:0] ST_RETRY_EXC    = 8'd5;
    localparam logic [7:0] ST_RNR_EXC      = 8'd6;
    localparam logic [7:0] ST_FLUSHED      = 8'd7;
    localparam logic [7:0] ST_INV_REQ_RCVD = 8'd8;
    localparam logic [7:0] ST_ACCESS_RCVD  = 8'd9;

    // ---- host records (README "Host records") ----
    // byte 0 of a command and of a completion
    localparam logic [7:0] KIND_SEND = 8'd1;
    localparam logic [7:0] KIND_RECV = 8'd2;
    // work request ops (byte 1)
    localparam logic [2:0] WR_SEND      = 3'd0;
    localparam logic [2:0] WR_SEND_IMM  = 3'd1;
    localparam logic [2:0] WR_WRITE     = 3'd2;
    localparam logic [2:0] WR_WRITE_IMM = 3'd3;
    localparam logic [2:0] WR_READ      = 3'd4;
    // the longest message a work request may carry (rc's MaxMessage)
    localparam logic [31:0] MAX_MESSAGE = 32'h0010_0000;

    // ---- the transmit descriptor: one packet for nic_tx_build ----
    // Every field of golden/rc's makeHeader and txPacket. Multi-byte fields
    // are numbers, sent big-endian: the first byte on the wire is the top
    // byte (dst_mac 48'h0200_0000_0001 is 02:00:00:00:00:01, src_ip
    // 32'h0A00_0001 is 10.0.0.1). Fields an opcode does not carry are
    // ignored (RETH, AETH, ImmDt by opcode; all of them for a CNP).
    typedef struct packed {
        logic [47:0] dst_mac;       // Ethernet destination
        logic [47:0] src_mac;       // Ethernet source
        logic [31:0] src_ip;        // IPv4 source
        logic [31:0] dst_ip;        // IPv4 destination
        logic [15:0] udp_sport;     // UDP source port (flow entropy)
        logic [7:0]  tos;           // IPv4 TOS: DSCP << 2 | ECN
        logic [7:0]  opcode;        // BTH opcode
        logic [23:0] dest_qp;       // BTH DestQP
        logic [23:0] psn;           // BTH PSN
        logic        ack_req;       // BTH AckReq
        logic        becn;          // BTH BECN (CNPs)
        logic [63:0] reth_va;       // RETH virtual address
        logic [31:0] reth_rkey;     // RETH R_Key
        logic [31:0] reth_dma_len;  // RETH DMA length
        logic [7:0]  aeth_syndrome; // AETH syndrome
        logic [23:0] aeth_msn;      // AETH MSN
        logic [31:0] imm;           // ImmDt
        logic [63:0] pay_addr;      // host address of the payload, any alignment
        logic [12:0] pay_len;       // payload bytes, 0..4096 (0: no DMA read)
        logic        vlan;          // an 802.1Q tag after the MACs (IEEE 802.1Q 9.6)
        logic [15:0] tci;           // its TCI: PCP 3, DEI 1 (0), VID 12
    } desc_t;

endpackage
/* verilator lint_on UNUSEDPARAM */

`resetall
