#pragma once
// Runs the chain_reduce workload in-process from a run file's text and
// overrides (one simulation per test process).

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "hw/config/ConfigTree.h"
#include "testbench/registry/WorkloadTypes.h"
#include "testbench/workload/Workload.h"

namespace wsesim::kernels::testing {

struct ChainRun {
  config::ArchConfig arch;
  nlohmann::json results;  // with "cycles"
};

inline ChainRun runChain(const std::string& runYaml, const std::vector<std::string>& overrides = {}) {
  config::ConfigTree tree = config::ConfigTree::fromText(runYaml, "test");
  for (const std::string& o : overrides) tree.applyOverride(o);
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  ChainRun run{config::ArchConfig::read(params), {}};
  const config::RunConfig runConfig = config::RunConfig::read(params, run.arch);
  params.text("workload.type");
  auto work = workload::workloadTypes().at("chain_reduce")(params, run.arch, runConfig);
  params.rejectUnknownKeys();
  work->run({});
  run.results = work->results();
  run.results["cycles"] = work->cycles();
  return run;
}

}  // namespace wsesim::kernels::testing
