// SPDX-License-Identifier: MIT
// nic_tx_top.cpp: model program for sim/tops/nic_tx_top.sv (descriptor
// records in on port 0, the frames rtl/nic/nic_tx_build.sv makes of them out
// on port 0, payload read through the DMA port, counters on the CSR bus).
// Built by sim/build.mk as nic_tx_64 and nic_tx_512.
#include "Vnic_tx_top.h"
#include "model.h"

int main(int argc, char** argv) { return cosim::run<Vnic_tx_top>(argc, argv, cosim::build_info()); }
