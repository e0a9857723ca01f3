#include "firmware/gemm/WeightSparsity.h"

#include <algorithm>

namespace wsesim::firmware {

namespace {
// SplitMix64's finaliser: a well-mixed 64-bit hash of one word.
std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
}  // namespace

bool WeightSparsity::kept(std::uint32_t k, std::uint32_t n) const {
  if (dense()) return true;
  const std::uint32_t row = transposed ? n : k, column = transposed ? k : n;
  double p = density;
  if (pattern == SparsityPattern::RowImbalanced)
    p = std::min(1.0, density * (0.5 + (layerRows > 1 ? double(row) / double(layerRows - 1) : 0.5)));
  const std::uint64_t h = mix(mix(seed + 0x9e3779b97f4a7c15ULL) ^ (std::uint64_t(row) << 32 | column));
  return double(h >> 11) * 0x1.0p-53 < p;
}

std::uint64_t WeightSparsity::keptCount(std::uint32_t rows, std::uint32_t columns) const {
  if (dense()) return std::uint64_t(rows) * columns;
  std::uint64_t count = 0;
  for (std::uint32_t k = 0; k < rows; ++k)
    for (std::uint32_t n = 0; n < columns; ++n) count += kept(k, n);
  return count;
}

}  // namespace wsesim::firmware
