// The kernel under contention: conservation and exactly-once delivery under
// saturation, per-color ordering, round-robin arbitration, and independence
// of colors sharing a link. Randomised tests use a fixed-seed std::mt19937
// (its output sequence is fixed by the standard) and plain modulo, so they
// are identical on every platform.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using namespace testsupport;

// Programs, for every color, a tree that converges on the hotspot: a router
// off the hotspot's row sends north/south towards that row, a router on it
// sends east/west towards the hotspot, the hotspot hands to its PE. Every
// router accepts from its own PE and from the neighbours whose next hop it is.
void routeTreeTo(ColorRouteTable& table, Coord hotspot) {
  const MeshGeometry& mesh = table.mesh();
  auto nextHop = [&](std::uint32_t x, std::uint32_t y) {
    if (y != hotspot.second) return y < hotspot.second ? Port::South : Port::North;
    if (x != hotspot.first) return x < hotspot.first ? Port::East : Port::West;
    return Port::Ramp;
  };
  for (unsigned color = 0; color < table.colors(); ++color) {
    for (std::uint32_t y = 0; y < mesh.height; ++y) {
      for (std::uint32_t x = 0; x < mesh.width; ++x) {
        PortMask accept = bit(Port::Ramp);
        const RouterId r = mesh.id(x, y);
        for (Port p : {Port::North, Port::East, Port::South, Port::West}) {
          const RouterId n = mesh.neighbour(r, p);
          if (n != kNoRouter && nextHop(mesh.xOf(n), mesh.yOf(n)) == opposite(p)) accept |= bit(p);
        }
        table.set(x, y, color, accept, bit(nextHop(x, y)));
      }
    }
  }
}

