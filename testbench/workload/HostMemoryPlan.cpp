#include "testbench/workload/HostMemoryPlan.h"

#include "hw/chip/WaferChip.h"

namespace wsesim::workload {

HostMemoryPlan chipHostMemory(const config::ArchConfig& simulated, const config::RunConfig& run,
                              const chip::ChipParts& parts) {
  HostMemoryPlan plan;
  plan.bytes = chip::WaferChip::plannedHostBytes(simulated, run, parts);
  plan.mesh = simulated.mesh;
  plan.sramData = parts.pes && run.mode == config::DataMode::Functional;
  return plan;
}

}  // namespace wsesim::workload
