// The fabric kernel driven directly, without SystemC: timing, throughput,
// multicast, conservation, ordering and deadlock detection.
#include <gtest/gtest.h>

#include <vector>

#include "hw/fabric/FabricKernel.h"

namespace wsesim::fabric {
namespace {

struct Arrival {
  RouterId at;
  Wavelet wavelet;
  std::uint64_t cycle;
};

struct RecordingSink : WaveletSink {
  std::vector<Arrival> arrivals;
  void deliver(RouterId at, const Wavelet& w, std::uint64_t cycle) override { arrivals.push_back({at, w, cycle}); }
};

FabricParams xyParams(std::uint32_t w, std::uint32_t h) {
  FabricParams p;
  p.mesh = MeshGeometry{w, h};
  p.colors = 4;
  p.queueDepth = 4;
  p.hopLatency = 1;
  p.rampLatency = 2;
  p.routing = RoutingMode::Xy;
  return p;
}

Wavelet to(std::uint32_t x, std::uint32_t y, std::uint8_t color = 0) {
  Wavelet w;
  w.destX = std::uint16_t(x);
  w.destY = std::uint16_t(y);
  w.color = color;
  w.last = true;
  return w;
}

TEST(FabricKernel, ZeroLoadLatencyIsHopsTimesHopLatencyPlusBothRamps) {
  for (unsigned hop : {1u, 3u}) {
    FabricParams p = xyParams(8, 8);
    p.hopLatency = hop;
    p.queueDepth = hop + 1;
    FabricKernel fabric(p, nullptr);
    RecordingSink sink;
    fabric.setSink(&sink);
    ASSERT_TRUE(fabric.inject(p.mesh.id(1, 2), to(6, 7), 10));
    for (std::uint64_t t = 10; !fabric.idle(); ++t) fabric.step(t);
    ASSERT_EQ(sink.arrivals.size(), 1u);
    const unsigned hops = 5 + 5;
    EXPECT_EQ(sink.arrivals[0].cycle, 10 + hops * hop + 2 * p.rampLatency) << "hop latency " << hop;
    EXPECT_EQ(sink.arrivals[0].at, p.mesh.id(6, 7));
    EXPECT_EQ(fabric.counters().hops, hops);
  }
}

}  // namespace
}  // namespace wsesim::fabric
