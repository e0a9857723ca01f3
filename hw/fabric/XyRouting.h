#pragma once
// XY routing: the address-routed "packet mode" of classic NoC studies. A
// wavelet carries its destination PE; each router sends it first along X,
// then along Y, then to its PE. A routing policy (RoutingPolicies.h).

#include <string>

#include "hw/fabric/FabricError.h"
#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/QueuedWavelet.h"
#include "hw/fabric/Wavelet.h"

namespace wsesim::fabric {

class ColorRouteTable;

struct XyRouting {
  static constexpr const char* kName = "xy";

  XyRouting(const MeshGeometry& m, const ColorRouteTable*) : mesh(m) {}
  // Needs nothing but the mesh.
  static void checkSetup(const ColorRouteTable*) {}

  // X first, then Y, then the PE. Looked up, not branched on: under random
  // traffic which way a wavelet turns is a coin toss the branch predictor
  // loses at every hop.
  PortMask forward(RouterId, std::uint32_t x, std::uint32_t y, const QueuedWavelet& w) const {
    const unsigned east = w.destX() > x, west = w.destX() < x, south = w.destY() > y, north = w.destY() < y;
    return kTurn[east - west + 1][south - north + 1];
  }
  // [sign of the x distance + 1][sign of the y distance + 1]
  static constexpr PortMask kTurn[3][3] = {{bit(Port::West), bit(Port::West), bit(Port::West)},
                                           {bit(Port::North), bit(Port::Ramp), bit(Port::South)},
                                           {bit(Port::East), bit(Port::East), bit(Port::East)}};

  // A wavelet entering the mesh must be addressed to a PE on it.
  void checkInjection(RouterId r, const Wavelet& w) const {
    if (!mesh.contains(w.destX, w.destY))
      throw FabricError("PE " + mesh.name(r) + " sent a wavelet to (" + std::to_string(w.destX) + "," +
                        std::to_string(w.destY) + "), outside the " + std::to_string(mesh.width) + "x" +
                        std::to_string(mesh.height) + " mesh");
  }
  // Dimension-order routing accepts whatever its neighbours send it.
  void checkArrival(RouterId, Port, const QueuedWavelet&) const {}

  MeshGeometry mesh;
};

}  // namespace wsesim::fabric
