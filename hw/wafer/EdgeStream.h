#pragma once
// A stream of wavelets to enter the mesh at an edge router's edge port:
// what a mapping describes and the EdgeInjector feeds in.

#include <cstdint>
#include <functional>

#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/Port.h"

namespace wsesim::wafer {

struct EdgeStream {
  fabric::RouterId router = 0;
  fabric::Port side = fabric::Port::West;
  unsigned color = 0;
  std::uint64_t count = 0;                         // wavelets in the stream
  std::function<std::uint32_t(std::uint64_t)> payload;  // of wavelet i (unset: 0)
};

}  // namespace wsesim::wafer
