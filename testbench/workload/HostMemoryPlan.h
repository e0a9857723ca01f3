#pragma once
// What a run will take of the host's memory, planned from the configuration
// alone before anything is built, and the mesh the plan is for: `wsesim run`
// refuses a plan over the limit, naming that mesh, so that its advice fits
// the mesh the workload simulates (a GEMM's representative rows run on a
// mesh narrower than arch.mesh).

#include <cstdint>
#include <string>

#include "hw/chip/ChipParts.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"
#include "hw/fabric/MeshGeometry.h"

namespace wsesim::workload {

struct HostMemoryPlan {
  std::uint64_t bytes = 0;
  fabric::MeshGeometry mesh;  // simulated: arch.mesh, or narrower
  std::string narrowedBy;     // when `mesh` is narrower than arch.mesh: the key and why, else empty
  bool sramData = false;      // the bytes hold every PE's arch.pe.sram_bytes (functional mode, with PEs)
  std::uint64_t systemBytes = 0;  // of the bytes, the system models' (arch.cluster.systems)
};

// The chip of `parts` on `simulated` (arch.mesh, or the narrower mesh the
// workload simulates) at full size (WaferChip::plannedHostBytes); the
// workload adds its own large state and, if narrower, why.
HostMemoryPlan chipHostMemory(const config::ArchConfig& simulated, const config::RunConfig& run,
                              const chip::ChipParts& parts);

}  // namespace wsesim::workload
