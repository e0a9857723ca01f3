#include "firmware/routes/ChainRoutes.h"

namespace wsesim::firmware {

using fabric::bit;
using fabric::Port;

void routeEastChain(fabric::ColorRouteTable& routes, std::uint32_t y, std::uint32_t x0, std::uint32_t x1,
                    const unsigned (&colors)[2]) {
  for (std::uint32_t x = x0; x < x1; ++x) {
    const unsigned color = colors[x % 2];
    routes.set(x, y, color, bit(Port::Ramp), bit(Port::East));
    routes.set(x + 1, y, color, bit(Port::West), bit(Port::Ramp));
  }
}

void routeWestChain(fabric::ColorRouteTable& routes, std::uint32_t y, std::uint32_t x0, std::uint32_t x1,
                    const unsigned (&colors)[2]) {
  for (std::uint32_t x = x1; x > x0; --x) {
    const unsigned color = colors[x % 2];
    routes.set(x, y, color, bit(Port::Ramp), bit(Port::West));
    routes.set(x - 1, y, color, bit(Port::East), bit(Port::Ramp));
  }
}

void routeSouthChain(fabric::ColorRouteTable& routes, std::uint32_t x, std::uint32_t y0, std::uint32_t y1,
                     const unsigned (&colors)[2]) {
  for (std::uint32_t y = y0; y < y1; ++y) {
    const unsigned color = colors[y % 2];
    routes.set(x, y, color, bit(Port::Ramp), bit(Port::South));
    routes.set(x, y + 1, color, bit(Port::North), bit(Port::Ramp));
  }
}

void routeColumnToSouthEdge(fabric::ColorRouteTable& routes, std::uint32_t x, std::uint32_t y, unsigned color) {
  routes.set(x, y, color, bit(Port::Ramp), bit(Port::South));
  for (std::uint32_t below = y + 1; below < routes.mesh().height; ++below)
    routes.set(x, below, color, bit(Port::North), bit(Port::South));
}

void routeColumnFromNorthEdge(fabric::ColorRouteTable& routes, std::uint32_t x, std::uint32_t y1, unsigned color) {
  for (std::uint32_t y = 0; y <= y1; ++y)
    routes.set(x, y, color, bit(Port::North), fabric::PortMask(bit(Port::Ramp) | (y < y1 ? bit(Port::South) : 0)));
}

}  // namespace wsesim::firmware
