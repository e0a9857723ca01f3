#include "firmware/routes/LineRoutes.h"

#include <algorithm>

namespace wsesim::firmware {

using fabric::bit;
using fabric::Port;
using fabric::PortMask;

void routeTransfer(fabric::ColorRouteTable& routes, const LineTransfer& t) {
  const std::uint32_t first = std::min(t.from, t.lo), last = std::max(t.from, t.hi);
  for (std::uint32_t p = first; p <= last; ++p) {
    // Wavelets come from the sender's side and go on away from it.
    const PortMask accept = p == t.from ? bit(Port::Ramp) : bit(p < t.from ? t.line.up() : t.line.down());
    PortMask forward = (p != t.from || t.toSender) && p >= t.lo && p <= t.hi ? bit(Port::Ramp) : 0;
    if (p <= t.from && p > t.lo) forward |= bit(t.line.down());
    if (p >= t.from && p < t.hi) forward |= bit(t.line.up());
    routes.set(t.line.x(p), t.line.y(p), t.color, accept, forward);
  }
}

RingShift RingShift::plan(std::vector<std::uint32_t> order, unsigned firstColor) {
  RingShift s;
  s.order = std::move(order);
  const std::uint32_t n = s.size();
  s.color.assign(n, firstColor);
  // taken[c][p]: a path on color firstColor + c already passes line position p.
  std::vector<std::vector<bool>> taken;
  for (std::uint32_t l = 0; l < n && n > 1; ++l) {
    const std::uint32_t a = s.order[l], b = s.order[(l + n - 1) % n];
    const std::uint32_t lo = std::min(a, b), hi = std::max(a, b);
    unsigned c = 0;
    for (;; ++c) {
      if (c == taken.size()) taken.emplace_back(n, false);
      if (std::none_of(taken[c].begin() + lo, taken[c].begin() + hi + 1, [](bool t) { return t; })) break;
    }
    std::fill(taken[c].begin() + lo, taken[c].begin() + hi + 1, true);
    s.color[l] = firstColor + c;
  }
  s.colors = unsigned(taken.size());
  return s;
}

LineTransfer RingShift::transfer(MeshLine line, std::uint32_t l, std::uint64_t wavelets) const {
  const std::uint32_t to = order[(l + size() - 1) % size()];
  return LineTransfer{line, order[l], to, to, color[l], wavelets};
}

}  // namespace wsesim::firmware
