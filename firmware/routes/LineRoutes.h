#pragma once
// Routes along one row or column of the mesh: a transfer from one PE to a
// contiguous range of PEs of its line (a unicast, a multicast, or a
// broadcast to the whole line), and the color plan of a shift by one along
// a ring of PEs laid onto a line in any order.

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hw/fabric/ColorRouteTable.h"

namespace wsesim::firmware {

// A row (positions are x) or a column (positions are y) of the mesh.
struct MeshLine {
  bool vertical = false;
  std::uint32_t index = 0;  // the row's y or the column's x

  std::uint32_t x(std::uint32_t position) const { return vertical ? index : position; }
  std::uint32_t y(std::uint32_t position) const { return vertical ? position : index; }
  // The port towards higher positions (East or South) and towards lower ones (West or North).
  fabric::Port up() const { return vertical ? fabric::Port::South : fabric::Port::East; }
  fabric::Port down() const { return vertical ? fabric::Port::North : fabric::Port::West; }
  // Positions on the line: the mesh's width or height.
  std::uint32_t length(const fabric::MeshGeometry& mesh) const { return vertical ? mesh.height : mesh.width; }
};

// Wavelets of `color` sent by the PE at position `from` of `line` and
// delivered to every PE at positions lo..hi except the sender (unless
// `toSender`: its router hands them back to its own RAMP too), over the
// straight paths.
struct LineTransfer {
  MeshLine line;
  std::uint32_t from = 0, lo = 0, hi = 0;
  unsigned color = 0;
  std::uint64_t wavelets = 0;
  bool toSender = false;
  // Hops to the farthest receiver.
  std::uint32_t reach() const { return std::max(from > lo ? from - lo : 0, hi > from ? hi - from : 0); }
};

void routeTransfer(fabric::ColorRouteTable& routes, const LineTransfer& t);

// A shift by one along a ring of PEs on a line: the PE at ring position l
// (line position order[l]) sends to the one at l - 1 (cyclically) over the
// straight path between them. Colors are handed out first fit from
// `firstColor` so that no two paths that meet at a router share one.
struct RingShift {
  std::vector<std::uint32_t> order;
  std::vector<unsigned> color;  // by ring position: the color its PE sends on
  unsigned colors = 0;          // how many distinct colors

  static RingShift plan(std::vector<std::uint32_t> order, unsigned firstColor);
  std::uint32_t size() const { return std::uint32_t(order.size()); }
  // The transfer of the PE at ring position l, moving `wavelets`.
  LineTransfer transfer(MeshLine line, std::uint32_t l, std::uint64_t wavelets) const;
  // The color the PE at ring position l receives on (its successor's).
  unsigned receiveColor(std::uint32_t l) const { return color[(l + 1) % size()]; }
};

}  // namespace wsesim::firmware
