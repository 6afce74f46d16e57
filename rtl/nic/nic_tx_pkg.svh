// SPDX-License-Identifier: MIT
// nic_tx_pkg: the transmit descriptor of nic_tx_build, one packet to send.
//
// An include file with a guard, not a .sv source: Verilator finds a module by
// its file name but not a package, so every user includes this
//
//   `ifndef NIC_TX_PKG_SVH
//   `include "nic_tx_pkg.svh"
//   `endif
//
// (found with -Irtl/nic), and a build whose include path lacks rtl/nic lists
// this file first among its sources instead (sim/build.mk, nic_tx models);
// the outer `ifndef then skips the include.
`ifndef NIC_TX_PKG_SVH
`define NIC_TX_PKG_SVH

// the timescale of every file here: the package may be the first file read
`timescale 1ns / 1ps

package nic_tx_pkg;

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
    } desc_t;

endpackage

`endif
