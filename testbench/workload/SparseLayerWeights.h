#pragma once
// A sparse weight matrix as MemoryX keeps it, for the gemm and train
// workloads alike: its non-zeros, each streamed as value and index
// (firmware/gemm/WeightSparsity.h), and what else a pass streams beside
// them (WeightStreamGemm: each grid column's last wavelet of a pass).

#include <cstdint>
#include <string>
#include <utility>

#include "firmware/gemm/WeightSparsity.h"
#include "hw/system/ModelWeights.h"

namespace wsesim::workload {

// `streamedBytes`: what one pass over the matrix streams in all (at least
// the non-zeros' value-and-index bytes).
inline system::LayerWeights sparseLayerWeights(std::string name, std::uint64_t nonzeros, std::uint64_t streamedBytes) {
  system::LayerWeights w{std::move(name), nonzeros, firmware::kSparseWaveletBytes};
  w.markBytes = streamedBytes - w.streamedBytes();
  return w;
}

}  // namespace wsesim::workload
