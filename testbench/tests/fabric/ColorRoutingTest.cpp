// The kernel in color mode: static per-color routes, multicast, and the
// errors raised for misprogrammed routes. Expected numbers follow from the
// timing rules (inject at t -> ready at t + R; forward at u -> ready at the
// next router at u + H; RAMP delivery at v -> arrival v + R) and are derived
// in the comments.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using namespace testsupport;

struct ColorLatencyCase {
  std::vector<Coord> path;
  unsigned color;
  unsigned hop, ramp;
  std::uint64_t injectAt;
  std::uint64_t arrivalAt;  // by hand: injectAt + hops * hop + 2 * ramp
};

TEST(ColorRouting, ZeroLoadLatencyTable) {
  const ColorLatencyCase cases[] = {
      // East 3 then south 2 = 5 hops: 0 + 5*1 + 2*2 = 9.
      {xyPath({1, 1}, {4, 3}), 5, 1, 2, 0, 9},
      // West 3 then north 4 = 7 hops, highest color of 32: 20 + 7*2 + 2*1 = 36.
      {xyPath({5, 4}, {2, 0}), 31, 2, 1, 20, 36},
      // A route that takes from the RAMP and gives back to it: 0 hops: 4 + 0 + 2*2 = 8.
      {{{3, 2}}, 0, 3, 2, 4, 8},
      // Corner to corner, 5 + 4 = 9 hops: 1 + 9*4 + 2*3 = 43.
      {xyPath({0, 0}, {5, 4}), 17, 4, 3, 1, 43},
  };
  for (const ColorLatencyCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "color " << c.color << ", " << c.path.size() - 1 << " hops, hop "
                                      << c.hop << " ramp " << c.ramp);
    const FabricParams p = makeParams(routingMode<ColorRouting>(), 6, 5, c.hop, c.ramp, 2, 32);
    ColorRouteTable routes(p.mesh, p.colors);
    routePath(routes, c.color, c.path);
    FabricKernel fabric(p, &routes);
    RecordingSink sink;
    fabric.setSink(&sink);
    const Coord src = c.path.front(), dst = c.path.back();
    ASSERT_TRUE(fabric.inject(p.mesh.id(src.first, src.second), makeWavelet(c.color, 77), c.injectAt));
    for (std::uint64_t t = c.injectAt; !fabric.idle() && t < c.arrivalAt + 10; ++t) fabric.step(t);
    ASSERT_TRUE(fabric.idle());
    ASSERT_EQ(sink.arrivals.size(), 1u);
    EXPECT_EQ(sink.arrivals[0].cycle, c.arrivalAt);
    EXPECT_EQ(sink.arrivals[0].at, p.mesh.id(dst.first, dst.second));
    EXPECT_EQ(sink.arrivals[0].wavelet.payload, 77u);
    EXPECT_EQ(sink.arrivals[0].wavelet.color, c.color);
    EXPECT_EQ(fabric.counters().hops, c.path.size() - 1);
  }
}

// Row broadcast on a 6x1 mesh from the PE at x = 2 with color 3:
//   (2,0): from RAMP to {W, E, RAMP}   (fork; the sender gets its copy too)
//   (3,0), (4,0): from W to {E, RAMP}; (5,0): from W to {RAMP}
//   (1,0): from E to {W, RAMP};        (0,0): from E to {RAMP}
// Depth max(H, R) + 1 lets the RAMP queue accept and every link carry one
// wavelet per cycle (see FabricKernelTest), and each output serves a single
// stream, so nothing waits: wavelet k, injected at k, is forwarded by the
// source at k + R, reaches the router |x - 2| hops away at k + R + |x-2|*H,
// which copies it to its PE and onwards in that cycle; the PE has it at
//   k + 2R + |x - 2| * H.
TEST(ColorRouting, RowMulticastDeliversEveryWaveletToEveryPeOnceAtHandDerivedCycles) {
  struct Latencies {
    unsigned hop, ramp;
  };
  for (const Latencies lat : {Latencies{1, 2}, Latencies{2, 1}, Latencies{3, 3}}) {
    SCOPED_TRACE(::testing::Message() << "hop " << lat.hop << " ramp " << lat.ramp);
    const unsigned depth = std::max(lat.hop, lat.ramp) + 1;
    const FabricParams p = makeParams(routingMode<ColorRouting>(), 6, 1, lat.hop, lat.ramp, depth);
    const unsigned color = 3;
    ColorRouteTable routes(p.mesh, p.colors);
    routes.set(2, 0, color, bit(Port::Ramp), bit(Port::West) | bit(Port::East) | bit(Port::Ramp));
    routes.set(3, 0, color, bit(Port::West), bit(Port::East) | bit(Port::Ramp));
    routes.set(4, 0, color, bit(Port::West), bit(Port::East) | bit(Port::Ramp));
    routes.set(5, 0, color, bit(Port::West), bit(Port::Ramp));
    routes.set(1, 0, color, bit(Port::East), bit(Port::West) | bit(Port::Ramp));
    routes.set(0, 0, color, bit(Port::East), bit(Port::Ramp));
    FabricKernel fabric(p, &routes);
    Driver driver(fabric);
    const unsigned n = 10;
    for (unsigned k = 0; k < n; ++k) driver.offer(p.mesh.id(2, 0), makeWavelet(color, 1000 + k));
    driver.drain(200);

    EXPECT_EQ(driver.refusals, 0u);
    for (std::uint32_t x = 0; x < 6; ++x) {
      SCOPED_TRACE(::testing::Message() << "PE (" << x << ",0)");
      const auto arrivals = driver.sink.at(p.mesh.id(x, 0));
      ASSERT_EQ(arrivals.size(), n);
      const unsigned distance = x >= 2 ? x - 2 : 2 - x;
      for (unsigned k = 0; k < n; ++k) {
        EXPECT_EQ(arrivals[k].wavelet.payload, 1000 + k);
        EXPECT_EQ(arrivals[k].cycle, k + 2 * lat.ramp + distance * lat.hop) << "wavelet " << k;
      }
    }
    // Each wavelet crosses each of the 5 links of the row exactly once.
    EXPECT_EQ(fabric.counters().hops, 5u * n);
    EXPECT_EQ(fabric.counters().delivered, 6u * n);
    EXPECT_EQ(fabric.counters().queued, 0u);
    for (const auto& [x, out] : std::vector<std::pair<std::uint32_t, Port>>{
             {2, Port::East}, {2, Port::West}, {3, Port::East}, {4, Port::East}, {1, Port::West}})
      EXPECT_EQ(fabric.transfers(p.mesh.id(x, 0), out), n) << "(" << x << ",0) " << portName(out);
  }
}

