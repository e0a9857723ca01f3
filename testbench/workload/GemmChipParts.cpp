#include "testbench/workload/GemmChipParts.h"

#include "firmware/gemm/WeightSparsity.h"

namespace wsesim::workload {

chip::ChipParts gemmChipParts(const config::ArchConfig& arch, pe::Precision precision, config::DataMode mode,
                              bool sparseWeights) {
  chip::ChipParts parts;
  parts.ingress = arch.ioRingEdge(sparseWeights ? firmware::kSparseWaveletBytes
                                                : pe::elementBytes(pe::operandType(pe::Opcode::Fmac, precision, 1)));
  parts.egress = arch.ioRingEdge(pe::elementBytes(pe::operandType(pe::Opcode::Fmac, precision, -1)));
  parts.egressKeepsPayloads = mode == config::DataMode::Functional;
  return parts;
}

}  // namespace wsesim::workload
