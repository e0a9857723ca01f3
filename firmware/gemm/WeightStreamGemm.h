#pragma once
// The weight-streaming GEMM mapping (see WeightStreamPlan.h for the
// dataflow): color routes, one program per PE role, the activations'
// placement, the weight streams entering at the north edge, and reading the
// output back. PE (c, r) runs:
//
//   task 'column_done' (activated after the last k of an n):
//     copy the accumulator to the send buffer (on thread 0, so it waits for
//     the previous reduction), zero the accumulator, then on thread 0:
//       first column:   send the partial sums east
//       middle columns: add what arrives from the west, send east
//       last column:    add what arrives from the west into Y[rows, n]
//   task 'on_weight' (one run per weight wavelet):
//     acc += X[rows, k] * weight;  k = next column of the PE's X block
//
// so the reduction of one n overlaps the FMACs of the next.

#include <map>
#include <tuple>
#include <vector>

#include "firmware/gemm/Matrix.h"
#include "firmware/gemm/WeightStreamPlan.h"
#include "hw/fabric/ColorRouteTable.h"
#include "hw/pe/Isa.h"
#include "hw/pe/PeArray.h"
#include "hw/wafer/EdgeInjector.h"

namespace wsesim::firmware {

struct GemmBounds {
  std::uint64_t compute = 0;    // the busiest PE's FMAC cycles at full lanes, no overhead
  std::uint64_t bandwidth = 0;  // the weights through the I/O bandwidth, or a column's weights at one per cycle
  std::uint64_t reduction = 0;  // a row's partial sums, n by n, over one link at one wavelet per cycle
  std::uint64_t latency = 0;    // the last weight to the bottom row, then its sums along a row
  std::uint64_t max() const { return std::max({compute, bandwidth, reduction, latency}); }
};

class WeightStreamGemm {
 public:
  explicit WeightStreamGemm(WeightStreamPlan plan) : plan_(std::move(plan)) {}

  const WeightStreamPlan& plan() const { return plan_; }

  void programRoutes(fabric::ColorRouteTable& routes) const;
  // Adds one program per distinct PE role and shape, and loads the grid's PEs.
  void load(pe::PeArray& pes, const fabric::MeshGeometry& mesh) const;
  void writeActivations(pe::PeArray& pes, const fabric::MeshGeometry& mesh, const Matrix& x) const;
  // One stream per column, entering router (c, 0) from the north: the
  // column's k's for n = 0, then for n = 1, ...; payloads from `w` (K x N),
  // or zero when `w` is null (timing mode).
  std::vector<wafer::EdgeStream> weightStreams(const fabric::MeshGeometry& mesh, const Matrix* w) const;
  Matrix readOutput(const pe::PeArray& pes, const fabric::MeshGeometry& mesh) const;

  // The program of PE (c, r).
  pe::Program program(std::uint32_t c, std::uint32_t r) const;
  GemmBounds bounds(const config::ArchConfig& arch) const;

 private:
  WeightStreamPlan plan_;
};

}  // namespace wsesim::firmware
