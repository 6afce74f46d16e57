// SPDX-License-Identifier: MIT
// dma.h: the host-memory DMA port of a top, and the adapter that serves it
// from the model's HostMemory (memory.h).
//
// The DMA port (optional; a top has all of these ports or none; DW is the
// top's DATA_WIDTH, one beat carries DW/8 bytes):
//   read request, top -> host
//     dma_rd_req_valid        out
//     dma_rd_req_ready        in   low while kDmaMaxReads reads are outstanding
//     dma_rd_req_addr [63:0]  out  byte address, any alignment
//     dma_rd_req_len  [12:0]  out  bytes, 1..kDmaMaxLen
//     dma_rd_req_tag  [7:0]   out  returned with every beat of the answer
//   read response, host -> top
//     dma_rd_resp_data [DW-1:0]    in   byte addr+k of the read in lane k
//                                       of its first beat, and so on
//     dma_rd_resp_keep [DW/8-1:0]  in   all ones but on the last beat,
//                                       which has a contiguous run from lane 0
//     dma_rd_resp_valid       in
//     dma_rd_resp_ready       out
//     dma_rd_resp_last        in   last beat of a read
//     dma_rd_resp_tag [7:0]   in   the tag of the request
//   write, top -> host
//     dma_wr_valid            out
//     dma_wr_ready            in
//     dma_wr_addr [63:0]      out  byte address, taken on the first beat of a
//                                  write and ignored on the others
//     dma_wr_data [DW-1:0]    out  byte addr+k of the write in lane k of its
//                                  first beat, and so on
//     dma_wr_keep [DW/8-1:0]  out  as dma_rd_resp_keep
//     dma_wr_last             out  last beat of a write
//
// Timing (a handshake in cycle t is valid && ready sampled in t, as the
// flops see it at the rising edge; sim.h):
//   - Reads are answered in request order, each a burst of ceil(len/(DW/8))
//     beats, one beat per cycle while dma_rd_resp_ready is high. The first
//     beat of a read whose request was taken in cycle t is offered from
//     cycle t+L, L = the read latency (kDmaReadLatency by default, the
//     model's --dma-read-latency flag, 1..kDmaMaxReadLatency), or as soon
//     as the read before it has sent its last beat if that is later. A beat
//     once offered stays until taken. The next read may start in the cycle
//     after the last beat of the one before: no gap between reads.
//   - The data of a read is memory as it is when the request is taken
//     (cycle t), after any write beat taken in the same cycle t.
//   - dma_rd_req_ready is low while kDmaMaxReads reads are outstanding
//     (taken, last beat not yet taken); a read stops counting in the cycle
//     after its last beat is taken.
//   - A write beat goes into memory when it is taken. A write is done when
//     its last beat is taken: there is no completion signal; a read taken
//     in that cycle or later, and any MEM_READ after the window, see it.
//     dma_wr_ready is always high without backpressure.
//   - Backpressure (HELLO_ACK seed, --seed/--gap/--stall in raw mode): with
//     src_gap_pct, each response beat about to be offered is held back a
//     cycle with that probability (the latency is then a minimum); with
//     sink_stall_pct, dma_rd_req_ready and dma_wr_ready are each held low
//     on that share of cycles. The draws are per cycle, from (seed, role),
//     on streams of their own: the AXI-Stream ports draw as without DMA.
// Misuse by the top is a ModelError naming the channel, the cycle and the
// rule: a length of 0 or above kDmaMaxLen, a read or write running past
// 2^64, a write longer than kDmaMaxLen bytes, tkeep zero, partial on a beat
// without last or not contiguous from lane 0, and a request or write beat
// that drops valid or changes while it waits for ready.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "axis.h"
#include "memory.h"
#include "rng.h"
#include "signal.h"

