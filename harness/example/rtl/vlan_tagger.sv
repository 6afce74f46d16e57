// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// vlan_tagger: an IEEE 802.1Q VLAN tagger with two ports, in the port
// convention of cosim's sim/README.md (DATA_WIDTH 64 only).
//
//   port 0 (access to trunk): a frame without a VLAN tag gets one after its
//     source MAC address (bytes 12..15): the TPID 0x8100 (IEEE 802.1Q-2018,
//     9.5, Table 9-1: the C-VLAN tag), then the TCI from TAG, PCP in bits
//     15..13, DEI in bit 12, VID in bits 11..0 (9.6). A frame whose bytes
//     12..13 are already 0x8100 passes unchanged, and so does a frame too
//     short to have an EtherType (under 14 bytes), and every frame while
//     CTRL.ENABLE is 0.
//   port 1 (trunk to access): frames pass unchanged.
//   A frame marked bad (tuser on its last beat) leaves marked bad.
//
// Registers (CSR bus; a read answers in the next cycle, csr_rvalid one
// cycle; unmapped addresses read 0, writes to them and to read-only
// registers are ignored):
//   0x00 ID      ro  0x564c4154 ("VLAT")
//   0x04 TAG     rw  [15:13] PCP, [12] DEI, [11:0] VID; reset 0x0001 (VID 1,
//                    the default PVID of 802.1Q, 12.10.1.1)
//   0x08 CTRL    rw  [0] ENABLE; reset 1
//   0x10 TAGGED  ro  port 0 frames that got a tag
//   0x14 PASSED  ro  port 0 frames that passed unchanged
//   0x18 PORT1   ro  port 1 frames
//
// Timing:
//   LATENCY: a beat taken in cycle t is offered on its output from t+1
//     (one register per port); s_axis_tready[p] = !m_axis_tvalid[p] ||
//     m_axis_tready[p], so a port runs a beat per cycle.
//   A tagged frame is 4 bytes longer. When its last input beat carries
//     more than 4 bytes the output needs one more beat: port 0 holds
//     s_axis_tready low for that cycle.
//   TAG and CTRL are read once per frame, when its first beat is taken: a
//     write on the bus in cycle t applies to frames whose first beat is
//     taken in t+1 or later.
//   idle is high when no output beat is held and port 0 is between frames.

module vlan_tagger #(
    // Width of tdata per port in bits: 64 only (the tag's bytes 12..15
    // fall in the second beat, lanes 4..7).
    parameter int DATA_WIDTH = 64
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    input  wire logic [2*DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire logic [2*DATA_WIDTH/8-1:0] s_axis_tkeep,
    input  wire logic [1:0]                s_axis_tvalid,
    output wire logic [1:0]                s_axis_tready,
    input  wire logic [1:0]                s_axis_tlast,
    input  wire logic [1:0]                s_axis_tuser,

    output      logic [2*DATA_WIDTH-1:0]   m_axis_tdata,
    output      logic [2*DATA_WIDTH/8-1:0] m_axis_tkeep,
    output      logic [1:0]                m_axis_tvalid,
    input  wire logic [1:0]                m_axis_tready,
    output      logic [1:0]                m_axis_tlast,
    output      logic [1:0]                m_axis_tuser,

    input  wire logic [15:0]               csr_addr,
    input  wire logic [31:0]               csr_wdata,
    input  wire logic                      csr_we,
    input  wire logic                      csr_re,
    output      logic [31:0]               csr_rdata,
    output      logic                      csr_rvalid,

    output wire logic                      idle
);

    initial begin
        if (DATA_WIDTH != 64) begin
            $error("vlan_tagger: DATA_WIDTH must be 64");
            $finish;
        end
    end

    localparam logic [31:0] ID = 32'h564c4154;
    localparam logic [15:0] TPID_CVLAN = 16'h8100; // 802.1Q-2018 Table 9-1

    // ---- registers ----
    logic [15:0] tag_q;
    logic        enable_q;
    logic [31:0] tagged_count, passed_count, port1_count;

    // ---- port 0: the tagger ----
    typedef enum logic [2:0] {
        FIRST,  // the next beat is a frame's first (bytes 0..7)
        SECOND, // its second (bytes 8..15): the EtherType decides
        SHIFT,  // tagging: each output beat is 4 bytes held + 4 new
        PASS,   // passing the rest of the frame unchanged
        EXTRA   // tagging: the 4 bytes held are the frame's last beat
    } state_t;
    state_t st;

    logic [15:0] frame_tci;    // TAG as the frame's first beat found it
    logic        frame_enable; // CTRL.ENABLE likewise
    logic [31:0] held_data;    // the upper 4 bytes of the last input beat
    logic [3:0]  held_keep;
    logic        held_user;

    wire logic [63:0] in0_data = s_axis_tdata[63:0];
    wire logic [7:0]  in0_keep = s_axis_tkeep[7:0];
    wire logic        load0    = !m_axis_tvalid[0] || m_axis_tready[0];
    assign s_axis_tready[0] = load0 && st != EXTRA;
    wire logic        take0    = s_axis_tvalid[0] && s_axis_tready[0];

    // In the second beat, lanes 4 and 5 are bytes 12 and 13: the EtherType
    // when keep says they are there, 0x8100 when a tag is already there.
    wire logic has_type = in0_keep[5];
    wire logic has_tag  = {in0_data[39:32], in0_data[47:40]} == TPID_CVLAN;
    wire logic insert   = frame_enable && has_type && !has_tag;
    // The tag as four lanes, in wire order: TPID, then the TCI, high byte first.
