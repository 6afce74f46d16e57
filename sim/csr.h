// SPDX-License-Identifier: MIT
// csr.h: the control/status register bus of a top, and its master adapter.
//
// The CSR bus (optional; a top has all six ports or none):
//   csr_addr   [15:0] in   byte address of a 32-bit register (a multiple of 4)
//   csr_wdata  [31:0] in   write data
//   csr_we            in   write strobe, high for exactly one cycle per write
//   csr_re            in   read strobe, high for exactly one cycle per read
//   csr_rdata  [31:0] out  read data, valid while csr_rvalid is high
//   csr_rvalid        out  high for exactly one cycle per read, at least one
//                          cycle after csr_re (the DUT documents how many)
// One access at a time, no backpressure:
//   - a write in cycle t (csr_we high in t) is done in t; the next access
//     may start in t+1;
//   - a read in cycle t (csr_re high in t) is answered in cycle t+k, k >= 1,
//     k <= kCsrReadTimeout; the next access may start in t+k+1;
//   - csr_we and csr_re are never high together; csr_addr and csr_wdata are
//     only meaningful while a strobe is high.
// The DUT breaks the bus if it raises csr_rvalid with no read outstanding,
// in the same cycle as csr_re, or never answers; each is a ModelError.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "axis.h"
#include "signal.h"

namespace cosim {

constexpr uint64_t kCsrReadTimeout = 1024;  // cycles a read may take

struct CsrBus {
    Sig addr, wdata, we, re, rdata, rvalid;
    explicit operator bool() const { return bool(addr); }
};

struct CsrOp {
    bool read = false;
    uint32_t addr = 0;
    uint32_t data = 0;    // write data
    uint64_t stamp = 0;   // first cycle the access may start
};

struct CsrResult {
    uint32_t addr = 0;
    uint32_t data = 0;
    uint64_t cycle = 0;  // cycle csr_rvalid was high
};

// CsrMaster issues queued accesses in order, each as soon as the bus is
// free and its stamp has come.
class CsrMaster {
public:
    CsrMaster() = default;
    explicit CsrMaster(const CsrBus& bus) : bus_(bus) {}

    void push(const CsrOp& op) { q_.push_back(op); }
    bool busy() const { return waiting_ || !q_.empty(); }

    void drive(uint64_t cycle) {
        if (strobe_) {
            bus_.we.set_bit(0, false);
            bus_.re.set_bit(0, false);
            strobe_ = false;
        }
        if (!waiting_ && !q_.empty() && q_.front().stamp <= cycle) issue(cycle);
    }

    void sample(uint64_t cycle, std::vector<CsrResult>& out) {
        if (bus_.rvalid.bit(0)) {
            answer(cycle, out);
        } else if (waiting_ && cycle - issued_ >= kCsrReadTimeout) {
            timeout(cycle);
        }
    }

private:
    void issue(uint64_t cycle);
    void answer(uint64_t cycle, std::vector<CsrResult>& out);
    [[noreturn]] void timeout(uint64_t cycle);

    CsrBus bus_;
    std::deque<CsrOp> q_;
    bool strobe_ = false;   // a strobe is high this cycle
    bool waiting_ = false;  // a read is outstanding
    uint64_t issued_ = 0;   // cycle of the outstanding read
    uint32_t read_addr_ = 0;
};

}  // namespace cosim