namespace cosim {

constexpr uint32_t kDmaMaxLen = 4096;               // bytes per read or write
constexpr uint32_t kDmaMaxReads = 16;               // reads outstanding at most
constexpr uint64_t kDmaReadLatency = 64;            // default L, cycles
constexpr uint64_t kDmaMaxReadLatency = 1u << 20;   // largest L the flag takes
constexpr uint32_t kDmaLenBits = 13;                // width of dma_rd_req_len
constexpr uint32_t kDmaTagBits = 8;

struct DmaBus {
    Sig rd_req_valid, rd_req_ready, rd_req_addr, rd_req_len, rd_req_tag;
    Sig rd_resp_data, rd_resp_keep, rd_resp_valid, rd_resp_ready, rd_resp_last, rd_resp_tag;
    Sig wr_valid, wr_ready, wr_addr, wr_data, wr_keep, wr_last;
    uint32_t data_width = 0;
    explicit operator bool() const { return bool(rd_req_valid); }
};

// What the adapter has served, counted when the request (read) or the last
// beat (write) is taken.
struct DmaCounters {
    uint64_t reads = 0;
    uint64_t read_bytes = 0;
    uint64_t writes = 0;
    uint64_t write_bytes = 0;
};

// DmaHost is the host side of a DMA port: it takes read requests and write
// beats from the top and answers reads, all against one HostMemory, which
// must outlive it.
class DmaHost {
public:
    DmaHost() = default;
    DmaHost(const DmaBus& bus, HostMemory& mem, uint64_t read_latency, uint64_t seed, uint32_t gap_pct,
            uint32_t stall_pct);

    // With clk low, before eval: this cycle's readies and response beat.
    void drive(uint64_t cycle);
    // After that eval: the handshakes. Throws ModelError on misuse.
    void sample(uint64_t cycle);

    // Reads outstanding or a write half done.
    bool busy() const { return count_ != 0 || writing_; }
    const DmaCounters& counters() const { return counters_; }

private:
    struct Read {
        uint64_t addr = 0;
        uint32_t len = 0;
        uint8_t tag = 0;
        uint64_t due = 0;           // first cycle its first beat may be offered
        std::vector<uint8_t> data;  // kDmaMaxLen bytes, read when the request was taken
    };

    void offer();
    void answered();
    void request(uint64_t cycle);
    void write_beat(uint64_t cycle);
    void hold_request();
    void check_request(uint64_t cycle);
    void hold_write();
    void check_write(uint64_t cycle);
    [[noreturn]] void fail(const char* channel, uint64_t cycle, const std::string& what) const;

    DmaBus bus_;
    HostMemory* mem_ = nullptr;
    uint64_t latency_ = kDmaReadLatency;
    uint32_t lane_bytes_ = 0;
    uint64_t keep_full_ = 0;
    uint32_t gap_pct_ = 0;
    uint32_t stall_pct_ = 0;
    SplitMix64 gap_rng_;    // response gaps
    SplitMix64 stall_rng_;  // request and write readies

    // Outstanding reads: a ring of kDmaMaxReads slots, head_ the oldest.
    std::vector<Read> reads_;
    uint32_t head_ = 0;
    uint32_t count_ = 0;
    uint32_t sent_ = 0;          // bytes of the head read already taken
    uint32_t beat_bytes_ = 0;    // bytes in the offered beat
    bool offered_ = false;       // a response beat is on the bus, not yet taken
    bool resp_valid_on_ = false; // what dma_rd_resp_valid holds now

    bool req_ready_ = false;  // what dma_rd_req_ready holds now
    bool wr_ready_ = false;   // what dma_wr_ready holds now

    // The write in progress.
    bool writing_ = false;
    uint64_t wr_addr_ = 0;
    uint32_t wr_len_ = 0;

    // A request or write beat seen while its ready was low; it must be
    // offered unchanged in the next cycle.
    bool req_held_ = false;
    uint64_t held_addr_ = 0;
    uint64_t held_len_ = 0;
    uint64_t held_tag_ = 0;
    bool wr_held_ = false;
    std::vector<uint8_t> held_data_;
    uint64_t held_keep_ = 0;
    bool held_last_ = false;
    uint64_t held_wr_addr_ = 0;

    DmaCounters counters_;
};

}  // namespace cosim
