// SPDX-License-Identifier: MIT
`resetall
`timescale 1ns / 1ps
`default_nettype none

// switch_ingress: one input port of eth_switch: addresses a frame's beats
// into one of the port's two landing slots, measures it, says which beats
// hold its first HDR_BYTES bytes and hands it to the decision the cycle
// after its last beat.
//
//   s_axis --+--> wr_en, wr_addr (buffer write port: {landing slot, beat};
//            |    the beat's data goes to the buffer straight from s_axis)
//            +--> hdr_sel (header beat b arriving: switch_decide keeps it)
//            +--> len_q, tuser on the last beat
//                   |
//                   v   registered at the last beat (cycle L)
//            dec_valid, dec_len, dec_bad, dec_slot   (valid in D = L+1)
//
//   landing slots: land_q[0], land_q[1]; cur_q selects the one the arriving
//   frame fills, and flips at every last beat, so the next frame may start
//   in L+1 while the frame that ended in L is decided.
//
// Timing constants (eth_switch relies on these):
//   s_axis_tready is always 1.
//   A frame whose last beat is accepted in cycle L is presented on dec_* in
//   cycle L+1 (and only then). Its beats are in the buffer from L+1 on.
//   land_swap in cycle D (the decision cycle) replaces the landing slot the
//   decided frame used; the port writes it no earlier than D+1.
//   Beats past the slot (frames longer than the slot) are not written; the
//   length still counts them (such a frame is dropped as oversize).
//
// Simulation speed (Verilator): every register is updated in the one
// always_ff, a beat inside a frame on a short path; the write address is a
// register (kept with the beat count) and only the write enable and
// hdr_sel are combinational on s_axis, so a cycle without a beat costs
// almost nothing. The header is kept by switch_decide: a wide output of a
// per-port instance is copied into the parent's array at every clock edge.
//
// Reset (synchronous, active high) clears the frame state (length, beat,
// flags) and sets the two landing slots to LAND0 and LAND1; the decided
// frame's fields are not reset.

module switch_ingress #(
    // Bits per beat.
    parameter int DATA_WIDTH = 64,
    // Byte lanes per beat.
    parameter int KEEP_WIDTH = DATA_WIDTH / 8,
    // Header bytes the decision reads, in HDR_BEATS beats.
    parameter int HDR_BYTES  = 48,
    parameter int HDR_BEATS  = (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH,
    // Slot number width.
    parameter int SLOT_W     = 7,
    // Beat number width within a slot.
    parameter int BEAT_W     = 8,
    // Beats of a slot that are written (ceil(MTU_MAX / KEEP_WIDTH)).
    parameter int SLOT_BEATS = 256,
    // Landing slots after reset.
    parameter int LAND0      = 0,
    parameter int LAND1      = 1
) (
    input  wire logic                      clk,
    input  wire logic                      rst,

    // the AXI-Stream input but its tdata, which goes to the buffer and to
    // switch_decide (the header beats) straight from eth_switch's port
    input  wire logic [KEEP_WIDTH-1:0]     s_axis_tkeep,
    input  wire logic                      s_axis_tvalid,
    output wire logic                      s_axis_tready,
    input  wire logic                      s_axis_tlast,
    input  wire logic                      s_axis_tuser,

    // buffer write port (the data is the port's s_axis_tdata)
    output logic                           wr_en,
    output logic [SLOT_W+BEAT_W-1:0]       wr_addr,

    // the frame that ended in the previous cycle
    output logic                           dec_valid,
    output logic [31:0]                    dec_len,
    output logic                           dec_bad,
    output logic [SLOT_W-1:0]              dec_slot,

    // header beat b is on s_axis_tdata (switch_decide keeps it)
    output logic [HDR_BEATS-1:0]           hdr_sel,

    // the decision's answer in the same cycle: a new landing slot
    input  wire logic                      land_swap,
    input  wire logic [SLOT_W-1:0]         land_new,

    // a frame is arriving or waiting for its decision
    output logic                           busy
);

    initial begin
        if (KEEP_WIDTH * 8 != DATA_WIDTH) begin
            $error("switch_ingress: KEEP_WIDTH must be DATA_WIDTH/8 (instance %m)");
            $finish;
        end
        if (SLOT_BEATS < 1 || SLOT_BEATS > 2**BEAT_W || HDR_BYTES < 1 ||
            HDR_BEATS != (HDR_BYTES + KEEP_WIDTH - 1) / KEEP_WIDTH) begin
            $error("switch_ingress: SLOT_BEATS must be 1..2^BEAT_W, HDR_BEATS the beats of HDR_BYTES (instance %m)");
            $finish;
        end
        if (LAND0 >= 2**SLOT_W || LAND1 >= 2**SLOT_W || LAND0 == LAND1) begin
            $error("switch_ingress: LAND0 and LAND1 must be two slots (instance %m)");
            $finish;
        end
    end

    logic [1:0][SLOT_W-1:0]  land_q;
    logic                    cur_q;
    logic                    dec_idx_q;
    logic                    in_frame_q;
    logic [BEAT_W:0]         beat_q;     // saturates at SLOT_BEATS
    logic [31:0]             len_q;
    logic                    dec_valid_q;
    logic [31:0]             dec_len_q;
    logic                    dec_bad_q;
    logic [SLOT_W-1:0]       dec_slot_q;
    // the next beat's buffer address, {land_q[cur_q], beat_q}, and whether
    // it is written (beat_q < SLOT_BEATS), kept with them so that the
    // write port is not recomputed at every evaluation
    logic [SLOT_W+BEAT_W-1:0] wr_addr_q;
    logic                    wr_ok_q;

    // Every register is read before it is assigned (and the reset values
    // come last), so Verilator writes them in place without shadow copies.
    // A beat inside a frame (most cycles of a busy port) takes the short
    // path; a frame's last beat and a landing slot swap the full one.
    always_ff @(posedge clk) begin
        logic [31:0]            beat_bytes;
        logic                   cur;
        logic [BEAT_W:0]        beat;
        logic [1:0][SLOT_W-1:0] land;

        dec_valid_q <= s_axis_tvalid && s_axis_tlast;
        // (a full beat, the usual case, without the population count)
        beat_bytes = 32'(KEEP_WIDTH);
        if (s_axis_tvalid && !(&s_axis_tkeep)) begin
            beat_bytes = 32'($countones(s_axis_tkeep));
        end
        if (s_axis_tvalid && !s_axis_tlast && !land_swap) begin
            in_frame_q <= 1'b1;
            len_q      <= len_q + beat_bytes;
            if (beat_q != (BEAT_W + 1)'(SLOT_BEATS)) begin
                beat       = beat_q + 1'b1;
                beat_q    <= beat;
                wr_addr_q <= {wr_addr_q[SLOT_W+BEAT_W-1:BEAT_W], beat[BEAT_W-1:0]};
                wr_ok_q   <= (beat < (BEAT_W + 1)'(SLOT_BEATS));
            end
        end else if (s_axis_tvalid || land_swap) begin
            cur  = cur_q;
            beat = beat_q;
            land = land_q;
            if (s_axis_tvalid) begin
                if (s_axis_tlast) begin
                    dec_len_q  <= len_q + beat_bytes;
                    dec_bad_q  <= s_axis_tuser;
                    dec_slot_q <= land_q[cur_q];
                    dec_idx_q  <= cur_q;
                    cur         = !cur_q;
                    in_frame_q <= 1'b0;
                    beat        = '0;
                    len_q      <= 32'd0;
                end else begin
                    in_frame_q <= 1'b1;
                    len_q      <= len_q + beat_bytes;
                    if (beat_q != (BEAT_W + 1)'(SLOT_BEATS)) begin
                        beat = beat_q + 1'b1;
                    end
                end
            end
            // the decided frame's landing slot now belongs to its copies
            if (land_swap) begin
                land[dec_idx_q] = land_new;
            end
            cur_q     <= cur;
            beat_q    <= beat;
            land_q    <= land;
            wr_addr_q <= {land[cur], beat[BEAT_W-1:0]};
            wr_ok_q   <= (beat < (BEAT_W + 1)'(SLOT_BEATS));
        end
        if (rst) begin
            land_q      <= {SLOT_W'(LAND1), SLOT_W'(LAND0)};
            wr_addr_q   <= {SLOT_W'(LAND0), BEAT_W'(0)};
            wr_ok_q     <= 1'b1;
            cur_q       <= 1'b0;
            dec_idx_q   <= 1'b0;
            in_frame_q  <= 1'b0;
            beat_q      <= '0;
            len_q       <= 32'd0;
            dec_valid_q <= 1'b0;
        end
    end

    assign s_axis_tready = 1'b1;

    assign wr_en   = s_axis_tvalid && wr_ok_q;
    assign wr_addr = wr_addr_q;

    assign dec_valid = dec_valid_q;
    assign dec_len   = dec_len_q;
    assign dec_bad   = dec_bad_q;
    assign dec_slot  = dec_slot_q;

    always_comb begin
        for (int b = 0; b < HDR_BEATS; b++) begin
            hdr_sel[b] = s_axis_tvalid && beat_q == (BEAT_W + 1)'(b);
        end
    end

    assign busy = in_frame_q || dec_valid_q;

endmodule

`resetall
