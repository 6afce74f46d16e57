// SPDX-License-Identifier: MIT
// axis_fifo_top.cpp: model program for sim/tops/axis_fifo_top.sv (axis_skid
// then axis_fifo, one input and one output port, an idle output).
//
// Built by sim/build.mk as the models axis_fifo_64 and axis_fifo_512 (the
// DATA_WIDTH they are built with); the name, top, parameters and port counts
// arrive as COSIM_* defines, see sim/model.h. Everything else - command
// line, socket protocol, adapters, reset, tracing, raw benchmark - is the
// shared library in sim/.
//
// Run: build/models/axis_fifo_64/Vaxis_fifo_top --socket DIR/model.sock
//      build/models/axis_fifo_64/Vaxis_fifo_top --raw 100000 --size 1500 --check
#include "Vaxis_fifo_top.h"
#include "model.h"

int main(int argc, char** argv) {
    // The top follows the port convention exactly, so the standard binding
    // does it all; a top with extra ports would pass a customize callback:
    //   cosim::run<Vtop>(argc, argv, info, [](Vtop& t, cosim::Ports& p) { ... });
    return cosim::run<Vaxis_fifo_top>(argc, argv, cosim::build_info());
}
