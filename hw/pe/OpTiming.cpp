#include "hw/pe/OpTiming.h"

#include <algorithm>
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

OpTiming opTiming(const TensorOp& op, const config::ArchConfig::Pe& pe) {
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
  const std::uint64_t beats = (std::uint64_t(op.length) + lanes - 1) / lanes;
  return OpTiming{lanes, passes, pe.opOverheadCycles + beats * passes};
}

}  // namespace wsesim::pe