// A fork {W, E} whose east branch is slowed down: at (3,0) the east output
// is shared round-robin with the PE of (3,0) sending color 1 to (4,0), so the
// east branch gets at most every other cycle and backs up to the source.
// The source head must then wait with its W copy already sent until E takes
// its copy, never sending W twice: the W link can lead the E link out of the
// source by at most one wavelet, and every PE gets every wavelet once.
TEST(ColorRouting, MulticastWithStalledBranchDeliversExactlyOnce) {
  const FabricParams p = makeParams(routingMode<ColorRouting>(), 5, 1, 1, 2, 2);
  ColorRouteTable routes(p.mesh, p.colors);
  routes.set(2, 0, 0, bit(Port::Ramp), bit(Port::West) | bit(Port::East));
  routes.set(1, 0, 0, bit(Port::East), bit(Port::West) | bit(Port::Ramp));
  routes.set(0, 0, 0, bit(Port::East), bit(Port::Ramp));
  routes.set(3, 0, 0, bit(Port::West), bit(Port::East) | bit(Port::Ramp));
  routes.set(4, 0, 0, bit(Port::West), bit(Port::Ramp));
  routes.set(3, 0, 1, bit(Port::Ramp), bit(Port::East));
  routes.set(4, 0, 1, bit(Port::West), bit(Port::Ramp));
  FabricKernel fabric(p, &routes);
  Driver driver(fabric);
  const unsigned n = 40, m = 40;
  const RouterId source = p.mesh.id(2, 0);
  for (unsigned k = 0; k < n; ++k) driver.offer(source, makeWavelet(0, k));
  for (unsigned k = 0; k < m; ++k) driver.offer(p.mesh.id(3, 0), makeWavelet(1, 500 + k));

  bool westAhead = false;
  while ((driver.hasPending() || !fabric.idle()) && driver.now() < 1000) {
    driver.cycle();
    const long lead = long(fabric.transfers(source, Port::West)) - long(fabric.transfers(source, Port::East));
    ASSERT_GE(lead, 0) << "cycle " << driver.now() - 1;
    ASSERT_LE(lead, 1) << "cycle " << driver.now() - 1 << ": W copies sent ahead of the held head";
    westAhead |= lead == 1;
  }
  ASSERT_TRUE(fabric.idle());
  EXPECT_TRUE(westAhead) << "the east branch never stalled: the test did not exercise a partial multicast";

  for (std::uint32_t x : {0u, 1u, 3u, 4u}) {
    std::vector<std::uint32_t> color0;
    for (const Arrival& a : driver.sink.at(p.mesh.id(x, 0)))
      if (a.wavelet.color == 0) color0.push_back(a.wavelet.payload);
    ASSERT_EQ(color0.size(), n) << "PE (" << x << ",0)";
    for (unsigned k = 0; k < n; ++k) EXPECT_EQ(color0[k], k) << "PE (" << x << ",0)";
  }
  EXPECT_TRUE(driver.sink.at(source).empty());  // the fork sends nothing to its own PE
  std::vector<std::uint32_t> color1;
  for (const Arrival& a : driver.sink.at(p.mesh.id(4, 0)))
    if (a.wavelet.color == 1) color1.push_back(a.wavelet.payload);
  ASSERT_EQ(color1.size(), m);
  for (unsigned k = 0; k < m; ++k) EXPECT_EQ(color1[k], 500 + k);

  EXPECT_EQ(fabric.transfers(source, Port::West), n);
  EXPECT_EQ(fabric.transfers(source, Port::East), n);
  EXPECT_EQ(fabric.transfers(p.mesh.id(1, 0), Port::West), n);
  EXPECT_EQ(fabric.transfers(p.mesh.id(3, 0), Port::East), n + m);
  // Links: (2,0)E n + (2,0)W n + (1,0)W n + (3,0)E n + m; deliveries: 4 PEs x n + m.
  EXPECT_EQ(fabric.counters().hops, 4u * n + m);
  EXPECT_EQ(fabric.counters().delivered, 4u * n + m);
}

