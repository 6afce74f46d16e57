// SPDX-License-Identifier: MIT
// nic_top.cpp: model program for sim/tops/nic_top.sv (the RoCEv2 NIC,
// rtl/nic/roce_nic.sv: link, commands and host frames in on ports 0..2,
// link, completions and host frames out on ports 0..2, the CSR bus, the DMA
// port, idle). Built by sim/build.mk as nic_64 and nic_512.
#include "Vnic_top.h"
#include "model.h"

int main(int argc, char** argv) { return cosim::run<Vnic_top>(argc, argv, cosim::build_info()); }
