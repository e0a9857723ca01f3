#pragma once
// Element arithmetic of the compute engine in functional mode. fp16 values
// are IEEE binary16 through Imath's `half` (round to nearest even).
//
// Modelling choices (the vendor does not publish the datapath's rounding):
// fp32 and mixed FMAC are fused (one rounding, std::fma); fp16 operations
// compute in fp32 and round the result to fp16 once.

#include <Imath/half.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "hw/pe/OpKind.h"

namespace wsesim::pe {

// The value `v` takes when stored as type `t`.
inline float roundTo(ElementType t, float v) { return t == ElementType::F16 ? float(Imath::half(v)) : v; }

// A wavelet carries one element: fp32 bits, or fp16 bits in the low half.
inline std::uint32_t toPayload(ElementType t, float v) {
  if (t == ElementType::F16) return Imath::half(v).bits();
  std::uint32_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

inline float fromPayload(ElementType t, std::uint32_t payload) {
  if (t == ElementType::F16) {
    Imath::half h;
    h.setBits(std::uint16_t(payload));
    return float(h);
  }
  float v;
  std::memcpy(&v, &payload, sizeof v);
  return v;
}

// One element of `op` in precision `p`: operands are already values of their types.
inline float compute(Opcode op, Precision p, float a, float b, float c) {
  float r = 0;
  switch (op) {
    case Opcode::Fmac: r = std::fma(b, c, a); break;
    case Opcode::Fadd: r = a + b; break;
    case Opcode::Fmul: r = a * b; break;
    case Opcode::Fmov: r = a; break;
  }
  return roundTo(operandType(op, p, -1), r);
}

}  // namespace wsesim::pe