// 3x2 mesh, color 2 goes (0,0) -> E -> (1,0); the route at (1,0) is wrong.
// Injected at 0 with R = 2, the wavelet leaves (0,0) in step(2), and the
// arrival check at (1,0) fires right there.
void expectMisrouteAtStep2(PortMask acceptAt10, PortMask forwardAt10, const std::string& why) {
  const FabricParams p = makeParams(routingMode<ColorRouting>(), 3, 2, 1, 2, 2);
  ColorRouteTable routes(p.mesh, p.colors);
  routes.set(0, 0, 2, bit(Port::Ramp), bit(Port::East));
  if (acceptAt10 | forwardAt10) routes.set(1, 0, 2, acceptAt10, forwardAt10);
  FabricKernel fabric(p, &routes);
  ASSERT_TRUE(fabric.inject(p.mesh.id(0, 0), makeWavelet(2, 0), 0));
  fabric.step(0);
  fabric.step(1);
  try {
    fabric.step(2);
    FAIL() << "no FabricError for a wavelet its route does not accept";
  } catch (const DeadlockError& e) {
    FAIL() << "misroute reported as deadlock: " << e.what();
  } catch (const FabricError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("router (1,0)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("color 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("input W"), std::string::npos) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << msg;
  }
}

TEST(ColorRouting, WaveletOnPortItsRouteDoesNotAcceptThrowsFabricError) {
  expectMisrouteAtStep2(bit(Port::South), bit(Port::Ramp), "accepts only {S}");
}

TEST(ColorRouting, WaveletWithoutAnyRouteThrowsFabricError) {
  expectMisrouteAtStep2(0, 0, "accepts only {}");
}

TEST(ColorRouting, RouteThatForwardsNowhereThrowsFabricError) {
  expectMisrouteAtStep2(bit(Port::West), 0, "forwards nowhere");
}

TEST(ColorRouting, InjectThrowsWhenRouteDoesNotAcceptFromRamp) {
  const FabricParams p = makeParams(routingMode<ColorRouting>(), 3, 1, 1, 2, 2);
  ColorRouteTable routes(p.mesh, p.colors);
  routes.set(0, 0, 2, bit(Port::East), bit(Port::Ramp));
  FabricKernel fabric(p, &routes);
  try {
    fabric.inject(p.mesh.id(0, 0), makeWavelet(2, 0), 0);
    FAIL() << "no FabricError";
  } catch (const FabricError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("router (0,0)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("color 2"), std::string::npos) << msg;
    EXPECT_NE(msg.find("input RAMP"), std::string::npos) << msg;
  }
  EXPECT_EQ(fabric.counters().injected, 0u);
  EXPECT_TRUE(fabric.idle());
}

TEST(ColorRouting, RouteTableRejectsRoutesOutsideTheMeshOrTheColorRange) {
  ColorRouteTable routes(MeshGeometry{4, 3}, 4);
  routes.set(0, 0, 3, bit(Port::North), bit(Port::East));  // accepting at the edge is how the I/O enters
  routes.set(1, 2, 3, bit(Port::Ramp), bit(Port::South));  // forwarding off the edge, how it leaves
  EXPECT_THROW(routes.set(4, 0, 0, bit(Port::Ramp), bit(Port::Ramp)), FabricError);   // x outside
  EXPECT_THROW(routes.set(1, 1, 4, bit(Port::Ramp), bit(Port::Ramp)), FabricError);   // color 4 of 0..3
  EXPECT_EQ(routes.colorsInUse(), 1u << 3);
  routes.set(1, 1, 2, bit(Port::North) | bit(Port::Ramp), bit(Port::West) | bit(Port::South));
  EXPECT_EQ(routes.at(MeshGeometry{4, 3}.id(1, 1), 2).forward, bit(Port::West) | bit(Port::South));
  EXPECT_EQ(routes.colorsInUse(), (1u << 2) | (1u << 3));
}

}  // namespace
}  // namespace wsesim::fabric
