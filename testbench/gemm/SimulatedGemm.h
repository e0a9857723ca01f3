#pragma once
// Which mapping a run simulates for a GEMM, and how its cycles become the
// whole GEMM's. In functional mode the mapping itself. In timing mode
// (weight streaming) two reductions may apply, each tested against the
// whole GEMM:
//
// - Representative rows. Forward and backward-data: one row per row size,
//   with one hop per row left out added to every phase (rows are alike but
//   for their place in the weights' column multicast). Weight gradient: two
//   rows of the token blocks, with two ramp latencies and a hop per row left
//   out added to every phase (each row adds its sums to the chain coming
//   down its column; equal to every row on the shapes we measured at scale,
//   a few cycles per row over on some small uneven grids). The rows run on
//   a mesh only as tall as they are, so nothing crosses the rows left out:
//   the hops from the last row to the mesh's south edge are added instead.
// - Steady-state outputs. A phase streams its n's one after another through
//   a pipeline that settles into a fixed period per n within a few n's; a
//   phase of more than 2S n's is simulated cut to S and to 2S n's and its
//   cycles extrapolated linearly from the two.
//
// docs/gemm-mappings.md has the measurements. Shared by the gemm and train
// workloads.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "firmware/gemm/GemmMapping.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"

namespace wsesim::gemm {

// The product a pass computes for the layer Y[m x n] = X[m x k] . W[k x n]:
// forward Y = X . W; backward-data dX = dY . W^T (m x n x k); weight-gradient
// dW = X^T . dY (k x m x n).
firmware::GemmShape passShape(std::uint32_t m, std::uint32_t k, std::uint32_t n, pe::Precision precision,
                              firmware::GemmPass pass);

// How much of a GEMM timing mode simulates.
struct GemmSampling {
  bool representativeRows = false;
  std::uint32_t steadyStateOutputs = 0;  // S above; 0: every n of every phase
};

// A GEMM's cycles from its start, and the cycle (from its start) after its
// last streamed wavelet entered the mesh; what follows is its drain.
struct GemmTime {
  std::uint64_t cycles = 0;
  std::uint64_t inputEnd = 0;
};

class SimulatedGemm {
 public:
  // Throws PlanError when the GEMM does not fit the architecture.
  SimulatedGemm(const std::string& algorithm, const firmware::GemmShape& shape, const config::ArchConfig& arch,
                std::uint32_t gridX, std::uint32_t gridY, const GemmSampling& sampling);

  // The GEMM as asked.
  const firmware::GemmMapping& full() const { return *full_; }
  // What the wafer model runs.
  const firmware::GemmMapping& simulated() const {
    return cut_ ? *cut_ : rows_ ? *rows_ : *full_;
  }
  // The rows of the mesh the simulated mapping needs: all of them, or only
  // the representative rows' (several GEMMs on one mesh take the tallest).
  std::uint32_t meshRows(const config::ArchConfig& arch) const { return rows_ ? rows_->gridY() : arch.mesh.height; }
  // The whole GEMM's time from the simulated phases' cycles and input end,
  // simulated on a mesh of `meshRows` rows.
  GemmTime fullTime(const std::vector<std::uint64_t>& phaseCycles, std::uint64_t inputEnd,
                    const config::ArchConfig& arch, std::uint32_t meshRows) const;
  // Phases of the GEMM whose cycles are extrapolated.
  std::uint32_t phasesExtrapolated() const;
  // Wavelets the whole GEMM takes in at the edge, over all its phases.
  std::uint64_t streamedWavelets(const fabric::MeshGeometry& mesh) const;

 private:
  // Where a phase of the GEMM is in the simulated phases.
  struct PhaseSample {
    std::uint32_t outputs = 0;                  // the phase's n's
    std::uint32_t shortPhase = 0, shortN = 0;   // simulated cut to shortN n's (shortN 0: not cut)
    std::uint32_t longPhase = 0, longN = 0;     // and to longN n's (all of them when not cut)
  };

  std::unique_ptr<firmware::GemmMapping> full_;
  std::unique_ptr<firmware::GemmMapping> rows_;  // its representative rows, or null
  std::unique_ptr<firmware::GemmMapping> cut_;   // those (or it) with phases cut short, or null
  std::vector<PhaseSample> samples_;             // per phase of the GEMM
};

// An architecture whose mesh is only `rows` rows tall (the others as `arch`).
config::ArchConfig withMeshRows(const config::ArchConfig& arch, std::uint32_t rows);
// The run's VCD and timeline region cut to a mesh of `rows` rows; throws
// ConfigError when it lies wholly in rows not simulated.
config::RunConfig withMeshRows(const config::RunConfig& run, std::uint32_t rows);

}  // namespace wsesim::gemm
