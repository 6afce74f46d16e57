// SPDX-License-Identifier: MIT
// nic_icrc_top.cpp: model program for sim/tops/nic_icrc_top.sv (the ICRC
// insert unit on port 0, the ICRC check unit on port 1, counters on the CSR
// bus). Built by sim/build.mk as nic_icrc_64 and nic_icrc_512.
#include "Vnic_icrc_top.h"
#include "model.h"

int main(int argc, char** argv) {
    return cosim::run<Vnic_icrc_top>(argc, argv, cosim::build_info());
}
