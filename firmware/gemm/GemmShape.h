#pragma once
// The GEMM a mapping computes, and the error for one that does not fit.

#include <cstdint>
#include <stdexcept>

#include "hw/pe/OpKind.h"

namespace wsesim::firmware {

struct GemmShape {
  std::uint32_t m = 0, k = 0, n = 0;
  pe::Precision precision = pe::Precision::Fp32;
};

// The GEMM cannot be laid onto this architecture; the message says which
// buffer on which PE, or which limit, is in the way.
class PlanError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace wsesim::firmware
