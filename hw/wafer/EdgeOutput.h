#pragma once
// What left the mesh through its edge ports, as a mapping reads a result
// streamed off the wafer (EdgeCollector records it).

#include <cstdint>
#include <vector>

#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/Port.h"

namespace wsesim::wafer {

class EdgeOutput {
 public:
  virtual ~EdgeOutput() = default;
  // Payloads that left router `r` through `side`, in order (empty unless kept).
  virtual const std::vector<std::uint32_t>& payloads(fabric::RouterId r, fabric::Port side) const = 0;
};

}  // namespace wsesim::wafer
