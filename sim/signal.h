// SPDX-License-Identifier: MIT
// signal.h: a byte-level view of one Verilated port, whatever its C++ type.
//
// Verilator keeps a port of W bits in CData (W <= 8), SData (<= 16), IData
// (<= 32), QData (<= 64) or VlWide<N> (N = ceil(W/32) 32-bit words, least
// significant word first). On a little-endian host every one of these has
// the same memory layout: bit i of the port is bit i%8 of byte i/8. So one
// Sig (a pointer to the storage plus the port width) reads and writes bit
// fields and byte lanes of any port, and the adapters need no templates.
//
// Flat multi-port buses follow the Verilog convention: port p of a bus of
// per-port width W occupies bits [p*W, p*W+W).
//
// Writes never touch bits above the port width: Verilator expects the unused
// top bits of an input's storage to stay zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "verilated.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "sim/ maps Verilated ports to bytes; it needs a little-endian host");

namespace cosim {

// memcpy for the byte counts of beats (copy_bytes) and of keep fields
// (copy_word, n <= 8): the usual sizes get a fixed-size copy that compiles
// to a few moves instead of a library call.
inline void copy_word(uint8_t* dst, const uint8_t* src, size_t n) {
    switch (n) {
        case 1: *dst = *src; return;
        case 2: std::memcpy(dst, src, 2); return;
        case 4: std::memcpy(dst, src, 4); return;
        case 8: std::memcpy(dst, src, 8); return;
        default: std::memcpy(dst, src, n < 8 ? n : 8); return;
    }
}

inline void copy_bytes(uint8_t* dst, const uint8_t* src, size_t n) {
    switch (n) {
        case 8: std::memcpy(dst, src, 8); return;
        case 16: std::memcpy(dst, src, 16); return;
        case 32: std::memcpy(dst, src, 32); return;
        case 64: std::memcpy(dst, src, 64); return;
        default: std::memcpy(dst, src, n); return;
    }
}

struct Sig {
    uint8_t* p = nullptr;  // first byte of the Verilated storage; not owned
    uint32_t bits = 0;     // width of the Verilog port

    explicit operator bool() const { return p != nullptr; }

    bool bit(uint32_t i) const { return (p[i >> 3] >> (i & 7)) & 1u; }

    void set_bit(uint32_t i, bool v) {
        const uint8_t m = uint8_t(1u << (i & 7));
        if (v) {
            p[i >> 3] |= m;
        } else {
            p[i >> 3] &= uint8_t(~m);
        }
    }

    // Bits [lo, lo+n) as an integer, n <= 64.
    uint64_t get(uint32_t lo, uint32_t n) const {
        if ((lo & 7) == 0 && (n & 7) == 0) {
            uint64_t v = 0;
            copy_word(reinterpret_cast<uint8_t*>(&v), p + (lo >> 3), n >> 3);
            return v;
        }
        uint64_t v = 0;
        for (uint32_t i = 0; i < n; ++i) v |= uint64_t(bit(lo + i)) << i;
        return v;
    }

    // Sets bits [lo, lo+n) to the low n bits of v, n <= 64.
    void put(uint32_t lo, uint32_t n, uint64_t v) {
        if ((lo & 7) == 0 && (n & 7) == 0) {
            copy_word(p + (lo >> 3), reinterpret_cast<const uint8_t*>(&v), n >> 3);
            return;
        }
        for (uint32_t i = 0; i < n; ++i) set_bit(lo + i, (v >> i) & 1u);
    }

    // Byte lanes: byte k of port `port` of a bus whose ports are `lane_bytes`
    // bytes wide starts at p + port*lane_bytes + k (the port width must be a
    // multiple of 8, which tdata always is).
    uint8_t* lanes(uint32_t port, uint32_t lane_bytes) const { return p + size_t(port) * lane_bytes; }

    // Zeroes the whole port.
    void clear() const {
        if (p) std::memset(p, 0, (bits + 7) / 8);
    }
};

// sig(member, bits) binds a Verilated port. It checks that the C++ type is
// the one Verilator picks for that width, which catches a build whose
// Verilog parameters disagree with the widths the wrapper expects.
template <class T>
Sig sig(T& storage, uint32_t bits, const char* name) {
    static_assert(std::is_integral<T>::value && std::is_unsigned<T>::value,
                  "sig(): not a Verilated scalar port");
    const uint32_t cap = 8 * sizeof(T);
    const uint32_t floor = sizeof(T) == 1 ? 0 : cap / 2;
    if (bits == 0 || bits > cap || bits <= floor) {
        throw std::runtime_error(std::string("port ") + name + " is " + std::to_string(bits) +
                                 " bits by the build parameters but its Verilated type holds " +
                                 std::to_string(floor + 1) + ".." + std::to_string(cap));
    }
    return Sig{reinterpret_cast<uint8_t*>(&storage), bits};
}

template <std::size_t N>
Sig sig(VlWide<N>& storage, uint32_t bits, const char* name) {
    if (bits <= 64 || (bits + 31) / 32 != N) {
        throw std::runtime_error(std::string("port ") + name + " is " + std::to_string(bits) +
                                 " bits by the build parameters but Verilator made it " +
                                 std::to_string(N) + " words");
    }
    return Sig{reinterpret_cast<uint8_t*>(storage.data()), bits};
}

}  // namespace cosim
