#pragma once
// The chip the GEMM-running workloads (gemm, train) build: the PEs and
// routes, the ingress edge of the I/O ring carrying the operands' type in
// (each GEMM streams at its own wavelets' rate: SimulatedGemm::ingressRing),
// the egress the sums' type out (the weight gradients: firmware::sumType),
// keeping their payloads in functional mode. Here, not in firmware/, because building the
// chip is the testbench's: firmware sees the edges only through their
// interfaces.

#include "firmware/gemm/GemmShape.h"
#include "hw/chip/ChipParts.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"
#include "hw/pe/OpKind.h"

namespace wsesim::workload {

chip::ChipParts gemmChipParts(const config::ArchConfig& arch, const firmware::GemmShape& shape, config::DataMode mode);
// The same for a GEMM of `precision` whose sums keep the accumulator's type.
chip::ChipParts gemmChipParts(const config::ArchConfig& arch, pe::Precision precision, config::DataMode mode);

}  // namespace wsesim::workload
