#pragma once
// The weight-gradient pass of a weight-streamed layer, dW[K x N] =
// X^T[K x M] . dY[M x N], as the transposed version of the forward dataflow
// (the vendor has not published this mapping; docs/gemm-mappings.md says
// what we assume). Nothing streams in; the gradients stream out:
//
// - X stays where the forward pass left it: PE (c, r) holds X[rows of r,
//   ks of c] (WeightStreamPlan's layout of the forward GEMM).
// - dY lies where the layer's output Y lay in the forward pass (as the
//   backward-data pass of the next layer leaves it): pass p's n's at its
//   target column t, rows of r at row r.
// - For each n, the target PE of each row broadcasts dY[rows of r, n] along
//   its row (color 0, both ways, itself included); every arriving dY[m, n]
//   runs one FMAC: acc[ks] += X[m, ks] * dY[m, n], the AXPY of the forward's
//   transposition (strided over X, so bank conflicts may cut lanes).
// - After the row's last m of an n, the partial dW[ks, n] of the PE is
//   reduced down the column (colors 1 and 2 by row parity) on a hardware
//   thread, overlapping the next n's FMACs, and the chain's last PE sends
//   the sum off the wafer at the end of the column's mesh row, into the I/O
//   ring: even columns chain from row 0 up and leave East, odd ones from
//   the last row down and leave West, so both edges' channels carry
//   gradients. K x N gradients leave, one column of k's per PE column.
//   (Grid terms as in WeightStreamPlan.h: a grid column is a mesh row.)
//
// The passes are the forward's: one per target column; the broadcast's
// routes change with the pass (GemmMapping::programPhaseRoutes).

#include "firmware/gemm/GemmMapping.h"
#include "firmware/gemm/WeightStreamPlan.h"

namespace wsesim::firmware {

class WeightGradGemm : public GemmMapping {
 public:
  // `shape` is the product computed, K x M x N (A = X^T, B = dY). Throws
  // PlanError when the layout or a PE's buffers do not fit.
  WeightGradGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY);

  void programRoutes(fabric::ColorRouteTable& routes) const override;
  void programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t pass) const override;
  void load(pe::PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t pass) const override;
  // A is X^T (K x M), B is dY (M x N).
  void writeOperands(pe::PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& a,
                     const Matrix& b) const override;
  Matrix readOutput(const pe::PeControl& pes, const fabric::MeshGeometry& mesh,
                    const wafer::EdgeEgress& egress) const override;
  // compute: the busiest PE's FMACs at full lanes; bandwidth: K x N
  // gradients through the busiest ring feed (or a column's through its
  // edge port); reduction: the busiest link (a column's sums, or a row's dY
  // broadcast); latency: a dY to the farthest column, then down the column.
  GemmBounds bounds(const config::ArchConfig& arch) const override;
  std::unique_ptr<GemmMapping> cutPhases(const std::vector<PhaseCut>& cuts) const override;

  pe::Program program(std::uint32_t c, std::uint32_t r, std::uint32_t pass) const;

 private:
  // What program() holds in the SRAM of PE (c, r): a SramDemand or SramBytes (SramBudget.h).
  template <class Demand>
  Demand sramParts(std::uint32_t c, std::uint32_t r) const;
  // A layout already checked against the architecture (or cut from one).
  WeightGradGemm(const GemmShape& shape, WeightStreamPlan layout)
      : GemmMapping(outlineOf(shape, layout)), layout_(std::move(layout)) {}
  // 3 colors; kept: X and dY; a phase per pass of n's of the forward layout.
  static GemmOutline outlineOf(const GemmShape& shape, const WeightStreamPlan& layout);
  // Whether column c's reduction runs towards higher rows and leaves East.
  // The gradients leave through the edge the weights did not come in by.
  static bool chainsEast(std::uint32_t c) { return !WeightStreamPlan::weightsFromEast(c); }
  bool chainStart(std::uint32_t c, std::uint32_t r) const { return r == (chainsEast(c) ? 0 : layout_.gridY - 1); }
  // Where pass `pass`'s n's start in the "dy" buffer of its target column, in n's.
  std::uint32_t dyColumnOffset(std::uint32_t pass) const;

  WeightStreamPlan layout_;  // of the forward GEMM Y[M x N] = X[M x K] . W[K x N]
  unsigned broadcastColor_ = 0;
  unsigned sumColors_[2] = {1, 2};
};

}  // namespace wsesim::firmware
