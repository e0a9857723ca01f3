#pragma once
// What the gemm and train workloads share about sampling a GEMM
// (runtime::GemmSampling, SimulatedGemm.h): its workload.* keys, each
// workload with its own defaults, and the host memory of the mesh the
// sampled GEMMs run on.

#include <cstdint>

#include "firmware/runtime/SimulatedGemm.h"
#include "hw/chip/ChipParts.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/ParamReader.h"
#include "hw/config/RunConfig.h"
#include "testbench/workload/HostMemoryPlan.h"

namespace wsesim::workload {

// workload.rows, workload.phases, workload.steady_state_outputs,
// workload.steady_state_tolerance and workload.phase_line_tolerance,
// defaulting to `defaults`.
runtime::GemmSampling readGemmSampling(config::ParamReader& params, const runtime::GemmSampling& defaults);

// The chip of `parts` on arch.mesh cut to `meshColumns` columns (as wide as
// the rows simulated need: SimulatedGemm::meshColumns), saying so when that
// is narrower than arch.mesh.
HostMemoryPlan sampledGemmHostMemory(const config::ArchConfig& arch, std::uint32_t meshColumns,
                                     const config::RunConfig& run, const chip::ChipParts& parts);

}  // namespace wsesim::workload