`ifdef MUTANT_TCI_ORDER
    // Planted bug: DEI before PCP, as if the TCI were {DEI, PCP, VID}.
    wire logic [15:0] tci = {frame_tci[12], frame_tci[15:13], frame_tci[11:0]};
`else
    wire logic [15:0] tci = frame_tci;
`endif
    wire logic [31:0] tag_lanes = {tci[7:0], tci[15:8], TPID_CVLAN[7:0], TPID_CVLAN[15:8]};

    wire logic count_tagged = take0 && st == SECOND && insert;
    wire logic count_passed = take0 && ((st == FIRST && s_axis_tlast[0]) || (st == SECOND && !insert));

    always_ff @(posedge clk) begin
        if (load0) begin
            m_axis_tvalid[0] <= 1'b0;
        end
        if (load0 && st == EXTRA) begin
            m_axis_tdata[63:0] <= {32'h0, held_data};
            m_axis_tkeep[7:0]  <= {4'h0, held_keep};
            m_axis_tvalid[0]   <= 1'b1;
            m_axis_tlast[0]    <= 1'b1;
            m_axis_tuser[0]    <= held_user;
            st                 <= FIRST;
        end else if (take0) begin
            m_axis_tdata[63:0] <= in0_data;
            m_axis_tkeep[7:0]  <= in0_keep;
            m_axis_tvalid[0]   <= 1'b1;
            m_axis_tlast[0]    <= s_axis_tlast[0];
            m_axis_tuser[0]    <= s_axis_tuser[0];
            held_data          <= in0_data[63:32];
            held_keep          <= in0_keep[7:4];
            held_user          <= s_axis_tuser[0];
            case (st)
                FIRST: begin
                    frame_tci    <= tag_q;
                    frame_enable <= enable_q;
                    st           <= s_axis_tlast[0] ? FIRST : SECOND;
                end
                SECOND: begin
                    if (insert) begin
                        // bytes 8..11, then the tag; bytes 12.. follow shifted
                        m_axis_tdata[63:0] <= {tag_lanes, in0_data[31:0]};
                        m_axis_tkeep[7:0]  <= 8'hff;
                        m_axis_tlast[0]    <= 1'b0;
                        m_axis_tuser[0]    <= 1'b0;
                        st                 <= s_axis_tlast[0] ? EXTRA : SHIFT;
                    end else begin
                        st <= s_axis_tlast[0] ? FIRST : PASS;
                    end
                end
                SHIFT: begin
                    m_axis_tdata[63:0] <= {in0_data[31:0], held_data};
                    m_axis_tkeep[7:0]  <= {in0_keep[3:0], held_keep};
                    if (s_axis_tlast[0] && in0_keep[4]) begin
                        // more than 4 bytes in the last beat: one beat more
                        m_axis_tlast[0] <= 1'b0;
                        m_axis_tuser[0] <= 1'b0;
                        st              <= EXTRA;
                    end else if (s_axis_tlast[0]) begin
                        st <= FIRST;
                    end
                end
                default: begin // PASS
                    if (s_axis_tlast[0]) begin
                        st <= FIRST;
                    end
                end
            endcase
        end
        if (rst) begin
            st            <= FIRST;
            m_axis_tvalid[0] <= 1'b0;
        end
    end

    // ---- port 1: frames pass ----
    wire logic load1 = !m_axis_tvalid[1] || m_axis_tready[1];
    assign s_axis_tready[1] = load1;

    always_ff @(posedge clk) begin
        if (load1) begin
            m_axis_tdata[127:64] <= s_axis_tdata[127:64];
            m_axis_tkeep[15:8]   <= s_axis_tkeep[15:8];
            m_axis_tvalid[1]     <= s_axis_tvalid[1];
            m_axis_tlast[1]      <= s_axis_tlast[1];
            m_axis_tuser[1]      <= s_axis_tuser[1];
        end
        if (rst) begin
            m_axis_tvalid[1] <= 1'b0;
        end
    end

    // ---- CSR bus and counters ----
    always_ff @(posedge clk) begin
        csr_rvalid <= csr_re;
        if (csr_re) begin
            case (csr_addr)
                16'h00:  csr_rdata <= ID;
                16'h04:  csr_rdata <= {16'h0, tag_q};
                16'h08:  csr_rdata <= {31'h0, enable_q};
                16'h10:  csr_rdata <= tagged_count;
                16'h14:  csr_rdata <= passed_count;
                16'h18:  csr_rdata <= port1_count;
                default: csr_rdata <= 32'h0;
            endcase
        end
        if (csr_we && csr_addr == 16'h04) begin
            tag_q <= csr_wdata[15:0];
        end
        if (csr_we && csr_addr == 16'h08) begin
            enable_q <= csr_wdata[0];
        end
        tagged_count <= tagged_count + {31'h0, count_tagged};
        passed_count <= passed_count + {31'h0, count_passed};
        port1_count  <= port1_count + {31'h0, s_axis_tvalid[1] && load1 && s_axis_tlast[1]};
        if (rst) begin
            csr_rvalid   <= 1'b0;
            tag_q        <= 16'h0001;
            enable_q     <= 1'b1;
            tagged_count <= '0;
            passed_count <= '0;
            port1_count  <= '0;
        end
    end

    // csr_wdata's upper half writes no register.
    wire logic unused_wdata = ^csr_wdata[31:16];
    assign idle = m_axis_tvalid == 2'b00 && st == FIRST;

endmodule

`resetall
