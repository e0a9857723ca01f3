#pragma once
// SUMMA (van de Geijn and Watts), the Cerebras SDK's default GEMM, on a
// P x P grid with both operands resident. Step s broadcasts A's block
// column s along every row (from the PEs of column s) and B's block row s
// down every column (from the PEs of row s); every PE accumulates
// C(i, j) += A(i, s) . B(s, j). A root sends from its own block and
// multiplies it in place.
//
// Panels (the blocks a PE receives) are single- or double-buffered
// (Buffering.h; auto: single, what the SDK runs and calibration fits;
// double is there to explore overlapping the broadcasts):
// - double ("ap0", "ap1", "bp0", "bp1"; 7 blocks a PE): the broadcasts of
//   step s + 1 overlap the FMACs of step s, so there are P + 1 phases: the
//   first only broadcasts, the last only multiplies.
// - single ("ap", "bp"; 5 blocks): step s + 1's broadcast may land only once
//   step s's product has read the panel, so each step is a broadcast phase
//   then a product phase, 2P phases, as the SDK's GEMM_SUMMA example runs
//   (broadcast, then local GEMM, no overlap).
//
// Each phase has one broadcast root per row and per column, so color 0
// (A along rows) and color 1 (B down columns) are routed afresh for each
// phase (programPhaseRoutes); the hardware would switch the routes with
// control wavelets or switch positions, as the SDK's collectives do. Only
// the routers of the old and the new root change.
//
// The phases are paced PE by PE (GemmOutline::pacedPhases): a PE goes on
// to its next step when its own step is done, and a root broadcasts as soon
// as its line's changed routers have switched, so a step's broadcast
// latency overlaps the work of the PEs nearer the root and a step costs the
// same on any grid, as on the machine (docs/validation.md).

#include <optional>

#include "firmware/gemm/resident/ResidentGemm.h"

namespace wsesim::firmware {

class SummaGemm : public ResidentGemm {
 public:
  static constexpr unsigned kAColor = 0, kBColor = 1;

  SummaGemm(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
            Buffering buffering);

  void programRoutes(fabric::ColorRouteTable&) const override {}
  void programPhaseRoutes(fabric::ColorRouteTable& routes, std::uint32_t phase) const override;
  std::vector<LineTransfer> transfers(std::uint32_t phase) const override;

 protected:
  ResidentStep step(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const override;

 private:
  // The step whose panels a phase broadcasts, and the one it multiplies, if any.
  std::optional<std::uint32_t> broadcastStep(std::uint32_t phase) const;
  std::optional<std::uint32_t> productStep(std::uint32_t phase) const;
  // The buffer step s's A ("a") or B ("b") panel lands in.
  std::string panel(const char* operand, std::uint32_t s) const;
};

}  // namespace wsesim::firmware
