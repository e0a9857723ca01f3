#include "testbench/workload/GemmSamplingKeys.h"

#include <string>

namespace wsesim::workload {

runtime::GemmSampling readGemmSampling(config::ParamReader& p, const runtime::GemmSampling& defaults) {
  runtime::GemmSampling s;
  s.representativeRows = p.choice("workload.rows", {"all", "representative"},
                                  std::string(defaults.representativeRows ? "representative" : "all")) ==
                         "representative";
  s.steadyStateOutputs = std::uint32_t(p.integer(
      "workload.steady_state_outputs", 0, 1 << 20, defaults.steadyStateOutputs,
      "0: every n of every pass; S: a pass of more than 4S n's is simulated cut to S, 2S, 4S, ... n's until its "
      "period per n settles"));
  s.steadyStateTolerance = p.real("workload.steady_state_tolerance", 1e-6, 0.1, defaults.steadyStateTolerance);
  return s;
}

}  // namespace wsesim::workload
