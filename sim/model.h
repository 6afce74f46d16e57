// SPDX-License-Identifier: MIT
// model.h: turn a Verilated top into a co-simulation model program.
//
// A top's main is one call (see sim/tops/axis_fifo_top.cpp):
//
//     int main(int argc, char** argv) {
//         return cosim::run<Vaxis_fifo_top>(argc, argv, cosim::build_info());
//     }
//
// run<Top>() binds the top's ports by their convention names (sim.h) with
// bind_ports<Top>(), detects the optional CSR, DMA and idle ports at
// compile time, and hands a type-erased Dut to run_main(), which parses the command
// line and runs the socket protocol (session.cpp) or the raw benchmark
// (raw.cpp). A top with extra ports passes a `customize` callback that
// binds them after the standard ones.
//
// build_info() comes from defines the build sets (sim/build.mk):
//   COSIM_MODEL=<model name>  COSIM_TOP=<Verilog top>
//   COSIM_PARAMS=<NAME=VALUE,NAME=VALUE,...>  (every -G parameter)
//   COSIM_DATA_WIDTH=<bits per port>  COSIM_IN_PORTS=<n>  COSIM_OUT_PORTS=<n>
// Parameter names must not be C macros (they are stringified).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "sim.h"
#include "signal.h"
#include "verilated.h"
#include "verilated_fst_c.h"

namespace cosim {

// What a model program is; HELLO carries all of it.
struct ModelInfo {
    std::string name;    // model name, e.g. axis_fifo_64
    std::string top;     // Verilog top module
    std::string params;  // "NAME=VALUE,..." as built
    uint32_t data_width = 0;
    uint32_t in_ports = 0;
    uint32_t out_ports = 0;
    bool has_csr = false;   // filled by run<Top>()
    bool has_dma = false;   // filled by run<Top>()
    bool has_idle = false;  // filled by run<Top>()
};

#define COSIM_STR_(...) #__VA_ARGS__
#define COSIM_STR(...) COSIM_STR_(__VA_ARGS__)

#if defined(COSIM_MODEL) && defined(COSIM_TOP) && defined(COSIM_PARAMS) && defined(COSIM_DATA_WIDTH) && \
    defined(COSIM_IN_PORTS) && defined(COSIM_OUT_PORTS)
inline ModelInfo build_info() {
    ModelInfo m;
    m.name = COSIM_STR(COSIM_MODEL);
    m.top = COSIM_STR(COSIM_TOP);
    m.params = COSIM_STR(COSIM_PARAMS);
    m.data_width = COSIM_DATA_WIDTH;
    m.in_ports = COSIM_IN_PORTS;
    m.out_ports = COSIM_OUT_PORTS;
    return m;
}
#endif

// Builds the model once the session knows whether to trace.
using DutFactory = std::function<std::unique_ptr<Dut>(VerilatedContext&)>;

// Parses argv, then serves the harness or runs the raw benchmark. Returns
// the process exit status: 0 after GOODBYE (or a finished raw run), 1 on
// any failure (the reason on stderr, and in an ERROR message when the
// connection is still up), 2 on a bad command line.
int run_main(int argc, char** argv, const ModelInfo& info, const DutFactory& make);

// ---- binding ----

template <class T, class = void>
struct HasCsr : std::false_type {};
template <class T>
struct HasCsr<T, std::void_t<decltype(std::declval<T&>().csr_rvalid)>> : std::true_type {};

template <class T, class = void>
struct HasDma : std::false_type {};
template <class T>
struct HasDma<T, std::void_t<decltype(std::declval<T&>().dma_rd_req_valid)>> : std::true_type {};

template <class T, class = void>
struct HasIdle : std::false_type {};
template <class T>
struct HasIdle<T, std::void_t<decltype(std::declval<T&>().idle)>> : std::true_type {};

// Verilator 5.006 keeps the clock's value as of the last eval, against
// which the next eval detects an edge, in the root's __Vtrigrprev__TOP__clk.
template <class R, class = void>
struct HasClkPrev : std::false_type {};
template <class R>
struct HasClkPrev<R, std::void_t<decltype(std::declval<R&>().__Vtrigrprev__TOP__clk)>> : std::true_type {};

// clk_prev_of is Ports::clk_prev for a top whose every output is a
// register or a constant (the top's main vouches for that). Under a
// Verilator that keeps the value elsewhere it is empty, and the model
// evaluates both edges as any other.
template <class Top>
Sig clk_prev_of(Top& t) {
    using Root = std::remove_pointer_t<decltype(t.rootp)>;
    if constexpr (HasClkPrev<Root>::value) {
        return sig(t.rootp->__Vtrigrprev__TOP__clk, 1, "clk_prev");
    } else {
        return Sig{};
    }
}

// Binds the convention ports of a top; widths come from the build info and
// are checked against the Verilated types.
template <class Top>
Ports bind_ports(Top& t, const ModelInfo& m) {
    const uint32_t dw = m.data_width;
    const uint32_t in = m.in_ports;
    const uint32_t out = m.out_ports;
    Ports p;
    p.clk = sig(t.clk, 1, "clk");
    p.rst = sig(t.rst, 1, "rst");
    p.in = AxisBus{sig(t.s_axis_tdata, in * dw, "s_axis_tdata"), sig(t.s_axis_tkeep, in * dw / 8, "s_axis_tkeep"),
                   sig(t.s_axis_tvalid, in, "s_axis_tvalid"),    sig(t.s_axis_tready, in, "s_axis_tready"),
                   sig(t.s_axis_tlast, in, "s_axis_tlast"),      sig(t.s_axis_tuser, in, "s_axis_tuser"),
                   dw,
                   in};
    p.out = AxisBus{sig(t.m_axis_tdata, out * dw, "m_axis_tdata"), sig(t.m_axis_tkeep, out * dw / 8, "m_axis_tkeep"),
                    sig(t.m_axis_tvalid, out, "m_axis_tvalid"),    sig(t.m_axis_tready, out, "m_axis_tready"),
                    sig(t.m_axis_tlast, out, "m_axis_tlast"),      sig(t.m_axis_tuser, out, "m_axis_tuser"),
                    dw,
                    out};
    if constexpr (HasCsr<Top>::value) {
        p.csr = CsrBus{sig(t.csr_addr, 16, "csr_addr"), sig(t.csr_wdata, 32, "csr_wdata"),
                       sig(t.csr_we, 1, "csr_we"),      sig(t.csr_re, 1, "csr_re"),
                       sig(t.csr_rdata, 32, "csr_rdata"), sig(t.csr_rvalid, 1, "csr_rvalid")};
    }
    if constexpr (HasDma<Top>::value) {
        DmaBus& d = p.dma;
        d.rd_req_valid = sig(t.dma_rd_req_valid, 1, "dma_rd_req_valid");
        d.rd_req_ready = sig(t.dma_rd_req_ready, 1, "dma_rd_req_ready");
        d.rd_req_addr = sig(t.dma_rd_req_addr, 64, "dma_rd_req_addr");
        d.rd_req_len = sig(t.dma_rd_req_len, kDmaLenBits, "dma_rd_req_len");
        d.rd_req_tag = sig(t.dma_rd_req_tag, kDmaTagBits, "dma_rd_req_tag");
        d.rd_resp_data = sig(t.dma_rd_resp_data, dw, "dma_rd_resp_data");
        d.rd_resp_keep = sig(t.dma_rd_resp_keep, dw / 8, "dma_rd_resp_keep");
        d.rd_resp_valid = sig(t.dma_rd_resp_valid, 1, "dma_rd_resp_valid");
        d.rd_resp_ready = sig(t.dma_rd_resp_ready, 1, "dma_rd_resp_ready");
        d.rd_resp_last = sig(t.dma_rd_resp_last, 1, "dma_rd_resp_last");
        d.rd_resp_tag = sig(t.dma_rd_resp_tag, kDmaTagBits, "dma_rd_resp_tag");
        d.wr_valid = sig(t.dma_wr_valid, 1, "dma_wr_valid");
        d.wr_ready = sig(t.dma_wr_ready, 1, "dma_wr_ready");
        d.wr_addr = sig(t.dma_wr_addr, 64, "dma_wr_addr");
        d.wr_data = sig(t.dma_wr_data, dw, "dma_wr_data");
        d.wr_keep = sig(t.dma_wr_keep, dw / 8, "dma_wr_keep");
        d.wr_last = sig(t.dma_wr_last, 1, "dma_wr_last");
        d.data_width = dw;
    }
    if constexpr (HasIdle<Top>::value) p.idle = sig(t.idle, 1, "idle");
    return p;
}

// The Dut for a Verilated class. Owns the model and its trace file.
template <class Top>
class VerilatedDut final : public Dut {
public:
    using Customize = std::function<void(Top&, Ports&)>;

