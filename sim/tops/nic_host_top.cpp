// SPDX-License-Identifier: MIT
// nic_host_top.cpp: model program for sim/tops/nic_host_top.sv (the NIC's
// command decoder and completion queue, commands echoed as completions).
// Built by sim/build.mk as nic_host_64 and nic_host_512.
#include "Vnic_host_top.h"
#include "model.h"

int main(int argc, char** argv) {
    return cosim::run<Vnic_host_top>(argc, argv, cosim::build_info());
}
