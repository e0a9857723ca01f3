// The fabric kernel driven directly, without SystemC, in XY (address-routed)
// mode: zero-load timing, link throughput against queue depth, and
// backpressure at injection. Every expected number is derived in a comment
// from the kernel's documented timing rules:
//   injected at t            -> ready in the source's RAMP queue at t + R
//   forwarded at u           -> ready at the next router at u + H
//   delivered via RAMP at v  -> arrives at the PE at v + R
//   a slot freed by a pop at cycle c is usable upstream from c + 1.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using namespace testsupport;

FabricParams xyParams(std::uint32_t w, std::uint32_t h) { return makeParams(routingMode<XyRouting>(), w, h, 1, 2, 4); }

Wavelet to(std::uint32_t x, std::uint32_t y, std::uint8_t color = 0) { return makeWavelet(color, 0, x, y); }

TEST(FabricKernel, ZeroLoadLatencyIsHopsTimesHopLatencyPlusBothRamps) {
  for (unsigned hop : {1u, 3u}) {
    FabricParams p = xyParams(8, 8);
    p.hopLatencyCycles = hop;
    p.queueDepth = hop + 1;
    FabricKernel fabric(p, nullptr);
    RecordingSink sink;
    fabric.setSink(&sink);
    ASSERT_TRUE(fabric.inject(p.mesh.id(1, 2), to(6, 7), 10));
    for (std::uint64_t t = 10; !fabric.idle(); ++t) fabric.step(t);
    ASSERT_EQ(sink.arrivals.size(), 1u);
    const unsigned hops = 5 + 5;
    EXPECT_EQ(sink.arrivals[0].cycle, 10 + hops * hop + 2 * p.rampLatencyCycles) << "hop latency " << hop;
    EXPECT_EQ(sink.arrivals[0].at, p.mesh.id(6, 7));
    EXPECT_EQ(fabric.counters().hops, hops);
  }
}

struct LatencyCase {
  std::uint32_t width, height;
  Coord from, to;
  unsigned hop, ramp;
  std::uint64_t injectAt;
  unsigned hops;             // |dx| + |dy|, by hand
  std::uint64_t arrivalAt;   // injectAt + hops * hop + 2 * ramp, by hand
};

TEST(FabricKernel, ZeroLoadLatencyTableXy) {
  const LatencyCase cases[] = {
      // (1,2)->(6,7): 5 + 5 = 10 hops; 10 + 10*1 + 2*2 = 24.
      {8, 8, {1, 2}, {6, 7}, 1, 2, 10, 10, 24},
      // Same router: 0 hops, only the two ramps: 5 + 0 + 2*3 = 11.
      {8, 8, {3, 3}, {3, 3}, 2, 3, 5, 0, 11},
      // Westward (7,0)->(0,0): 7 hops; 0 + 7*3 + 2*1 = 23.
      {8, 8, {7, 0}, {0, 0}, 3, 1, 0, 7, 23},
      // Northward (0,5)->(0,1): 4 hops, no ramp latency; 100 + 4*2 + 0 = 108.
      {8, 8, {0, 5}, {0, 1}, 2, 0, 100, 4, 108},
      // West then south (4,4)->(2,6): 2 + 2 = 4 hops; 7 + 4*4 + 2*2 = 27.
      {8, 8, {4, 4}, {2, 6}, 4, 2, 7, 4, 27},
      // Corner to corner of an 80x64 mesh (5120 routers: the active-router
      // bitmap needs two summary words): 79 + 63 = 142 hops; 3 + 142 + 4 = 149.
      {80, 64, {0, 0}, {79, 63}, 1, 2, 3, 142, 149},
      // Ready cycles are kept in 48 bits: across 2^32, and just before the
      // last cycle. (0,0)->(7,7): 14 hops; 14*3 + 2*2 = 46 cycles.
      {8, 8, {0, 0}, {7, 7}, 3, 2, (std::uint64_t(1) << 32) - 20, 14, (std::uint64_t(1) << 32) + 26},
      {8, 8, {0, 0}, {7, 7}, 3, 2, FabricKernel::kLastCycle - 50, 14, FabricKernel::kLastCycle - 4},
  };
  for (const LatencyCase& c : cases) {
    SCOPED_TRACE(::testing::Message() << "(" << c.from.first << "," << c.from.second << ")->(" << c.to.first << ","
                                      << c.to.second << ") hop " << c.hop << " ramp " << c.ramp);
    const FabricParams p = makeParams(routingMode<XyRouting>(), c.width, c.height, c.hop, c.ramp, 2);
    FabricKernel fabric(p, nullptr);
    RecordingSink sink;
    fabric.setSink(&sink);
    ASSERT_TRUE(fabric.inject(p.mesh.id(c.from.first, c.from.second), to(c.to.first, c.to.second), c.injectAt));
    for (std::uint64_t t = c.injectAt; !fabric.idle() && t < c.arrivalAt + 10; ++t) fabric.step(t);
    ASSERT_TRUE(fabric.idle());
    ASSERT_EQ(sink.arrivals.size(), 1u);
    EXPECT_EQ(sink.arrivals[0].cycle, c.arrivalAt);
    EXPECT_EQ(sink.arrivals[0].at, p.mesh.id(c.to.first, c.to.second));
    EXPECT_EQ(fabric.counters().hops, c.hops);
    EXPECT_EQ(fabric.counters().delivered, 1u);
    EXPECT_EQ(fabric.counters().queued, 0u);
  }
}

