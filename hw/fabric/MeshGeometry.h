#pragma once
// Coordinates of a W x H mesh and the neighbour relation between routers.

#include <cstdint>
#include <string>

#include "hw/fabric/Port.h"

namespace wsesim::fabric {

using RouterId = std::uint32_t;
inline constexpr RouterId kNoRouter = ~RouterId(0);

struct MeshGeometry {
  std::uint32_t width = 0;
  std::uint32_t height = 0;

  std::uint32_t routers() const { return width * height; }
  RouterId id(std::uint32_t x, std::uint32_t y) const { return y * width + x; }
  std::uint32_t xOf(RouterId r) const { return r % width; }
  std::uint32_t yOf(RouterId r) const { return r / width; }
  bool contains(std::int64_t x, std::int64_t y) const {
    return x >= 0 && y >= 0 && x < std::int64_t(width) && y < std::int64_t(height);
  }

  // Neighbour across `p`, or kNoRouter at the mesh edge (and for the RAMP).
  RouterId neighbour(RouterId r, Port p) const {
    const std::uint32_t x = xOf(r), y = yOf(r);
    switch (p) {
      case Port::North: return y == 0 ? kNoRouter : r - width;
      case Port::South: return y + 1 == height ? kNoRouter : r + width;
      case Port::West: return x == 0 ? kNoRouter : r - 1;
      case Port::East: return x + 1 == width ? kNoRouter : r + 1;
      case Port::Ramp: return kNoRouter;
    }
    return kNoRouter;
  }

  std::string name(RouterId r) const {
    return "(" + std::to_string(xOf(r)) + "," + std::to_string(yOf(r)) + ")";
  }
};

}  // namespace wsesim::fabric
