#pragma once
// Splitting a dimension into contiguous blocks whose sizes differ by at
// most one.

#include <cstdint>
#include <vector>

namespace wsesim::firmware {

// parts + 1 boundaries: block p is [begin[p], begin[p + 1]); the larger blocks come last.
inline std::vector<std::uint32_t> balancedSplit(std::uint32_t total, std::uint32_t parts) {
  std::vector<std::uint32_t> begin(parts + 1);
  for (std::uint32_t p = 0; p <= parts; ++p) begin[p] = std::uint32_t(std::uint64_t(total) * p / parts);
  return begin;
}

}  // namespace wsesim::firmware
