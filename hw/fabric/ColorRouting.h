#pragma once
// Color routing: the WSE's static per-color route tables. Each router
// forwards a wavelet to the outputs its table names for the wavelet's
// color, and accepts it only on the inputs the table names. A routing
// policy (RoutingPolicies.h).

#include <string>

#include "hw/fabric/ColorRouteTable.h"
#include "hw/fabric/FabricError.h"
#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/QueuedWavelet.h"
#include "hw/fabric/Wavelet.h"

namespace wsesim::fabric {

struct ColorRouting {
  static constexpr const char* kName = "color";

  ColorRouting(const MeshGeometry&, const ColorRouteTable* t) : table(t) {}
  static void checkSetup(const ColorRouteTable* routes) {
    if (routes == nullptr) throw FabricError("color routing needs a color route table");
  }

  PortMask forward(RouterId r, std::uint32_t, std::uint32_t, const QueuedWavelet& w) const {
    return table->at(r, w.color()).forward;
  }

  // Any color may enter; whether its route accepts it is checkArrival's.
  void checkInjection(RouterId, const Wavelet&) const {}
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

  const ColorRouteTable* table;
};

}  // namespace wsesim::fabric
