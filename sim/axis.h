// SPDX-License-Identifier: MIT
// axis.h: AXI-Stream adapters between whole frames and a Verilated top's
// flat s_axis_* / m_axis_* buses, one adapter object per port.
//
// Each cycle the simulation loop calls, for every adapter:
//   drive(cycle)   with clk low, before eval: set this cycle's inputs
//   sample(cycle)  after that eval, before the rising edge: see whether a
//                  beat moved (tvalid && tready as the flops will see them)
// so the inputs change only on the falling edge and the DUT sees them
// stable at the rising edge. The hot paths are inline; per-beat work is in
// axis.cpp.
//
// Byte order: byte k of a frame travels in tdata bits [8k+7:8k] of its beat
// (lane k), as in Forencich's and Corundum's modules. tkeep marks the valid
// lanes: all ones on every beat but the last, a contiguous run from lane 0
// on the last. tuser[0] on the last beat marks a bad frame; tuser on other
// beats is ignored.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "rng.h"
#include "signal.h"

namespace cosim {

// The DUT broke a rule (AXI-Stream misuse, CSR misuse, $finish, $error,
// an assertion). The simulation cannot go on; the caller reports it as
// kErrModel.
struct ModelError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// One flat AXI-Stream bus of `ports` ports, each `data_width` bits wide.
struct AxisBus {
    Sig tdata;   // ports*data_width bits
    Sig tkeep;   // ports*data_width/8 bits
    Sig tvalid;  // ports bits
    Sig tready;  // ports bits
    Sig tlast;   // ports bits
    Sig tuser;   // ports bits
    uint32_t data_width = 0;
    uint32_t ports = 0;
};

// A frame for an input port. The adapter owns it once pushed.
struct InFrame {
    uint64_t stamp = 0;  // first cycle its first beat may be offered
    uint32_t seq = 0;    // per-port order, from 0
    bool bad = false;    // set tuser[0] on the last beat
    std::vector<uint8_t> data;
};

// Frame buffers handed back and forth instead of allocated and freed for
// every frame (a model moves millions of frames; malloc and free showed up
// in its profile). take() returns an empty vector, with the capacity of one
// given back earlier when there is one; give() keeps at most kMaxBytes of
// buffers (the raw mode has tens of thousands of small frames in flight).
class BufferPool {
public:
    static constexpr size_t kMaxBytes = size_t(64) << 20;

    std::vector<uint8_t> take() {
        if (free_.empty()) return {};
        std::vector<uint8_t> v = std::move(free_.back());
        free_.pop_back();
        bytes_ -= v.capacity();
        v.clear();
        return v;
    }
    void give(std::vector<uint8_t>&& v) {
        if (v.capacity() == 0 || bytes_ + v.capacity() > kMaxBytes) return;
        bytes_ += v.capacity();
        free_.push_back(std::move(v));
    }

private:
    std::vector<std::vector<uint8_t>> free_;
    size_t bytes_ = 0;  // capacity held in free_
};

// A FIFO of input frames that keeps its storage (std::deque frees and
// allocates a block every few frames). Ring of a power-of-two size.
class FrameQueue {
public:
    bool empty() const { return n_ == 0; }
    size_t size() const { return n_; }
    InFrame& front() { return buf_[head_]; }
    const InFrame& front() const { return buf_[head_]; }
    const InFrame& at(size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }  // i < size()
    void push_back(InFrame&& f) {
        if (n_ == buf_.size()) grow();
        buf_[(head_ + n_) & (buf_.size() - 1)] = std::move(f);
        ++n_;
    }
    void pop_front() {
        buf_[head_] = InFrame{};  // releases whatever the frame still holds
        head_ = (head_ + 1) & (buf_.size() - 1);
        --n_;
    }

private:
    void grow() {
        std::vector<InFrame> b(buf_.empty() ? 16 : 2 * buf_.size());
        for (size_t i = 0; i < n_; ++i) b[i] = std::move(buf_[(head_ + i) & (buf_.size() - 1)]);
        buf_ = std::move(b);
        head_ = 0;
    }

    std::vector<InFrame> buf_;
    size_t head_ = 0;
    size_t n_ = 0;
};

// An input frame the DUT has taken completely.
struct Accept {
    uint16_t port = 0;
    uint32_t seq = 0;
    uint64_t first_cycle = 0;  // cycle its first beat was accepted
    uint64_t last_cycle = 0;   // cycle its last beat was accepted
};

// A frame the DUT emitted.
struct OutFrame {
    uint16_t port = 0;
    uint32_t seq = 0;
    uint64_t cycle = 0;       // cycle its first beat was accepted by the sink
    uint64_t last_cycle = 0;  // cycle its last beat was
    bool bad = false;    // tuser[0] on the last beat
    std::vector<uint8_t> data;
};

// AxisSource feeds queued frames into input port `port`, one beat per cycle
// when the DUT is ready. A frame's first beat is offered no earlier than its
// stamp; with gap_pct > 0 each new beat is held back a cycle with that
// probability (tvalid low), but a beat once offered stays until taken. A
// frame's buffer goes to `pool` (if any) once the frame is taken.
class AxisSource {
public:
    AxisSource(const AxisBus& bus, uint32_t port, uint64_t seed, uint32_t gap_pct, BufferPool* pool = nullptr);

