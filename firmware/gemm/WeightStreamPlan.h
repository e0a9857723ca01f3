#pragma once
// How a weight-streamed GEMM Y[M x N] = X[M x K] . W[K x N] is laid onto a
// gridX x gridY block of PEs (the published WSE mapping): K is split along
// x and M along y in contiguous, balanced blocks; PE (c, r) holds the block
// X[rows of r, ks of c] in SRAM; the weights W[k][n] of column c's ks enter
// at the top of column c, n by n, and are multicast down it; each arriving
// weight triggers an FMAC of the PE's activation column into an accumulator
// and is not stored; after column c's last k of an n, each row reduces its
// partial sums eastward, and the last column stores Y[rows of r, n].
//
// The plan fixes the grid, the splits, the buffers and the colors, and
// checks them against the architecture, explaining what does not fit.

#include <cstdint>
#include <string>
#include <vector>

#include "firmware/gemm/GemmShape.h"
#include "hw/config/ArchConfig.h"
#include "hw/pe/OpKind.h"

namespace wsesim::firmware {

struct WeightStreamPlan {
  GemmShape shape;
  std::uint32_t gridX = 0, gridY = 0;
  std::vector<std::uint32_t> kBegin;  // gridX + 1 boundaries: column c holds k in [kBegin[c], kBegin[c+1])
  std::vector<std::uint32_t> mBegin;  // gridY + 1 boundaries: row r holds m in [mBegin[r], mBegin[r+1])
  unsigned weightColor = 0;
  unsigned chainColors[2] = {1, 2};

  pe::ElementType inputType() const { return pe::operandType(pe::Opcode::Fmac, shape.precision, 1); }
  pe::ElementType accumulatorType() const { return pe::operandType(pe::Opcode::Fmac, shape.precision, -1); }
  std::uint32_t ks(std::uint32_t c) const { return kBegin[c + 1] - kBegin[c]; }
  std::uint32_t ms(std::uint32_t r) const { return mBegin[r + 1] - mBegin[r]; }
  // SRAM bytes the plan needs on PE (c, r).
  std::uint64_t sramBytes(std::uint32_t c, std::uint32_t r) const;
  std::string describe() const;

  // Grid: the requested size (0: as large as the mesh and the matrix allow).
  // Throws PlanError naming what does not fit: the grid, the colors, or the
  // buffer of the PE that needs the most SRAM.
  static WeightStreamPlan make(const GemmShape& shape, const config::ArchConfig& arch, std::uint32_t gridX = 0,
                               std::uint32_t gridY = 0);
};

}  // namespace wsesim::firmware
