// SPDX-License-Identifier: MIT
// sim.h: the clocked simulation of one Verilated top with its adapters.
//
// Port convention of a top (Verilog names; IN input ports, OUT output
// ports, DW = DATA_WIDTH bits per port, a multiple of 8, at most 512):
//   clk, rst                                  inputs, 1 bit
//   s_axis_tdata [IN*DW-1:0]  s_axis_tkeep [IN*DW/8-1:0]
//   s_axis_tvalid [IN-1:0]  s_axis_tready [IN-1:0] (out)
//   s_axis_tlast [IN-1:0]   s_axis_tuser [IN-1:0]
//   m_axis_* the same for the OUT outputs (tready is the input there)
//   csr_* (optional, see csr.h), dma_* (optional, see dma.h),
//   idle (optional output, 1 = nothing inside)
//
// Clock and time:
//   - One clock, one cycle per loop. In each cycle: clk falls, the adapters
//     drive the inputs, eval; the adapters sample the handshakes; clk rises,
//     eval. Inputs never change at a rising edge. A top whose outputs are
//     all registers (Ports::clk_prev) skips the falling-edge eval
//     unless tracing: its outputs could not change there.
//   - reset(): every input is assigned (zero), then rst is high for
//     kResetCycles = 8 cycles with no tvalid, no strobes and tready low.
//     rst is low from cycle 0 on: cycle 0 is the first cycle after reset,
//     and the first in which a beat can move.
//   - In an FST trace cycle c begins (falling edge) at (c+8) ns and rises
//     at (c+8.5) ns (for `timescale 1ns/1ps; other precisions scale).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "axis.h"
#include "csr.h"
#include "dma.h"
#include "memory.h"
#include "signal.h"
#include "verilated.h"

namespace cosim {

// The signals of a top, bound by bind_ports() (model.h).
struct Ports {
    Sig clk, rst;
    AxisBus in, out;
    CsrBus csr;  // empty if the top has no CSR port
    DmaBus dma;  // empty if the top has no DMA port
    Sig idle;    // empty if the top has no idle output
    // Optional, set by a top's main (run()'s customize callback) when every
    // output is a register or a constant, so that no output follows an
    // input within a cycle: the Verilated model's record of clk as of its
    // last eval (model.h clk_prev_of; empty where Verilator keeps it
    // under another name). Sim then
    // skips the falling-edge eval when not tracing and clears this instead,
    // so that the next eval still sees a rising edge; that eval takes the
    // new inputs, so every flop loads what it would have. A top with a
    // combinational path from an input to an output must leave it empty.
    Sig clk_prev;
};

// The RTL stopped itself: $finish, $stop, $error or an assertion under
// --assert, or a Verilator fatal error (thrown by the hooks in hooks.cpp).
struct RtlStop : ModelError {
    using ModelError::ModelError;
};

// A Verilated top behind a small interface, so that everything but the
// binding is compiled once and knows nothing about the top's class.
class Dut {
public:
    virtual ~Dut() = default;
    virtual void eval() = 0;
    virtual void final() = 0;
    virtual void trace_open(const std::string& path) = 0;  // needs traceEverOn before construction
    virtual void trace_dump(uint64_t time) = 0;
    virtual void trace_close() = 0;
    Ports ports;
};

// Backpressure settings from HELLO_ACK (or the raw-mode flags).
struct Backpressure {
    uint64_t seed = 0;
    uint32_t src_gap_pct = 0;     // share of new beats a source holds back a cycle
    uint32_t sink_stall_pct = 0;  // share of cycles a sink holds tready low
};

// TraceWindow is the cycles a trace holds: from..to-1 (an empty window
// traces nothing).
struct TraceWindow {
    uint64_t from = 0;
    uint64_t to = 0;
    bool any() const { return from < to; }
    bool holds(uint64_t c) const { return c >= from && c < to; }
};

class Sim {
public:
    static constexpr uint32_t kResetCycles = 8;

    // ctx and dut must outlive the Sim. trace: the cycles to dump with
    // dut.trace_dump() (none by default). dma_read_latency: L of the DMA
    // port (dma.h), if the top has one.
    Sim(VerilatedContext& ctx, Dut& dut, const Backpressure& bp, const TraceWindow& trace = {},
        uint64_t dma_read_latency = kDmaReadLatency);

    // Resets the DUT; afterwards now() == 0. Throws ModelError.
    void reset();
    // Runs cycles now()..end-1; afterwards now() == end. Throws ModelError
    // (then now() is the failing cycle).
    void run_until(uint64_t end);

    uint64_t now() const { return now_; }
    uint32_t in_ports() const { return uint32_t(sources_.size()); }
    uint32_t out_ports() const { return uint32_t(sinks_.size()); }
    bool has_csr() const { return bool(csr_bus_); }
    bool has_dma() const { return bool(dma_bus_); }

    // The host memory: MEM_WRITE/MEM_READ and the top's DMA port use it.
    HostMemory& memory() { return mem_; }
    const DmaCounters& dma_counters() const { return dma_.counters(); }

    // Queues an input frame on port (< in_ports()).
    void push_frame(uint32_t port, InFrame f) { sources_[port].push(std::move(f)); }
    // An empty buffer for an input frame's data, recycled when there is one
    // (the frames taken by the DUT and those given back by recycle_frames()).
    std::vector<uint8_t> frame_buffer() { return pool_.take(); }
    // Clears v (frames taken from `frames`), keeping their buffers for
    // frame_buffer() and for the next output frames.
    void recycle_frames(std::vector<OutFrame>& v);
    // Queues a CSR access (has_csr() must hold).
    void push_csr(const CsrOp& op) { csr_.push(op); }

    // Input frames not yet fully accepted, on one port and over all.
    size_t queued(uint32_t port) const { return sources_[port].queued(); }
    size_t frames_queued() const;
    // Inputs queued, a CSR access pending, an output frame half out, DMA
    // reads outstanding or a DMA write half done, or the top's idle output
    // low.
    bool busy() const;
    uint64_t src_stalls() const;
    uint64_t sink_stalls() const;

    // Results of run_until, appended in cycle order; the caller takes and
    // clears them.
    std::vector<Accept> accepts;
    std::vector<OutFrame> frames;
    std::vector<CsrResult> csr_results;

private:
    template <class Sample>
    void cycle(bool fall, Sample&& sample);
    [[noreturn]] void finished();

    VerilatedContext& ctx_;
    Dut& dut_;
    uint8_t* clk_;
    CsrBus csr_bus_;
    Sig idle_;
    TraceWindow trace_;
    uint8_t* clk_prev_;  // falling edge without an eval (Ports::clk_prev), or null
    uint64_t half_period_;  // in the context's time precision
    uint64_t now_ = 0;
    BufferPool pool_;  // before the adapters, which hold its address
    std::vector<AxisSource> sources_;
    std::vector<AxisSink> sinks_;
    CsrMaster csr_;
    HostMemory mem_;
    DmaBus dma_bus_;
    DmaHost dma_;
};

}  // namespace cosim
