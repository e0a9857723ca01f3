#pragma once
// SUMMA (van de Geijn and Watts), the Cerebras SDK's default GEMM, on a
// P x P grid with both operands resident. Step s broadcasts A's block
// column s along every row (from the PEs of column s) and B's block row s
// down every column (from the PEs of row s); every PE accumulates
// C(i, j) += A(i, s) . B(s, j). The broadcasts of step s + 1 overlap the
// FMACs of step s (double-buffered panels), so there are P + 1 phases: the
// first only broadcasts, the last only multiplies.
//
// Each phase has one broadcast root per row and per column, so color 0
// (A along rows) and color 1 (B down columns) are routed afresh for each
// phase (programPhaseRoutes); the hardware would switch the routes with
// control wavelets or switch positions, as the SDK's collectives do.

#include "firmware/gemm/ResidentGemm.h"

namespace wsesim::firmware {

class SummaGemm : public ResidentGemm {
 public:
  static constexpr unsigned kAColor = 0, kBColor = 1;

  SummaGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY);

  unsigned colorsUsed() const override { return 2; }
  std::uint32_t phases() const override { return plan_.grid + 1; }
  void programRoutes(fabric::ColorRouteTable&) const override {}
  void programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t phase) const override;

 protected:
  ResidentStep step(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const override;
  std::vector<LineTransfer> transfers(std::uint32_t phase) const override;
};

}  // namespace wsesim::firmware
