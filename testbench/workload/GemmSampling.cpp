#include "testbench/workload/GemmSampling.h"

#include <string>

#include "hw/common/ConfigError.h"

namespace wsesim::workload {

runtime::GemmSampling readGemmSampling(config::ParamReader& p, const runtime::GemmSampling& defaults) {
  runtime::GemmSampling s;
  s.representativeRows = p.choice("workload.rows", {"all", "representative"},
                                  std::string(defaults.representativeRows ? "representative" : "all")) ==
                         "representative";
  s.representativePhases = p.choice("workload.phases", {"all", "representative"},
                                    std::string(defaults.representativePhases ? "representative" : "all")) ==
                           "representative";
  // Its default follows workload.rows: every row asked for, every column too.
  s.representativeColumns =
      p.choice("workload.columns", {"all", "representative"},
               std::string(defaults.representativeColumns && s.representativeRows ? "representative" : "all")) ==
      "representative";
  if (s.representativeColumns && !s.representativeRows)
    throw config::ConfigError("workload.columns: representative samples the columns of the representative rows, but "
                              "workload.rows is all; set workload.rows: representative or workload.columns: all");
  s.steadyStateOutputs = std::uint32_t(p.integer(
      "workload.steady_state_outputs", 0, 1 << 20, defaults.steadyStateOutputs,
      "0: every n of every pass; S: a pass of more than 16S n's is simulated cut to S, 2S, 4S, ... n's until its "
      "period per n settles"));
  s.steadyStateTolerance = p.real("workload.steady_state_tolerance", 1e-6, 0.1, defaults.steadyStateTolerance);
  s.phaseLineTolerance = p.real("workload.phase_line_tolerance", 1e-6, 0.1, defaults.phaseLineTolerance);
  return s;
}

HostMemoryPlan sampledGemmHostMemory(const config::ArchConfig& arch, const config::ArchConfig& simulated,
                                     const config::RunConfig& run, const chip::ChipParts& parts) {
  HostMemoryPlan plan = chipHostMemory(simulated, run, parts);
  const std::uint32_t columns = simulated.mesh.width, rows = simulated.mesh.height;
  if (columns < arch.mesh.width)
    plan.narrowedBy = "workload.rows: representative; the rows simulated lie along " + std::to_string(columns) +
                      (columns == 1 ? " mesh column" : " mesh columns");
  if (rows < arch.mesh.height)
    plan.narrowedBy += "; workload.columns: representative; the columns simulated lie along " + std::to_string(rows) +
                       " mesh rows";
  return plan;
}

}  // namespace wsesim::workload
