#pragma once
// How long a tensor operation takes: overhead + ceil(length / lanes) cycles,
// where the lanes of the (precision, opcode) pair are reduced by bank
// conflicts of strided memory operands, and the element rate is divided
// when the op reads more memory vectors than the SRAM has read ports.
// Operations with a fabric operand move at most one element per cycle.

#include <cstdint>

#include "hw/config/ArchConfig.h"
#include "hw/pe/Isa.h"

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

struct OpTiming {
  unsigned lanes;           // elements per cycle after bank limits (1 for fabric ops)
  unsigned portPasses;      // > 1 when the op reads more memory vectors than read ports
  std::uint64_t cycles;     // overhead + ceil(length / lanes) * portPasses, without fabric stalls
};

OpTiming opTiming(const TensorOp& op, const config::ArchConfig::Pe& pe);

}  // namespace wsesim::pe
