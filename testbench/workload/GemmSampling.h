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

// workload.rows, workload.columns, workload.phases,
// workload.steady_state_outputs, workload.steady_state_tolerance and
// workload.phase_line_tolerance, defaulting to `defaults`.
runtime::GemmSampling readGemmSampling(config::ParamReader& params, const runtime::GemmSampling& defaults);

// The chip of `parts` on the mesh `simulated` has (SimulatedGemm::simulatedArch:
// as wide as the rows simulated need, as tall as the columns), saying so
// when that is smaller than arch.mesh.
HostMemoryPlan sampledGemmHostMemory(const config::ArchConfig& arch, const config::ArchConfig& simulated,
                                     const config::RunConfig& run, const chip::ChipParts& parts);

}  // namespace wsesim::workload
