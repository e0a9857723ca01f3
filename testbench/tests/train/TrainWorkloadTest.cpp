// The train workload on the tiny model and preset (timing mode, one
// simulation per test process): the step time is the sum of its simulated
// GEMMs (each distinct GEMM once, times its occurrences), the ops' cost
// model and the optimizer update; simulating every layer gives the same
// step; bad settings are refused with the key named.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "hw/config/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "testbench/workload/Workload.h"

namespace wsesim::train {
namespace {

nlohmann::json runTrain(const std::string& workloadYaml, const std::string& runYaml = "  mode: timing\n",
                        const std::string& archYaml = "") {
  config::ConfigTree tree = config::ConfigTree::fromText(
      "arch:\n  preset: tiny\n" + archYaml + "run:\n" + runYaml + "workload:\n  type: train\n" + workloadYaml, "test");
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  const config::ArchConfig arch = config::ArchConfig::read(params);
  const config::RunConfig run = config::RunConfig::read(params, arch);
  params.text("workload.type");
  auto work = workload::workloadTypes().at("train")(params, arch, run);
  params.rejectUnknownKeys();
  work->run({});
  nlohmann::json r = work->results();
  r["cycles"] = work->cycles();
  return r;
}

// Adam on 4992 parameters: 28 bytes touched per parameter at MemoryX's
// storage bandwidth, or 12 FLOPs at its optimizer throughput, whichever is
// longer, in cycles of the 1.1 GHz clock.
TEST(TrainStep, StepIsTheSumOfGemmsOpsAndOptimizer) {
  const nlohmann::json r = runTrain("  model: tiny\n  batch: 2\n  steps: 3\n");
  const nlohmann::json& b = r["breakdown_cycles"];
  std::uint64_t gemms = 0;
  for (const nlohmann::json& g : r["gemms"]) {
    gemms += g["cycles"].get<std::uint64_t>() * g["occurrences"].get<std::uint64_t>();
    EXPECT_GE(g["cycles"].get<std::uint64_t>(), g["lower_bound"].get<std::uint64_t>()) << g.dump();
  }
  EXPECT_EQ(b["gemms"], gemms);
  std::uint64_t byPass = 0;
  for (const auto& [pass, cycles] : b["gemms_by_pass"].items()) byPass += cycles.get<std::uint64_t>();
  EXPECT_EQ(byPass, gemms);
  EXPECT_EQ(r["step_cycles"], b["gemms"].get<std::uint64_t>() + b["ops"].get<std::uint64_t>() +
                                  b["optimizer"].get<std::uint64_t>());
  EXPECT_EQ(r["cycles"], 3 * r["step_cycles"].get<std::uint64_t>());
  EXPECT_EQ(r["gemms"].size(), 15u);  // 4 weights x 3 passes + the LM head's 3
  EXPECT_EQ(r["gemm_count"], 27u);
  EXPECT_EQ(r["tokens_per_step"], 16u);
  // Each distinct GEMM once: K x N weights in for the forward and
  // backward-data passes, K x N gradients out (qkv 16 x 48, attn_out 16 x 16,
  // ffn_up 16 x 32, ffn_down 32 x 16, lm_head 16 x 24).
  const std::uint64_t weights = 16 * 48 + 16 * 16 + 16 * 32 + 32 * 16 + 16 * 24;
  EXPECT_EQ(r["simulated_wavelets"]["weights_in"], 2 * weights);
  EXPECT_EQ(r["simulated_wavelets"]["gradients_out"], weights);
  const double seconds = r["step_seconds"].get<double>();
  EXPECT_NEAR(r["tokens_per_second"].get<double>(), 16 / seconds, 1e-6 * 16 / seconds);
}

// Two simulations, so two `wsesim run` processes (SystemC elaborates once
// per process): identical layers simulated once or every time, same step.
nlohmann::json runCli(const std::string& name, const std::string& overrides) {
  const std::string dir = ::testing::TempDir();
  const std::string config = dir + "/train_" + name + ".yaml", out = dir + "/train_" + name + ".json";
  std::ofstream(config) << "arch:\n  preset: tiny\nrun:\n  mode: timing\nworkload:\n  type: train\n  model: tiny\n"
                           "  batch: 2\n";
  const std::string command = "'" WSESIM_BINARY "' run '" + config + "' " + overrides + " --out '" + out + "' > /dev/null";
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << command;
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(std::ifstream(out));
}

TEST(TrainStep, EveryLayerSimulatedGivesTheSameStep) {
  const nlohmann::json reused = runCli("reused", "");
  const nlohmann::json all = runCli("all", "--set workload.layers=all");
  ASSERT_FALSE(reused.empty() || all.empty());
  EXPECT_EQ(all["workload"]["step_cycles"], reused["workload"]["step_cycles"]);
  EXPECT_EQ(all["workload"]["gemms"].size(), 27u);
  EXPECT_EQ(reused["workload"]["gemms"].size(), 15u);
}

// Each GEMM of the sequence starts on an empty fabric with its own routes
// and programs: it takes what the same GEMM takes alone (the tiny model's
// QKV, 16 tokens x 16 x 48, forward with representative rows and weight
// gradient with every row).
TEST(TrainStep, AGemmInTheStepTakesWhatItTakesAlone) {
  const nlohmann::json step = runCli("alone", "");
  ASSERT_FALSE(step.empty());
  for (const std::string pass : {"forward", "weight_grad"}) {
    const std::string out = ::testing::TempDir() + "/qkv_" + pass + ".json";
    const std::string command = "'" WSESIM_BINARY "' run '" WSESIM_SOURCE_DIR
                                "/testbench/configs/gemm_small.yaml' --set run.mode=timing --set workload.m=16 "
                                "--set workload.k=16 --set workload.n=48 --set workload.dtype=mixed --set workload.pass=" +
                                pass + (pass == "forward" ? " --set workload.rows=representative" : "") + " --out '" +
                                out + "' > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const nlohmann::json alone = nlohmann::json::parse(std::ifstream(out));
    bool found = false;
    for (const nlohmann::json& g : step["workload"]["gemms"])
      if (g["name"] == "qkv" && g["pass"] == pass) {
        found = true;
        EXPECT_EQ(g["cycles"], alone["cycles"]) << pass;
      }
    EXPECT_TRUE(found) << pass;
  }
}

// With 200 bytes of SRAM several GEMMs run in passes whose output buffers
// stay on their target columns; the next GEMM starts on PEs freed of them
// (it used to find a stale kept buffer of the same name and fail).
TEST(TrainStep, GemmsInPassesLeaveNothingBehindForTheNext) {
  const nlohmann::json r = runTrain("  model: tiny\n  batch: 2\n", "  mode: timing\n", "  pe:\n    sram_bytes: 200\n");
  unsigned multiPass = 0;
  for (const nlohmann::json& g : r["gemms"]) multiPass += g["mapping"].get<std::string>().find(" passes ") != std::string::npos;
  EXPECT_GE(multiPass, 2u);
  EXPECT_GT(r["step_cycles"].get<std::uint64_t>(), 0u);
}

TEST(TrainStep, BadSettingsNameTheKey) {
  const auto message = [](const std::string& workload, const std::string& run) {
    try {
      runTrain(workload, run);
    } catch (const config::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("  model: tiny\n  batch: 2\n", "  mode: functional\n").find("run.mode"), std::string::npos);
  EXPECT_NE(message("  model: gpt5\n  batch: 2\n", "  mode: timing\n").find("workload.model: no model 'gpt5'"),
            std::string::npos);
  EXPECT_NE(message("  model: tiny\n  batch: 2\n  seq: 9\n", "  mode: timing\n").find("workload.seq"), std::string::npos);
}

}  // namespace
}  // namespace wsesim::train
