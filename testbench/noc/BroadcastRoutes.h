#pragma once
// Static color routes for the broadcast patterns: in every row (column),
// `sources` PEs each multicast on their own color to all other PEs of that
// row (column). At the source the route forks both ways; every PE on the
// way takes a copy through its RAMP and passes the wavelet on.

#include <cstdint>
#include <vector>

#include "hw/fabric/ColorRouteTable.h"
#include "testbench/noc/NocConfig.h"

namespace wsesim::noc {

struct BroadcastPlan {
  std::vector<fabric::RouterId> sources;
  std::vector<std::uint8_t> colors;  // per source
  std::uint32_t fanout = 0;          // receivers per wavelet
};

BroadcastPlan programBroadcastRoutes(Pattern pattern, unsigned sourcesPerLine, fabric::ColorRouteTable& routes);

}  // namespace wsesim::noc
