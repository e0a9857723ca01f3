#include <functional>
#include <map>

#include "firmware/gemm/CannonGemm.h"
#include "firmware/gemm/GemmMapping.h"
#include "firmware/gemm/MeshGemm.h"
#include "firmware/gemm/SummaGemm.h"
#include "firmware/gemm/WeightGradGemm.h"
#include "firmware/gemm/WeightStreamGemm.h"

namespace wsesim::firmware {
namespace {

using Factory = std::function<std::unique_ptr<GemmMapping>(const GemmShape&, const config::ArchConfig&,
                                                           std::uint32_t, std::uint32_t, Buffering)>;

template <typename Resident>
Factory resident() {
  return [](const GemmShape& s, const config::ArchConfig& arch, std::uint32_t gx, std::uint32_t gy, Buffering b) {
    return std::unique_ptr<GemmMapping>(new Resident(s, arch, gx, gy, b));
  };
}

// Adding a mapping: its source files (firmware/CMakeLists.txt), its header
// above, and one line here.
const std::map<std::string, Factory>& factories() {
  static const std::map<std::string, Factory> all = {
      {"weight_stream",
       [](const GemmShape& s, const config::ArchConfig& arch, std::uint32_t gx, std::uint32_t gy, Buffering b) {
         // Its weights stream through, each used once as it passes: nothing to buffer per step.
         if (b != Buffering::Auto)
           throw PlanError(std::string("weight_stream offers no workload.buffering (auto only), not ") + bufferingName(b));
         if (s.pass == GemmPass::WeightGrad) return std::unique_ptr<GemmMapping>(new WeightGradGemm(s, arch, gx, gy));
         return std::unique_ptr<GemmMapping>(new WeightStreamGemm(WeightStreamPlan::make(s, arch, gx, gy)));
       }},
      {"cannon", resident<CannonGemm>()},
      {"meshgemm", resident<MeshGemm>()},
      {"summa", resident<SummaGemm>()},
  };
  return all;
}

}  // namespace

std::vector<std::string> gemmAlgorithms() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories()) names.push_back(name);
  return names;
}

std::unique_ptr<GemmMapping> makeGemmMapping(const std::string& algorithm, const GemmShape& shape,
                                             const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                                             Buffering buffering) {
  return factories().at(algorithm)(shape, arch, gridX, gridY, buffering);
}

}  // namespace wsesim::firmware
