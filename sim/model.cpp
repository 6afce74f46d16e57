// SPDX-License-Identifier: MIT
// model.cpp: the command line of a model program (see model.h).
#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sstream>
#include <thread>

#include "run.h"
#include "sim.h"
#include "socket.h"

// VM_COVERAGE is 1 in a model Verilated with --coverage (make
// models-coverage): Verilator's make passes it to every file it compiles.
#if VM_COVERAGE
#include "verilated_cov.h"
#endif

namespace cosim {

namespace {

// The coverage counts are written once, by whichever comes first: the
// model's end (Instance::stop) or a SIGTERM or SIGINT, which a thread of its
// own waits for (the model may be deep in a window, or blocked reading).
struct CoverageWriter {
    std::mutex mu;
    VerilatedContext* ctx = nullptr;  // the running model's, while it runs
    std::string path;
    bool written = false;

    // Writes through a temporary file and a rename, so that a model killed
    // while writing leaves no half file for the merge to trip on.
    // Call with mu held.
    void write_locked() {
        if (ctx == nullptr || written) return;
        written = true;
#if VM_COVERAGE
        const std::string tmp = path + ".tmp";
        try {
            ctx->coveragep()->write(tmp.c_str());
        } catch (const std::exception& e) {
            std::fprintf(stderr, "coverage: writing %s: %s\n", tmp.c_str(), e.what());
            return;
        }
        if (std::rename(tmp.c_str(), path.c_str()) != 0) {
            std::perror(("coverage: rename to " + path).c_str());
        }
#endif
    }
};

CoverageWriter& coverage_writer() {
    static CoverageWriter w;
    return w;
}

// Blocks SIGTERM and SIGINT in this thread and every thread started after
// it, and starts the thread that takes them: it writes the coverage counts
// and then dies of the signal, as the model would have without it.
void catch_stop_signals() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
    std::thread([set] {
        int sig = 0;
        if (sigwait(&set, &sig) != 0) return;
        {
            CoverageWriter& w = coverage_writer();
            std::lock_guard<std::mutex> lk(w.mu);
            w.write_locked();
        }
        std::signal(sig, SIG_DFL);
        pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
        std::raise(sig);
    }).detach();
}

void usage(const ModelInfo& info, std::FILE* to) {
    std::fprintf(to,
                 "usage: V%s --socket PATH | --listen [HOST:]PORT [options]\n"
                 "       V%s --raw N [--size BYTES] [--check] [options]\n"
                 "       V%s --info\n"
                 "Model %s: Verilog top %s, %s, DATA_WIDTH %u, %u in, %u out.\n"
                 "\n"
                 "  --socket PATH          listen on a Unix socket (the harness's private directory)\n"
                 "  --listen [HOST:]PORT   listen on TCP; loopback unless HOST is given; port 0 picks one\n"
                 "                         (both print one line \"LISTEN unix PATH\" / \"LISTEN tcp ADDR:PORT\")\n"
                 "  --accept-timeout SEC   exit 1 if no harness connects in time (default 60, 0: forever)\n"
                 "  --timeout SEC          exit 1 if the harness is silent that long (default 0: forever)\n"
                 "  --ring-fd FD           the byte stream goes through the shared rings in FD, the socket\n"
                 "                         carries doorbells (the harness's Config.SharedMemory)\n"
                 "  --trace FILE.fst       write an FST trace (HELLO_ACK may also ask for one)\n"
                 "  --info                 print the HELLO text (name, top, parameters) and exit\n"
                 "  --dma-read-latency N   cycles from a DMA read request to its first beat (default %llu)\n"
                 "  --coverage-file PATH   write the Verilator coverage counts there at the end, also on\n"
                 "                         SIGTERM/SIGINT (a model built by make models-coverage)\n"
                 "  --raw N                benchmark without a socket: N frames per input port\n"
                 "  --size BYTES           raw frame size (default 64)\n"
                 "  --check                raw: output port p must carry exactly input port p's frames\n"
                 "  --window CYCLES        raw: cycles between refills (default 4096)\n"
                 "  --seed N, --gap PCT, --stall PCT   raw: backpressure as HELLO_ACK would set it\n",
                 info.top.c_str(), info.top.c_str(), info.top.c_str(), info.name.c_str(), info.top.c_str(),
                 info.params.c_str(), info.data_width, info.in_ports, info.out_ports,
                 static_cast<unsigned long long>(kDmaReadLatency));
}

bool parse_u64(const std::string& s, uint64_t& v) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 19) return false;
    v = std::strtoull(s.c_str(), nullptr, 10);
    return true;
}

}  // namespace

std::string hello_text(const ModelInfo& info, const Options& opt) {
    std::ostringstream t;
    t << "name=" << info.name << "\n";
    t << "top=" << info.top << "\n";
    std::istringstream ps(info.params);
    for (std::string kv; std::getline(ps, kv, ',');) {
        if (!kv.empty()) t << "param." << kv << "\n";
    }
    t << "reset_cycles=" << Sim::kResetCycles << "\n";
    t << "csr=" << (info.has_csr ? 1 : 0) << "\n";
    t << "dma=" << (info.has_dma ? 1 : 0) << "\n";
    if (info.has_dma) t << "dma_read_latency=" << opt.dma_read_latency << "\n";
    t << "idle=" << (info.has_idle ? 1 : 0) << "\n";
    return t.str();
}