// 35 PEs of a 6x6 mesh send to the PE at (3,2), each offering a new wavelet
// with probability 3/10 per cycle for 300 cycles: ~10 offers per cycle into a
// sink that takes one per cycle, so queues fill and most offers are refused
// (the PE keeps retrying its oldest wavelet). Unicast conserves wavelets:
// at every point, accepted = delivered + queued, and the queued count is what
// the queues hold. After draining, every wavelet has arrived exactly once,
// unmodified, no sooner than its zero-load latency, and per (source, color)
// in the order it was injected.
void expectConservationUnderHotspot(RoutingMode mode) {
  const FabricParams p = makeParams(mode, 6, 6, 1, 2, 3);
  const Coord hotspot{3, 2};
  const RouterId sinkPe = p.mesh.id(hotspot.first, hotspot.second);
  ColorRouteTable routes(p.mesh, p.colors);
  routeTreeTo(routes, hotspot);
  FabricKernel fabric(p, &routes);
  Driver driver(fabric);
  std::mt19937 rng(12345);

  auto checkConservation = [&](const char* when) {
    const FabricCounters& c = fabric.counters();
    ASSERT_EQ(c.injected, c.delivered + c.queued) << when << " cycle " << driver.now();
    ASSERT_EQ(c.injected, driver.accepted.size()) << when << " cycle " << driver.now();
    ASSERT_EQ(c.delivered, driver.sink.arrivals.size()) << when << " cycle " << driver.now();
    std::uint64_t held = 0;
    for (RouterId r = 0; r < p.mesh.routers(); ++r)
      for (unsigned in = 0; in < kPortCount; ++in) held += fabric.occupancy(r, Port(in));
    ASSERT_EQ(held, c.queued) << when << " cycle " << driver.now();
  };

  std::uint32_t nextId = 0;
  while (driver.now() < 300) {
    for (RouterId r = 0; r < p.mesh.routers(); ++r) {
      if (r == sinkPe || rng() % 10 >= 3) continue;
      Wavelet w = makeWavelet(rng() % p.colors, nextId++, hotspot.first, hotspot.second);
      w.control = rng() % 2;  // carried untouched, like every field
      w.last = rng() % 2;
      driver.offer(r, w);
    }
    driver.offerAll();
    checkConservation("after offers");
    driver.step();
    checkConservation("after step");
  }
  while ((driver.hasPending() || !fabric.idle()) && driver.now() < 20000) {
    driver.cycle();
    checkConservation("draining");
  }
  ASSERT_TRUE(fabric.idle());
  ASSERT_FALSE(driver.hasPending());
  EXPECT_GT(driver.refusals, 1000u) << "not saturated: backpressure was not exercised";

  // Exactly once, unmodified, at the hotspot.
  ASSERT_EQ(driver.accepted.size(), nextId);
  ASSERT_EQ(driver.sink.arrivals.size(), nextId);
  std::vector<int> seen(nextId, 0);
  std::vector<const Driver::Accepted*> byId(nextId, nullptr);
  for (const auto& a : driver.accepted) byId[a.wavelet.payload] = &a;
  std::uint64_t previousArrival = 0;
  std::map<std::pair<RouterId, unsigned>, std::uint32_t> lastIdPerSourceColor;
  for (const Arrival& a : driver.sink.arrivals) {
    const std::uint32_t id = a.wavelet.payload;
    ASSERT_LT(id, nextId);
    ASSERT_EQ(++seen[id], 1) << "wavelet " << id << " delivered twice";
    const Driver::Accepted& src = *byId[id];
    EXPECT_EQ(a.at, sinkPe);
    EXPECT_EQ(a.wavelet.color, src.wavelet.color);
    EXPECT_EQ(a.wavelet.control, src.wavelet.control);
    EXPECT_EQ(a.wavelet.last, src.wavelet.last);
    EXPECT_EQ(a.wavelet.destX, src.wavelet.destX);
    EXPECT_EQ(a.wavelet.destY, src.wavelet.destY);
    // Zero-load latency from the source: hops * 1 + 2 * 2.
    const unsigned hops = unsigned(std::abs(int(p.mesh.xOf(src.pe)) - int(hotspot.first)) +
                                   std::abs(int(p.mesh.yOf(src.pe)) - int(hotspot.second)));
    EXPECT_GE(a.cycle, src.cycle + hops + 4) << "wavelet " << id;
    // The hotspot's RAMP output hands over one wavelet per cycle.
    EXPECT_GT(a.cycle, previousArrival) << "two deliveries in one cycle at the hotspot";
    previousArrival = a.cycle;
    // A PE's wavelets of one color follow one path through FIFO queues.
    // Ids grow with offer order, and a PE's offers are accepted in order.
    const auto key = std::make_pair(src.pe, unsigned(src.wavelet.color));
    auto [it, first] = lastIdPerSourceColor.emplace(key, id);
    if (!first) {
      EXPECT_GT(id, it->second) << "source " << p.mesh.name(src.pe) << " color " << key.second << " reordered";
      it->second = id;
    }
  }
}

TEST(Contention, HotspotConservesWaveletsAndDeliversEachOnceXy) { expectConservationUnderHotspot(routingMode<XyRouting>()); }
TEST(Contention, HotspotConservesWaveletsAndDeliversEachOnceColorTree) {
  expectConservationUnderHotspot(routingMode<ColorRouting>());
}

// XY mode, every PE of a 4x4 mesh sends to random destinations among three,
// on random colors: per (source, destination, color) the path and the queues
// along it are fixed, so those wavelets arrive in injection order, whatever
// the other colors and sources contending for the same links do.
TEST(Contention, PerColorOrderFromEachSourceIsKeptXy) {
  const FabricParams p = makeParams(routingMode<XyRouting>(), 4, 4, 1, 1, 2);
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  std::mt19937 rng(777);
  const Coord dests[] = {{0, 0}, {3, 3}, {1, 2}};
  std::uint32_t nextId = 0;
  while (driver.now() < 400) {
    for (RouterId r = 0; r < p.mesh.routers(); ++r) {
      if (rng() % 2) continue;
      const Coord d = dests[rng() % 3];
      driver.offer(r, makeWavelet(rng() % p.colors, nextId++, d.first, d.second));
    }
    driver.cycle();
  }
  driver.drain(20000);
  ASSERT_EQ(driver.sink.arrivals.size(), nextId);
  EXPECT_GT(driver.refusals, 0u);

  std::vector<RouterId> sourceOf(nextId);
  for (const auto& a : driver.accepted) sourceOf[a.wavelet.payload] = a.pe;
  std::map<std::tuple<RouterId, RouterId, unsigned>, std::uint32_t> lastId;
  std::vector<int> seen(nextId, 0);
  for (const Arrival& a : driver.sink.arrivals) {
    const std::uint32_t id = a.wavelet.payload;
    ASSERT_EQ(++seen[id], 1) << "wavelet " << id << " delivered twice";
    EXPECT_EQ(a.at, p.mesh.id(a.wavelet.destX, a.wavelet.destY));
    const auto key = std::make_tuple(sourceOf[id], a.at, unsigned(a.wavelet.color));
    auto [it, first] = lastId.emplace(key, id);
    if (!first) {
      EXPECT_GT(id, it->second) << "reordered: source " << p.mesh.name(sourceOf[id]) << " to " << p.mesh.name(a.at)
                                << " color " << unsigned(a.wavelet.color);
      it->second = id;
    }
  }
}

