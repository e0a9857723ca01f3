#include "testbench/noc/BroadcastRoutes.h"

namespace wsesim::noc {

using fabric::bit;
using fabric::Port;

BroadcastPlan programBroadcastRoutes(Pattern pattern, unsigned sourcesPerLine, fabric::ColorRouteTable& routes) {
  const fabric::MeshGeometry mesh = routes.mesh();
  const bool rows = pattern == Pattern::RowBroadcast;
  const std::uint32_t length = rows ? mesh.width : mesh.height;  // PEs per line
  const std::uint32_t lines = rows ? mesh.height : mesh.width;
  // Along the line, "down" is East for rows and South for columns.
  const Port down = rows ? Port::East : Port::South;
  const Port up = fabric::opposite(down);

  BroadcastPlan plan;
  plan.fanout = length - 1;
  for (std::uint32_t line = 0; line < lines; ++line) {
    for (unsigned k = 0; k < sourcesPerLine; ++k) {
      const std::uint32_t s = std::uint32_t(std::uint64_t(k) * length / sourcesPerLine);
      auto at = [&](std::uint32_t pos) { return rows ? mesh.id(pos, line) : mesh.id(line, pos); };
      auto set = [&](std::uint32_t pos, fabric::PortMask accept, fabric::PortMask forward) {
        const fabric::RouterId r = at(pos);
        routes.set(mesh.xOf(r), mesh.yOf(r), k, accept, forward);
      };
      fabric::PortMask fork = 0;
      if (s + 1 < length) fork |= bit(down);
      if (s > 0) fork |= bit(up);
      set(s, bit(Port::Ramp), fork);
      for (std::uint32_t pos = s + 1; pos < length; ++pos)
        set(pos, bit(up), fabric::PortMask(bit(Port::Ramp) | (pos + 1 < length ? bit(down) : 0)));
      for (std::uint32_t pos = s; pos-- > 0;)
        set(pos, bit(down), fabric::PortMask(bit(Port::Ramp) | (pos > 0 ? bit(up) : 0)));
      plan.sources.push_back(at(s));
      plan.colors.push_back(std::uint8_t(k));
    }
  }
  return plan;
}

}  // namespace wsesim::noc
