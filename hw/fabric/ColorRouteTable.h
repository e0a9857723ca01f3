#pragma once
// Static per-color routes, as the firmware programs them into each router:
// for every (router, color) the input ports a wavelet may arrive on and the
// output ports it is forwarded to (several outputs = multicast).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/Port.h"

namespace wsesim::fabric {

struct ColorRoute {
  PortMask accept = 0;
  PortMask forward = 0;
};

// One route set() changed: what the router holds for the color afterwards.
struct RouteChange {
  RouterId router = 0;
  unsigned color = 0;
  ColorRoute route;
};

class ColorRouteTable {
 public:
  ColorRouteTable(MeshGeometry mesh, unsigned colors);
  static std::size_t plannedHostBytes(MeshGeometry mesh, unsigned colors) {
    return std::size_t(mesh.routers()) * colors * sizeof(ColorRoute);
  }

  // Throws FabricError if the color is out of range. Inputs on an edge take
  // wavelets from outside (FabricKernel::injectAtEdge), outputs on an edge
  // send them out of the wafer (FabricKernel::setEdgeSink).
  void set(std::uint32_t x, std::uint32_t y, unsigned color, PortMask accept, PortMask forward);

  // Forgets every route (between workloads that share one fabric, while it is empty).
  void clear() {
    std::fill(routes_.begin(), routes_.end(), ColorRoute{});
    colorsInUse_ = 0;
    ++revision_;
  }

  const ColorRoute& at(RouterId r, unsigned color) const { return routes_[std::size_t(r) * colors_ + color]; }
  unsigned colors() const { return colors_; }
  const MeshGeometry& mesh() const { return mesh_; }
  // Colors with at least one route programmed anywhere.
  std::uint32_t colorsInUse() const { return colorsInUse_; }
  // Counts the changes to any route, so a caller can tell whether reprogramming changed anything.
  std::uint64_t revision() const { return revision_; }
  // From now on appends every change set() makes to `log` (null: stops),
  // so a runtime can learn what a phase's reprogramming changes where.
  void recordChanges(std::vector<RouteChange>* log) { log_ = log; }

 private:
  MeshGeometry mesh_;
  unsigned colors_;
  std::uint32_t colorsInUse_ = 0;
  std::uint64_t revision_ = 0;
  std::vector<ColorRoute> routes_;
  std::vector<RouteChange>* log_ = nullptr;
};

}  // namespace wsesim::fabric