    // Queues a frame (at least one byte). Frames go out in push order.
    void push(InFrame f);

    void drive(uint64_t cycle) {
        if (offered_) return;  // AXI-Stream: an offered beat stays until taken
        if (q_.empty() || q_.front().stamp > cycle || (gap_pct_ != 0 && rng_.chance(gap_pct_))) {
            if (tvalid_on_) {
                tvalid_.set_bit(port_, false);
                tvalid_on_ = false;
            }
            return;
        }
        offer();
    }

    void sample(uint64_t cycle, std::vector<Accept>& done) {
        if (!offered_) return;
        if (!tready_.bit(port_)) {
            ++stalls_;
            return;
        }
        taken(cycle, done);
    }

    size_t queued() const { return q_.size(); }  // frames not yet fully taken
    uint64_t stalls() const { return stalls_; }  // cycles a beat waited on tready

private:
    void offer();
    void taken(uint64_t cycle, std::vector<Accept>& done);

    Sig tdata_, tkeep_, tvalid_, tready_, tlast_, tuser_;
    uint32_t port_;
    uint32_t lane_bytes_;  // data_width / 8
    uint32_t keep_bits_;   // tkeep bits per port
    uint32_t gap_pct_;
    SplitMix64 rng_;
    BufferPool* pool_;

    FrameQueue q_;
    size_t off_ = 0;           // bytes of q_.front() already taken
    uint32_t beat_bytes_ = 0;  // bytes in the offered beat
    bool offered_ = false;     // a beat is on the bus, not yet taken
    bool tvalid_on_ = false;   // what tvalid holds now
    uint64_t first_cycle_ = 0;
    uint64_t stalls_ = 0;
    // What tkeep/tlast/tuser hold now, to skip rewriting them every beat.
    uint32_t keep_n_ = 0;
    bool last_on_ = false;
    bool user_on_ = false;
};

// AxisSink takes beats from output port `port` and assembles frames (their
// buffers from `pool`, if any). With stall_pct > 0 it holds tready low on
// that share of cycles. Any breach of the AXI-Stream rules throws ModelError
// naming the port, cycle and rule.
class AxisSink {
public:
    AxisSink(const AxisBus& bus, uint32_t port, uint64_t seed, uint32_t stall_pct, BufferPool* pool = nullptr);

    void drive(uint64_t /*cycle*/) {
        const bool r = stall_pct_ == 0 || !rng_.chance(stall_pct_);
        if (r != ready_) {
            tready_.set_bit(port_, r);
            ready_ = r;
        }
    }

    void sample(uint64_t cycle, std::vector<OutFrame>& out) {
        if (held_) check_held(cycle);
        if (!tvalid_.bit(port_)) return;
        if (!ready_) {
            ++stalls_;
            hold();
            return;
        }
        beat(cycle, out);
    }

    bool mid_frame() const { return started_; }  // a frame's first beats came, not its last
    uint64_t stalls() const { return stalls_; }  // cycles tready was low while tvalid was high

private:
    void beat(uint64_t cycle, std::vector<OutFrame>& out);
    void hold();
    void check_held(uint64_t cycle);
    [[noreturn]] void fail(uint64_t cycle, const std::string& what) const;

    Sig tdata_, tkeep_, tvalid_, tready_, tlast_, tuser_;
    uint32_t port_;
    uint32_t lane_bytes_;
    uint32_t keep_bits_;
    uint64_t keep_full_;
    uint32_t stall_pct_;
    SplitMix64 rng_;
    BufferPool* pool_;

    bool ready_ = false;  // what tready holds now
    bool started_ = false;
    uint32_t seq_ = 0;
    uint64_t stalls_ = 0;
    // The frame being assembled: acc_ only grows, so beats append without
    // allocating; a finished frame is copied out once.
    std::vector<uint8_t> acc_;
    size_t len_ = 0;
    uint64_t first_cycle_ = 0;
    // The beat seen while stalled; AXI-Stream requires it unchanged next cycle.
    bool held_ = false;
    std::vector<uint8_t> held_data_;
    uint64_t held_keep_ = 0;
    bool held_last_ = false;
    bool held_user_ = false;
};

}  // namespace cosim
