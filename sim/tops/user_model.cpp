// SPDX-License-Identifier: MIT
// user_model.cpp: the main of a user's own model (`cosim model build`,
// sim/build.mk's user-model rule). Any top that follows the port convention
// with no port outside it needs no main of its own: the top's name arrives
// as COSIM_TOP, so its Verilated class V<top> and header V<top>.h are named
// from it here, and run<>() binds the ports by their convention names. (So a
// top may not be named as a predefined C macro is, such as linux or unix.)
#include "model.h"

#define COSIM_VCLASS_(top) V##top
#define COSIM_VCLASS(top) COSIM_VCLASS_(top)
#include COSIM_STR(COSIM_VCLASS(COSIM_TOP).h)

int main(int argc, char** argv) { return cosim::run<COSIM_VCLASS(COSIM_TOP)>(argc, argv, cosim::build_info()); }
