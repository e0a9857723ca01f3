#include "testbench/workload/GemmChipParts.h"

namespace wsesim::workload {

chip::ChipParts gemmChipParts(const config::ArchConfig& arch, pe::Precision precision, config::DataMode mode) {
  chip::ChipParts parts;
  parts.ingress = arch.ioRingEdge(pe::elementBytes(pe::operandType(pe::Opcode::Fmac, precision, 1)));
  parts.egress = arch.ioRingEdge(pe::elementBytes(pe::operandType(pe::Opcode::Fmac, precision, -1)));
  parts.egressKeepsPayloads = mode == config::DataMode::Functional;
  return parts;
}

}  // namespace wsesim::workload
