#pragma once
// The bytes of every PE's SRAM, for functional mode. One lazily backed
// array for the whole mesh: pages no program touches cost no host memory.

#include <cstdint>
#include <cstring>

#include "hw/fabric/ZeroedArray.h"
#include "hw/pe/Numerics.h"

namespace wsesim::pe {

class SramData {
 public:
  SramData(std::size_t pes, std::uint64_t bytesPerPe) : bytesPerPe_(bytesPerPe), bytes_(pes * bytesPerPe) {}

  float load(std::uint32_t pe, std::uint64_t address, ElementType t) const {
    std::uint32_t raw = 0;
    std::memcpy(&raw, &bytes_[pe * bytesPerPe_ + address], elementBytes(t));
    return fromPayload(t, raw);
  }
  void zero(std::uint32_t pe, std::uint64_t address, std::uint64_t bytes) {
    std::memset(&bytes_[pe * bytesPerPe_ + address], 0, bytes);
  }
  void store(std::uint32_t pe, std::uint64_t address, ElementType t, float v) {
    const std::uint32_t raw = toPayload(t, v);
    std::memcpy(&bytes_[pe * bytesPerPe_ + address], &raw, elementBytes(t));
  }

 private:
  std::uint64_t bytesPerPe_;
  fabric::ZeroedArray<std::uint8_t> bytes_;
};

}  // namespace wsesim::pe
