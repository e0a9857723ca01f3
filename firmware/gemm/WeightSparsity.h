#pragma once
// Unstructured sparsity of a layer's weights W[K x N]: which weights are
// zero, fixed for a run (the mask a sparse training step keeps). Only the
// non-zeros stream in, each in a wavelet of its own with its index beside
// its value (the SDK's sparse-tensor wavelet: 16 bits of data below, 16 of
// index above), so only 16-bit weights stream sparse. Which weights are
// zero is a hash of (seed, row, column) of the layer, not a stream drawn in
// order: the same weight is zero in every pass, whichever matrix streams
// (W forward, W^T backward-data) and in whatever order.

#include <cstdint>

#include "hw/common/EnumNames.h"

namespace wsesim::firmware {

enum class SparsityPattern : std::uint8_t {
  Uniform,        // every weight non-zero with probability `density`
  RowImbalanced,  // row k of W: density x (1/2 + k / (K - 1)), at most 1 (a column of the grid per few rows)
};
inline constexpr EnumName<SparsityPattern> kSparsityPatternNames[] = {
    {SparsityPattern::Uniform, "uniform"}, {SparsityPattern::RowImbalanced, "row_imbalanced"}};
constexpr const char* sparsityPatternName(SparsityPattern p) { return nameOf(kSparsityPatternNames, p); }

struct WeightSparsity {
  double density = 1;  // of the layer's weights, non-zero
  SparsityPattern pattern = SparsityPattern::Uniform;
  std::uint64_t seed = 1;
  std::uint32_t layerRows = 0;  // K of the layer (RowImbalanced's ramp)
  // The product streams W^T (backward data): its B's (k, n) is W's (n, k).
  bool transposed = false;

  bool dense() const { return density >= 1; }
  // Whether B's weight (k, n) of the product is non-zero.
  bool kept(std::uint32_t k, std::uint32_t n) const;
  // How many of B's weights (k, n), k < rows and n < columns, are non-zero.
  std::uint64_t keptCount(std::uint32_t rows, std::uint32_t columns) const;
  // The same weights, streamed as the other of W and W^T.
  WeightSparsity transposedView() const {
    WeightSparsity t = *this;
    t.transposed = !transposed;
    return t;
  }
  bool operator==(const WeightSparsity& o) const {
    return density == o.density && pattern == o.pattern && seed == o.seed && layerRows == o.layerRows &&
           transposed == o.transposed;
  }
};

// The wavelet a sparse stream carries: the weight's 16 bits of value below
// (`valueBits`) and its 16-bit index above (WeightStreamGemm: where in the
// PE's block it belongs, and how many outputs' runs ended before it).
inline std::uint32_t sparseWavelet(std::uint32_t index, std::uint32_t valueBits) {
  return index << 16 | (valueBits & 0xFFFFu);
}
// Bytes a sparse weight takes on the I/O: its whole 32-bit wavelet.
inline constexpr std::uint32_t kSparseWaveletBytes = 4;

}  // namespace wsesim::firmware
