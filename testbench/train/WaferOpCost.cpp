#include "testbench/train/WaferOpCost.h"

#include <cmath>

#include "hw/pe/OpTiming.h"

namespace wsesim::train {

std::uint64_t waferOpCycles(const models::WaferOp& op, const config::ArchConfig& arch, pe::Precision precision) {
  const double pes = double(arch.mesh.routers());
  const bool matmul = op.kind == models::WaferOpKind::AttentionMatmul;
  const double flopsPerLaneCycle = matmul ? 2.0 : 1.0;
  const pe::Opcode opcode = matmul ? pe::Opcode::Fmac : pe::Opcode::Fadd;
  const double perPe = std::ceil(op.elements / pes);
  const double flopsPerElement = op.elements > 0 ? op.flops / op.elements : 0;
  const auto laneOps = std::uint64_t(std::ceil(perPe * flopsPerElement / flopsPerLaneCycle));
  return arch.pe.taskStartCycles + arch.pe.opOverheadCycles +
         pe::elementCycles(arch.pe, opcode, precision, laneOps, arch.pe.lanes.of(opcode, precision));
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
