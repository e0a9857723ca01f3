#pragma once
// What a tensor operation computes and in which precision. Shared by the
// micro-ISA, its timing model and the configuration's lane table.

#include <cstdint>

#include "hw/common/EnumNames.h"

namespace wsesim::pe {

// FMAC: dst = src0 + src1 * src2; FADD: dst = src0 + src1;
// FMUL: dst = src0 * src1;        FMOV: dst = src0.
enum class Opcode : std::uint8_t { Fmac = 0, Fadd = 1, Fmul = 2, Fmov = 3 };
inline constexpr unsigned kOpcodeCount = 4;
inline constexpr EnumName<Opcode> kOpcodeNames[] = {
    {Opcode::Fmac, "fmac"}, {Opcode::Fadd, "fadd"}, {Opcode::Fmul, "fmul"}, {Opcode::Fmov, "fmov"}};

// fp16: every operand is fp16. fp32: every operand is fp32. mixed: the
// operands that are multiplied or moved are fp16, the accumulator and the
// result are fp32 (the SDK's fp16 x fp16 -> fp32 `fmachs`).
enum class Precision : std::uint8_t { Fp16 = 0, Mixed = 1, Fp32 = 2 };
inline constexpr unsigned kPrecisionCount = 3;
inline constexpr EnumName<Precision> kPrecisionNames[] = {
    {Precision::Fp16, "fp16"}, {Precision::Mixed, "mixed"}, {Precision::Fp32, "fp32"}};

enum class ElementType : std::uint8_t { F16, F32 };
inline constexpr EnumName<ElementType> kElementTypeNames[] = {{ElementType::F16, "f16"}, {ElementType::F32, "f32"}};

constexpr unsigned elementBytes(ElementType t) { return t == ElementType::F16 ? 2 : 4; }

constexpr const char* opcodeName(Opcode op) { return nameOf(kOpcodeNames, op); }            // "fmac"
constexpr const char* precisionName(Precision p) { return nameOf(kPrecisionNames, p); }     // "fp16"
constexpr const char* elementTypeName(ElementType t) { return nameOf(kElementTypeNames, t); }  // "f16"

// Source operands an opcode reads (src0..src2).
constexpr unsigned sourceCount(Opcode op) {
  return op == Opcode::Fmac ? 3 : op == Opcode::Fmov ? 1 : 2;
}

// Element type of the destination (operand -1) or of source i.
constexpr ElementType operandType(Opcode op, Precision p, int operand) {
  if (p == Precision::Fp16) return ElementType::F16;
  if (p == Precision::Fp32) return ElementType::F32;
  // mixed: the accumulator (FMAC/FADD src0) and the result are fp32.
  if (operand < 0) return ElementType::F32;
  if (operand == 0 && (op == Opcode::Fmac || op == Opcode::Fadd)) return ElementType::F32;
  return ElementType::F16;
}

// SIMD lanes per (precision, opcode), from `arch.pe.lanes.<precision>.<op>`.
struct LaneTable {
  unsigned lanes[kPrecisionCount][kOpcodeCount] = {};
  unsigned of(Opcode op, Precision p) const { return lanes[unsigned(p)][unsigned(op)]; }
};

// Sustained cycles per element of an op at full lanes, from
// `arch.pe.cycles_per_element.<precision>.<op>`: never less than 1 / lanes
// (the SIMD width), more where the hardware is measured to be slower.
struct ElementCycleTable {
  double cycles[kPrecisionCount][kOpcodeCount] = {};
  double of(Opcode op, Precision p) const { return cycles[unsigned(p)][unsigned(op)]; }
};

}  // namespace wsesim::pe
