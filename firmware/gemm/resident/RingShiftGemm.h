#pragma once
// Cannon's algorithm on a ring of PEs per row and per column, the shared
// core of `cannon` (the ring in mesh order, closed by a wrap-around path
// the whole length of the line) and `meshgemm` (WaferLLM's interleaved
// ring, every neighbour at most two hops away).
//
// The PE at logical (i, j) starts with A(i, j), B(i, j). Skew: in phase t
// (t = 0 .. P-2) every row i > t shifts its A blocks one ring position
// towards lower j and every column j > t its B blocks towards lower i, so
// that row i has shifted i times and column j j times. Then P compute
// phases: in phase P-1+s the PE multiplies A(i, i+j+s) . B(i+j+s, j) into
// C(i, j) (indices mod P) while, except in the last, shifting both by one
// more. Each PE double-buffers A ("a0", "a1") and B ("b0", "b1"): it sends
// the block it holds and receives its successor's into the other buffer.
// Single buffering is not offered: a shift sends a block while its
// successor arrives, so it needs both buffers whether or not the product
// overlaps the shift (5 blocks a PE, as single-buffered SUMMA).
//
// Routes are static: every ring link is a straight path on the mesh line,
// colored so that paths meeting at a router differ (RingShift); A's colors
// come first, B's after them.

#include "firmware/gemm/resident/ResidentGemm.h"
#include "firmware/routes/LineRoutes.h"

namespace wsesim::firmware {

class RingShiftGemm : public ResidentGemm {
 public:
  RingShiftGemm(const std::string& algorithm, const GemmShape& shape, const config::ArchConfig& arch,
                std::uint32_t gridX, std::uint32_t gridY, ResidentGemmPlan::Placement placement, Buffering buffering);

  void programRoutes(fabric::ColorRouteTable& routes) const override;
  std::vector<LineTransfer> transfers(std::uint32_t phase) const override;

 protected:
  ResidentStep step(std::uint32_t i, std::uint32_t j, std::uint32_t phase) const override;

 private:
  // Blocks a line at logical position `line` has shifted before `phase`, and whether it shifts in it.
  std::uint32_t shiftsBefore(std::uint32_t line, std::uint32_t phase) const;
  bool shifts(std::uint32_t line, std::uint32_t phase) const;
  std::uint64_t aWavelets(std::uint32_t i, std::uint32_t kBlock) const { return std::uint64_t(plan_.ms(i)) * plan_.ks(kBlock); }
  std::uint64_t bWavelets(std::uint32_t j, std::uint32_t kBlock) const { return std::uint64_t(plan_.ks(kBlock)) * plan_.ns(j); }

  RingShift aShift_, bShift_;  // along the rows and down the columns
};

}  // namespace wsesim::firmware
