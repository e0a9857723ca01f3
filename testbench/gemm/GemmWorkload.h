#pragma once
// `workload.type: gemm`: one GEMM mapped onto the mesh by the firmware,
// checked against a reference matmul in functional mode.

#include <memory>

#include "testbench/workload/Workload.h"

namespace wsesim::gemm {

std::unique_ptr<workload::Workload> makeGemmWorkload(config::ParamReader& params, const config::ArchConfig& arch,
                                                     const config::RunConfig& run);

}  // namespace wsesim::gemm
