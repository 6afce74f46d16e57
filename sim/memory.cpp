// SPDX-License-Identifier: MIT
// memory.cpp: sparse host memory (see memory.h).
#include "memory.h"

#include <algorithm>
#include <cstring>

namespace cosim {

void HostMemory::write(uint64_t addr, const uint8_t* src, size_t n) {
    while (n > 0) {
        const uint64_t page = addr / kPageBytes;
        const size_t off = size_t(addr % kPageBytes);
        const size_t k = std::min(n, size_t(kPageBytes) - off);
        auto& bytes = pages_[page];
        if (!bytes) bytes = std::make_unique<uint8_t[]>(kPageBytes);  // zeroed
        std::memcpy(bytes.get() + off, src, k);
        addr += k;
        src += k;
        n -= k;
    }
}

void HostMemory::read(uint64_t addr, uint8_t* dst, size_t n) const {
    while (n > 0) {
        const uint64_t page = addr / kPageBytes;
        const size_t off = size_t(addr % kPageBytes);
        const size_t k = std::min(n, size_t(kPageBytes) - off);
        const auto it = pages_.find(page);
        if (it == pages_.end()) {
            std::memset(dst, 0, k);
        } else {
            std::memcpy(dst, it->second.get() + off, k);
        }
        addr += k;
        dst += k;
        n -= k;
    }
}

}  // namespace cosim
