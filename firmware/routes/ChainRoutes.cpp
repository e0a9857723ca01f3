#include "firmware/routes/ChainRoutes.h"

namespace wsesim::firmware {

using fabric::bit;
using fabric::Port;
using fabric::PortMask;

void routeChainUp(fabric::ColorRouteTable& routes, const MeshLine& line, std::uint32_t p0, std::uint32_t p1,
                  const unsigned (&colors)[2]) {
  for (std::uint32_t p = p0; p < p1; ++p) {
    const unsigned color = colors[p % 2];
    routes.set(line.x(p), line.y(p), color, bit(Port::Ramp), bit(line.up()));
    routes.set(line.x(p + 1), line.y(p + 1), color, bit(line.down()), bit(Port::Ramp));
  }
}

void routeChainDown(fabric::ColorRouteTable& routes, const MeshLine& line, std::uint32_t p0, std::uint32_t p1,
                    const unsigned (&colors)[2]) {
  for (std::uint32_t p = p1; p > p0; --p) {
    const unsigned color = colors[p % 2];
    routes.set(line.x(p), line.y(p), color, bit(Port::Ramp), bit(line.down()));
    routes.set(line.x(p - 1), line.y(p - 1), color, bit(line.up()), bit(Port::Ramp));
  }
}

void routeLineToEdge(fabric::ColorRouteTable& routes, const MeshLine& line, std::uint32_t from, bool atHighEnd,
                     unsigned color) {
  const Port away = atHighEnd ? line.up() : line.down(), back = atHighEnd ? line.down() : line.up();
  routes.set(line.x(from), line.y(from), color, bit(Port::Ramp), bit(away));
  if (atHighEnd)
    for (std::uint32_t p = from + 1; p < line.length(routes.mesh()); ++p)
      routes.set(line.x(p), line.y(p), color, bit(back), bit(away));
  else
    for (std::uint32_t p = from; p-- > 0;) routes.set(line.x(p), line.y(p), color, bit(back), bit(away));
}

void routeLineFromEdge(fabric::ColorRouteTable& routes, const MeshLine& line, bool atHighEnd, std::uint32_t last,
                       unsigned color) {
  if (!atHighEnd) {
    for (std::uint32_t p = 0; p <= last; ++p)
      routes.set(line.x(p), line.y(p), color, bit(line.down()),
                 PortMask(bit(Port::Ramp) | (p < last ? bit(line.up()) : 0)));
    return;
  }
  for (std::uint32_t p = line.length(routes.mesh()) - 1;; --p) {
    const PortMask deliver = p <= last ? bit(Port::Ramp) : 0;
    routes.set(line.x(p), line.y(p), color, bit(line.up()), PortMask(deliver | (p > 0 ? bit(line.down()) : 0)));
    if (p == 0) break;
  }
}

}  // namespace wsesim::firmware
