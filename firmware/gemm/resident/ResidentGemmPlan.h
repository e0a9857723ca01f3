#pragma once
// How a GEMM C[M x N] = A[M x K] . B[K x N] with both operands resident is
// laid onto a P x P block of PEs (SUMMA, Cannon, MeshGEMM): M, K and N are
// each split into P contiguous, balanced blocks, and the PE at logical
// position (row i, column j) starts with A's block (i, j), B's block (i, j)
// and accumulates C's block (i, j). Where a logical position lies on the
// mesh is the algorithm's choice: logical row i is the mesh's row
// order[i] and logical column j its column order[j].
//
// Every PE keeps the same set of buffers for the whole run, named by the
// algorithm for the buffering it uses (Buffering.h): A-sized ones (ms(i) x
// the largest ks, k-major: the m's of each k contiguous), B-sized ones (the
// largest ks x ns(j), n-major: the k's of each n contiguous) and "c" (ms(i)
// x ns(j), n-major). The host writes A into the first A-sized buffer and B
// into the first B-sized one.

#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "firmware/gemm/Buffering.h"
#include "firmware/gemm/GemmShape.h"
#include "firmware/gemm/SramBudget.h"
#include "hw/config/ArchConfig.h"
#include "hw/pe/Isa.h"
#include "hw/pe/OpKind.h"

namespace wsesim::firmware {

// The buffers an algorithm keeps with a buffering: the A-sized and the
// B-sized ones, the first of each holding the PE's own block.
struct ResidentBuffers {
  Buffering buffering = Buffering::Double;
  std::vector<std::string> a, b;
};

struct ResidentGemmPlan {
  std::string algorithm;
  std::uint32_t loopCycles = 0;  // its program's loop, per op (arch.firmware.*_loop_cycles)
  GemmShape shape;
  std::uint32_t grid = 0;  // P
  std::vector<std::uint32_t> mBegin, kBegin, nBegin;  // P + 1 boundaries each
  std::vector<std::uint32_t> order;  // logical position -> mesh row / column
  Buffering buffering = Buffering::Double;  // never Auto: the one chosen
  std::vector<std::string> aBuffers, bBuffers;

  pe::ElementType inputType() const { return pe::operandType(pe::Opcode::Fmac, shape.precision, 1); }
  pe::ElementType accumulatorType() const { return pe::operandType(pe::Opcode::Fmac, shape.precision, -1); }
  // Copies of operand blocks move in the input type, of C in the accumulator's.
  pe::Precision inputMovePrecision() const {
    return inputType() == pe::ElementType::F32 ? pe::Precision::Fp32 : pe::Precision::Fp16;
  }
  std::uint32_t ms(std::uint32_t i) const { return mBegin[i + 1] - mBegin[i]; }
  std::uint32_t ks(std::uint32_t b) const { return kBegin[b + 1] - kBegin[b]; }
  std::uint32_t ns(std::uint32_t j) const { return nBegin[j + 1] - nBegin[j]; }
  std::uint32_t ksMax() const { return ks(grid - 1); }
  // The buffers of the PE at logical (i, j), in allocation order.
  std::vector<pe::BufferDecl> buffers(std::uint32_t i, std::uint32_t j) const;
  // What the busiest PE's buffers take in SRAM; bytes(): aligned as the allocator places them.
  SramDemand busiestPeDemand() const;
  std::uint64_t busiestPeBytes() const { return busiestPeDemand().bytes(); }
  std::string describe() const;
  // The busiest PE's FMACs at full lanes: all of K for its ns(j) columns of ms(i) rows.
  std::uint64_t computeBound(const config::ArchConfig& arch) const;

  // Grid: gridX and gridY (0: not given) must agree; by default P is as
  // large as the mesh and the smallest of m, k, n allow (larger P only
  // shrinks the blocks). Buffers: the first of `offered` (in order of
  // preference) that fits the PE's SRAM when `requested` is Auto, else the
  // one requested. Throws PlanError naming what does not fit: the grid, a
  // buffering not offered, or the PE, buffer and bytes that overflow SRAM.
  using Placement = std::vector<std::uint32_t> (*)(std::uint32_t grid);
  // The identity placement: logical position = mesh position.
  static std::vector<std::uint32_t> inOrder(std::uint32_t grid) {
    std::vector<std::uint32_t> order(grid);
    std::iota(order.begin(), order.end(), 0u);
    return order;
  }
  static ResidentGemmPlan make(const std::string& algorithm, const GemmShape& shape, const config::ArchConfig& arch,
                               std::uint32_t gridX, std::uint32_t gridY, Placement placement, Buffering requested,
                               const std::vector<ResidentBuffers>& offered);
  // Throws PlanError when the algorithm needs more colors than the fabric has.
  void checkColors(unsigned colors, const config::ArchConfig& arch) const;
};

}  // namespace wsesim::firmware