// Color mode on a 4x1 row: PEs 0, 1 and 2 send random colors 0..2, every
// color routed east to the PE at (3,0) (routers 1 and 2 merge their own PE
// with the traffic from the west). Per (source, color) order must hold.
TEST(Contention, PerColorOrderFromEachSourceIsKeptColor) {
  const FabricParams p = makeParams(routingMode<ColorRouting>(), 4, 1, 1, 2, 3);
  ColorRouteTable routes(p.mesh, p.colors);
  for (unsigned c = 0; c < 3; ++c) {
    routes.set(0, 0, c, bit(Port::Ramp), bit(Port::East));
    routes.set(1, 0, c, bit(Port::West) | bit(Port::Ramp), bit(Port::East));
    routes.set(2, 0, c, bit(Port::West) | bit(Port::Ramp), bit(Port::East));
    routes.set(3, 0, c, bit(Port::West), bit(Port::Ramp));
  }
  FabricKernel fabric(p, &routes);
  Driver driver(fabric);
  std::mt19937 rng(4242);
  std::uint32_t nextId = 0;
  while (driver.now() < 300) {
    for (std::uint32_t x = 0; x < 3; ++x)
      if (rng() % 3 != 0) driver.offer(p.mesh.id(x, 0), makeWavelet(rng() % 3, nextId++));
    driver.cycle();
  }
  driver.drain(5000);
  ASSERT_EQ(driver.sink.arrivals.size(), nextId);
  EXPECT_GT(driver.refusals, 0u);

  std::vector<RouterId> sourceOf(nextId);
  for (const auto& a : driver.accepted) sourceOf[a.wavelet.payload] = a.pe;
  std::map<std::pair<RouterId, unsigned>, std::uint32_t> lastId;
  std::vector<int> seen(nextId, 0);
  for (const Arrival& a : driver.sink.arrivals) {
    const std::uint32_t id = a.wavelet.payload;
    ASSERT_EQ(++seen[id], 1);
    EXPECT_EQ(a.at, p.mesh.id(3, 0));
    auto [it, first] = lastId.emplace(std::make_pair(sourceOf[id], unsigned(a.wavelet.color)), id);
    if (!first) {
      EXPECT_GT(id, it->second) << "source x=" << sourceOf[id] << " color " << unsigned(a.wavelet.color);
      it->second = id;
    }
  }
  // Every (source, color) stream was actually exercised.
  EXPECT_EQ(lastId.size(), 9u);
}

