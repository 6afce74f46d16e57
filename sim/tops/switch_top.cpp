// SPDX-License-Identifier: MIT
// switch_top.cpp: model program for sim/tops/switch_top.sv (eth_switch,
// rtl/switch: PORTS ports in and out, registers and counters on the CSR
// bus, idle). Built by sim/build.mk as switch4_64, switch4_512 and
// switch8_64.
#include "Vswitch_top.h"
#include "Vswitch_top___024root.h"
#include "model.h"

int main(int argc, char** argv) {
    // Every output of switch_top is a register or a constant (its header):
    // the simulation may skip the falling-edge eval (sim.h, Ports::clk_prev).
    return cosim::run<Vswitch_top>(argc, argv, cosim::build_info(), [](Vswitch_top& t, cosim::Ports& p) {
        p.clk_prev = cosim::clk_prev_of(t);
    });
}
