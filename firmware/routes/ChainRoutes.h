#pragma once
// Route patterns the mappings share, programmed into a ColorRouteTable.

#include <cstdint>

#include "hw/fabric/ColorRouteTable.h"

namespace wsesim::firmware {

// Partial sums flowing east along row `y` from column x0 to x1: the PE at x
// sends on color `colors[x % 2]` to its east neighbour's PE. Neighbours
// alternate two colors, because one color's route at a router cannot both
// deliver to its PE and forward from it.
void routeEastChain(fabric::ColorRouteTable& routes, std::uint32_t y, std::uint32_t x0, std::uint32_t x1,
                    const unsigned (&colors)[2]);

// The mirror image: partial sums flowing west along row `y` from x1 to x0,
// the PE at x sending on `colors[x % 2]` to its west neighbour's PE.
void routeWestChain(fabric::ColorRouteTable& routes, std::uint32_t y, std::uint32_t x0, std::uint32_t x1,
                    const unsigned (&colors)[2]);

// Partial sums flowing south down column `x` from row y0 to y1, the PE at y
// sending on `colors[y % 2]` to its south neighbour's PE.
void routeSouthChain(fabric::ColorRouteTable& routes, std::uint32_t x, std::uint32_t y0, std::uint32_t y1,
                     const unsigned (&colors)[2]);

// What the PE at (x, y) sends on `color` goes south through every router
// below it and leaves the wafer at the mesh's south edge.
void routeColumnToSouthEdge(fabric::ColorRouteTable& routes, std::uint32_t x, std::uint32_t y, unsigned color);

// A stream entering column x at its north edge (router (x, 0)) and
// multicast to the PE of every row from 0 to y1.
void routeColumnFromNorthEdge(fabric::ColorRouteTable& routes, std::uint32_t x, std::uint32_t y1, unsigned color);

}  // namespace wsesim::firmware
