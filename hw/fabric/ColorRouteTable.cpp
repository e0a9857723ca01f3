#include "hw/fabric/ColorRouteTable.h"

#include <string>

#include "hw/fabric/FabricError.h"

namespace wsesim::fabric {

ColorRouteTable::ColorRouteTable(MeshGeometry mesh, unsigned colors)
    : mesh_(mesh), colors_(colors), routes_(std::size_t(mesh.routers()) * colors) {}

void ColorRouteTable::set(std::uint32_t x, std::uint32_t y, unsigned color, PortMask accept,
                          PortMask forward) {
  if (!mesh_.contains(x, y))
    throw FabricError("route for color " + std::to_string(color) + " at (" + std::to_string(x) + "," +
                      std::to_string(y) + ") is outside the " + std::to_string(mesh_.width) + "x" +
                      std::to_string(mesh_.height) + " mesh");
  const RouterId r = mesh_.id(x, y);
  if (color >= colors_)
    throw FabricError("route at router " + mesh_.name(r) + " uses color " + std::to_string(color) +
                      " but the fabric has " + std::to_string(colors_) + " colors (0.." +
                      std::to_string(colors_ - 1) + ")");
  // An edge port in `accept` takes streams from the wafer's I/O
  // (FabricKernel::injectAtEdge); in `forward` it sends wavelets out of the
  // wafer (FabricKernel::setEdgeSink).
  ColorRoute& route = routes_[std::size_t(r) * colors_ + color];
  if (route.accept != accept || route.forward != forward) {
    ++revision_;
    if (log_) log_->push_back(RouteChange{r, color, ColorRoute{accept, forward}});
  }
  route = ColorRoute{accept, forward};
  if (accept | forward) colorsInUse_ |= 1u << color;
}

}  // namespace wsesim::fabric
