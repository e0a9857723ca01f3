#include "testbench/workload/GemmChipParts.h"

namespace wsesim::workload {

chip::ChipParts gemmChipParts(const config::ArchConfig& arch, pe::Precision precision, config::DataMode mode) {
  chip::ChipParts parts;
  parts.ingress = wafer::IoRingEdge::of(arch, pe::elementBytes(pe::operandType(pe::Opcode::Fmac, precision, 1)));
  parts.egress = wafer::IoRingEdge::of(arch, pe::elementBytes(pe::operandType(pe::Opcode::Fmac, precision, -1)));
  parts.egressKeepsPayloads = mode == config::DataMode::Functional;
  return parts;
}

}  // namespace wsesim::workload
