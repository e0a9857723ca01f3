#pragma once
// Which mapping a run simulates for a GEMM, and how its cycles become the
// whole GEMM's: the mapping itself, or (weight streaming, timing mode) its
// representative rows. Forward and backward-data: one row per row size,
// with one hop per row left out added to every phase (rows are alike but
// for their place in the weights' column multicast; equal to simulating
// every row, tested). Weight gradient: two rows of the token blocks, with
// two ramp latencies per row left out added to every phase (each row adds
// its sums to the chain coming down its column; equal to every row on the
// shapes we measured at scale, a few cycles per row over on some small
// uneven grids: docs/gemm-mappings.md). Shared by the gemm and train workloads.

#include <cstdint>
#include <memory>
#include <string>

#include "firmware/gemm/GemmMapping.h"
#include "hw/config/ArchConfig.h"

namespace wsesim::gemm {

// The product a pass computes for the layer Y[m x n] = X[m x k] . W[k x n]:
// forward Y = X . W; backward-data dX = dY . W^T (m x n x k); weight-gradient
// dW = X^T . dY (k x m x n).
firmware::GemmShape passShape(std::uint32_t m, std::uint32_t k, std::uint32_t n, pe::Precision precision,
                              firmware::GemmPass pass);

struct SimulatedGemm {
  std::unique_ptr<firmware::GemmMapping> full;            // the GEMM as asked
  std::unique_ptr<firmware::GemmMapping> representative;  // its representative rows, or null: `full` is simulated

  const firmware::GemmMapping& simulated() const { return representative ? *representative : *full; }
  std::uint64_t fullCycles(std::uint64_t simulatedCycles, const config::ArchConfig& arch) const;
  // Wavelets the whole GEMM takes in at the edge, over all its phases.
  std::uint64_t streamedWavelets(const fabric::MeshGeometry& mesh) const;
};

// Throws PlanError when the GEMM does not fit the architecture.
SimulatedGemm planGemm(const std::string& algorithm, const firmware::GemmShape& shape,
                       const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                       bool representativeRows);

}  // namespace wsesim::gemm
