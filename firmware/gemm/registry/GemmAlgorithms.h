#pragma once
// The registry of GEMM algorithms (`workload.algorithm`): each entry's
// name, what it can do and how to build its mapping. Callers ask the
// registry what an algorithm supports instead of testing names; the errors
// for an unsupported combination are generated from the entries, so a new
// algorithm is covered by adding its entry (docs/adding-a-gemm-algorithm.md).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "firmware/gemm/Buffering.h"
#include "firmware/gemm/GemmMapping.h"
#include "firmware/gemm/GemmShape.h"
#include "hw/config/ArchConfig.h"
#include "hw/pe/OpKind.h"

namespace wsesim::firmware {

struct GemmCapabilities {
  std::vector<GemmPass> passes;       // the training passes it maps (GemmShape::pass)
  std::vector<pe::Precision> dtypes;  // the precisions it computes in
  // Whether B (a layer's weights) streams in through the I/O ring as it is
  // used; otherwise both operands are resident, placed on the PEs before the run.
  bool streamsWeights = false;
  // Whether the streamed weights may come from MemoryX through the cluster
  // (`workload.weights: memoryx`); needs streamsWeights.
  bool weightsFromMemoryx = false;
  // Whether timing mode may simulate part of it and extrapolate the rest
  // (representative rows, steady-state outputs: GemmMapping::phaseOutputs).
  bool sampledTiming = false;
  // The passes whose streamed weights may be sparse (GemmShape::sparsity:
  // only the non-zeros stream, with their indices; 16-bit weights only).
  std::vector<GemmPass> sparsePasses{};
  // Whether an fp16 GEMM may pass its sums on in fp32 (GemmShape::fp32Sums).
  bool fp32Sums = false;

  bool supports(GemmPass p) const;
  bool supportsSparse(GemmPass p) const;
  bool supports(pe::Precision p) const;
  std::string passList() const;  // "forward, backward_data"
};

// Builds the mapping; throws PlanError (GemmShape.h) when the GEMM does not
// fit the architecture, `buffering` is one the algorithm does not offer or
// its weights are sparse where it streams only dense ones.
using GemmMappingFactory = std::function<std::unique_ptr<GemmMapping>(
    const GemmShape&, const config::ArchConfig&, std::uint32_t gridX, std::uint32_t gridY, Buffering)>;

struct GemmAlgorithm {
  std::string name;  // its `workload.algorithm` value
  GemmCapabilities capabilities;
  GemmMappingFactory make;
};

// Every algorithm, by name (alphabetical).
const std::vector<GemmAlgorithm>& gemmAlgorithmRegistry();
std::vector<std::string> gemmAlgorithms();
// The entry of `name`; throws PlanError naming the known ones when there is none.
const GemmAlgorithm& gemmAlgorithm(const std::string& name);
// The names of the algorithms whose capabilities satisfy `test`, as "a, b" ("none" when empty).
std::string gemmAlgorithmsThat(const std::function<bool(const GemmCapabilities&)>& test);


std::unique_ptr<GemmMapping> makeGemmMapping(const std::string& algorithm, const GemmShape& shape,
                                             const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                                             Buffering buffering);

}  // namespace wsesim::firmware
