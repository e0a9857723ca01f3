#include "hw/pe/SramAllocator.h"

#include "hw/pe/ProgramError.h"

namespace wsesim::pe {

std::uint32_t SramAllocator::allocate(const std::string& pe, const std::string& name, std::uint64_t bytes,
                                      std::uint64_t capacity) {
  if (find(name) >= 0) throw ProgramError("PE " + pe + ": buffer '" + name + "' is already allocated");
  const std::uint64_t size = (bytes + kAlignment - 1) / kAlignment * kAlignment;
  std::uint64_t start = 0;
  std::size_t at = 0;
  for (; at < blocks_.size(); ++at) {
    if (blocks_[at].offset >= start + size) break;
    start = blocks_[at].offset + blocks_[at].bytes;
  }
  if (start + size > capacity) {
    const std::uint64_t free = capacity - used_;
    throw ProgramError("PE " + pe + ": SRAM overflow allocating buffer '" + name + "': " + std::to_string(bytes) +
                       " bytes asked, " + std::to_string(free) + " of " + std::to_string(capacity) +
                       " bytes free (arch.pe.sram_bytes)" +
                       (free >= size ? ", but no contiguous gap is large enough" : ""));
  }
  blocks_.insert(blocks_.begin() + std::ptrdiff_t(at), Block{name, std::uint32_t(start), std::uint32_t(size)});
  used_ += size;
  if (used_ > highWater_) highWater_ = used_;
  return std::uint32_t(start);
}

void SramAllocator::free(const std::string& pe, const std::string& name) {
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
    if (it->name == name) {
      used_ -= it->bytes;
      blocks_.erase(it);
      return;
    }
  throw ProgramError("PE " + pe + ": freeing buffer '" + name + "', which is not allocated");
}

std::int64_t SramAllocator::find(const std::string& name) const {
  for (const Block& b : blocks_)
    if (b.name == name) return b.offset;
  return -1;
}

}  // namespace wsesim::pe
