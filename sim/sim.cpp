// SPDX-License-Identifier: MIT
// sim.cpp: clocking, reset and the per-cycle loop (see sim.h).
#include "sim.h"

#include <cmath>

namespace cosim {

Sim::Sim(VerilatedContext& ctx, Dut& dut, const Backpressure& bp, const TraceWindow& trace, uint64_t dma_read_latency)
    : ctx_(ctx),
      dut_(dut),
      clk_(dut.ports.clk.p),
      csr_bus_(dut.ports.csr),
      idle_(dut.ports.idle),
      trace_(trace),
      clk_prev_(dut.ports.clk_prev.p),
      csr_(dut.ports.csr),
      dma_bus_(dut.ports.dma) {
    if (dma_bus_) {
        dma_ = DmaHost(dma_bus_, mem_, dma_read_latency, bp.seed, bp.src_gap_pct, bp.sink_stall_pct);
    }
    // Half a cycle is 0.5 ns in the context's precision, at least one unit.
    const int units_per_ns_log10 = -9 - ctx.timeprecision();
    const double half = units_per_ns_log10 > 0 ? std::pow(10.0, units_per_ns_log10) / 2 : 1.0;
    half_period_ = half < 1.0 ? 1 : uint64_t(half);

    const Ports& p = dut.ports;
    sources_.reserve(p.in.ports);
    for (uint32_t i = 0; i < p.in.ports; ++i) sources_.emplace_back(p.in, i, bp.seed, bp.src_gap_pct, &pool_);
    sinks_.reserve(p.out.ports);
    for (uint32_t i = 0; i < p.out.ports; ++i) sinks_.emplace_back(p.out, i, bp.seed, bp.sink_stall_pct, &pool_);
}

void Sim::finished() {
    throw ModelError("the RTL finished ($finish or a fatal error) in cycle " + std::to_string(now_));
}

// One cycle, given that clk is low and the inputs were just driven: eval
// (falling edge), sample, rising edge, eval, clk low again. Each half cycle
// is dumped when the cycle is in the trace window, so in the trace the
// inputs change with the falling edge; outside it nothing is dumped and the
// model runs at full speed. Two evals per cycle: the falling edge and the
// new inputs share one. Without `fall` only the rising edge's: the
// top's outputs are registers, so the sample sees what the falling-edge
// eval would have left; clearing the model's record of clk stands for that
// eval's edge detection, and the rising-edge eval takes the new inputs
// (Verilator evaluates the logic on inputs before the clocked logic) as it
// would have. Reset evaluates both edges (the first eval also initializes
// the model).
template <class Sample>
void Sim::cycle(bool fall, Sample&& sample) {
    const bool dump = trace_.holds(now_);
    if (fall || dump) {
        dut_.eval();
        if (dump) dut_.trace_dump(ctx_.time());
    } else {
        *clk_prev_ = 0;
    }
    sample();
    ctx_.timeInc(half_period_);
    *clk_ = 1;
    dut_.eval();
    if (dump) dut_.trace_dump(ctx_.time());
    ctx_.timeInc(half_period_);
    *clk_ = 0;
}

void Sim::reset() {
    Ports& p = dut_.ports;
    // Every input gets a value before the first eval.
    for (Sig s : {p.in.tdata, p.in.tkeep, p.in.tvalid, p.in.tlast, p.in.tuser, p.out.tready, p.csr.addr,
                  p.csr.wdata, p.csr.we, p.csr.re, p.dma.rd_req_ready, p.dma.rd_resp_data, p.dma.rd_resp_keep,
                  p.dma.rd_resp_valid, p.dma.rd_resp_last, p.dma.rd_resp_tag, p.dma.wr_ready}) {
        s.clear();
    }
    *clk_ = 0;
    *p.rst.p = 1;
    try {
        for (uint32_t c = 0; c < kResetCycles; ++c) {
            cycle(true, [] {});
            if (ctx_.gotFinish()) finished();
        }
    } catch (const RtlStop& e) {
        throw ModelError(std::string(e.what()) + ", during reset");
    }
    *p.rst.p = 0;
    now_ = 0;
}

void Sim::run_until(uint64_t end) {
    try {
        while (now_ < end) {
            for (AxisSource& s : sources_) s.drive(now_);
            for (AxisSink& s : sinks_) s.drive(now_);
            if (csr_bus_) csr_.drive(now_);
            if (dma_bus_) dma_.drive(now_);
            cycle(clk_prev_ == nullptr, [this] {
                // Handshakes as the flops see them at the rising edge.
                for (AxisSource& s : sources_) s.sample(now_, accepts);
                for (AxisSink& s : sinks_) s.sample(now_, frames);
                if (csr_bus_) csr_.sample(now_, csr_results);
                if (dma_bus_) dma_.sample(now_);
            });
            if (ctx_.gotFinish()) finished();
            ++now_;
        }
    } catch (const RtlStop& e) {
        throw ModelError(std::string(e.what()) + ", in cycle " + std::to_string(now_));
    }
}

void Sim::recycle_frames(std::vector<OutFrame>& v) {
    for (OutFrame& f : v) pool_.give(std::move(f.data));
    v.clear();
}

size_t Sim::frames_queued() const {
    size_t n = 0;
    for (const AxisSource& s : sources_) n += s.queued();
    return n;
}

bool Sim::busy() const {
    if (frames_queued() != 0 || csr_.busy() || dma_.busy()) return true;
    for (const AxisSink& s : sinks_) {
        if (s.mid_frame()) return true;
    }
    return idle_ && !idle_.bit(0);
}

uint64_t Sim::src_stalls() const {
    uint64_t n = 0;
    for (const AxisSource& s : sources_) n += s.stalls();
    return n;
}

uint64_t Sim::sink_stalls() const {
    uint64_t n = 0;
    for (const AxisSink& s : sinks_) n += s.stalls();
    return n;
}

}  // namespace cosim
