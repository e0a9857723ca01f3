#pragma once
// `workload.type: noc`: synthetic traffic on the fabric alone.

#include <memory>

#include "testbench/workload/Workload.h"

namespace wsesim::noc {

std::unique_ptr<workload::Workload> makeNocWorkload(config::ParamReader& params, const config::ArchConfig& arch,
                                                    const config::RunConfig& run);

}  // namespace wsesim::noc
