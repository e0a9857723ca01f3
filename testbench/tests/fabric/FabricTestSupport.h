#pragma once
// Helpers shared by the fabric kernel tests: a sink and a link observer that
// record what happens, route programming along a path, and a driver that
// feeds PEs' wavelets into the kernel the way the wafer module does (each
// cycle: offer, then step once).

#include <gtest/gtest.h>

#include <cstdint>
#include <deque>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hw/fabric/ColorRouteTable.h"
#include "hw/fabric/FabricError.h"
#include "hw/fabric/FabricKernel.h"

namespace wsesim::fabric::testsupport {

struct Arrival {
  RouterId at;
  Wavelet wavelet;
  std::uint64_t cycle;
};

struct RecordingSink : WaveletSink {
  std::vector<Arrival> arrivals;
  void deliver(RouterId at, const Wavelet& w, std::uint64_t cycle) override { arrivals.push_back({at, w, cycle}); }

  // The arrivals at one PE, in delivery order.
  std::vector<Arrival> at(RouterId r) const {
    std::vector<Arrival> out;
    for (const Arrival& a : arrivals)
      if (a.at == r) out.push_back(a);
    return out;
  }
};

struct Transfer {
  std::uint64_t cycle;
  RouterId from;
  Port output;
  unsigned color;
};

// Records link transfers with the cycle the test says it is stepping.
struct RecordingObserver : LinkObserver {
  std::uint64_t now = 0;
  std::vector<Transfer> transfers;
  void onTransfer(RouterId from, Port output, unsigned color) override {
    transfers.push_back({now, from, output, color});
  }
  std::vector<Transfer> from(RouterId r, Port output) const {
    std::vector<Transfer> out;
    for (const Transfer& t : transfers)
      if (t.from == r && t.output == output) out.push_back(t);
    return out;
  }
};

inline FabricParams makeParams(RoutingMode mode, std::uint32_t width, std::uint32_t height, unsigned hop,
                               unsigned ramp, unsigned depth, unsigned colors = 4) {
  FabricParams p;
  p.mesh = MeshGeometry{width, height};
  p.colors = colors;
  p.queueDepth = depth;
  p.hopLatencyCycles = hop;
  p.rampLatencyCycles = ramp;
  p.routing = mode;
  p.watchdogCycles = 100000;
  return p;
}

inline Wavelet makeWavelet(unsigned color, std::uint32_t payload, std::uint32_t destX = 0, std::uint32_t destY = 0) {
  Wavelet w;
  w.color = std::uint8_t(color);
  w.payload = payload;
  w.destX = std::uint16_t(destX);
  w.destY = std::uint16_t(destY);
  w.last = true;
  return w;
}

using Coord = std::pair<std::uint32_t, std::uint32_t>;

// The port of router `from` that faces the adjacent router `to`.
inline Port towards(Coord from, Coord to) {
  if (to.first == from.first + 1 && to.second == from.second) return Port::East;
  if (to.first + 1 == from.first && to.second == from.second) return Port::West;
  if (to.second == from.second + 1 && to.first == from.first) return Port::South;
  if (to.second + 1 == from.second && to.first == from.first) return Port::North;
  throw std::logic_error("towards(): routers are not adjacent");
}

// Programs a unicast route for `color` along a path of adjacent routers: the
// first takes the wavelet from its PE, each next one accepts it from the
// previous router, the last hands it to its PE.
inline void routePath(ColorRouteTable& table, unsigned color, const std::vector<Coord>& path) {
  for (std::size_t i = 0; i < path.size(); ++i) {
    const PortMask accept = i == 0 ? bit(Port::Ramp) : bit(towards(path[i], path[i - 1]));
    const PortMask forward = i + 1 == path.size() ? bit(Port::Ramp) : bit(towards(path[i], path[i + 1]));
    table.set(path[i].first, path[i].second, color, accept, forward);
  }
}

// A straight or L-shaped path: along x first, then along y.
inline std::vector<Coord> xyPath(Coord from, Coord to) {
  std::vector<Coord> path{from};
  Coord c = from;
  while (c.first != to.first) {
    c.first = c.first < to.first ? c.first + 1 : c.first - 1;
    path.push_back(c);
  }
  while (c.second != to.second) {
    c.second = c.second < to.second ? c.second + 1 : c.second - 1;
    path.push_back(c);
  }
  return path;
}

// Feeds wavelets from PEs into a kernel. Each PE offers the oldest wavelet it
// still has to send every cycle until the router accepts it, so the order in
// which a PE's wavelets enter the fabric is the order they were offered.
class Driver {
 public:
  struct Accepted {
    RouterId pe;
    Wavelet wavelet;
    std::uint64_t cycle;
  };

  explicit Driver(FabricKernel& kernel, std::uint64_t start = 0) : kernel_(kernel), now_(start) {
    kernel_.setSink(&sink);
  }

  // Records link transfers (with the cycle) from now on.
  void watch(RecordingObserver& o) {
    observer_ = &o;
    kernel_.setObserver(&o);
  }

  void offer(RouterId pe, const Wavelet& w) { pending_[pe].push_back(w); }
  void dropPending() { pending_.clear(); }
  bool hasPending() const {
    for (const auto& [pe, q] : pending_)
      if (!q.empty()) return true;
    return false;
  }

  // First half of a cycle: every PE with something to send offers it.
  void offerAll() {
    for (auto& [pe, q] : pending_) {
      if (q.empty()) continue;
      if (kernel_.inject(pe, q.front(), now_)) {
        accepted.push_back({pe, q.front(), now_});
        q.pop_front();
      } else {
        ++refusals;
      }
    }
  }

  // Second half: the fabric steps once; then the clock advances.
  void step() {
    if (observer_) observer_->now = now_;
    kernel_.step(now_);
    ++now_;
  }

  void cycle() {
    offerAll();
    step();
  }

  // Runs until every offered wavelet is accepted and delivered; fails the
  // test (instead of hanging) if that takes more than `maxCycles`.
  void drain(std::uint64_t maxCycles) {
    const std::uint64_t limit = now_ + maxCycles;
    while ((hasPending() || !kernel_.idle()) && now_ < limit) cycle();
    ASSERT_FALSE(hasPending() || !kernel_.idle()) << "fabric did not drain within " << maxCycles << " cycles";
  }

  std::uint64_t now() const { return now_; }

  RecordingSink sink;
  std::vector<Accepted> accepted;
  std::uint64_t refusals = 0;

 private:
  FabricKernel& kernel_;
  RecordingObserver* observer_ = nullptr;
  std::uint64_t now_;
  std::map<RouterId, std::deque<Wavelet>> pending_;  // ordered: deterministic offer order
};

}  // namespace wsesim::fabric::testsupport
