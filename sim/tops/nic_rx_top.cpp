// SPDX-License-Identifier: MIT
// nic_rx_top.cpp: model program for sim/tops/nic_rx_top.sv (the NIC's
// receive front end, rtl/nic/nic_rx_parse.sv: frames in on port 0, decision
// records out on port 0, host frames out on port 1, configuration and
// counters on the CSR bus, idle). Built by sim/build.mk as nic_rx_64 and
// nic_rx_512.
#include "Vnic_rx_top.h"
#include "model.h"

int main(int argc, char** argv) {
    return cosim::run<Vnic_rx_top>(argc, argv, cosim::build_info());
}