// Dimension order: all of the X distance first, then Y, then the RAMP.
TEST(FabricKernel, XyRoutingTravelsAlongXThenY) {
  const FabricParams p = xyParams(8, 8);
  FabricKernel fabric(p, nullptr);
  ASSERT_TRUE(fabric.inject(p.mesh.id(1, 2), to(6, 7), 0));
  for (std::uint64_t t = 0; !fabric.idle() && t < 100; ++t) fabric.step(t);
  ASSERT_TRUE(fabric.idle());
  std::uint32_t total = 0;
  for (RouterId r = 0; r < p.mesh.routers(); ++r)
    for (unsigned o = 0; o < kPortCount; ++o) total += fabric.transfers(r, Port(o));
  // 10 link transfers plus the delivery through the RAMP.
  EXPECT_EQ(total, 11u);
  for (std::uint32_t x = 1; x <= 5; ++x) EXPECT_EQ(fabric.transfers(p.mesh.id(x, 2), Port::East), 1u) << x;
  for (std::uint32_t y = 2; y <= 6; ++y) EXPECT_EQ(fabric.transfers(p.mesh.id(6, y), Port::South), 1u) << y;
  EXPECT_EQ(fabric.transfers(p.mesh.id(6, 7), Port::Ramp), 1u);
}

// A stream on a 4-hop path, H = 2, R = 2, depth 3 = max(H, R) + 1:
// - the RAMP queue holds a wavelet from injection t to its pop at t + 2, the
//   slot is usable again at t + 3, so 3 slots accept one injection per cycle;
// - each link queue holds a wavelet from its push at u to its pop at u + 2,
//   usable again at u + 3, so 3 slots let the link move one per cycle.
// Nothing ever waits: wavelet k is injected at k and arrives at
// k + 4*2 + 2*2 = 12 + k. N = 50 wavelets: first at 12, last at 12 + 49 = 61.
void expectFullRateStream(RoutingMode mode) {
  const FabricParams p = makeParams(mode, 4, 4, 2, 2, 3);
  ColorRouteTable routes(p.mesh, p.colors);
  // XY goes (0,0) -> (3,0) -> (3,1); the color route follows the same path.
  routePath(routes, 1, xyPath({0, 0}, {3, 1}));
  FabricKernel fabric(p, &routes);
  Driver driver(fabric);
  const unsigned n = 50;
  for (unsigned k = 0; k < n; ++k) driver.offer(p.mesh.id(0, 0), makeWavelet(1, k, 3, 1));
  driver.drain(200);

  EXPECT_EQ(driver.refusals, 0u) << "3 RAMP slots must accept one wavelet per cycle when R = 2";
  const auto arrivals = driver.sink.at(p.mesh.id(3, 1));
  ASSERT_EQ(arrivals.size(), n);
  for (unsigned k = 0; k < n; ++k) {
    EXPECT_EQ(arrivals[k].wavelet.payload, k);
    EXPECT_EQ(arrivals[k].cycle, 12u + k) << "wavelet " << k;
  }
  EXPECT_EQ(arrivals.back().cycle, arrivals.front().cycle + n - 1);
  EXPECT_EQ(fabric.counters().hops, 4u * n);
}

