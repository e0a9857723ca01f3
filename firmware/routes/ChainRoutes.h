#pragma once
// Route patterns the mappings share, programmed into a ColorRouteTable,
// along one row or column of the mesh (a MeshLine).

#include <cstdint>

#include "firmware/routes/LineRoutes.h"
#include "hw/fabric/ColorRouteTable.h"

namespace wsesim::firmware {

// Partial sums flowing up `line` (towards higher positions: East or South)
// from position p0 to p1: the PE at p sends on color `colors[p % 2]` to the
// next PE. Neighbours alternate two colors, because one color's route at a
// router cannot both deliver to its PE and forward from it.
void routeChainUp(fabric::ColorRouteTable& routes, const MeshLine& line, std::uint32_t p0, std::uint32_t p1,
                  const unsigned (&colors)[2]);

// The mirror image: partial sums flowing down `line` from p1 to p0, the PE
// at p sending on `colors[p % 2]` to the previous PE.
void routeChainDown(fabric::ColorRouteTable& routes, const MeshLine& line, std::uint32_t p0, std::uint32_t p1,
                    const unsigned (&colors)[2]);

// What the PE at position `from` of `line` sends on `color` goes through
// every router beyond it and leaves the wafer at the line's high end (East
// for a row, South for a column) or its low end (West or North).
void routeLineToEdge(fabric::ColorRouteTable& routes, const MeshLine& line, std::uint32_t from, bool atHighEnd,
                     unsigned color);

// A stream entering `line` from outside the mesh, at its low end (position
// 0, from the West or North) or at its high end (the mesh's last position,
// from the East or South), and multicast to the PE at every position from 0
// to `last`; routers beyond `last` pass it on.
void routeLineFromEdge(fabric::ColorRouteTable& routes, const MeshLine& line, bool atHighEnd, std::uint32_t last,
                       unsigned color);

}  // namespace wsesim::firmware
