#pragma once
// The workload.* keys that say how much of a GEMM timing mode simulates
// (runtime::GemmSampling, SimulatedGemm.h). The gemm and train workloads
// both read them, each with its own defaults.

#include "firmware/runtime/SimulatedGemm.h"
#include "hw/config/ParamReader.h"

namespace wsesim::workload {

// workload.rows, workload.steady_state_outputs and
// workload.steady_state_tolerance, defaulting to `defaults`.
runtime::GemmSampling readGemmSampling(config::ParamReader& params, const runtime::GemmSampling& defaults);

}  // namespace wsesim::workload
