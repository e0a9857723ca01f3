#include "testbench/gemm/SimulatedGemm.h"

namespace wsesim::gemm {

firmware::GemmShape passShape(std::uint32_t m, std::uint32_t k, std::uint32_t n, pe::Precision precision,
                              firmware::GemmPass pass) {
  switch (pass) {
    case firmware::GemmPass::Forward: return {m, k, n, precision, pass};
    case firmware::GemmPass::BackwardData: return {m, n, k, precision, pass};
    case firmware::GemmPass::WeightGrad: break;
  }
  return {k, m, n, precision, pass};
}

std::uint64_t SimulatedGemm::fullCycles(std::uint64_t simulatedCycles, const config::ArchConfig& arch) const {
  const firmware::GemmMapping& s = simulated();
  const std::uint64_t skippedRows = full->gridY() - s.gridY();
  const std::uint64_t perRow = full->shape().pass == firmware::GemmPass::WeightGrad ? 2 * arch.fabric.rampLatencyCycles
                                                                                   : arch.fabric.hopLatencyCycles;
  return simulatedCycles + s.phases() * skippedRows * perRow;
}

std::uint64_t SimulatedGemm::streamedWavelets(const fabric::MeshGeometry& mesh) const {
  std::uint64_t wavelets = 0;
  for (std::uint32_t phase = 0; phase < full->phases(); ++phase)
    for (const wafer::EdgeStream& s : full->streams(mesh, nullptr, phase)) wavelets += s.count;
  return wavelets;
}

SimulatedGemm planGemm(const std::string& algorithm, const firmware::GemmShape& shape,
                       const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                       bool representativeRows) {
  SimulatedGemm g;
  g.full = firmware::makeGemmMapping(algorithm, shape, arch, gridX, gridY);
  if (!representativeRows) return g;
  if (shape.pass == firmware::GemmPass::WeightGrad) {
    // The rows split the tokens, the reduction's dimension, and pass their
    // sums down the columns: two rows, the larger block (if any) on top.
    const std::uint32_t rows = g.full->gridY(), low = shape.k / rows;
    if (rows <= 2) return g;
    firmware::GemmShape sample = shape;
    sample.k = 2 * low + (shape.k % rows != 0 ? 1 : 0);
    g.representative = firmware::makeGemmMapping(algorithm, sample, arch, g.full->gridX(), 2);
  } else {
    // Balanced rows hold floor(M / rows) or that + 1 m's: one row of each
    // (the larger at the bottom, latest in the column multicast).
    const std::uint32_t rows = g.full->gridY(), low = shape.m / rows;
    const bool uneven = shape.m % rows != 0;
    firmware::GemmShape sample = shape;
    sample.m = uneven ? 2 * low + 1 : low;
    g.representative = firmware::makeGemmMapping(algorithm, sample, arch, g.full->gridX(), uneven ? 2 : 1);
  }
  return g;
}

}  // namespace wsesim::gemm