// Two inputs contend for one output: XY, 3x1, H = 1, R = 1, depth 4.
// A = PE (0,0) and B = PE (1,0) each send 10 wavelets to (2,0), offered from
// cycle 0. Router (1,0)'s east output is wanted by its W input (A's) and its
// RAMP input (B's).
//   cycle 1: only b0 is ready (injected 0, R = 1); a0 is still at (0,0)
//            (ready there at 1, forwarded at 1, ready at (1,0) at 2). The
//            initial round-robin position is "after RAMP", and only RAMP
//            asks: b0.
//   cycle 2: a0 and b1 ready; the search starts after the last grant (RAMP)
//            and goes N, E, S, W: a0.
//   cycle 3: after W comes RAMP: b1. And so on, alternating, both inputs
//            staying backlogged (each source offers one per cycle, gets one
//            per two).
// So (1,0) sends b_k east at 2k + 1 and a_k at 2k + 2; (2,0) gets each one
// cycle later (H = 1) and delivers it at once (one per cycle arrives), so the
// PE sees b_k at 2k + 3 and a_k at 2k + 4: cycles 3..22 alternate B, A.
TEST(Contention, RoundRobinAlternatesBetweenTwoInputs) {
  const FabricParams p = makeParams(routingMode<XyRouting>(), 3, 1, 1, 1, 4);
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  RecordingObserver observer;
  driver.watch(observer);
  const RouterId a = p.mesh.id(0, 0), b = p.mesh.id(1, 0), dst = p.mesh.id(2, 0);
  const unsigned n = 10;
  for (unsigned k = 0; k < n; ++k) {
    driver.offer(a, makeWavelet(0, 100 + k, 2, 0));
    driver.offer(b, makeWavelet(0, 200 + k, 2, 0));
  }
  driver.drain(200);

  const auto grants = observer.from(b, Port::East);
  ASSERT_EQ(grants.size(), 2 * n);
  for (unsigned i = 0; i < 2 * n; ++i) EXPECT_EQ(grants[i].cycle, i + 1u) << "grant " << i;

  const auto arrivals = driver.sink.at(dst);
  ASSERT_EQ(arrivals.size(), 2 * n);
  for (unsigned k = 0; k < n; ++k) {
    EXPECT_EQ(arrivals[2 * k].wavelet.payload, 200 + k);  // b_k
    EXPECT_EQ(arrivals[2 * k].cycle, 2 * k + 3);
    EXPECT_EQ(arrivals[2 * k + 1].wavelet.payload, 100 + k);  // a_k
    EXPECT_EQ(arrivals[2 * k + 1].cycle, 2 * k + 4);
  }
}

// Round-robin runs over (input, color) pairs, input-major, starting after the
// last grant. Router (1,0)'s east output, XY 3x1: its W input holds colors c1
// and c3 from PE (0,0) (which alternates them), its RAMP input color c2 from
// PE (1,0). Once all three are backlogged (each pair gets 1/3 of the link,
// while each is supplied at 1/2 or 1), the search order gives
//   after (W,c1): W's next higher requesting color -> (W,c3)
//   after (W,c3): no higher color on W; next input RAMP -> (RAMP,c2)
//   after (RAMP,c2): none higher on RAMP; N, E, S, then W's lowest -> (W,c1)
// so the link carries c1, c3, c2, c1, c3, c2, ... The second case puts the
// colors at the top of a 32-color fabric (29, 31, 30) to cover the wrap at 31.
void expectRoundRobinOverInputColorPairs(unsigned c1, unsigned c2, unsigned c3) {
  const FabricParams p = makeParams(routingMode<XyRouting>(), 3, 1, 1, 1, 4, 32);
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  RecordingObserver observer;
  driver.watch(observer);
  const RouterId a = p.mesh.id(0, 0), b = p.mesh.id(1, 0);
  const unsigned n = 60;
  for (unsigned k = 0; k < n; ++k) {
    driver.offer(a, makeWavelet(c1, k, 2, 0));
    driver.offer(a, makeWavelet(c3, k, 2, 0));
    driver.offer(b, makeWavelet(c2, k, 2, 0));
  }
  driver.drain(1000);
  ASSERT_EQ(driver.sink.arrivals.size(), 3 * n);

  const auto grants = observer.from(b, Port::East);
  ASSERT_EQ(grants.size(), 3 * n);
  auto next = [&](unsigned c) { return c == c1 ? c3 : c == c3 ? c2 : c1; };
  // Skip the warm-up (queues still filling) and the tail (sources running dry).
  for (std::size_t i = 30; i < 150; ++i) {
    EXPECT_EQ(grants[i + 1].color, next(grants[i].color)) << "grant " << i + 1;
    EXPECT_EQ(grants[i + 1].cycle, grants[i].cycle + 1) << "link idle while backlogged, grant " << i + 1;
  }
}

TEST(Contention, RoundRobinCyclesThroughInputColorPairs) { expectRoundRobinOverInputColorPairs(0, 1, 2); }
TEST(Contention, RoundRobinCyclesThroughInputColorPairsAtColor31) {
  expectRoundRobinOverInputColorPairs(29, 30, 31);
}

