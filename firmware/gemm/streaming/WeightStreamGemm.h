#pragma once
// The weight-streaming GEMM mapping (see WeightStreamPlan.h for the
// dataflow): color routes, one program per PE role and pass, the
// activations' placement, the weight streams entering through the I/O ring
// at the West and East edges, and reading the output back. Grid terms
// throughout: column c is a mesh row, "east" is towards higher c
// (WeightStreamPlan.h). In a pass with target column t, PE (c, r) runs:
//
//   task 'column_done' (activated after the last k of an n):
//     copy the accumulator to the send buffer (on thread 0, so it waits for
//     the previous reduction), zero the accumulator, then on thread 0:
//       a chain's first column: send the partial sums on
//       further along it: add what arrives, send on
//       t: add what arrives (from the west and from the east where the sums
//          meet) into Y[rows, n]
//   task 'on_weight' (one run per weight wavelet):
//     acc += X[rows, k] * weight;  k = next column of the PE's X block
//
// so the reduction of one n overlaps the FMACs of the next. With sparse
// weights (GemmShape::sparsity) only the non-zeros stream, each wavelet's
// index saying its k within the block and how many n's ended before it:
// 'on_weight' takes k from the wavelet; a weight after ended n's runs
// 'column_done' once per n (one none of whose weights fell in the block
// copies the zeros), then its FMAC as 'held_weight'.

#include <functional>
#include <map>
#include <tuple>
#include <vector>

#include "firmware/gemm/GemmMapping.h"
#include "firmware/gemm/Matrix.h"
#include "firmware/gemm/streaming/WeightStreamPlan.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/pe/Isa.h"
#include "hw/wafer/EdgeStream.h"

namespace wsesim::firmware {

// Bounds: compute (the busiest PE's FMACs at full lanes); bandwidth (K x N
// weights through the busiest I/O ring feed, or a column's at one per
// cycle); reduction (a row link's N x ms partial sums); latency (the last
// weight along a column, then its sums along the row).
class WeightStreamGemm : public GemmMapping {
 public:
  explicit WeightStreamGemm(WeightStreamPlan plan) : GemmMapping(outlineOf(plan)), plan_(std::move(plan)) {}

  const WeightStreamPlan& plan() const { return plan_; }
  void programRoutes(fabric::ColorRouteTable& routes) const override;
  // Folded sums: each pass's chain passes its target by, so its routes are the pass's.
  void programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t pass) const override;
  // Adds one program per distinct PE role and shape, and loads the grid's PEs.
  void load(pe::PeControl& pes, const fabric::MeshGeometry& mesh, std::uint32_t pass) const override;
  // Places A (the activations X); B streams in.
  void writeOperands(pe::PeControl& pes, const fabric::MeshGeometry& mesh, const Matrix& a,
                     const Matrix& b) const override;
  // One stream per column, entering its mesh row from the West or East
  // edge: the column's k's for the pass's first n, then for its next n, ...; payloads
  // from `b` (K x N), or zero when `b` is null (timing mode). Sparse: the
  // pass's non-zeros (sparseStream), their indices in every mode.
  std::vector<wafer::EdgeStream> streams(const fabric::MeshGeometry& mesh, const Matrix* b,
                                         std::uint32_t pass) const override;
  Matrix readOutput(const pe::PeControl& pes, const fabric::MeshGeometry& mesh,
                    const wafer::EdgeEgress& egress) const override;
  GemmBounds bounds(const config::ArchConfig& arch) const override;
  std::unique_ptr<GemmMapping> cutPhases(const std::vector<PhaseCut>& cuts) const override {
    return std::make_unique<WeightStreamGemm>(plan_.cut(cuts));
  }

  // The program of PE (c, r) in a pass.
  pe::Program program(std::uint32_t c, std::uint32_t r, std::uint32_t pass) const;

 private:
  // 5 colors; kept: the activations, and each target's output rows ("y<pass>"); a phase per pass of n's.
  static GemmOutline outlineOf(const WeightStreamPlan& plan);

  // What a PE's program depends on besides its block shape: the colors its
  // sums arrive on (none at a chain's start; two where they meet at the
  // target: from the west, then from the east) and leave on (none: the target).
  static constexpr int kNone = -1;
  struct Role {
    int in[2] = {kNone, kNone};
    int out = kNone;
    bool operator<(const Role& o) const {
      return std::tie(in[0], in[1], out) < std::tie(o.in[0], o.in[1], o.out);
    }
  };
  Role roleOf(std::uint32_t c, std::uint32_t pass) const;
  bool sparse() const { return !plan_.shape.sparsity.dense(); }
  // Per grid column, the wavelets it takes over the GEMM: ks per n, or
  // its sparse streams' (sparseStream).
  // Column c's sparse stream of `ns` n's from the GEMM's n `from`: each
  // non-zero's wavelet, its index (the n's ended before it) x ks + its k in
  // the block, then one that ends the last n's; `value` (k, n of the pass)
  // gives each weight's bits (none: 0).
  std::vector<std::uint32_t> sparseStream(std::uint32_t c, std::uint32_t from, std::uint32_t ns,
                                          const std::function<std::uint32_t(std::uint32_t, std::uint32_t)>& value) const;
  std::vector<std::uint64_t> columnWavelets() const;

  WeightStreamPlan plan_;
};

}  // namespace wsesim::firmware
