#include "hw/pe/OpKind.h"

namespace wsesim::pe {

const char* opcodeName(Opcode op) {
  static const char* const names[] = {"fmac", "fadd", "fmul", "fmov"};
  return names[unsigned(op)];
}

const char* precisionName(Precision p) {
  static const char* const names[] = {"fp16", "mixed", "fp32"};
  return names[unsigned(p)];
}

const char* elementTypeName(ElementType t) { return t == ElementType::F16 ? "f16" : "f32"; }

}  // namespace wsesim::pe
