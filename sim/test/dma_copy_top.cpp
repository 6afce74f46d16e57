// SPDX-License-Identifier: MIT
// dma_copy_top.cpp: model program for the DMA test top sim/test/dma_copy_top.sv
// (copy commands in, echoes out, the DMA port of sim/dma.h in between).
#include "Vdma_copy_top.h"
#include "model.h"

int main(int argc, char** argv) { return cosim::run<Vdma_copy_top>(argc, argv, cosim::build_info()); }
