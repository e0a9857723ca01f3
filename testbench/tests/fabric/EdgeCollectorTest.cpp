// Wavelets leaving the mesh through an edge port into the I/O ring: routes
// may forward off the mesh, the collector takes them at the outbound
// bandwidth of the row's ring feed, in order, holding the rest back without
// loss; there are no ring channels on the North and South edges.
#include <gtest/gtest.h>

#include "hw/wafer/EdgeCollector.h"
#include "testbench/tests/fabric/FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using testsupport::Driver;
using testsupport::makeParams;
using testsupport::makeWavelet;

// Color 1 runs from the PE at (0, 0) east through (1, 0) and off the
// mesh's East edge into the ring. Hop 1, ramp 2, queues of 4; one channel
// per edge, so every row shares one feed.
struct EgressBench {
  FabricParams params = makeParams(routingMode<ColorRouting>(), 2, 3, 1, 2, 4);
  ColorRouteTable routes{params.mesh, params.colors};
  FabricKernel kernel{params, &routes};
  Driver driver{kernel};
  RouterId source = params.mesh.id(0, 0), edge = params.mesh.id(1, 0);

  EgressBench() {
    routes.set(0, 0, 1, bit(Port::Ramp), bit(Port::East));
    routes.set(1, 0, 1, bit(Port::West), bit(Port::East));
  }
  wafer::IoRingEdge ring(double rate) const { return wafer::IoRingEdge(params.mesh.height, 1, rate); }
  void offer(unsigned count) {
    for (unsigned i = 0; i < count; ++i) driver.offer(source, makeWavelet(1, 100 + i));
  }
};

// Wavelet i enters the RAMP in cycle i, is ready at its router after the
// ramp (i + 2), crosses to (1, 0) (ready at i + 3) and leaves the mesh a hop
// later: it arrives outside at i + 4.
TEST(EdgeCollector, WaveletsLeaveThroughTheEdgeInOrder) {
  EgressBench b;
  wafer::EdgeCollector out(b.ring(1.0), b.params.mesh, true);
  b.kernel.setEdgeSink(&out);
  b.offer(3);
  b.driver.drain(100);
  EXPECT_EQ(out.payloads(b.edge, Port::East), (std::vector<std::uint32_t>{100, 101, 102}));
  EXPECT_EQ(out.lastArrival(), 2u + 4);
  EXPECT_EQ(b.kernel.counters().toEdge, 3u);
  EXPECT_EQ(b.kernel.counters().hops, 3u);  // the exit is not a hop between routers
  EXPECT_TRUE(b.driver.sink.arrivals.empty());
}

// A quarter wavelet per cycle: the first is at the edge in cycle 3, when a
// quarter of a wavelet's bandwidth has accrued; it leaves in cycle 6 and
// one more every 4 cycles. The rest wait in the queues (depth 4), so the
// PE is refused, and nothing is lost.
TEST(EdgeCollector, OutboundBandwidthHoldsWaveletsBack) {
  EgressBench b;
  wafer::EdgeCollector out(b.ring(0.25), b.params.mesh, true);
  b.kernel.setEdgeSink(&out);
  b.offer(12);
  b.driver.drain(1000);
  const std::vector<std::uint32_t>& got = out.payloads(b.edge, Port::East);
  ASSERT_EQ(got.size(), 12u);
  for (std::uint32_t i = 0; i < 12; ++i) EXPECT_EQ(got[i], 100 + i);
  EXPECT_EQ(out.lastArrival(), 6u + 4 * 11 + 1);
  EXPECT_GT(b.driver.refusals, 0u);
}

// A new GEMM's results leave on the ring's bandwidth afresh (GemmSequence
// restarts the egress per GEMM, so a GEMM's cycles do not depend on the one
// before it): after restart() the collector accepts as a new one does, not
// with the credit its feed saved up while idle.
TEST(EdgeCollector, RestartGivesTheBandwidthAfresh) {
  EgressBench b;
  wafer::EdgeCollector used(b.ring(0.25), b.params.mesh, false), fresh(b.ring(0.25), b.params.mesh, false);
  const std::uint64_t first = used.firstAcceptingCycle(0, b.edge, Port::East);
  EXPECT_EQ(first, 3u);  // a quarter of a wavelet a cycle, from one cycle's worth
  used.leave(b.edge, Port::East, makeWavelet(1, 7), first + 1);
  EXPECT_EQ(used.firstAcceptingCycle(1000, b.edge, Port::East), 1000u);  // idle since: a whole wavelet saved
  used.restart();
  EXPECT_EQ(used.firstAcceptingCycle(1000, b.edge, Port::East), 1003u);
  EXPECT_EQ(fresh.firstAcceptingCycle(1000, b.edge, Port::East), 1003u);
}

