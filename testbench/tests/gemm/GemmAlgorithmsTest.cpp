// The GEMM algorithm registry: every entry's capabilities agree with what
// its mapping does, and every combination an entry does not support is
// refused naming the key, the algorithm and the algorithms that do support
// it. The cases enumerate the registry, so a new algorithm is covered
// without a new test.

#include <gtest/gtest.h>

#include <string>

#include "firmware/gemm/registry/GemmAlgorithms.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "testbench/tests/MechanismTiming.h"
#include "testbench/registry/WorkloadTypes.h"
#include "testbench/workload/Workload.h"

namespace wsesim::firmware {
namespace {

config::ConfigTree tinyGemm(const std::string& algorithm, const std::string& mode, const std::string& extra) {
  config::ConfigTree tree = config::ConfigTree::fromText("arch:\n  preset: tiny\nrun:\n  mode: " + mode +
                                                             "\nworkload:\n  type: gemm\n  m: 8\n  k: 8\n  n: 8\n"
                                                             "  algorithm: " + algorithm + "\n" + extra,
                                                         "test");
  for (const std::string& o : wsesim::testing::kMechanismTiming) tree.applyOverride(o);
  tree.applyPreset(config::defaultPresetDir());
  return tree;
}

config::ArchConfig tinyArch() {
  config::ConfigTree tree = tinyGemm("weight_stream", "timing", "");
  config::ParamReader params(tree);
  return config::ArchConfig::read(params);
}

// The gemm workload's factory on the tiny preset: its error, or "" when it accepts the run.
std::string factoryError(const std::string& algorithm, const std::string& mode, const std::string& extra) {
  config::ConfigTree tree = tinyGemm(algorithm, mode, extra);
  config::ParamReader params(tree);
  const config::ArchConfig arch = config::ArchConfig::read(params);
  const config::RunConfig run = config::RunConfig::read(params, arch);
  params.text("workload.type");
  try {
    workload::workloadTypes().at("gemm")(params, arch, run);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

void expectParts(const std::string& msg, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts) EXPECT_NE(msg.find(part), std::string::npos) << part << " missing: " << msg;
}

class Registry : public ::testing::TestWithParam<std::string> {
 protected:
  const GemmAlgorithm& entry() const { return gemmAlgorithm(GetParam()); }
};

TEST(GemmAlgorithmRegistry, NamesAreUniqueAndAlphabeticalAndUnknownOnesAreRefused) {
  const std::vector<std::string> names = gemmAlgorithms();
  ASSERT_FALSE(names.empty());
  for (std::size_t i = 1; i < names.size(); ++i) EXPECT_LT(names[i - 1], names[i]);
  try {
    gemmAlgorithm("strassen");
    ADD_FAILURE() << "expected a PlanError";
  } catch (const PlanError& e) {
    expectParts(e.what(), {"strassen", names.front(), names.back()});
  }
}

// What the capabilities claim, the mapping does: each pass and dtype
// builds a mapping of that pass; weights stream in iff it says so; timing
// can be sampled iff its phases are blocks of outputs it can cut.
TEST_P(Registry, CapabilitiesMatchTheMapping) {
  const config::ArchConfig arch = tinyArch();
  const GemmCapabilities& can = entry().capabilities;
  EXPECT_FALSE(can.passes.empty());
  EXPECT_FALSE(can.dtypes.empty());
  EXPECT_TRUE(can.streamsWeights || !can.weightsFromMemoryx) << "MemoryX weights are streamed weights";
  for (const GemmPass pass : can.passes)
    for (const pe::Precision dtype : can.dtypes) {
      const auto mapping = makeGemmMapping(GetParam(), GemmShape{8, 8, 8, dtype, pass}, arch, 0, 0, Buffering::Auto);
      ASSERT_NE(mapping, nullptr);
      EXPECT_EQ(mapping->shape().pass, pass) << gemmPassName(pass);
      EXPECT_EQ(mapping->shape().precision, dtype) << pe::precisionName(dtype);
      if (pass == GemmPass::WeightGrad) continue;  // its weights are the output, leaving the wafer
      EXPECT_EQ(!mapping->streams(arch.mesh, nullptr, 0).empty(), can.streamsWeights) << gemmPassName(pass);
      EXPECT_EQ(mapping->phaseOutputs(0) != 0, can.sampledTiming) << gemmPassName(pass);
      EXPECT_EQ(mapping->cutPhases({{0, 1}}) != nullptr, can.sampledTiming) << gemmPassName(pass);
    }
}

TEST_P(Registry, EverySupportedPassIsAcceptedAndEveryOtherRefusedNamingWhoMapsIt) {
  const GemmCapabilities& can = entry().capabilities;
  for (const auto& [value, name] : kGemmPassNames) {
    const std::string pass = name;
    const std::string msg = factoryError(GetParam(), "timing", "  pass: " + pass + "\n");
    if (can.supports(value)) {
      EXPECT_EQ(msg, "") << pass;
      continue;
    }
    const std::string supporters =
        gemmAlgorithmsThat([&](const GemmCapabilities& a) { return a.supports(value); });
    expectParts(msg, {"workload.pass: " + GetParam(), "the " + can.passList() + " pass only, not " + pass,
                      "(" + pass + ": " + supporters + ")"});
  }
}

TEST_P(Registry, WeightsFromMemoryxOnlyWhereSupported) {
  const std::string msg = factoryError(GetParam(), "timing", "  weights: memoryx\n");
  if (entry().capabilities.weightsFromMemoryx) {
    EXPECT_EQ(msg, "");
    return;
  }
  expectParts(msg, {"workload.weights: " + GetParam(), "weights: edge only",
                    "(memoryx: " + gemmAlgorithmsThat([](const GemmCapabilities& a) { return a.weightsFromMemoryx; }) +
                        ")"});
}

TEST_P(Registry, SampledTimingOnlyWhereSupportedAndInTimingMode) {
  const std::string sampled = gemmAlgorithmsThat([](const GemmCapabilities& a) { return a.sampledTiming; });
  for (const char* key : {"rows: representative", "steady_state_outputs: 4"}) {
    const std::string extra = std::string("  ") + key + "\n";
    const std::string timing = factoryError(GetParam(), "timing", extra);
    if (entry().capabilities.sampledTiming) {
      EXPECT_EQ(timing, "") << key;
      expectParts(factoryError(GetParam(), "functional", extra), {"needs run.mode: timing", "run.mode is functional"});
    } else {
      expectParts(timing, {"needs run.mode: timing and an algorithm that samples its timing (" + sampled + ")",
                           GetParam() + " simulates every row and output"});
    }
  }
}

INSTANTIATE_TEST_SUITE_P(All, Registry, ::testing::ValuesIn(gemmAlgorithms()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

}  // namespace
}  // namespace wsesim::firmware
