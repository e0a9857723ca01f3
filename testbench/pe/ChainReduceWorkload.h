#pragma once
// `workload.type: chain_reduce`: the PE testbench (see ChainReduce.h).

#include <memory>

#include "testbench/workload/Workload.h"

namespace wsesim::kernels {

std::unique_ptr<workload::Workload> makeChainReduceWorkload(config::ParamReader& params,
                                                            const config::ArchConfig& arch,
                                                            const config::RunConfig& run);

}  // namespace wsesim::kernels