// A ring far slower than the watchdog: at 1/1024 wavelet per cycle the
// wavelet at the edge in cycle 3 has its bandwidth in cycle 3 + 1023 and
// arrives outside a hop later. Waiting for the ring is not a deadlock, even
// with a watchdog of 50 cycles and nothing else moving meanwhile.
TEST(EdgeCollector, WaitingForTheRingIsNotADeadlock) {
  EgressBench b;
  b.params.watchdogCycles = 50;
  FabricKernel kernel{b.params, &b.routes};
  Driver driver{kernel};
  wafer::EdgeCollector out(b.ring(1.0 / 1024), b.params.mesh, true);
  kernel.setEdgeSink(&out);
  driver.offer(b.source, makeWavelet(1, 7));
  EXPECT_NO_THROW(driver.drain(2000));
  EXPECT_EQ(out.payloads(b.edge, Port::East), std::vector<std::uint32_t>{7});
  EXPECT_EQ(out.lastArrival(), 3u + 1023 + 1);
}

TEST(EdgeCollector, TimingModeCountsWithoutPayloads) {
  EgressBench b;
  wafer::EdgeCollector out(b.ring(1.0), b.params.mesh, false);
  b.kernel.setEdgeSink(&out);
  b.offer(5);
  b.driver.drain(100);
  EXPECT_EQ(out.received(), 5u);
  EXPECT_TRUE(out.payloads(b.edge, Port::East).empty());
}

TEST(EdgeCollector, LeavingWithoutACollectorNamesTheRouterAndEdge) {
  EgressBench b;
  b.offer(1);
  try {
    b.driver.drain(100);
    ADD_FAILURE() << "expected a FabricError";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("(1,0)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("edge port E"), std::string::npos) << e.what();
  }
}

// Two rows leaving East, each the only row of its band (two channels per
// edge on a 2-row mesh): each feed has its own quarter wavelet per cycle,
// so both rows' wavelets leave every 4 cycles, side by side.
TEST(EdgeCollector, EachRowsBandHasItsOwnFeed) {
  FabricParams params = makeParams(routingMode<ColorRouting>(), 1, 2, 1, 2, 4);
  ColorRouteTable routes{params.mesh, params.colors};
  FabricKernel kernel{params, &routes};
  Driver driver{kernel};
  for (std::uint32_t y = 0; y < 2; ++y) routes.set(0, y, 1, bit(Port::Ramp), bit(Port::East));
  wafer::EdgeCollector out(wafer::IoRingEdge(2, 2, 0.25), params.mesh, true);
  kernel.setEdgeSink(&out);
  for (std::uint32_t i = 0; i < 4; ++i)
    for (std::uint32_t y = 0; y < 2; ++y) driver.offer(params.mesh.id(0, y), makeWavelet(1, 10 * y + i));
  driver.drain(1000);
  for (std::uint32_t y = 0; y < 2; ++y) {
    const std::vector<std::uint32_t>& got = out.payloads(params.mesh.id(0, y), Port::East);
    ASSERT_EQ(got.size(), 4u) << y;
    for (std::uint32_t i = 0; i < 4; ++i) EXPECT_EQ(got[i], 10 * y + i);
  }
  // 8 wavelets at a quarter per cycle through one feed would take 32 cycles; two feeds take 16.
  EXPECT_LT(out.lastArrival(), 3u + 4 * 4 + 2);
}

TEST(EdgeCollector, NoRingChannelsOnTheSouthEdge) {
  FabricParams params = makeParams(routingMode<ColorRouting>(), 1, 1, 1, 2, 4);
  ColorRouteTable routes{params.mesh, params.colors};
  FabricKernel kernel{params, &routes};
  Driver driver{kernel};
  routes.set(0, 0, 1, bit(Port::Ramp), bit(Port::South));
  wafer::EdgeCollector out(wafer::IoRingEdge(1, 1, 1.0), params.mesh, true);
  kernel.setEdgeSink(&out);
  driver.offer(params.mesh.id(0, 0), makeWavelet(1, 7));
  try {
    driver.drain(100);
    ADD_FAILURE() << "expected a FabricError";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("West and East edges only, not on the South side"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wsesim::fabric
