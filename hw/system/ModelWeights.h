#pragma once
// The weights MemoryX holds: one entry per streamed layer (kernel), in
// model order. Only sizes: the system model streams and updates bytes, the
// wafer computes on them.

#include <cstdint>
#include <string>
#include <vector>

namespace wsesim::system {

struct LayerWeights {
  std::string name;
  std::uint64_t parameters = 0;
  unsigned streamedBytesPerParameter = 2;  // the precision weights travel in (fp16); sparse: value and index
  // A sparse layer (its non-zeros the parameters): what else its stream
  // carries beside them (WeightStreamGemm: each column's last wavelet of a pass).
  std::uint64_t markBytes = 0;

  std::uint64_t streamedBytes() const { return parameters * streamedBytesPerParameter + markBytes; }
};

struct ModelWeights {
  std::string name;
  std::vector<LayerWeights> layers;

  std::uint64_t parameters() const {
    std::uint64_t total = 0;
    for (const LayerWeights& l : layers) total += l.parameters;
    return total;
  }
};

}  // namespace wsesim::system
