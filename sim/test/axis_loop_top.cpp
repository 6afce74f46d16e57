// SPDX-License-Identifier: MIT
// axis_loop_top.cpp: model program for the multi-port test top
// sim/test/axis_loop_top.sv (narrow and odd widths, several ports).
#include "Vaxis_loop_top.h"
#include "model.h"

int main(int argc, char** argv) { return cosim::run<Vaxis_loop_top>(argc, argv, cosim::build_info()); }
