#include "testbench/workload/GemmChipParts.h"

namespace wsesim::workload {

chip::ChipParts gemmChipParts(const config::ArchConfig& arch, const firmware::GemmShape& shape, config::DataMode mode) {
  chip::ChipParts parts;
  parts.ingress = arch.ioRingEdge(pe::elementBytes(pe::operandType(pe::Opcode::Fmac, shape.precision, 1)));
  parts.egress = arch.ioRingEdge(pe::elementBytes(firmware::sumType(shape)));
  parts.egressKeepsPayloads = mode == config::DataMode::Functional;
  return parts;
}

chip::ChipParts gemmChipParts(const config::ArchConfig& arch, pe::Precision precision, config::DataMode mode) {
  firmware::GemmShape shape;
  shape.precision = precision;
  return gemmChipParts(arch, shape, mode);
}

}  // namespace wsesim::workload
