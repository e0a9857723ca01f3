#include "testbench/train/WaferOpCost.h"

#include <cmath>

namespace wsesim::train {

std::uint64_t waferOpCycles(const models::WaferOp& op, const config::ArchConfig& arch, pe::Precision precision) {
  const double pes = double(arch.mesh.routers());
  const bool matmul = op.kind == models::WaferOpKind::AttentionMatmul;
  const double flopsPerLaneCycle = matmul ? 2.0 : 1.0;
  const double lanes = arch.pe.lanes.of(matmul ? pe::Opcode::Fmac : pe::Opcode::Fadd, precision);
  const double perPe = std::ceil(op.elements / pes);
  const double flopsPerElement = op.elements > 0 ? op.flops / op.elements : 0;
  const double arithmetic = std::ceil(perPe * flopsPerElement / (lanes * flopsPerLaneCycle));
  return arch.pe.taskStartCycles + arch.pe.opOverheadCycles + std::uint64_t(arithmetic);
}

energy::ActionCounts waferOpActions(const models::WaferOp& op, const config::ArchConfig& arch,
                                    pe::Precision precision) {
  // As waferOpCycles runs it: FMACs (2 FLOPs) for the attention matmuls, FADDs (1) for the rest.
  const bool matmul = op.kind == models::WaferOpKind::AttentionMatmul;
  const pe::Opcode opcode = matmul ? pe::Opcode::Fmac : pe::Opcode::Fadd;
  const double elements = op.flops / (matmul ? 2.0 : 1.0);
  energy::ActionCounts a;
  a.opElements[unsigned(precision)][unsigned(opcode)] = elements;
  for (unsigned i = 0; i < pe::sourceCount(opcode); ++i)
    a.sramReadBytes += elements * pe::elementBytes(pe::operandType(opcode, precision, int(i)));
  a.sramWriteBytes = elements * pe::elementBytes(pe::operandType(opcode, precision, -1));
  a.peActiveCycles = double(arch.mesh.routers()) * double(waferOpCycles(op, arch, precision));
  return a;
}

}  // namespace wsesim::train
