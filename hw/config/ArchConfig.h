#pragma once
// The architecture parameters of a run (`arch.*`), read and validated once.

#include <cstdint>
#include <string>

#include "hw/config/ParamReader.h"
#include "hw/fabric/FabricKernel.h"

namespace wsesim::config {

struct ArchConfig {
  std::string preset;
  std::string description;
  fabric::MeshGeometry mesh;
  double clockHz = 0;
  struct Pe {
    std::uint64_t sramBytes = 0;
  } pe;
  struct Fabric {
    unsigned colorBits = 0;
    unsigned colors = 0;
    unsigned queueDepth = 0;
    unsigned hopLatencyCycles = 0;
    unsigned rampLatencyCycles = 0;
    fabric::RoutingMode routing = fabric::RoutingMode::Color;
  } fabric;

  static ArchConfig read(ParamReader& params);

  double secondsPerCycle() const { return 1.0 / clockHz; }
};

}  // namespace wsesim::config
