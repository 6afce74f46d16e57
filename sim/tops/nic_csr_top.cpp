// SPDX-License-Identifier: MIT
// nic_csr_top.cpp: model program for sim/tops/nic_csr_top.sv (the NIC's
// register block, its engine side driven by records on in0 and shown on
// out0/out1). Built by sim/build.mk as nic_csr_64.
#include "Vnic_csr_top.h"
#include "model.h"

int main(int argc, char** argv) {
    return cosim::run<Vnic_csr_top>(argc, argv, cosim::build_info());
}
