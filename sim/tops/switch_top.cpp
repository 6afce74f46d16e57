// SPDX-License-Identifier: MIT
// switch_top.cpp: model program for sim/tops/switch_top.sv (eth_switch,
// rtl/switch: PORTS ports in and out, registers and counters on the CSR
// bus, idle). Built by sim/build.mk as switch4_64, switch4_512 and
// switch8_64.
#include "Vswitch_top.h"
#include "model.h"

int main(int argc, char** argv) {
    return cosim::run<Vswitch_top>(argc, argv, cosim::build_info());
}
