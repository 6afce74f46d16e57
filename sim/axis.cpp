// SPDX-License-Identifier: MIT
// axis.cpp: per-beat work of the AXI-Stream adapters (see axis.h).
#include "axis.h"

#include <cstdio>
#include <algorithm>
#include <cstring>

#include "proto.h"

namespace cosim {

namespace {

constexpr size_t kPrefetchAhead = 256;  // bytes ahead of the offered beat

void check_bus(const AxisBus& bus, uint32_t port, const char* role) {
    if (bus.data_width == 0 || bus.data_width % 8 != 0 || bus.data_width > 512) {
        throw std::runtime_error(std::string(role) + ": DATA_WIDTH must be a multiple of 8, at most 512, got " +
                                 std::to_string(bus.data_width));
    }
    if (port >= bus.ports) {
        throw std::runtime_error(std::string(role) + ": port " + std::to_string(port) + " of " +
                                 std::to_string(bus.ports));
    }
}

uint64_t ones(uint32_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

}  // namespace

// ---- AxisSource ----

AxisSource::AxisSource(const AxisBus& bus, uint32_t port, uint64_t seed, uint32_t gap_pct, BufferPool* pool)
    : tdata_(bus.tdata),
      tkeep_(bus.tkeep),
      tvalid_(bus.tvalid),
      tready_(bus.tready),
      tlast_(bus.tlast),
      tuser_(bus.tuser),
      port_(port),
      lane_bytes_(bus.data_width / 8),
      keep_bits_(bus.data_width / 8),
      gap_pct_(gap_pct),
      rng_(SplitMix64::stream(seed, 1, port)),
      pool_(pool) {
    check_bus(bus, port, "AxisSource");
}

void AxisSource::push(InFrame f) {
    if (f.data.empty()) throw std::invalid_argument("AxisSource: an empty frame has no beats");
    q_.push_back(std::move(f));
}

void AxisSource::offer() {
    const InFrame& f = q_.front();
    const size_t left = f.data.size() - off_;
    const uint32_t n = left < lane_bytes_ ? uint32_t(left) : lane_bytes_;
    uint8_t* lanes = tdata_.lanes(port_, lane_bytes_);
    copy_bytes(lanes, f.data.data() + off_, n);
    if (n < lane_bytes_) std::memset(lanes + n, 0, lane_bytes_ - n);
    // A frame is read a beat a cycle, often long after it was queued (out
    // of the cache by then): ask for the bytes a few beats ahead, and for
    // the next frame's first bytes.
    if (kPrefetchAhead < left) {
        __builtin_prefetch(f.data.data() + off_ + kPrefetchAhead);
    } else if (q_.size() > 1) {
        __builtin_prefetch(q_.at(1).data.data());
    }

    const bool last = n == left;
    const bool user = last && f.bad;
    if (n != keep_n_) {
        tkeep_.put(port_ * keep_bits_, keep_bits_, ones(n));
        keep_n_ = n;
    }
    if (last != last_on_) {
        tlast_.set_bit(port_, last);
        last_on_ = last;
    }
    if (user != user_on_) {
        tuser_.set_bit(port_, user);
        user_on_ = user;
    }
    if (!tvalid_on_) {
        tvalid_.set_bit(port_, true);
        tvalid_on_ = true;
    }
    beat_bytes_ = n;
    offered_ = true;
}

void AxisSource::taken(uint64_t cycle, std::vector<Accept>& done) {
    if (off_ == 0) first_cycle_ = cycle;
    off_ += beat_bytes_;
    offered_ = false;
    const InFrame& f = q_.front();
    if (off_ == f.data.size()) {
        done.push_back(Accept{uint16_t(port_), f.seq, first_cycle_, cycle});
        if (pool_) pool_->give(std::move(q_.front().data));
        q_.pop_front();
        off_ = 0;
    }
}

// ---- AxisSink ----

AxisSink::AxisSink(const AxisBus& bus, uint32_t port, uint64_t seed, uint32_t stall_pct, BufferPool* pool)
    : tdata_(bus.tdata),
      tkeep_(bus.tkeep),
      tvalid_(bus.tvalid),
      tready_(bus.tready),
      tlast_(bus.tlast),
      tuser_(bus.tuser),
      port_(port),
      lane_bytes_(bus.data_width / 8),
      keep_bits_(bus.data_width / 8),
      keep_full_(ones(bus.data_width / 8)),
      stall_pct_(stall_pct),
      rng_(SplitMix64::stream(seed, 2, port)),
      pool_(pool),
      acc_(4096),
      held_data_(bus.data_width / 8) {
    check_bus(bus, port, "AxisSink");
}

void AxisSink::fail(uint64_t cycle, const std::string& what) const {
    throw ModelError("m_axis port " + std::to_string(port_) + " at cycle " + std::to_string(cycle) + ": " + what);
}

void AxisSink::beat(uint64_t cycle, std::vector<OutFrame>& out) {
    const uint64_t keep = tkeep_.get(port_ * keep_bits_, keep_bits_);
    const bool last = tlast_.bit(port_);
    uint32_t n = lane_bytes_;
    if (keep != keep_full_) {
        if (keep == 0) fail(cycle, "tkeep is zero on a beat (every beat must carry at least one byte)");
        if (!last) fail(cycle, "tkeep " + hex(keep) + " on a beat without tlast (only the last beat may be partial)");
        if ((keep & (keep + 1)) != 0) {
            fail(cycle, "tkeep " + hex(keep) + " is not contiguous from lane 0 on the last beat");
        }
        n = uint32_t(__builtin_popcountll(keep));
    }
    if (!started_) {
        started_ = true;
        first_cycle_ = cycle;
        len_ = 0;
    }
    if (len_ + n > acc_.size()) {
        if (len_ + n > kMaxBody) {
            fail(cycle, "frame longer than " + std::to_string(kMaxBody) + " bytes (tlast missing?)");
        }
        acc_.resize(std::min<size_t>(kMaxBody, acc_.size() * 2));
    }
    copy_bytes(acc_.data() + len_, tdata_.lanes(port_, lane_bytes_), n);
    len_ += n;
    if (last) {
        OutFrame f;
        f.port = uint16_t(port_);
        f.seq = seq_++;
        f.cycle = first_cycle_;
        f.last_cycle = cycle;
        f.bad = tuser_.bit(port_);
        if (pool_) f.data = pool_->take();
        f.data.assign(acc_.begin(), acc_.begin() + ptrdiff_t(len_));
        out.push_back(std::move(f));
        started_ = false;
    }
}

void AxisSink::hold() {
    held_ = true;
    std::memcpy(held_data_.data(), tdata_.lanes(port_, lane_bytes_), lane_bytes_);
    held_keep_ = tkeep_.get(port_ * keep_bits_, keep_bits_);
    held_last_ = tlast_.bit(port_);
    held_user_ = tuser_.bit(port_);
}

void AxisSink::check_held(uint64_t cycle) {
    held_ = false;
    if (!tvalid_.bit(port_)) fail(cycle, "tvalid dropped before the beat offered in the cycle before was taken");
    if (std::memcmp(held_data_.data(), tdata_.lanes(port_, lane_bytes_), lane_bytes_) != 0) {
        fail(cycle, "tdata changed while tvalid was high and tready low");
    }
    if (held_keep_ != tkeep_.get(port_ * keep_bits_, keep_bits_)) {
        fail(cycle, "tkeep changed while tvalid was high and tready low");
    }
    if (held_last_ != tlast_.bit(port_)) fail(cycle, "tlast changed while tvalid was high and tready low");
    if (held_user_ != tuser_.bit(port_)) fail(cycle, "tuser changed while tvalid was high and tready low");
}

}  // namespace cosim
