#pragma once
// The chip the GEMM-running workloads (gemm, train) build: the PEs and
// routes, the ingress edge of the I/O ring carrying the operands' type in,
// the egress the accumulator's out (the weight gradients), keeping their
// payloads in functional mode. Here, not in firmware/, because building the
// chip is the testbench's: firmware sees the edges only through their
// interfaces.

#include "hw/chip/ChipParts.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"
#include "hw/pe/OpKind.h"

namespace wsesim::workload {

// `sparseWeights`: the weights stream as value and index (firmware/gemm/WeightSparsity.h).
chip::ChipParts gemmChipParts(const config::ArchConfig& arch, pe::Precision precision, config::DataMode mode,
                              bool sparseWeights = false);

}  // namespace wsesim::workload