    VerilatedDut(VerilatedContext& ctx, const ModelInfo& info, const Customize& customize)
        : top_(std::make_unique<Top>(&ctx)) {
        ports = bind_ports(*top_, info);
        if (customize) customize(*top_, ports);
    }
    void eval() override { top_->eval(); }
    void final() override { top_->final(); }
    void trace_open(const std::string& path) override {
        tfp_ = std::make_unique<VerilatedFstC>();
        top_->trace(tfp_.get(), 99);
        tfp_->open(path.c_str());
        if (!tfp_->isOpen()) throw std::runtime_error("cannot open trace file " + path);
    }
    void trace_dump(uint64_t time) override { tfp_->dump(time); }
    void trace_close() override {
        if (tfp_) tfp_->close();
        tfp_.reset();
    }

private:
    std::unique_ptr<Top> top_;
    std::unique_ptr<VerilatedFstC> tfp_;
};

// The whole main of a model program.
template <class Top>
int run(int argc, char** argv, ModelInfo info, typename VerilatedDut<Top>::Customize customize = nullptr) {
    info.has_csr = HasCsr<Top>::value;
    info.has_dma = HasDma<Top>::value;
    info.has_idle = HasIdle<Top>::value;
    return run_main(argc, argv, info, [info, customize](VerilatedContext& ctx) -> std::unique_ptr<Dut> {
        return std::make_unique<VerilatedDut<Top>>(ctx, info, customize);
    });
}

}  // namespace cosim
