// SPDX-License-Identifier: MIT
// axis_misuse_top.cpp: model program for the deliberately broken test top
// sim/test/axis_misuse_top.sv (see proto_smoke.py --misuse).
#include "Vaxis_misuse_top.h"
#include "model.h"

int main(int argc, char** argv) { return cosim::run<Vaxis_misuse_top>(argc, argv, cosim::build_info()); }
