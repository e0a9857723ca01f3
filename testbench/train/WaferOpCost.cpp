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

}  // namespace wsesim::train
