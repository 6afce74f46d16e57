// SPDX-License-Identifier: MIT
// nic_dcqcn_top.cpp: model program for sim/tops/nic_dcqcn_top.sv (the NIC's
// DCQCN reaction point: events and configuration as records on in0, a
// report per cycle with an event or a timer tick on out0..out4). Built by
// sim/build.mk as nic_dcqcn_64.
#include "Vnic_dcqcn_top.h"
#include "model.h"

int main(int argc, char** argv) {
    return cosim::run<Vnic_dcqcn_top>(argc, argv, cosim::build_info());
}
