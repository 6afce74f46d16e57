// SPDX-License-Identifier: MIT
// memory.h: the host memory a NIC reaches by DMA, kept in the model process.
//
// Sparse and byte addressable over the whole 64-bit space: 4 KiB pages
// created on first write; bytes never written read as zero. The harness
// fills and inspects it with MEM_WRITE / MEM_READ; the top's DMA port
// (DmaHost, dma.h) uses the same read()/write().
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace cosim {

class HostMemory {
public:
    static constexpr uint64_t kPageBytes = 4096;

    // Copies n bytes from src to [addr, addr+n). The caller keeps src.
    void write(uint64_t addr, const uint8_t* src, size_t n);
    // Copies [addr, addr+n) to dst (n bytes, the caller's buffer).
    void read(uint64_t addr, uint8_t* dst, size_t n) const;
    // Pages in use.
    size_t pages() const { return pages_.size(); }

private:
    std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;  // page number -> bytes
};

}  // namespace cosim