void Instance::start(const Options& opt, const DutFactory& make, const std::string& trace_path,
                     const TraceWindow& window, const Backpressure& bp) {
    ctx_ = std::make_unique<VerilatedContext>();
    ctx_->commandArgs(opt.argc, opt.argv);
    ctx_->fatalOnError(true);  // hooks.cpp turns every stop into an RtlStop
    const bool tracing = !trace_path.empty();
    if (tracing) ctx_->traceEverOn(true);  // before the model is built
    dut_ = make(*ctx_);
    if (tracing) dut_->trace_open(trace_path);
    sim_ = std::make_unique<Sim>(*ctx_, *dut_, bp, tracing ? window : TraceWindow{}, opt.dma_read_latency);
    sim_->reset();
    if (!opt.coverage_path.empty()) {
        CoverageWriter& w = coverage_writer();
        std::lock_guard<std::mutex> lk(w.mu);
        w.ctx = ctx_.get();
        w.path = opt.coverage_path;
        coverage_ = true;
    }
}

void Instance::stop() {
    if (stopped_ || !dut_) return;
    stopped_ = true;
    try {
        dut_->final();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "final: %s\n", e.what());
    }
    dut_->trace_close();
    if (coverage_) {
        CoverageWriter& w = coverage_writer();
        std::lock_guard<std::mutex> lk(w.mu);
        w.write_locked();
        w.ctx = nullptr;
    }
}

void print_dma_counters(const ModelInfo& info, const Sim& sim) {
    if (!sim.has_dma()) return;
    const DmaCounters& c = sim.dma_counters();
    std::fprintf(stderr, "model %s: dma: %llu reads, %llu bytes read; %llu writes, %llu bytes written\n",
                 info.name.c_str(), static_cast<unsigned long long>(c.reads),
                 static_cast<unsigned long long>(c.read_bytes), static_cast<unsigned long long>(c.writes),
                 static_cast<unsigned long long>(c.write_bytes));
}

int run_main(int argc, char** argv, const ModelInfo& info, const DutFactory& make) {
    // Verilator's $display goes to stdout: keep it in step with stderr.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);

    Options o;
    o.argc = argc;
    o.argv = argv;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (!a.empty() && a[0] == '+') continue;  // +verilator+ options, for the context
        auto value = [&](std::string& out) {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "%s: %s needs a value\n", info.name.c_str(), a.c_str());
                std::exit(2);
            }
            out = argv[++i];
        };
        auto number = [&](uint64_t& out, uint64_t max) {
            std::string s;
            value(s);
            if (!parse_u64(s, out) || out > max) {
                std::fprintf(stderr, "%s: %s wants a number up to %llu, got \"%s\"\n", info.name.c_str(), a.c_str(),
                             static_cast<unsigned long long>(max), s.c_str());
                std::exit(2);
            }
        };
        uint64_t n = 0;
        if (a == "--socket") {
            value(o.socket_path);
        } else if (a == "--listen") {
            value(o.listen_addr);
            // A bad address is bad usage, refused before anything starts.
            try {
                std::string host, port;
                split_listen(o.listen_addr, host, port);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "%s: %s\n", info.name.c_str(), e.what());
                return 2;
            }
        } else if (a == "--accept-timeout") {
            number(n, 86400);
            o.accept_timeout_s = int(n);
        } else if (a == "--timeout") {
            number(n, 86400);
            o.timeout_s = int(n);
        } else if (a == "--ring-fd") {
            number(n, 1 << 20);
            o.ring_fd = int(n);
        } else if (a == "--trace") {
            value(o.trace_path);
        } else if (a == "--info") {
            o.info = true;
        } else if (a == "--dma-read-latency") {
            number(o.dma_read_latency, kDmaMaxReadLatency);
            if (o.dma_read_latency == 0) {
                std::fprintf(stderr, "%s: --dma-read-latency must be at least 1\n", info.name.c_str());
                return 2;
            }
        } else if (a == "--coverage-file") {
            value(o.coverage_path);
        } else if (a == "--raw") {
            number(o.raw_frames, uint64_t(1) << 40);
            o.raw = true;
        } else if (a == "--size") {
            number(n, 1u << 20);
            o.raw_size = uint32_t(n);
        } else if (a == "--window") {
            number(o.window, uint64_t(1) << 32);
        } else if (a == "--check") {
            o.check = true;
        } else if (a == "--seed") {
            number(o.seed, ~uint64_t(0) >> 1);
        } else if (a == "--gap") {
            number(n, 99);
            o.gap_pct = uint32_t(n);
        } else if (a == "--stall") {
            number(n, 99);
            o.stall_pct = uint32_t(n);
        } else if (a == "-h" || a == "--help") {
            usage(info, stdout);
            return 0;
        } else {
            std::fprintf(stderr, "%s: unknown argument \"%s\"\n", info.name.c_str(), a.c_str());
            usage(info, stderr);
            return 2;
        }
    }

    if (!o.coverage_path.empty()) {
#if VM_COVERAGE
        if (!o.info) catch_stop_signals();  // before any thread starts
#else
        std::fprintf(stderr, "%s: --coverage-file: built without coverage: make models-coverage\n", info.name.c_str());
        return 2;
#endif
    }
    if (o.info) {
        std::fputs(hello_text(info, o).c_str(), stdout);
        return 0;
    }
    const int modes = int(!o.socket_path.empty()) + int(!o.listen_addr.empty()) + int(o.raw);
    if (modes != 1) {
        std::fprintf(stderr, "%s: give exactly one of --socket, --listen, --raw\n", info.name.c_str());
        usage(info, stderr);
        return 2;
    }
    if (o.raw && (o.raw_size == 0 || o.window == 0)) {
        std::fprintf(stderr, "%s: --size and --window must be at least 1\n", info.name.c_str());
        return 2;
    }
    return o.raw ? run_raw(o, info, make) : serve_socket(o, info, make);
}

}  // namespace cosim
