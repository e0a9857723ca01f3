#pragma once
// Runs the gemm workload in-process on the tiny preset with the mechanism
// timing (MechanismTiming.h: cycle counts by hand, whatever calibration
// fits), one simulation per test process, and returns its results with the
// cycle count.

#include <string>

#include <nlohmann/json.hpp>

#include "hw/config/ConfigTree.h"
#include "testbench/tests/MechanismTiming.h"
#include "testbench/registry/WorkloadTypes.h"
#include "testbench/workload/Workload.h"

namespace wsesim::gemm::testing {

inline nlohmann::json runGemm(const std::string& workloadYaml, const std::string& mode = "functional",
                              const std::string& archYaml = "") {
  config::ConfigTree tree = config::ConfigTree::fromText(
      "arch:\n  preset: tiny\n" + archYaml + "run:\n  mode: " + mode + "\nworkload:\n  type: gemm\n" + workloadYaml,
      "test");
  for (const std::string& o : wsesim::testing::kMechanismTiming) tree.applyOverride(o);
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  const config::ArchConfig arch = config::ArchConfig::read(params);
  const config::RunConfig run = config::RunConfig::read(params, arch);
  params.text("workload.type");
  auto work = workload::workloadTypes().at("gemm")(params, arch, run);
  params.rejectUnknownKeys();
  work->run({});
  nlohmann::json r = work->results();
  r["cycles"] = work->cycles();
  return r;
}

inline std::string shape(unsigned m, unsigned k, unsigned n) {
  return "  m: " + std::to_string(m) + "\n  k: " + std::to_string(k) + "\n  n: " + std::to_string(n) + "\n";
}

}  // namespace wsesim::gemm::testing