// Color 0 is jammed in a full 2x2 loop; color 1 crosses two of the loop's
// links and must still flow at full rate. H = 1, R = 2, depth 3.
//   color 0: (0,0) from {RAMP, S} to E; (1,0) W->S; (1,1) N->W; (0,1) E->N
//   color 1: (0,0) RAMP->E;             (1,0) W->S; (1,1) N->RAMP
// Phase 1 (cycles 0..99): PE (0,0) offers color 0 until the four loop
// queues and its RAMP queue are full: 4*3 + 3 = 15 wavelets, none can ever
// move again (each head waits for a full queue).
// Phase 2 (from T = 100): 20 color-1 wavelets. The color-0 heads never ask
// for an output (their downstream queues are full), so color 1 has every
// output to itself: injected at T + k (RAMP depth 3 = R + 1), forwarded by
// (0,0) at T+k+2 and by (1,0) at T+k+3, delivered at (1,1) at T+k+4,
// arriving at T + k + 6.
TEST(Contention, JammedColorDoesNotBlockAnotherColorOnTheSameLinks) {
  FabricParams p = makeParams(routingMode<ColorRouting>(), 2, 2, 1, 2, 3);
  p.watchdogCycles = 1000;
  ColorRouteTable routes(p.mesh, p.colors);
  routes.set(0, 0, 0, bit(Port::Ramp) | bit(Port::South), bit(Port::East));
  routes.set(1, 0, 0, bit(Port::West), bit(Port::South));
  routes.set(1, 1, 0, bit(Port::North), bit(Port::West));
  routes.set(0, 1, 0, bit(Port::East), bit(Port::North));
  routePath(routes, 1, {{0, 0}, {1, 0}, {1, 1}});
  FabricKernel fabric(p, &routes);
  Driver driver(fabric);
  const RouterId r00 = p.mesh.id(0, 0), r10 = p.mesh.id(1, 0), r11 = p.mesh.id(1, 1), r01 = p.mesh.id(0, 1);

  for (unsigned k = 0; k < 100; ++k) driver.offer(r00, makeWavelet(0, k));
  while (driver.now() < 100) driver.cycle();
  driver.dropPending();
  ASSERT_EQ(fabric.counters().injected, 15u);
  ASSERT_EQ(fabric.counters().queued, 15u);
  ASSERT_EQ(fabric.counters().delivered, 0u);
  const std::pair<RouterId, Port> loopQueues[] = {
      {r10, Port::West}, {r11, Port::North}, {r01, Port::East}, {r00, Port::South}, {r00, Port::Ramp}};
  for (const auto& [r, in] : loopQueues) ASSERT_EQ(fabric.occupancy(r, in), 3u) << p.mesh.name(r);
  const std::uint32_t stuckNorth = fabric.transfers(r01, Port::North);
  const std::uint32_t stuckWest = fabric.transfers(r11, Port::West);

  const std::uint64_t t0 = driver.now();
  ASSERT_EQ(t0, 100u);
  const unsigned n = 20;
  for (unsigned k = 0; k < n; ++k) driver.offer(r00, makeWavelet(1, 1000 + k));
  while (driver.now() < t0 + 40) driver.cycle();

  const auto arrivals = driver.sink.at(r11);
  ASSERT_EQ(arrivals.size(), n);
  for (unsigned k = 0; k < n; ++k) {
    EXPECT_EQ(arrivals[k].wavelet.payload, 1000 + k);
    EXPECT_EQ(arrivals[k].cycle, t0 + k + 6) << "wavelet " << k;
  }
  // Color 0 did not move: same occupancy, no transfer on its private links.
  for (const auto& [r, in] : loopQueues) EXPECT_EQ(fabric.occupancy(r, in), 3u) << p.mesh.name(r);
  EXPECT_EQ(fabric.transfers(r01, Port::North), stuckNorth);
  EXPECT_EQ(fabric.transfers(r11, Port::West), stuckWest);
  EXPECT_EQ(fabric.counters().queued, 15u);
}

}  // namespace
}  // namespace wsesim::fabric
