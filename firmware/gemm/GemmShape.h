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
  // The sums a PE passes on (across PEs, and out as C) in fp32 above fp16
  // accumulators: an fp16 GEMM as the vendor's precision level 1 runs it
  // (docs/training.md, "Precision"). Otherwise they keep the accumulator's type.
  bool fp32Sums = false;
};

// The type of the sums a PE passes on, and of C.
inline pe::ElementType sumType(const GemmShape& s) {
  return s.fp32Sums ? pe::ElementType::F32 : pe::operandType(pe::Opcode::Fmac, s.precision, -1);
}

// Its precision as results name it: "fp16", or "fp16, sums fp32".
inline std::string gemmPrecisionName(const GemmShape& s) {
  const bool wider = sumType(s) != pe::operandType(pe::Opcode::Fmac, s.precision, -1);
  return pe::precisionName(s.precision) + std::string(wider ? ", sums fp32" : "");
}

// The precision of an op that adds (or moves) a PE's own sums, of type
// `own`, into a sum of type `sum`: fp16 x fp16 -> fp32's `mixed` when the
// sum is wider (it is never narrower).
inline pe::Precision sumPrecision(pe::ElementType own, pe::ElementType sum) {
  if (own != sum) return pe::Precision::Mixed;
  return sum == pe::ElementType::F32 ? pe::Precision::Fp32 : pe::Precision::Fp16;
}

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
