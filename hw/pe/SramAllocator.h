#pragma once
// Capacity accounting of one PE's SRAM: named buffers placed first-fit,
// freed by name, with a high-water mark. It holds no data (timing mode
// needs none); functional mode keeps the bytes in SramData.

#include <cstdint>
#include <string>
#include <vector>

namespace wsesim::pe {

class SramAllocator {
 public:
  // Buffers start at multiples of this many bytes (one fp32 word).
  static constexpr std::uint32_t kAlignment = 4;
  // The bytes a buffer of `bytes` takes, alignment included.
  static constexpr std::uint64_t aligned(std::uint64_t bytes) {
    return (bytes + kAlignment - 1) / kAlignment * kAlignment;
  }

  // Returns the buffer's byte offset. Throws ProgramError naming `pe`, the
  // buffer, the bytes asked for and the bytes free when it does not fit.
  std::uint32_t allocate(const std::string& pe, const std::string& name, std::uint64_t bytes, std::uint64_t capacity);
  // Throws ProgramError when no buffer of that name is allocated.
  void free(const std::string& pe, const std::string& name);

  std::uint64_t used() const { return used_; }
  std::uint64_t highWater() const { return highWater_; }
  // Byte offset of a named buffer, or -1.
  std::int64_t find(const std::string& name) const;

 private:
  struct Block {
    std::string name;
    std::uint32_t offset;
    std::uint32_t bytes;
  };
  std::vector<Block> blocks_;  // sorted by offset
  std::uint64_t used_ = 0;
  std::uint64_t highWater_ = 0;
};

}  // namespace wsesim::pe
