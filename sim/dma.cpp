// SPDX-License-Identifier: MIT
// dma.cpp: the host side of the DMA port (see dma.h for the port and its
// timing).
#include "dma.h"

#include <cstdio>
#include <cstring>

namespace cosim {

namespace {

uint64_t ones(uint32_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

// Roles of the DMA generators in SplitMix64::stream (1 and 2 are the
// AXI-Stream sources and sinks).
constexpr uint32_t kRoleDmaGap = 3;
constexpr uint32_t kRoleDmaStall = 4;

}  // namespace

DmaHost::DmaHost(const DmaBus& bus, HostMemory& mem, uint64_t read_latency, uint64_t seed, uint32_t gap_pct,
                 uint32_t stall_pct)
    : bus_(bus),
      mem_(&mem),
      latency_(read_latency),
      lane_bytes_(bus.data_width / 8),
      keep_full_(ones(bus.data_width / 8)),
      gap_pct_(gap_pct),
      stall_pct_(stall_pct),
      gap_rng_(SplitMix64::stream(seed, kRoleDmaGap, 0)),
      stall_rng_(SplitMix64::stream(seed, kRoleDmaStall, 0)),
      reads_(kDmaMaxReads),
      held_data_(bus.data_width / 8) {
    if (bus.data_width == 0 || bus.data_width % 8 != 0 || bus.data_width > 512) {
        throw std::runtime_error("DmaHost: DATA_WIDTH must be a multiple of 8, at most 512, got " +
                                 std::to_string(bus.data_width));
    }
    if (read_latency < 1 || read_latency > kDmaMaxReadLatency) {
        throw std::runtime_error("DmaHost: read latency " + std::to_string(read_latency) + ", want 1.." +
                                 std::to_string(kDmaMaxReadLatency));
    }
    for (Read& r : reads_) r.data.resize(kDmaMaxLen);
}

void DmaHost::fail(const char* channel, uint64_t cycle, const std::string& what) const {
    throw ModelError(std::string(channel) + " at cycle " + std::to_string(cycle) + ": " + what);
}

void DmaHost::drive(uint64_t cycle) {
    // Two stall draws every cycle, whatever the state, so that a rerun with
    // the same seed sees the same readies.
    bool req_ready = count_ < kDmaMaxReads;
    bool wr_ready = true;
    if (stall_pct_ != 0) {
        if (stall_rng_.chance(stall_pct_)) req_ready = false;
        if (stall_rng_.chance(stall_pct_)) wr_ready = false;
    }
    if (req_ready != req_ready_) {
        bus_.rd_req_ready.set_bit(0, req_ready);
        req_ready_ = req_ready;
    }
    if (wr_ready != wr_ready_) {
        bus_.wr_ready.set_bit(0, wr_ready);
        wr_ready_ = wr_ready;
    }

    if (offered_) return;  // a beat once offered stays until taken
    if (count_ == 0 || reads_[head_].due > cycle || (gap_pct_ != 0 && gap_rng_.chance(gap_pct_))) {
        if (resp_valid_on_) {
            bus_.rd_resp_valid.set_bit(0, false);
            resp_valid_on_ = false;
        }
        return;
    }
    offer();
}

void DmaHost::offer() {
    const Read& r = reads_[head_];
    const uint32_t left = r.len - sent_;
    const uint32_t n = left < lane_bytes_ ? left : lane_bytes_;
    uint8_t* lanes = bus_.rd_resp_data.lanes(0, lane_bytes_);
    copy_bytes(lanes, r.data.data() + sent_, n);
    if (n < lane_bytes_) std::memset(lanes + n, 0, lane_bytes_ - n);
    bus_.rd_resp_keep.put(0, lane_bytes_, ones(n));
    bus_.rd_resp_last.set_bit(0, n == left);
    bus_.rd_resp_tag.put(0, kDmaTagBits, r.tag);
    if (!resp_valid_on_) {
        bus_.rd_resp_valid.set_bit(0, true);
        resp_valid_on_ = true;
    }
    beat_bytes_ = n;
    offered_ = true;
}

void DmaHost::answered() {
    offered_ = false;
    sent_ += beat_bytes_;
    if (sent_ == reads_[head_].len) {
        head_ = (head_ + 1) % kDmaMaxReads;
        --count_;
        sent_ = 0;
    }
}

void DmaHost::sample(uint64_t cycle) {
    if (offered_ && bus_.rd_resp_ready.bit(0)) answered();

    // Writes before reads: a read taken in the same cycle as a write beat
    // sees that beat's bytes.
    if (wr_held_) check_write(cycle);
    if (bus_.wr_valid.bit(0)) {
        if (wr_ready_) {
            write_beat(cycle);
        } else {
            hold_write();
        }
    }

    if (req_held_) check_request(cycle);
    if (bus_.rd_req_valid.bit(0)) {
        if (req_ready_) {
            request(cycle);
        } else {
            hold_request();
        }
    }
}

void DmaHost::request(uint64_t cycle) {
    const uint64_t addr = bus_.rd_req_addr.get(0, 64);
    const uint32_t len = uint32_t(bus_.rd_req_len.get(0, kDmaLenBits));
    const uint8_t tag = uint8_t(bus_.rd_req_tag.get(0, kDmaTagBits));
    if (len == 0 || len > kDmaMaxLen) {
        fail("dma_rd_req", cycle,
             "length " + std::to_string(len) + " at address " + hex(addr) + " (want 1.." +
                 std::to_string(kDmaMaxLen) + ")");
    }
    if (addr + (len - 1) < addr) {
        fail("dma_rd_req", cycle, std::to_string(len) + " bytes at " + hex(addr) + " run past 2^64");
    }
    Read& r = reads_[(head_ + count_) % kDmaMaxReads];
    r.addr = addr;
    r.len = len;
    r.tag = tag;
    r.due = cycle + latency_;
    mem_->read(addr, r.data.data(), len);
    ++count_;
    ++counters_.reads;
    counters_.read_bytes += len;
}

void DmaHost::write_beat(uint64_t cycle) {
    const uint64_t keep = bus_.wr_keep.get(0, lane_bytes_);
    const bool last = bus_.wr_last.bit(0);
    uint32_t n = lane_bytes_;
    if (keep != keep_full_) {
        if (keep == 0) fail("dma_wr", cycle, "keep is zero on a beat (every beat must carry at least one byte)");
        if (!last) fail("dma_wr", cycle, "keep " + hex(keep) + " on a beat without last (only the last beat may be partial)");
        if ((keep & (keep + 1)) != 0) fail("dma_wr", cycle, "keep " + hex(keep) + " is not contiguous from lane 0");
        n = uint32_t(__builtin_popcountll(keep));
    }
    if (!writing_) {
        writing_ = true;
        wr_addr_ = bus_.wr_addr.get(0, 64);
        wr_len_ = 0;
    }
    if (wr_len_ + n > kDmaMaxLen) {
        fail("dma_wr", cycle, "write at " + hex(wr_addr_) + " longer than " + std::to_string(kDmaMaxLen) +
                                  " bytes (last missing?)");
    }
    const uint64_t at = wr_addr_ + wr_len_;
    if (at < wr_addr_ || at + (n - 1) < at) {
        fail("dma_wr", cycle, "write at " + hex(wr_addr_) + " runs past 2^64");
    }
    mem_->write(at, bus_.wr_data.lanes(0, lane_bytes_), n);
    wr_len_ += n;
    if (last) {
        writing_ = false;
        ++counters_.writes;
        counters_.write_bytes += wr_len_;
    }
}

void DmaHost::hold_request() {
    req_held_ = true;
    held_addr_ = bus_.rd_req_addr.get(0, 64);
    held_len_ = bus_.rd_req_len.get(0, kDmaLenBits);
    held_tag_ = bus_.rd_req_tag.get(0, kDmaTagBits);
}

void DmaHost::check_request(uint64_t cycle) {
    req_held_ = false;
    if (!bus_.rd_req_valid.bit(0)) {
        fail("dma_rd_req", cycle, "valid dropped before the request offered in the cycle before was taken");
    }
    if (held_addr_ != bus_.rd_req_addr.get(0, 64) || held_len_ != bus_.rd_req_len.get(0, kDmaLenBits) ||
        held_tag_ != bus_.rd_req_tag.get(0, kDmaTagBits)) {
        fail("dma_rd_req", cycle, "addr, len or tag changed while valid was high and ready low");
    }
}

void DmaHost::hold_write() {
    wr_held_ = true;
    std::memcpy(held_data_.data(), bus_.wr_data.lanes(0, lane_bytes_), lane_bytes_);
    held_keep_ = bus_.wr_keep.get(0, lane_bytes_);
    held_last_ = bus_.wr_last.bit(0);
    held_wr_addr_ = bus_.wr_addr.get(0, 64);
}

void DmaHost::check_write(uint64_t cycle) {
    wr_held_ = false;
    if (!bus_.wr_valid.bit(0)) {
        fail("dma_wr", cycle, "valid dropped before the beat offered in the cycle before was taken");
    }
    if (std::memcmp(held_data_.data(), bus_.wr_data.lanes(0, lane_bytes_), lane_bytes_) != 0 ||
        held_keep_ != bus_.wr_keep.get(0, lane_bytes_) || held_last_ != bus_.wr_last.bit(0)) {
        fail("dma_wr", cycle, "data, keep or last changed while valid was high and ready low");
    }
    // The address counts on a write's first beat only.
    if (!writing_ && held_wr_addr_ != bus_.wr_addr.get(0, 64)) {
        fail("dma_wr", cycle, "addr changed on a write's first beat while valid was high and ready low");
    }
}

}  // namespace cosim
