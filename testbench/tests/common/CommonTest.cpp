// hw/common: every error the model raises on purpose is a wsesim::Error, and
// every enum <-> name table names each value once and reads it back.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "firmware/gemm/Buffering.h"
#include "firmware/gemm/GemmShape.h"
#include "hw/common/Error.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ParamReader.h"
#include "hw/config/RunConfig.h"
#include "hw/config/StrictYaml.h"
#include "hw/fabric/FabricError.h"
#include "hw/pe/OpKind.h"
#include "hw/pe/ProgramError.h"
#include "models/TrainingStep.h"
#include "models/TransformerModel.h"
#include "testbench/cli/RunArguments.h"
#include "testbench/noc/NocConfig.h"

namespace {

using namespace wsesim;

template <class E>
std::string caughtAsBase() {
  try {
    throw E("what went wrong");
  } catch (const Error& e) {
    return e.what();
  }
}

TEST(Common, EveryErrorKindIsAWsesimError) {
  EXPECT_EQ(caughtAsBase<config::ConfigError>(), "what went wrong");
  EXPECT_EQ(caughtAsBase<pe::ProgramError>(), "what went wrong");
  EXPECT_EQ(caughtAsBase<fabric::FabricError>(), "what went wrong");
  EXPECT_EQ(caughtAsBase<fabric::DeadlockError>(), "what went wrong");
  EXPECT_EQ(caughtAsBase<firmware::PlanError>(), "what went wrong");
  EXPECT_EQ(caughtAsBase<models::ModelError>(), "what went wrong");
  EXPECT_EQ(caughtAsBase<yaml::YamlError>(), "what went wrong");
  EXPECT_EQ(caughtAsBase<cli::UsageError>(), "what went wrong");
}

// `count` values 0 .. count - 1, each with one row, every name distinct and read back.
template <class E, std::size_t N>
void expectOneNamePerValue(const EnumName<E> (&table)[N], unsigned count) {
  EXPECT_EQ(N, count);
  std::set<std::string> names;
  for (unsigned v = 0; v < count; ++v) {
    const char* name = nameOf(table, E(v));
    EXPECT_STRNE(name, "?") << "value " << v;
    EXPECT_TRUE(names.insert(name).second) << name;
    EXPECT_EQ(valueOf(table, name), E(v)) << name;
  }
  EXPECT_EQ(valueOf(table, "no such name"), std::nullopt);
}

TEST(Common, EveryEnumNameTableNamesEachValueOnce) {
  expectOneNamePerValue(pe::kOpcodeNames, pe::kOpcodeCount);
  expectOneNamePerValue(pe::kPrecisionNames, pe::kPrecisionCount);
  expectOneNamePerValue(pe::kElementTypeNames, 2);
  expectOneNamePerValue(config::kDataModeNames, 2);
  expectOneNamePerValue(firmware::kBufferingNames, 3);
  expectOneNamePerValue(kGemmPassNames, 3);
  expectOneNamePerValue(models::kWaferOpKindNames, 8);
  expectOneNamePerValue(models::kFfnNames, 2);
  expectOneNamePerValue(models::kNormNames, 2);
  expectOneNamePerValue(noc::kPatternNames, 7);
  // The lane and energy keys are spelled from these (arch.pe.lanes.mixed.fmac).
  EXPECT_STREQ(pe::precisionName(pe::Precision::Mixed), "mixed");
  EXPECT_STREQ(pe::opcodeName(pe::Opcode::Fmov), "fmov");
}

TEST(Common, ParamReaderReadsAKeyAsAnEnumByItsNames) {
  config::ConfigTree tree;
  tree.set("run.mode", "timing", "test");
  tree.set("workload.dtype", "fp8", "test");
  config::ParamReader params(tree);
  EXPECT_EQ(params.choice("run.mode", config::kDataModeNames, config::DataMode::Functional), config::DataMode::Timing);
  EXPECT_EQ(params.choice("workload.pass", kGemmPassNames, GemmPass::WeightGrad), GemmPass::WeightGrad);
  EXPECT_EQ(params.resolved().at("workload.pass").text, "weight_grad");
  try {
    params.choice("workload.dtype", pe::kPrecisionNames);
    FAIL() << "fp8 accepted";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), "workload.dtype = 'fp8' (test): must be one of fp16, mixed, fp32");
  }
}

}  // namespace
