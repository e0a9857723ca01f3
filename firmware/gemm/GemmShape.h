#pragma once
// The GEMM a mapping computes, how its phases may be sampled, and the
// error for one that does not fit.

#include <cstdint>
#include <string>
#include <vector>

#include "hw/common/Error.h"
#include "hw/common/GemmPass.h"
#include "firmware/gemm/WeightSparsity.h"
#include "hw/pe/OpKind.h"

namespace wsesim::firmware {

// C[m x n] = A[m x k] . B[k x n].
struct GemmShape {
  std::uint32_t m = 0, k = 0, n = 0;
  pe::Precision precision = pe::Precision::Fp32;
  GemmPass pass = GemmPass::Forward;
  WeightSparsity sparsity{};  // of B, the streamed weights (dense unless an algorithm streams them sparse)
};

// Bytes a wavelet of the streamed operand B carries through the I/O: its
// element, or a sparse weight's value and index (WeightSparsity.h).
inline std::uint32_t streamedWaveletBytes(const GemmShape& s) {
  return s.sparsity.dense() ? std::uint32_t(pe::elementBytes(pe::operandType(pe::Opcode::Fmac, s.precision, 1)))
                            : kSparseWaveletBytes;
}

// The first `outputs` output columns (n's) of phase `phase` of a mapping
// whose phases compute blocks of n's (GemmMapping::cutPhases).
struct PhaseCut {
  std::uint32_t phase = 0, outputs = 0;
};

// What sets a phase's cycles apart from those of other phases of its kind
// (GemmOutline::phaseLikeness).
struct PhaseLikeness {
  std::string kind;         // phases of one kind run the same programs on the same blocks
  std::uint32_t reach = 0;  // how far the phase's data travel to or from its target, in PEs
  // Where its target lies, for a kind whose two sides may run on lines of
  // their own ("" when the kind has one side).
  std::string side;
  bool operator==(const PhaseLikeness& o) const { return kind == o.kind && reach == o.reach && side == o.side; }
};

// The GEMM cannot be laid onto this architecture; the message says which
// buffer on which PE, or which limit, is in the way.
class PlanError : public Error {
 public:
  using Error::Error;
};

}  // namespace wsesim::firmware
