// SPDX-License-Identifier: MIT
// rng.h: the seeded generator behind the adapters' backpressure.
//
// SplitMix64 (Steele, Lea, Flood 2014; the seeder of xoshiro). Each adapter
// has its own stream, derived from (seed, role, port), so one port's draws
// never shift another's and a rerun with the same seed is identical.
#pragma once

#include <cstdint>

namespace cosim {

class SplitMix64 {
public:
    explicit SplitMix64(uint64_t seed = 0) : s_(seed) {}

    uint64_t next() {
        uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // True with probability pct/100 (pct 0..100); one draw per call.
    bool chance(uint32_t pct) { return ((next() >> 32) * 100u >> 32) < pct; }

    // The stream for one adapter: role 1 = source, 2 = sink, 3 and 4 = the
    // DMA port's response gaps and readies (dma.cpp).
    static SplitMix64 stream(uint64_t seed, uint32_t role, uint32_t port) {
        SplitMix64 mix(seed ^ (uint64_t(role) << 56) ^ (uint64_t(port) << 32));
        return SplitMix64(mix.next());
    }

private:
    uint64_t s_;
};

}  // namespace cosim
