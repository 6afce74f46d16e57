// SPDX-License-Identifier: MIT
// csr.cpp: the CSR master adapter (see csr.h for the bus).
#include "csr.h"

#include <cstdio>
#include <string>

namespace cosim {

void CsrMaster::issue(uint64_t cycle) {
    const CsrOp op = q_.front();
    q_.pop_front();
    bus_.addr.put(0, 16, op.addr);
    bus_.wdata.put(0, 32, op.data);
    if (op.read) {
        bus_.re.set_bit(0, true);
        waiting_ = true;
        issued_ = cycle;
        read_addr_ = op.addr;
    } else {
        bus_.we.set_bit(0, true);
    }
    strobe_ = true;
}

void CsrMaster::answer(uint64_t cycle, std::vector<CsrResult>& out) {
    if (!waiting_) {
        throw ModelError("csr_rvalid high at cycle " + std::to_string(cycle) + " with no read outstanding");
    }
    if (cycle == issued_) {
        throw ModelError("csr_rvalid high at cycle " + std::to_string(cycle) +
                         " in the same cycle as csr_re (the answer must come at least one cycle later)");
    }
    out.push_back(CsrResult{read_addr_, uint32_t(bus_.rdata.get(0, 32)), cycle});
    waiting_ = false;
}

void CsrMaster::timeout(uint64_t cycle) {
    char addr[16];
    std::snprintf(addr, sizeof addr, "0x%04x", read_addr_);
    throw ModelError(std::string("CSR read of ") + addr + " issued at cycle " + std::to_string(issued_) +
                     " not answered by cycle " + std::to_string(cycle));
}

}  // namespace cosim