TEST(FabricKernel, LinkSustainsOneWaveletPerCycleXy) { expectFullRateStream(routingMode<XyRouting>()); }
TEST(FabricKernel, LinkSustainsOneWaveletPerCycleColor) { expectFullRateStream(routingMode<ColorRouting>()); }

// Depth 1, H = 1 on a 4-hop path r0..r4 along the row. R = 0 so that the
// source's RAMP queue (also depth 1) can refill every cycle and only the
// links limit.
// Let f(k, j) be the cycle router j forwards wavelet k. A link queue of depth
// 1 takes w_k only after w_{k-1} left it, one cycle earlier at the latest:
//   f(k, j) >= f(k, j-1) + 1        (hop latency)
//   f(k, j) >= f(k-1, j+1) + 1      (one slot, freed pop visible next cycle)
// f(k, j) = 2k + j satisfies both with equality (2k + j - 1 + 1 and
// 2(k-1) + j + 1 + 1), and the RAMP at r4 has no queue to wait for, so
// w_k arrives at 2k + 4 + R = 2k + 4: one wavelet every 2 cycles.
// The source's RAMP empties at f(k-1, 0) = 2k - 2, so w_k is accepted at
// 2k - 1 (k >= 1) and the offers at even cycles 2, 4, ... are refused.
// Routers are visited in index order, so the stream runs both eastward
// (downstream visited after upstream) and westward (downstream visited
// first, its pop already done when upstream looks): the result must not
// depend on it.
void expectDepthOneHalfRate(std::uint32_t fromX, std::uint32_t toX) {
  const FabricParams p = makeParams(routingMode<XyRouting>(), 5, 1, 1, 0, 1);
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  const unsigned n = 20;
  for (unsigned k = 0; k < n; ++k) driver.offer(p.mesh.id(fromX, 0), makeWavelet(0, k, toX, 0));
  driver.drain(200);

  const auto arrivals = driver.sink.at(p.mesh.id(toX, 0));
  ASSERT_EQ(arrivals.size(), n);
  for (unsigned k = 0; k < n; ++k) {
    EXPECT_EQ(arrivals[k].wavelet.payload, k);
    EXPECT_EQ(arrivals[k].cycle, 2u * k + 4) << "wavelet " << k;
  }
  ASSERT_EQ(driver.accepted.size(), n);
  EXPECT_EQ(driver.accepted[0].cycle, 0u);
  for (unsigned k = 1; k < n; ++k) EXPECT_EQ(driver.accepted[k].cycle, 2u * k - 1) << "wavelet " << k;
  // Offered every cycle from 0 to 2(n-1) - 1 = 37, accepted n = 20 times:
  // refused at 2, 4, ..., 36, i.e. n - 2 = 18 times.
  EXPECT_EQ(driver.refusals, n - 2);
}

TEST(FabricKernel, DepthOneHopOneLinkCarriesOneWaveletEveryTwoCyclesEastward) { expectDepthOneHalfRate(0, 4); }
TEST(FabricKernel, DepthOneHopOneLinkCarriesOneWaveletEveryTwoCyclesWestward) { expectDepthOneHalfRate(4, 0); }

// Depth 2 < H + 1 = 3 (H = 2, R = 1, 3-hop path): a link queue slot is busy
// from push u to pop u + 2 and usable again at u + 3, so two slots carry two
// wavelets per three cycles. With a(k) the cycle the source forwards w_k:
//   a(k) >= a(k-1) + 1              (one per cycle on the output)
//   a(k) >= a(k-2) + 3              (w_{k-2} must have left the next queue)
//   a(k) >= inject(k) + 1           (ramp latency), inject(k) >= a(k-2) + 1
// from a(0) = 1 (injected at 0): a = 1, 2, 4, 5, 7, 8, ... = 1 + k + k/2
// (integer division). Later routers follow at +2 per hop with the same
// spacing, so w_k arrives at a(k) + 3*2 + 1 = 8 + k + k/2.
void expectTwoInThree(std::uint32_t fromX, std::uint32_t toX) {
  const FabricParams p = makeParams(routingMode<XyRouting>(), 4, 1, 2, 1, 2);
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  const unsigned n = 30;
  for (unsigned k = 0; k < n; ++k) driver.offer(p.mesh.id(fromX, 0), makeWavelet(0, k, toX, 0));
  driver.drain(200);

  const auto arrivals = driver.sink.at(p.mesh.id(toX, 0));
  ASSERT_EQ(arrivals.size(), n);
  for (unsigned k = 0; k < n; ++k) {
    EXPECT_EQ(arrivals[k].wavelet.payload, k);
    EXPECT_EQ(arrivals[k].cycle, 8u + k + k / 2) << "wavelet " << k;
  }
}

