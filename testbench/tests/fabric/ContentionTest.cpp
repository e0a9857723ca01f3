// The kernel under contention: per-color ordering, round-robin over
// (input, color) pairs, and independence of colors sharing a link
// (ArbitrationPoliciesTest.cpp has conservation and exactly-once delivery
// under saturation for every arbitration policy, and sets the policies
// against each other). Randomised tests use a fixed-seed std::mt19937 (its
// output sequence is fixed by the standard) and plain modulo, so they are
// identical on every platform.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using namespace testsupport;

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
