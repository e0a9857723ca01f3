#pragma once
// How a router chooses the outputs of the wavelet at the head of a queue.
// The kernel is instantiated once per policy so the hot loop has no
// indirect call: color routing is the WSE's static per-color tables,
// XY routing is the address-routed "packet mode" of classic NoC studies.

#include <string>

#include "hw/fabric/ColorRouteTable.h"
#include "hw/fabric/FabricError.h"
#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/QueuedWavelet.h"

namespace wsesim::fabric {

enum class RoutingMode { Color, Xy };

struct XyRouting {
  MeshGeometry mesh;

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
  // Dimension-order routing accepts whatever its neighbours send it.
  void checkArrival(RouterId, Port, const QueuedWavelet&) const {}
};

struct ColorRouting {
  const ColorRouteTable* table;

  PortMask forward(RouterId r, std::uint32_t, std::uint32_t, const QueuedWavelet& w) const {
    return table->at(r, w.color()).forward;
  }

  void checkArrival(RouterId r, Port in, const QueuedWavelet& w) const {
    const ColorRoute& route = table->at(r, w.color());
    if (!(route.accept & bit(in)) || !route.forward) misrouted(r, in, w);
  }

  // Out of line: the error text is built only when a wavelet is misrouted.
  [[noreturn, gnu::cold, gnu::noinline]] void misrouted(RouterId r, Port in, const QueuedWavelet& w) const {
    const ColorRoute& route = table->at(r, w.color());
    const MeshGeometry& mesh = table->mesh();
    std::string why = route.accept & bit(in)
                          ? "but its route for that color forwards nowhere"
                          : "but its route for that color accepts only " + portMaskName(route.accept);
    throw FabricError("router " + mesh.name(r) + " received a wavelet of color " + std::to_string(w.color()) +
                      " on input " + portName(in) + ", " + why);
  }
};

}  // namespace wsesim::fabric
