#include "testbench/registry/WorkloadTypes.h"

#include "testbench/gemm/GemmWorkload.h"
#include "testbench/noc/NocWorkload.h"
#include "testbench/pe/ChainReduceWorkload.h"
#include "testbench/train/TrainWorkload.h"

namespace wsesim::workload {

// Adding a workload type: its source file (listed in testbench/CMakeLists.txt),
// its factory's header included above, and one line here.
const std::map<std::string, WorkloadFactory>& workloadTypes() {
  static const std::map<std::string, WorkloadFactory> types = {
      {"gemm", gemm::makeGemmWorkload},
      {"noc", noc::makeNocWorkload},
      {"chain_reduce", kernels::makeChainReduceWorkload},
      {"train", train::makeTrainWorkload},
  };
  return types;
}

std::string readWorkloadType(config::ParamReader& params) {
  std::vector<std::string> names;
  for (const auto& [name, factory] : workloadTypes()) names.push_back(name);
  return params.choice("workload.type", names);
}

}  // namespace wsesim::workload
