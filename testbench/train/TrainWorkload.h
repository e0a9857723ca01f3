#pragma once
// `workload.type: train`: one training step of a model from the zoo on one
// CS system, data parallel, weights streamed. The step's weight-streamed
// GEMMs are simulated on the wafer one after another (each distinct GEMM
// once, its timing reused for identical layers, unless `layers: all`); the
// work without weights is priced by a cost model (WaferOpCost.h); the
// optimizer update runs in MemoryX after the step. docs/training.md.

#include <memory>

#include "testbench/workload/Workload.h"

namespace wsesim::train {

std::unique_ptr<workload::Workload> makeTrainWorkload(config::ParamReader& params, const config::ArchConfig& arch,
                                                      const config::RunConfig& run);

}  // namespace wsesim::train
