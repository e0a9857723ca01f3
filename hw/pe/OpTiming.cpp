#include "hw/pe/OpTiming.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace wsesim::pe {

unsigned bankLimitedElements(std::uint32_t stride, unsigned elementSize, bool write, const SramGeometry& sram) {
  if (stride == 0) return write ? 1u : ~0u;
  const std::uint64_t stepBytes = std::uint64_t(stride) * elementSize;
  // Several consecutive accesses within one bank word are served together.
  if (stepBytes % sram.bankWordBytes != 0) return ~0u;
  const std::uint64_t stepWords = stepBytes / sram.bankWordBytes;
  return unsigned(sram.banks / std::gcd<std::uint64_t>(stepWords, sram.banks));
}

std::uint64_t elementCycles(const PeParams& pe, Opcode opcode, Precision precision,
                            std::uint64_t length, unsigned lanes) {
  const std::uint64_t simd = (length + lanes - 1) / lanes;
  // The relative slack keeps an exact product (46 x 0.5) from rounding up.
  const double sustained = double(length) * pe.cyclesPerElement.of(opcode, precision);
  return std::max(simd, std::uint64_t(std::ceil(sustained * (1.0 - 1e-12))));
}

std::uint32_t fabricInterval(const PeParams& pe, Opcode opcode, Precision precision, unsigned passes) {
  const double perElement = std::max(1.0, pe.cyclesPerElement.of(opcode, precision)) * passes;
  return std::uint32_t(std::lround(std::ldexp(perElement, kIntervalFractionBits)));
}

OpTiming opTiming(const TensorOp& op, const PeParams& pe, std::uint32_t loopCycles) {
  const SramGeometry sram{pe.sramBanks, pe.sramBankWordBytes, pe.sramReadPorts};
  unsigned lanes = pe.lanes.of(op.opcode, op.precision);
  unsigned vectorReads = 0;
  const auto limit = [&](const Descriptor& d, int operand) {
    if (d.kind != Descriptor::Kind::Memory) return;
    const bool write = operand < 0;
    if (!write && d.stride != 0) ++vectorReads;
    lanes = std::min(lanes, bankLimitedElements(d.stride, elementBytes(operandType(op.opcode, op.precision, operand)),
                                                write, sram));
  };
  limit(op.dst, -1);
  for (unsigned i = 0; i < sourceCount(op.opcode); ++i) limit(op.src[i], int(i));
  if (op.usesFabric()) lanes = 1;
  const unsigned passes = std::max(1u, (vectorReads + sram.readPorts - 1) / sram.readPorts);
  const std::uint64_t beats = elementCycles(pe, op.opcode, op.precision, op.length, lanes);
  const std::uint32_t issue = pe.opOverheadCycles + loopCycles;
  return OpTiming{lanes, passes, issue + beats * passes, fabricInterval(pe, op.opcode, op.precision, passes), issue};
}

}  // namespace wsesim::pe
