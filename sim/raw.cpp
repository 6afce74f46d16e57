// SPDX-License-Identifier: MIT
// raw.cpp: benchmark mode. The same model, Sim and adapters as a socket
// session, driven by a plain loop instead of the harness: every input port
// gets N frames of --size bytes, as fast as the DUT takes them (all stamped
// with the current cycle), the loop runs --window cycles between refills
// and prints simulated cycles per wall second and frames per second. With
// --check, output port p must carry exactly input port p's frames, in
// order, byte for byte (true of FIFOs and other loopback tops).
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "rng.h"
#include "run.h"

namespace cosim {

namespace {

constexpr uint64_t kStuckCycles = 1000000;  // no progress this long: give up

// Frame payloads: frame `seq` on `port` is a byte counter from a start
// that depends on both, so a lost, repeated or shifted byte shows. They are
// cut from one precomputed ramp to keep the benchmark's own cost small.
class Payloads {
public:
    explicit Payloads(uint32_t size) : size_(size), ramp_(size + 256) {
        for (size_t i = 0; i < ramp_.size(); ++i) ramp_[i] = uint8_t(i);
    }
    const uint8_t* begin(uint32_t port, uint64_t seq) const {
        return ramp_.data() + (SplitMix64(seq * 1315423911u + port).next() & 0xFF);
    }
    const uint8_t* end(uint32_t port, uint64_t seq) const { return begin(port, seq) + size_; }

private:
    uint32_t size_;
    std::vector<uint8_t> ramp_;
};

}  // namespace

int run_raw(const Options& opt, const ModelInfo& info, const DutFactory& make) {
    if (opt.check && info.in_ports != info.out_ports) {
        std::fprintf(stderr, "%s: --check needs as many outputs as inputs\n", info.name.c_str());
        return 2;
    }
    Instance model;
    try {
        model.start(opt, make, opt.trace_path, TraceWindow{0, UINT64_MAX}, Backpressure{opt.seed, opt.gap_pct, opt.stall_pct});
        Sim& sim = model.sim();
        const uint32_t ports = info.in_ports;
        std::vector<uint64_t> sent(ports, 0);
        std::vector<uint64_t> received(info.out_ports, 0);
        uint64_t frames_in = 0;
        uint64_t frames_out = 0;
        uint64_t bytes_out = 0;
        uint64_t last_progress = 0;
        const Payloads payloads(opt.raw_size);
        // Enough frames queued per port to keep it busy for a whole window.
        const uint64_t beats = (opt.raw_size + info.data_width / 8 - 1) / (info.data_width / 8);
        const size_t queue_depth = size_t(std::min<uint64_t>(opt.window / beats + 2, 1u << 16));

        const auto t0 = std::chrono::steady_clock::now();
        const std::clock_t c0 = std::clock();
        for (;;) {
            bool all_sent = true;
            for (uint32_t p = 0; p < ports; ++p) {
                while (sent[p] < opt.raw_frames && sim.queued(p) < queue_depth) {
                    InFrame f;
                    f.stamp = sim.now();
                    f.seq = uint32_t(sent[p]);
                    f.data = sim.frame_buffer();
                    f.data.assign(payloads.begin(p, sent[p]), payloads.end(p, sent[p]));
                    sim.push_frame(p, std::move(f));
                    ++sent[p];
                }
                if (sent[p] < opt.raw_frames) all_sent = false;
            }
            sim.run_until(sim.now() + opt.window);
            frames_in += sim.accepts.size();
            if (!sim.accepts.empty() || !sim.frames.empty()) last_progress = sim.now();
            for (const OutFrame& f : sim.frames) {
                if (opt.check) {
                    const uint8_t* want = payloads.begin(f.port, received[f.port]);
                    if (f.data.size() != opt.raw_size || std::memcmp(f.data.data(), want, opt.raw_size) != 0 ||
                        f.bad) {
                        std::fprintf(stderr,
                                     "%s: --check: output port %u frame %" PRIu64 " (cycle %" PRIu64
                                     ", %zu bytes) differs from input frame %" PRIu64 "\n",
                                     info.name.c_str(), unsigned(f.port), received[f.port], f.cycle, f.data.size(),
                                     received[f.port]);
                        model.stop();
                        return 1;
                    }
                }
                ++received[f.port];
                ++frames_out;
                bytes_out += f.data.size();
            }
            sim.accepts.clear();
            sim.recycle_frames(sim.frames);
            if (all_sent && !sim.busy()) break;
            if (sim.now() - last_progress > kStuckCycles) {
                std::fprintf(stderr, "%s: no frame moved for %" PRIu64 " cycles (cycle %" PRIu64 ")\n",
                             info.name.c_str(), kStuckCycles, sim.now());
                model.stop();
                return 1;
            }
        }
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        const double cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
        const uint64_t cycles = sim.now();
        if (opt.check && frames_out != frames_in) {
            std::fprintf(stderr, "%s: --check: %" PRIu64 " frames in, %" PRIu64 " out\n", info.name.c_str(), frames_in,
                         frames_out);
            model.stop();
            return 1;
        }
        std::printf("raw %s (%s): %" PRIu64 " frames x %u B per input port, %u in / %u out, gap %u%% stall %u%%\n",
                    info.name.c_str(), info.params.c_str(), opt.raw_frames, opt.raw_size, info.in_ports,
                    info.out_ports, opt.gap_pct, opt.stall_pct);
        std::printf("  %" PRIu64 " cycles, %" PRIu64 " frames in, %" PRIu64 " out (%.2f bytes/cycle), stalls src %" PRIu64
                    " sink %" PRIu64 "%s\n",
                    cycles, frames_in, frames_out, cycles ? double(bytes_out) / double(cycles) : 0.0, sim.src_stalls(),
                    sim.sink_stalls(), opt.check ? ", check ok" : "");
        std::printf("  wall %.3f s: %.2f M cycles/s, %.3f M frames/s; cpu %.3f s: %.2f M cycles/s, %.3f M frames/s\n",
                    secs, double(cycles) / secs / 1e6, double(frames_out) / secs / 1e6, cpu,
                    double(cycles) / cpu / 1e6, double(frames_out) / cpu / 1e6);
        print_dma_counters(info, sim);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", info.name.c_str(), e.what());
        model.stop();
        return 1;
    }
    model.stop();
    return 0;
}

}  // namespace cosim
