#pragma once
// How long a tensor operation takes: overhead + elementCycles(length) cycles,
// the larger of ceil(length / lanes) (the SIMD width of the (precision,
// opcode) pair, reduced by bank conflicts of strided memory operands) and
// ceil(length * cycles_per_element) (the sustained rate measured on the
// hardware), times the passes an op needs when it reads more memory vectors
// than the SRAM has read ports. Operations with a fabric operand move at
// most one element per cycle, and no faster than cycles_per_element.

#include <cstdint>

#include "hw/pe/Isa.h"
#include "hw/pe/PeParams.h"

namespace wsesim::pe {

struct SramGeometry {
  unsigned banks;
  unsigned bankWordBytes;
  unsigned readPorts;
};

// Elements of a memory access with `stride` (in elements of `elementSize`
// bytes) that distinct banks can serve in one cycle. A stride-0 read is one
// word for every lane (unlimited, returned as ~0u); a stride-0 write makes
// every lane hit the same word, so one element per cycle.
unsigned bankLimitedElements(std::uint32_t stride, unsigned elementSize, bool write, const SramGeometry& sram);

// Cycles for `length` elements of (opcode, precision) at `lanes` lanes,
// one pass, without the op's overhead.
std::uint64_t elementCycles(const PeParams& pe, Opcode opcode, Precision precision,
                            std::uint64_t length, unsigned lanes);

// Fabric ops step one element at a time by a fixed-point interval, so a
// fractional cycles_per_element averages out over the elements.
inline constexpr unsigned kIntervalFractionBits = 16;
// The interval of a fabric op, in 2^-16 cycles: at most one element a cycle.
std::uint32_t fabricInterval(const PeParams& pe, Opcode opcode, Precision precision, unsigned passes);
// Cycles from a fabric op's first element to its element `index`, without stalls.
constexpr std::uint64_t fabricElementAt(std::uint32_t interval, std::uint64_t index) {
  return (index * interval) >> kIntervalFractionBits;
}

struct OpTiming {
  unsigned lanes;           // elements per cycle after bank limits (1 for fabric ops)
  unsigned portPasses;      // > 1 when the op reads more memory vectors than read ports
  std::uint64_t cycles;     // issue + elementCycles(length) * portPasses, without fabric stalls
  std::uint32_t fabricInterval;  // fabric ops: cycles from one element to the next, in 2^-16 cycles
  std::uint32_t issueCycles;     // before its first element: the hardware's op overhead and the program's loop
};

// `loopCycles`: the issuing program's (Program::loopCycles).
OpTiming opTiming(const TensorOp& op, const PeParams& pe, std::uint32_t loopCycles = 0);

}  // namespace wsesim::pe
