#include "testbench/noc/NocWorkload.h"
#include "testbench/workload/Workload.h"

namespace wsesim::workload {

// Adding a workload type is one file and one line here.
const std::map<std::string, WorkloadFactory>& workloadTypes() {
  static const std::map<std::string, WorkloadFactory> types = {
      {"noc", noc::makeNocWorkload},
  };
  return types;
}

}  // namespace wsesim::workload
