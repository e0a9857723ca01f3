#include "firmware/gemm/registry/GemmAlgorithms.h"

#include <algorithm>

#include "firmware/gemm/resident/CannonGemm.h"
#include "firmware/gemm/resident/MeshGemm.h"
#include "firmware/gemm/resident/SummaGemm.h"
#include "firmware/gemm/streaming/WeightGradGemm.h"
#include "firmware/gemm/streaming/WeightStreamGemm.h"

namespace wsesim::firmware {
namespace {

const std::vector<GemmPass> kEveryPass = {GemmPass::Forward, GemmPass::BackwardData, GemmPass::WeightGrad};
const std::vector<GemmPass> kForwardOnly = {GemmPass::Forward};
const std::vector<pe::Precision> kEveryDtype = {pe::Precision::Fp16, pe::Precision::Mixed, pe::Precision::Fp32};

template <typename Resident>
std::unique_ptr<GemmMapping> resident(const GemmShape& s, const config::ArchConfig& arch, std::uint32_t gx,
                                      std::uint32_t gy, Buffering b) {
  return std::make_unique<Resident>(s, arch, gx, gy, b);
}

std::unique_ptr<GemmMapping> weightStream(const GemmShape& s, const config::ArchConfig& arch, std::uint32_t gx,
                                          std::uint32_t gy, Buffering b) {
  // Its weights stream through, each used once as it passes: nothing to buffer per step.
  if (b != Buffering::Auto)
    throw PlanError(std::string("weight_stream offers no workload.buffering (auto only), not ") + bufferingName(b));
  if (s.pass == GemmPass::WeightGrad) return std::make_unique<WeightGradGemm>(s, arch, gx, gy);
  return std::make_unique<WeightStreamGemm>(WeightStreamPlan::make(s, arch, gx, gy));
}

}  // namespace

bool GemmCapabilities::supports(GemmPass p) const { return std::count(passes.begin(), passes.end(), p) != 0; }
bool GemmCapabilities::supports(pe::Precision p) const { return std::count(dtypes.begin(), dtypes.end(), p) != 0; }
bool GemmCapabilities::supportsSparse(GemmPass p) const {
  return std::count(sparsePasses.begin(), sparsePasses.end(), p) != 0;
}

std::string GemmCapabilities::passList() const {
  std::string names;
  for (const GemmPass p : passes) names += (names.empty() ? "" : ", ") + std::string(gemmPassName(p));
  return names;
}

// Adding an algorithm: its mapping's files (firmware/CMakeLists.txt), its
// header above and one line here, in alphabetical order.
const std::vector<GemmAlgorithm>& gemmAlgorithmRegistry() {
  static const std::vector<GemmAlgorithm> all = {
      // name, {passes, dtypes, streams weights, weights from MemoryX, sampled timing, sparse passes, fp32 sums}, factory
      {"cannon", {kForwardOnly, kEveryDtype, false, false, false}, resident<CannonGemm>},
      {"meshgemm", {kForwardOnly, kEveryDtype, false, false, false}, resident<MeshGemm>},
      {"summa", {kForwardOnly, kEveryDtype, false, false, false}, resident<SummaGemm>},
      {"weight_stream", {kEveryPass, kEveryDtype, true, true, true, kEveryPass, true}, weightStream},
  };
  return all;
}

std::vector<std::string> gemmAlgorithms() {
  std::vector<std::string> names;
  for (const GemmAlgorithm& a : gemmAlgorithmRegistry()) names.push_back(a.name);
  return names;
}

const GemmAlgorithm& gemmAlgorithm(const std::string& name) {
  for (const GemmAlgorithm& a : gemmAlgorithmRegistry())
    if (a.name == name) return a;
  std::string known;
  for (const std::string& n : gemmAlgorithms()) known += (known.empty() ? "" : ", ") + n;
  throw PlanError("no GEMM algorithm named '" + name + "' (known: " + known + ")");
}

std::string gemmAlgorithmsThat(const std::function<bool(const GemmCapabilities&)>& test) {
  std::string names;
  for (const GemmAlgorithm& a : gemmAlgorithmRegistry())
    if (test(a.capabilities)) names += (names.empty() ? "" : ", ") + a.name;
  return names.empty() ? "none" : names;
}

std::unique_ptr<GemmMapping> makeGemmMapping(const std::string& algorithm, const GemmShape& shape,
                                             const config::ArchConfig& arch, std::uint32_t gridX, std::uint32_t gridY,
                                             Buffering buffering) {
  const GemmAlgorithm& a = gemmAlgorithm(algorithm);
  if (shape.fp32Sums && !a.capabilities.fp32Sums)
    throw PlanError(algorithm + " passes its sums on in its accumulator's type, not fp32 above fp16 (fp32 sums: " +
                    gemmAlgorithmsThat([](const GemmCapabilities& c) { return c.fp32Sums; }) + ")");
  if (!shape.sparsity.dense()) {
    if (!a.capabilities.supportsSparse(shape.pass))
      throw PlanError(algorithm + " streams no sparse weights in the " + gemmPassName(shape.pass) + " pass (sparse: " +
                      gemmAlgorithmsThat([&](const GemmCapabilities& c) { return c.supportsSparse(shape.pass); }) + ")");
    if (shape.pass != GemmPass::WeightGrad && pe::elementBytes(pe::operandType(pe::Opcode::Fmac, shape.precision, 1)) != 2)
      throw PlanError(std::string("sparse weights stream as 16 bits of value beside 16 of index, so they need 16-bit "
                                  "weights (fp16 or mixed), not ") + pe::precisionName(shape.precision));
  }
  return a.make(shape, arch, gridX, gridY, buffering);
}

}  // namespace wsesim::firmware
