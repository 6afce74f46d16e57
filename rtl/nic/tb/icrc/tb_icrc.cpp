// SPDX-License-Identifier: MIT
// tb_icrc.cpp: self-contained Verilator testbench for icrc_insert and
// icrc_check. Reads a stimulus file written by rtl/nic/tb/icrc/gen (one frame a
// line: CLASS IN_USER EXP_USER IN_HEX EXP_HEX, IN_USER 1 = tuser on the last
// beat, 2 = on the first beat only), drives the frames into
// s_axis and checks every frame leaving m_axis against the expected bytes and
// tuser[0], in order, plus the statistics counters at the end.
//
// Phase 1 (the first --smooth frames) runs with no tvalid gaps and tready
// always high and checks the timing constants in the modules' headers:
// first beat in to first beat out, last input beat to last output beat, and
// input stall cycles. Phase 2 runs the rest with random tvalid gaps and
// tready stalls whose rates change every 500 frames, and checks that a
// stalled output holds still (AXI-Stream rule).
//
// Built by run.sh with --prefix Vdut for either top; -DDUT_CHECK selects the
// icrc_check expectations.
//
// Usage: tb FILE [--seed N] [--smooth N] [--quiet]

#include <verilated.h>

#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "Vdut.h"

namespace {

#ifndef DATA_WIDTH
#error "DATA_WIDTH must be defined (run.sh passes it)"
#endif
constexpr int kKeep = DATA_WIDTH / 8;

struct Frame {
    char cls = 'O';
    bool in_user = false;   // tuser[0] on the last input beat
    bool in_first = false;  // tuser[0] on the first input beat only
    bool exp_user = false;
    std::vector<uint8_t> in;
    std::vector<uint8_t> exp;
};

bool parse_hex(const std::string& s, std::vector<uint8_t>& out) {
    if (s.size() % 2 != 0) return false;
    out.resize(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        char* end = nullptr;
        std::string b = s.substr(2 * i, 2);
        out[i] = static_cast<uint8_t>(std::strtoul(b.c_str(), &end, 16));
        if (*end != '\0') return false;
    }
    return true;
}

bool load(const char* path, std::vector<Frame>& frames) {
    std::ifstream f(path);
    if (!f) {
        std::fprintf(stderr, "tb: cannot open %s\n", path);
        return false;
    }
    std::string line;
    int n = 0;
    while (std::getline(f, line)) {
        ++n;
        if (line.empty() || line[0] == '#') continue;
        std::istringstream ss(line);
        Frame fr;
        std::string cls, in, exp;
        int iu = 0, eu = 0;
        if (!(ss >> cls >> iu >> eu >> in >> exp) || cls.size() != 1 || !parse_hex(in, fr.in) ||
            !parse_hex(exp, fr.exp) || fr.in.empty() || fr.exp.empty()) {
            std::fprintf(stderr, "tb: %s:%d: bad line\n", path, n);
            return false;
        }
        fr.cls = cls[0];
        fr.in_user = iu == 1;
        fr.in_first = iu == 2;
        fr.exp_user = eu != 0;
        frames.push_back(std::move(fr));
    }
    return true;
}

// Byte lanes of the data bus: QData up to 64 bits, VlWide above.
void put_lanes(QData& bus, const uint8_t* p, int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
    bus = v;
}
uint8_t get_lane(const QData& bus, int i) { return static_cast<uint8_t>(bus >> (8 * i)); }
template <std::size_t N>
void put_lanes(VlWide<N>& bus, const uint8_t* p, int n) {
    for (std::size_t w = 0; w < N; ++w) bus[w] = 0;
    for (int i = 0; i < n; ++i) bus[i / 4] |= static_cast<uint32_t>(p[i]) << (8 * (i % 4));
}
template <std::size_t N>
uint8_t get_lane(const VlWide<N>& bus, int i) {
    return static_cast<uint8_t>(bus[i / 4] >> (8 * (i % 4)));
}
template <typename T>
bool same_bus(const T& a, const T& b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

uint64_t keep_mask(int n) { return n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1; }

// What the module header promises about one frame (phase 1 checks).
struct Timing {
    uint64_t first_in = 0, last_in = 0;  // cycles the first / last input beat was accepted
    bool spill = false;                   // icrc_insert: the ICRC needs one more beat
};

struct Snapshot {
    std::remove_reference_t<decltype(Vdut::m_axis_tdata)> data;
    uint64_t keep;
    bool last;
    uint32_t user;
};

class Bench {
public:
    Bench(std::vector<Frame> frames, uint64_t seed, size_t smooth, bool quiet)
        : frames_(std::move(frames)), rng_(seed), smooth_(smooth), quiet_(quiet) {
        ctx_ = std::make_unique<VerilatedContext>();
        top_ = std::make_unique<Vdut>(ctx_.get(), "dut");
        timing_.resize(frames_.size());
    }

    int run() {
        reset();
        const uint64_t limit = 1000000000ULL;
        while (received_ < frames_.size()) {
            step();
            if (cycle_ - last_progress_ > 100000 || cycle_ > limit) {
                std::fprintf(stderr, "tb: no progress at cycle %" PRIu64 " (sent %zu, received %zu)\n", cycle_,
                             sent_, received_);
                ++errors_;
                break;
            }
        }
        for (int i = 0; i < 20; ++i) step();  // let the counters settle, nothing may come out
        check_counters();
        report();
        top_->final();
        return errors_ == 0 && mismatches_ == 0 ? 0 : 1;
    }

private:
    void reset() {
        top_->clk = 0;
        top_->rst = 1;
        top_->s_axis_tdata = {};
        top_->s_axis_tkeep = 0;
        top_->s_axis_tvalid = 0;
        top_->s_axis_tlast = 0;
        top_->s_axis_tuser = 0;
        top_->m_axis_tready = 0;
        for (int i = 0; i < 4; ++i) {
            top_->clk = 0;
            top_->eval();
            top_->clk = 1;
            top_->eval();
        }
        top_->rst = 0;
        // axis_skid holds s_axis_tready low in the first cycle after reset
        for (int i = 0; i < 2; ++i) {
            top_->clk = 0;
            top_->eval();
            top_->clk = 1;
            top_->eval();
        }
    }

    // phase 1 holds for the source until its frames are in, for the sink
    // until they are out
    bool smooth_in() const { return sent_ < smooth_; }
    bool smooth_out() const { return received_ < smooth_; }

    // Per 500 frames in phase 2, new random rates for gaps and stalls.
    void pick_rates() {
        static const int kRates[] = {0, 5, 20, 50, 80};
        gap_pct_ = kRates[rng_() % 5];
        stall_pct_ = kRates[rng_() % 5];
        rates_at_ = sent_;
    }

    void drive() {
        // source: once tvalid is up it stays up, with the same beat, until taken
        if (!top_->s_axis_tvalid && sent_ < frames_.size()) {
            bool go = smooth_in() || (rng_() % 100) >= static_cast<unsigned>(gap_pct_);
            if (go) {
                const Frame& f = frames_[sent_];
                size_t off = in_beat_ * kKeep;
                int n = static_cast<int>(std::min<size_t>(kKeep, f.in.size() - off));
                put_lanes(top_->s_axis_tdata, f.in.data() + off, n);
                top_->s_axis_tkeep = keep_mask(n);
                top_->s_axis_tlast = off + n == f.in.size();
                bool user = (off + n == f.in.size() && f.in_user) || (off == 0 && f.in_first);
                top_->s_axis_tuser = user ? 1 : 0;
                top_->s_axis_tvalid = 1;
            }
        }
        top_->m_axis_tready = smooth_out() ? 1 : ((rng_() % 100) >= static_cast<unsigned>(stall_pct_));
    }

    void step() {
        if (!smooth_in() && (sent_ - rates_at_ >= 500 || rates_at_ == SIZE_MAX)) pick_rates();
        top_->clk = 0;
        drive();
        top_->eval();

        // AXI-Stream: a stalled output must hold its beat
        if (held_) {
            Snapshot now = snap();
            if (!top_->m_axis_tvalid || !same_bus(now.data, held_beat_.data) || now.keep != held_beat_.keep ||
                now.last != held_beat_.last || now.user != held_beat_.user) {
                error("m_axis changed while stalled");
            }
        }
        held_ = top_->m_axis_tvalid && !top_->m_axis_tready;
        if (held_) held_beat_ = snap();

        bool s_fire = top_->s_axis_tvalid && top_->s_axis_tready;
        bool m_fire = top_->m_axis_tvalid && top_->m_axis_tready;
        if (smooth_out() && top_->s_axis_tvalid && !top_->s_axis_tready) check_stall();
        if (m_fire) take_output();

        top_->clk = 1;
        top_->eval();
        ctx_->timeInc(1);
        // the source moves on only after the edge that took its beat
        if (s_fire) take_input();
        ++cycle_;
    }

    Snapshot snap() {
        Snapshot s;
        s.data = top_->m_axis_tdata;
        s.keep = static_cast<uint64_t>(top_->m_axis_tkeep);
        s.last = top_->m_axis_tlast;
        s.user = static_cast<uint32_t>(top_->m_axis_tuser);
        return s;
    }

    void take_input() {
        const Frame& f = frames_[sent_];
        Timing& t = timing_[sent_];
        if (in_beat_ == 0) t.first_in = cycle_;
        bool last = top_->s_axis_tlast;
        if (last) {
            t.last_in = cycle_;
            int n = static_cast<int>(f.in.size() - in_beat_ * kKeep);
            t.spill = f.cls == 'R' && n > kKeep - 4;
            ++sent_;
            in_beat_ = 0;
            last_progress_ = cycle_;
        } else {
            ++in_beat_;
        }
        top_->s_axis_tvalid = 0;
    }

    void take_output() {
        if (received_ >= frames_.size()) {
            error("output beat after the last expected frame");
            return;
        }
        uint64_t keep = static_cast<uint64_t>(top_->m_axis_tkeep);
        bool last = top_->m_axis_tlast;
        int n = 0;
        while (n < kKeep && (keep >> n & 1)) ++n;
        if (n == 0 || keep != keep_mask(n)) error("m_axis_tkeep not contiguous from bit 0");
        if (!last && n != kKeep) error("partial m_axis beat before tlast");
        if (out_bytes_.empty()) first_out_ = cycle_;
        for (int i = 0; i < n; ++i) out_bytes_.push_back(get_lane(top_->m_axis_tdata, i));
        if (!last) return;

        const Frame& f = frames_[received_];
        bool user = top_->m_axis_tuser & 1;
        if (out_bytes_ != f.exp || user != f.exp_user) {
            ++mismatches_;
            if (mismatches_ <= 10) {
                size_t d = 0;
                while (d < out_bytes_.size() && d < f.exp.size() && out_bytes_[d] == f.exp[d]) ++d;
                std::fprintf(stderr,
                             "tb: MISMATCH frame %zu class %c: got %zu bytes tuser %d, want %zu bytes tuser %d, "
                             "first difference at byte %zu\n",
                             received_, f.cls, out_bytes_.size(), user, f.exp.size(), f.exp_user, d);
            }
        }
        if (received_ < smooth_) check_timing(received_, cycle_);
        out_bytes_.clear();
        ++received_;
        last_progress_ = cycle_;
    }

    // With m_axis always ready, s_axis may stall only for icrc_insert, for one
    // cycle right after the last beat of a frame whose ICRC spills.
    void check_stall() {
        ++in_stalls_;
#ifndef DUT_CHECK
        if (in_beat_ == 0 && sent_ > 0 && timing_[sent_ - 1].spill && cycle_ == timing_[sent_ - 1].last_in + 1) {
            return;
        }
#endif
        error("s_axis_tready low while m_axis is always ready");
    }

    // Phase 1: the constants written in the module headers.
    void check_timing(size_t i, uint64_t last_out) {
        const Timing& t = timing_[i];
        const Frame& f = frames_[i];
        uint64_t want_first = t.first_in + 1;
#ifdef DUT_CHECK
        // last output beat: the cycle after the input tlast beat is accepted
        uint64_t want_last = t.last_in + 1;
        if (f.cls != 'O' && f.exp.size() <= static_cast<size_t>(kKeep)) want_first = want_last;
#else
        // one extra beat when the ICRC spills
        uint64_t want_last = t.last_in + 1 + (t.spill ? 1 : 0);
        (void)f;
#endif
        if (first_out_ != want_first || last_out != want_last) {
            ++timing_errors_;
            if (timing_errors_ <= 10) {
                std::fprintf(stderr,
                             "tb: TIMING frame %zu: first in %" PRIu64 " out %" PRIu64 ", last in %" PRIu64
                             " out %" PRIu64 "\n",
                             i, t.first_in, first_out_, t.last_in, last_out);
            }
        }
    }

    void check_counters() {
        uint64_t r = 0, b = 0, o = 0;
        for (const Frame& f : frames_) {
            r += f.cls == 'R';
            b += f.cls == 'B';
            o += f.cls == 'O';
        }
#ifdef DUT_CHECK
        check_counter("stat_roce", top_->stat_roce, r + b);
        check_counter("stat_bad_icrc", top_->stat_bad_icrc, b);
#else
        if (b != 0) error("stimulus for icrc_insert has class B frames");
        check_counter("stat_roce", top_->stat_roce, r);
#endif
        check_counter("stat_other", top_->stat_other, o);
        errors_ += timing_errors_;
    }

    void check_counter(const char* name, uint32_t got, uint64_t want) {
        if (got != static_cast<uint32_t>(want)) {
            std::fprintf(stderr, "tb: %s = %u, want %" PRIu64 "\n", name, got, want);
            ++errors_;
        }
    }

    void report() {
        uint64_t r = 0, b = 0, o = 0;
        for (const Frame& f : frames_) {
            r += f.cls == 'R';
            b += f.cls == 'B';
            o += f.cls == 'O';
        }
        std::printf("tb: %s DATA_WIDTH=%d: %zu frames (%" PRIu64 " R, %" PRIu64 " B, %" PRIu64
                    " O), %zu received, %" PRIu64 " mismatches, %" PRIu64 " timing errors (phase 1: %zu frames, "
                    "%" PRIu64 " input stalls), %" PRIu64 " other errors, %" PRIu64 " cycles: %s\n",
#ifdef DUT_CHECK
                    "icrc_check",
#else
                    "icrc_insert",
#endif
                    DATA_WIDTH, frames_.size(), r, b, o, received_, mismatches_, timing_errors_,
                    std::min(smooth_, frames_.size()), in_stalls_, errors_ - timing_errors_, cycle_,
                    errors_ == 0 && mismatches_ == 0 ? "PASS" : "FAIL");
    }

    void error(const char* what) {
        ++errors_;
        if (errors_ <= 10 || !quiet_) {
            std::fprintf(stderr, "tb: cycle %" PRIu64 ": %s (frame %zu)\n", cycle_, what, received_);
        }
    }

    std::vector<Frame> frames_;
    std::vector<Timing> timing_;
    std::mt19937_64 rng_;
    size_t smooth_;
    bool quiet_;
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vdut> top_;

    uint64_t cycle_ = 0, last_progress_ = 0;
    size_t sent_ = 0, in_beat_ = 0, received_ = 0;
    size_t rates_at_ = SIZE_MAX;
    int gap_pct_ = 0, stall_pct_ = 0;
    std::vector<uint8_t> out_bytes_;
    uint64_t first_out_ = 0;
    bool held_ = false;
    Snapshot held_beat_{};
    uint64_t mismatches_ = 0, errors_ = 0, timing_errors_ = 0, in_stalls_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
    const char* path = nullptr;
    uint64_t seed = 1;
    size_t smooth = 500;
    bool quiet = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--seed" && i + 1 < argc) {
            seed = std::strtoull(argv[++i], nullptr, 0);
        } else if (a == "--smooth" && i + 1 < argc) {
            smooth = std::strtoull(argv[++i], nullptr, 0);
        } else if (a == "--quiet") {
            quiet = true;
        } else if (a[0] != '-' && !path) {
            path = argv[i];
        } else {
            std::fprintf(stderr, "usage: %s FILE [--seed N] [--smooth N] [--quiet]\n", argv[0]);
            return 2;
        }
    }
    if (!path) {
        std::fprintf(stderr, "usage: %s FILE [--seed N] [--smooth N] [--quiet]\n", argv[0]);
        return 2;
    }
    std::vector<Frame> frames;
    if (!load(path, frames)) return 2;
    Bench bench(std::move(frames), seed, smooth, quiet);
    return bench.run();
}
