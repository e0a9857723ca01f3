// Streams entering edge routers from outside the mesh: the I/O bandwidth
// shared round-robin, one wavelet per edge port per cycle, backpressure
// without loss.
#include <gtest/gtest.h>

#include "hw/wafer/EdgeInjector.h"
#include "testbench/tests/fabric/FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using testsupport::makeParams;
using testsupport::RecordingSink;

// Column x of a 3 x 2 mesh takes color 0 from its north edge and delivers
// it to the PE of row 1.
struct EdgeBench {
  FabricParams params = makeParams(RoutingMode::Color, 3, 2, 1, 2, 4);
  ColorRouteTable routes{params.mesh, params.colors};
  FabricKernel kernel{params, &routes};
  RecordingSink sink;

  EdgeBench() {
    for (std::uint32_t x = 0; x < 3; ++x) {
      routes.set(x, 0, 0, bit(Port::North), bit(Port::South));
      routes.set(x, 1, 0, bit(Port::North), bit(Port::Ramp));
    }
    kernel.setSink(&sink);
  }

  wafer::EdgeStream stream(std::uint32_t x, std::uint64_t count) const {
    wafer::EdgeStream s;
    s.router = params.mesh.id(x, 0);
    s.side = Port::North;
    s.color = 0;
    s.count = count;
    s.payload = [x](std::uint64_t i) { return std::uint32_t(x * 100 + i); };
    return s;
  }

  // Steps like the wafer: skips idle stretches to the injector's next activity.
  void run(wafer::EdgeInjector& injector, std::uint64_t limit = 1000) {
    for (std::uint64_t now = 0; now < limit && !(injector.finished(now, kernel) && kernel.idle()); ++now) {
      if (kernel.idle()) now = std::max(now, injector.nextActivity(now));
      injector.beginCycle(now, kernel);
      kernel.step(now);
    }
  }
};

// A quarter wavelet per cycle: one leaves every 4 cycles, once a wavelet's
// worth of bandwidth has accrued (cycles 3, 7, 11); each arrives a hop, a
// hop and the ramp later.
TEST(EdgeInjector, BandwidthBelowOneWaveletPerCycle) {
  EdgeBench b;
  wafer::EdgeInjector injector({b.stream(0, 3)}, 0.25);
  b.run(injector);
  const auto got = b.sink.at(b.params.mesh.id(0, 1));
  ASSERT_EQ(got.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].cycle, 3 + 4 * i + 1 + 1 + 2) << i;
    EXPECT_EQ(got[i].wavelet.payload, i);
  }
  EXPECT_EQ(b.kernel.counters().fromEdge, 3u);
  EXPECT_EQ(b.kernel.counters().injected, 0u);  // none came from a PE
}

// One wavelet per cycle shared by three streams: round-robin, each column
// gets every third cycle; with ample bandwidth each gets one per cycle.
TEST(EdgeInjector, StreamsShareTheBandwidthRoundRobin) {
  for (const double rate : {1.0, 10.0}) {
    EdgeBench b;
    wafer::EdgeInjector injector({b.stream(0, 4), b.stream(1, 4), b.stream(2, 4)}, rate);
    b.run(injector);
    for (std::uint32_t x = 0; x < 3; ++x) {
      const auto got = b.sink.at(b.params.mesh.id(x, 1));
      ASSERT_EQ(got.size(), 4u);
      const std::uint64_t spacing = rate >= 3 ? 1 : 3;
      for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(got[i].cycle - got[i - 1].cycle, spacing) << "rate " << rate;
      for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(got[i].wavelet.payload, x * 100 + i);
    }
    EXPECT_EQ(injector.sent(), 12u);
  }
}

TEST(EdgeInjector, OnlyEdgePortsTakeWaveletsFromOutside) {
  EdgeBench b;
  Wavelet w;
  EXPECT_THROW(b.kernel.injectAtEdge(b.params.mesh.id(1, 1), Port::North, w, 0), FabricError);  // has a neighbour
  EXPECT_THROW(b.kernel.injectAtEdge(b.params.mesh.id(1, 0), Port::Ramp, w, 0), FabricError);
  EXPECT_TRUE(b.kernel.injectAtEdge(b.params.mesh.id(1, 0), Port::North, w, 0));
  EXPECT_FALSE(b.kernel.injectAtEdge(b.params.mesh.id(1, 0), Port::North, w, 0));  // one per cycle
}

}  // namespace
}  // namespace wsesim::fabric