// Both directions, for the same reason as the depth-1 test above.
TEST(FabricKernel, QueueShallowerThanHopLatencyPlusOneThrottlesLinkToTwoInThreeEastward) { expectTwoInThree(0, 3); }
TEST(FabricKernel, QueueShallowerThanHopLatencyPlusOneThrottlesLinkToTwoInThreeWestward) { expectTwoInThree(3, 0); }

// The RAMP queue of one color holds `depth` wavelets; a pop frees its slot
// for the PE in the next cycle; the RAMP takes one wavelet per cycle.
// 3x1 mesh, depth 3, R = 10 so nothing leaves the RAMP queue before cycle 10.
TEST(FabricKernel, InjectRefusesWhenRampQueueIsFull) {
  const FabricParams p = makeParams(routingMode<XyRouting>(), 3, 1, 1, 10, 3);
  FabricKernel fabric(p, nullptr);
  const RouterId pe = p.mesh.id(0, 0);
  std::uint64_t t = 0;
  // Cycles 0..2 fill the three slots of color 0 (ready at 10, 11, 12).
  for (; t < 3; ++t) {
    EXPECT_TRUE(fabric.inject(pe, to(2, 0, 0), t)) << "cycle " << t;
    fabric.step(t);
  }
  // Cycle 3: color 0 is full; a refusal does not use up the RAMP, so color 1
  // (its own, empty queue) still gets in, and then the RAMP is taken.
  EXPECT_FALSE(fabric.inject(pe, to(2, 0, 0), t));
  EXPECT_TRUE(fabric.inject(pe, to(2, 0, 1), t));
  EXPECT_FALSE(fabric.inject(pe, to(2, 0, 1), t));
  fabric.step(t++);
  // Cycles 4..10: still full (the head leaves during step(10), after the offer).
  for (; t <= 10; ++t) {
    EXPECT_FALSE(fabric.inject(pe, to(2, 0, 0), t)) << "cycle " << t;
    EXPECT_EQ(fabric.occupancy(pe, Port::Ramp), 4u) << "cycle " << t;  // 3 of color 0 + 1 of color 1
    fabric.step(t);
  }
  // Cycle 11: the slot popped at 10 is usable.
  EXPECT_TRUE(fabric.inject(pe, to(2, 0, 0), t));
  EXPECT_EQ(fabric.counters().injected, 5u);  // 3 + 1 + 1 accepted offers
}

// nextChange(): the earliest cycle a step can change anything with nothing
// from outside. A wavelet on a 10-cycle RAMP is due at 10; moving, it is
// due the next cycle; held by a PE that takes nothing, only the watchdog
// (100,000 cycles after the injection, the last progress) is due; empty,
// nothing is.
TEST(FabricKernel, NextChangeIsTheCycleAWaitingWaveletCanMove) {
  const FabricParams p = makeParams(routingMode<XyRouting>(), 3, 1, 1, 10, 3);
  FabricKernel fabric(p, nullptr);
  RecordingSink sink;
  fabric.setSink(&sink);
  const RouterId last = p.mesh.id(2, 0);
  EXPECT_EQ(fabric.nextChange(0), FabricKernel::kNoChange);
  fabric.setRampAccepting(last, 0, false);
  ASSERT_TRUE(fabric.inject(p.mesh.id(0, 0), to(2, 0, 0), 0));
  EXPECT_EQ(fabric.nextChange(0), 0u);  // not stepped since
  fabric.step(0);
  EXPECT_EQ(fabric.nextChange(1), 10u);
  fabric.step(10);  // to (1,0), ready at 11
  EXPECT_EQ(fabric.nextChange(11), 11u);
  fabric.step(11);  // to (2,0), ready at 12
  fabric.step(12);  // held by the PE
  EXPECT_EQ(fabric.nextChange(13), 100000u);
  fabric.setRampAccepting(last, 0, true);
  fabric.step(13);
  EXPECT_EQ(fabric.nextChange(14), FabricKernel::kNoChange);
  ASSERT_EQ(sink.arrivals.size(), 1u);
  EXPECT_EQ(sink.arrivals[0].cycle, 13u + 10);
}

