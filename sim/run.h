// SPDX-License-Identifier: MIT
// run.h: command-line options and the two ways a model program runs
// (internal to sim/; a top's main uses model.h).
#pragma once

#include <cstdint>
#include <string>

#include "model.h"

namespace cosim {

struct Options {
    // Socket mode: exactly one of these.
    std::string socket_path;  // --socket PATH: Unix socket
    std::string listen_addr;  // --listen [HOST:]PORT: TCP, loopback unless HOST is given
    int accept_timeout_s = 60;  // --accept-timeout: give up if nobody connects
    int timeout_s = 0;          // --timeout: give up if the harness is silent that long (0: never)
    int ring_fd = -1;           // --ring-fd FD: the stream goes through the rings in FD (socket.h)

    std::string trace_path;  // --trace FILE.fst (HELLO_ACK's path wins)
    bool info = false;       // --info: print the HELLO text and exit
    uint64_t dma_read_latency = kDmaReadLatency;  // --dma-read-latency (both modes)
    // --coverage-file PATH: write Verilator's coverage counts there at the
    // end (both modes; a model built by make models-coverage only).
    std::string coverage_path;

    // Raw mode (--raw N): no socket, generated frames, the same adapters.
    bool raw = false;
    uint64_t raw_frames = 0;  // frames per input port
    uint32_t raw_size = 64;   // bytes per frame (--size)
    uint64_t window = 4096;   // cycles per run_until between refills (--window)
    bool check = false;       // --check: output port p must carry input port p's frames
    uint64_t seed = 1;        // --seed
    uint32_t gap_pct = 0;     // --gap
    uint32_t stall_pct = 0;   // --stall

    // The whole command line, for VerilatedContext::commandArgs (+verilator+
    // options and $test$plusargs).
    int argc = 0;
    char** argv = nullptr;
};

// One running model: context, Verilated top, simulation. Members are
// destroyed in reverse order (the Sim refers to the others).
class Instance {
public:
    // Creates the context and the model, opens the trace when trace_path is
    // not empty (it holds the cycles of window), and resets the DUT.
    // Throws ModelError, std::runtime_error.
    void start(const Options& opt, const DutFactory& make, const std::string& trace_path, const TraceWindow& window,
               const Backpressure& bp);
    // Closes the trace and calls final(), once; safe after any failure.
    // Then writes the coverage counts when asked to (--coverage-file).
    void stop();
    Sim& sim() { return *sim_; }
    bool started() const { return sim_ != nullptr; }

private:
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Dut> dut_;
    std::unique_ptr<Sim> sim_;
    bool stopped_ = false;
    bool coverage_ = false;  // registered with the coverage writer (model.cpp)
};

// HELLO text: key=value lines.
std::string hello_text(const ModelInfo& info, const Options& opt);

// The DMA counters line a model with a DMA port prints to stderr at exit.
void print_dma_counters(const ModelInfo& info, const Sim& sim);

int serve_socket(const Options& opt, const ModelInfo& info, const DutFactory& make);
int run_raw(const Options& opt, const ModelInfo& info, const DutFactory& make);

}  // namespace cosim
