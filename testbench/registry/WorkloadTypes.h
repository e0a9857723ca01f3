#pragma once
// The registry of workload types by the name used in `workload.type`. It
// lives above the workloads it names (testbench/gemm, noc, pe, train), so
// the base they share (testbench/workload) knows none of them.

#include <map>
#include <string>

#include "hw/config/ParamReader.h"
#include "testbench/workload/Workload.h"

namespace wsesim::workload {

// Workload types by the name used in `workload.type`.
const std::map<std::string, WorkloadFactory>& workloadTypes();
// Reads `workload.type`, one of workloadTypes().
std::string readWorkloadType(config::ParamReader& params);

}  // namespace wsesim::workload
