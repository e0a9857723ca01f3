#include "testbench/workload/Workload.h"

#include "testbench/results/EnergyReport.h"

namespace wsesim::workload {

nlohmann::json Workload::results() const {
  nlohmann::json r = typeResults();
  r.update(cost_);
  return r;
}

std::string Workload::summary() const { return typeSummary() + results::energySummary(cost_); }

}  // namespace wsesim::workload