TEST(FabricKernel, InjectAcceptsOneWaveletPerCycle) {
  const FabricParams p = makeParams(routingMode<XyRouting>(), 3, 1, 1, 2, 4);
  FabricKernel fabric(p, nullptr);
  const RouterId pe = p.mesh.id(1, 0);
  EXPECT_TRUE(fabric.inject(pe, to(2, 0, 0), 0));
  // Same cycle: refused though both the same color's and another color's
  // queues have room.
  EXPECT_FALSE(fabric.inject(pe, to(2, 0, 0), 0));
  EXPECT_FALSE(fabric.inject(pe, to(0, 0, 2), 0));
  // Another PE's RAMP is independent.
  EXPECT_TRUE(fabric.inject(p.mesh.id(0, 0), to(2, 0, 0), 0));
  fabric.step(0);
  // Next cycle the RAMP is free again.
  EXPECT_TRUE(fabric.inject(pe, to(0, 0, 2), 1));
  EXPECT_EQ(fabric.counters().injected, 3u);
  EXPECT_EQ(fabric.counters().queued, 3u);
}

TEST(FabricKernel, InjectRejectsColorOutsideTheFabric) {
  const FabricParams p = xyParams(3, 1);  // 4 colors: 0..3
  FabricKernel fabric(p, nullptr);
  EXPECT_THROW(fabric.inject(0, to(2, 0, 4), 0), FabricError);
  EXPECT_EQ(fabric.counters().injected, 0u);
  EXPECT_TRUE(fabric.idle());
}

TEST(FabricKernel, RejectsInvalidParameters) {
  FabricParams p = xyParams(3, 1);
  p.hopLatencyCycles = 0;
  EXPECT_THROW({ FabricKernel k(p, nullptr); }, FabricError);
  p = xyParams(3, 1);
  p.colors = 33;
  EXPECT_THROW({ FabricKernel k(p, nullptr); }, FabricError);
  p = xyParams(3, 1);
  p.routing = routingMode<ColorRouting>();
  EXPECT_THROW({ FabricKernel k(p, nullptr); }, FabricError);  // color mode without a route table
}

TEST(FabricKernel, StopsAtItsLastCycleWithAnError) {
  const FabricParams p = xyParams(3, 1);
  FabricKernel fabric(p, nullptr);
  fabric.step(FabricKernel::kLastCycle - 1);
  try {
    fabric.step(FabricKernel::kLastCycle);
    ADD_FAILURE() << "no FabricError";
  } catch (const FabricError& e) {
    EXPECT_NE(std::string(e.what()).find("2^47"), std::string::npos) << e.what();
  }
}

// In XY mode a destination outside the mesh would be routed off its edge
// (the kernel does no edge checks when stepping), so inject() must refuse it
// with an error naming the PE, before it enters the fabric. (Before commit
// 4c250d2 this read queue headers out of bounds: SIGSEGV under ASan.)
TEST(FabricKernel, InjectRejectsXyDestinationOutsideTheMesh) {
  const FabricParams p = xyParams(4, 3);
  FabricKernel fabric(p, nullptr);
  for (const Coord& dest : {Coord{4, 0}, Coord{0, 3}, Coord{9, 9}}) {
    SCOPED_TRACE(::testing::Message() << "destination (" << dest.first << "," << dest.second << ")");
    try {
      fabric.inject(p.mesh.id(3, 0), to(dest.first, dest.second), 0);
      ADD_FAILURE() << "no FabricError";
    } catch (const FabricError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("(3,0)"), std::string::npos) << msg;
      EXPECT_NE(msg.find("outside"), std::string::npos) << msg;
    }
  }
  EXPECT_EQ(fabric.counters().injected, 0u);
  EXPECT_TRUE(fabric.idle());
  // The last column and row are still valid destinations: 3 + 2 = 5 hops.
  EXPECT_TRUE(fabric.inject(p.mesh.id(0, 0), to(3, 2), 0));
  for (std::uint64_t t = 0; t < 20; ++t) fabric.step(t);
  EXPECT_TRUE(fabric.idle());
  EXPECT_EQ(fabric.counters().hops, 5u);
}

}  // namespace
}  // namespace wsesim::fabric
