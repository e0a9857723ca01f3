#include "testbench/train/WaferOpCost.h"

#include <cmath>

#include "hw/pe/OpTiming.h"

namespace wsesim::train {
namespace {

// The lane op an op's arithmetic runs as, and the FLOPs of each.
struct LaneOp {
  pe::Opcode opcode;
  double flops;
};

// FMACs (2 FLOPs) for the attention matmuls, FADDs (1) for the elementwise
// ops; a switch without default, so a new kind must be priced here.
LaneOp laneOpOf(models::WaferOpKind kind) {
  switch (kind) {
    case models::WaferOpKind::AttentionMatmul:
      return {pe::Opcode::Fmac, 2.0};
    case models::WaferOpKind::Softmax:
    case models::WaferOpKind::LayerNorm:
    case models::WaferOpKind::RmsNorm:
    case models::WaferOpKind::Gelu:
    case models::WaferOpKind::Swiglu:
    case models::WaferOpKind::ResidualAdd:
    case models::WaferOpKind::Embedding:
      break;
  }
  return {pe::Opcode::Fadd, 1.0};
}

}  // namespace

std::uint64_t waferOpCycles(const models::WaferOp& op, const config::ArchConfig& arch, pe::Precision precision) {
  const double pes = double(arch.mesh.routers());
  const LaneOp lane = laneOpOf(op.kind);
  const double perPe = std::ceil(op.elements / pes);
  const double flopsPerElement = op.elements > 0 ? op.flops / op.elements : 0;
  const auto laneOps = std::uint64_t(std::ceil(perPe * flopsPerElement / lane.flops));
  return arch.pe.taskStartCycles + arch.pe.opOverheadCycles +
         pe::elementCycles(arch.pe, lane.opcode, precision, laneOps, arch.pe.lanes.of(lane.opcode, precision));
}

energy::ActionCounts waferOpActions(const models::WaferOp& op, const config::ArchConfig& arch,
                                    pe::Precision precision) {
  // As waferOpCycles runs it.
  const LaneOp lane = laneOpOf(op.kind);
  const pe::Opcode opcode = lane.opcode;
  const double elements = op.flops / lane.flops;
  energy::ActionCounts a;
  a.opElements[unsigned(precision)][unsigned(opcode)] = elements;
  for (unsigned i = 0; i < pe::sourceCount(opcode); ++i)
    a.sramReadBytes += elements * pe::elementBytes(pe::operandType(opcode, precision, int(i)));
  a.sramWriteBytes = elements * pe::elementBytes(pe::operandType(opcode, precision, -1));
  a.peActiveCycles = double(arch.mesh.routers()) * double(waferOpCycles(op, arch, precision));
  return a;
}

}  // namespace wsesim::train
