// Wavelets leaving the mesh through an edge port: routes may forward off
// the mesh, the collector takes them at the outbound I/O bandwidth, in
// order, holding the rest back without loss.
#include <gtest/gtest.h>

#include "hw/wafer/EdgeCollector.h"
#include "testbench/tests/fabric/FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using testsupport::Driver;
using testsupport::makeParams;
using testsupport::makeWavelet;

// Color 1 runs from the PE at (0, 0) south through (0, 1) and off the
// mesh's south edge. Hop 1, ramp 2, queues of 4.
struct EgressBench {
  FabricParams params = makeParams(RoutingMode::Color, 3, 2, 1, 2, 4);
  ColorRouteTable routes{params.mesh, params.colors};
  FabricKernel kernel{params, &routes};
  Driver driver{kernel};
  RouterId source = params.mesh.id(0, 0), edge = params.mesh.id(0, 1);

  EgressBench() {
    routes.set(0, 0, 1, bit(Port::Ramp), bit(Port::South));
    routes.set(0, 1, 1, bit(Port::North), bit(Port::South));
  }
  void offer(unsigned count) {
    for (unsigned i = 0; i < count; ++i) driver.offer(source, makeWavelet(1, 100 + i));
  }
};

// Wavelet i enters the RAMP in cycle i, is ready at its router after the
// ramp (i + 2), crosses to (0, 1) (ready at i + 3) and leaves the mesh a hop
// later: it arrives outside at i + 4.
TEST(EdgeCollector, WaveletsLeaveThroughTheEdgeInOrder) {
  EgressBench b;
  wafer::EdgeCollector out(1.0, true);
  b.kernel.setEdgeSink(&out);
  b.offer(3);
  b.driver.drain(100);
  EXPECT_EQ(out.payloads(b.edge, Port::South), (std::vector<std::uint32_t>{100, 101, 102}));
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
  wafer::EdgeCollector out(0.25, true);
  b.kernel.setEdgeSink(&out);
  b.offer(12);
  b.driver.drain(1000);
  const std::vector<std::uint32_t>& got = out.payloads(b.edge, Port::South);
  ASSERT_EQ(got.size(), 12u);
  for (std::uint32_t i = 0; i < 12; ++i) EXPECT_EQ(got[i], 100 + i);
  EXPECT_EQ(out.lastArrival(), 6u + 4 * 11 + 1);
  EXPECT_GT(b.driver.refusals, 0u);
}

TEST(EdgeCollector, TimingModeCountsWithoutPayloads) {
  EgressBench b;
  wafer::EdgeCollector out(1.0, false);
  b.kernel.setEdgeSink(&out);
  b.offer(5);
  b.driver.drain(100);
  EXPECT_EQ(out.received(), 5u);
  EXPECT_TRUE(out.payloads(b.edge, Port::South).empty());
}

TEST(EdgeCollector, LeavingWithoutACollectorNamesTheRouterAndEdge) {
  EgressBench b;
  b.offer(1);
  try {
    b.driver.drain(100);
    ADD_FAILURE() << "expected a FabricError";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("(0,1)"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("edge port S"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wsesim::fabric
