// Deadlock detection: a cyclic color route fills up and is reported as
// DeadlockError (naming the blocked queues) instead of hanging; the watchdog
// counts cycles without injection or delivery, and without work outside the
// fabric due, exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using namespace testsupport;

// Color 0 circles a 2x2 loop clockwise, entering from the PE at (0,0) and
// never leaving (no RAMP exit):
//   (0,0) from {RAMP, S} to E; (1,0) W -> S; (1,1) N -> W; (0,1) E -> N.
void routeLoop(ColorRouteTable& routes) {
  routes.set(0, 0, 0, bit(Port::Ramp) | bit(Port::South), bit(Port::East));
  routes.set(1, 0, 0, bit(Port::West), bit(Port::South));
  routes.set(1, 1, 0, bit(Port::North), bit(Port::West));
  routes.set(0, 1, 0, bit(Port::East), bit(Port::North));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Steps the kernel alone from cycle 0 until it reports a deadlock (a test
// failure if it has not by cycle 1000): the cycle whose step threw, and the report.
struct Deadlocked {
  std::uint64_t cycle = 0;
  std::string report;
};
Deadlocked stepUntilDeadlock(FabricKernel& fabric) {
  Deadlocked d;
  try {
    for (; d.cycle < 1000; ++d.cycle) fabric.step(d.cycle);
    ADD_FAILURE() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    d.report = e.what();
  }
  return d;
}

// The PE at (0,0) offers color 0 every cycle. Round-robin at (0,0)'s east
// output lets its RAMP in whenever the loop has a free slot, so the loop's
// four queues (depth 2) fill, then the RAMP queue: 4*2 + 2 = 10 wavelets, and
// every head waits for a full queue forever. No injection or delivery after
// the last accepted offer at cycle L, so step(L + watchdog) throws.
TEST(Deadlock, FilledCyclicRouteIsReportedAsDeadlockNotAHang) {
  FabricParams p = makeParams(routingMode<ColorRouting>(), 2, 2, 1, 1, 2);
  p.watchdogCycles = 50;
  ColorRouteTable routes(p.mesh, p.colors);
  routeLoop(routes);
  FabricKernel fabric(p, &routes);
  Driver driver(fabric);
  for (unsigned k = 0; k < 100; ++k) driver.offer(p.mesh.id(0, 0), makeWavelet(0, k));

  std::string report;
  try {
    while (driver.now() < 2000) driver.cycle();
    FAIL() << "no DeadlockError within 2000 cycles";
  } catch (const DeadlockError& e) {
    report = e.what();
  }
  ASSERT_FALSE(driver.accepted.empty());
  const std::uint64_t lastAccepted = driver.accepted.back().cycle;
  EXPECT_EQ(driver.now(), lastAccepted + 50) << report;  // the step that threw did not advance the clock
  EXPECT_EQ(fabric.counters().injected, 10u);
  EXPECT_EQ(fabric.counters().queued, 10u);
  EXPECT_EQ(fabric.counters().delivered, 0u);

  EXPECT_TRUE(contains(report, "deadlock")) << report;
  EXPECT_TRUE(contains(report, "for 50 cycles")) << report;
  EXPECT_TRUE(contains(report, "10 wavelets still in the fabric")) << report;
  // Every full queue of the loop, who it waits for.
  EXPECT_TRUE(contains(report, "router (0,0) input RAMP color 0: 2 queued, head wants {E}")) << report;
  EXPECT_TRUE(contains(report, "router (0,0) input S color 0: 2 queued, head wants {E}")) << report;
  EXPECT_TRUE(contains(report, "router (1,0) input W color 0: 2 queued, head wants {S}")) << report;
  EXPECT_TRUE(contains(report, "router (1,1) input N color 0: 2 queued, head wants {W}")) << report;
  EXPECT_TRUE(contains(report, "router (0,1) input E color 0: 2 queued, head wants {N}")) << report;
  EXPECT_TRUE(contains(report, "blocked by full queue at (1,0) input W (2/2)")) << report;
  EXPECT_TRUE(contains(report, "blocked by full queue at (1,1) input N (2/2)")) << report;
  EXPECT_TRUE(contains(report, "blocked by full queue at (0,1) input E (2/2)")) << report;
  EXPECT_TRUE(contains(report, "blocked by full queue at (0,0) input S (2/2)")) << report;
}

// One wavelet in the same loop never stops moving but never arrives: the
// watchdog measures injections and deliveries, not hops, so it is reported
// too. Injected at 0 (R = 1), it leaves (0,0) at 1 and makes one hop per
// cycle (H = 1): hops at cycles 1..40 by the end of step(40), where
// 40 - 0 >= watchdog 40 fires. After 40 hops (a multiple of 4) it is back at
// (0,0), in its S input queue.
TEST(Deadlock, CirculatingWaveletIsReportedWhenWatchdogExpires) {
  FabricParams p = makeParams(routingMode<ColorRouting>(), 2, 2, 1, 1, 2);
  p.watchdogCycles = 40;
  ColorRouteTable routes(p.mesh, p.colors);
  routeLoop(routes);
  FabricKernel fabric(p, &routes);
  ASSERT_TRUE(fabric.inject(p.mesh.id(0, 0), makeWavelet(0, 9), 0));
  const Deadlocked d = stepUntilDeadlock(fabric);
  EXPECT_EQ(d.cycle, 40u);
  EXPECT_EQ(fabric.counters().hops, 40u);
  EXPECT_TRUE(contains(d.report, "for 40 cycles (cycle 40")) << d.report;
  EXPECT_TRUE(contains(d.report, "1 wavelets still in the fabric")) << d.report;
  EXPECT_TRUE(contains(d.report, "router (0,0) input S color 0: 1 queued")) << d.report;
}

// The watchdog's exact threshold. XY, 11x1, H = 1, R = 2, one wavelet over
// 10 hops injected at 0: ready at (10,0) at 2 + 10 = 12, delivered in
// step(12) (arrival 14). Steps 0..11 see no progress since cycle 0, so:
//   watchdog 12: step(11) has 11 < 12 idle cycles; step(12) delivers first. No error.
//   watchdog 11: step(11) has 11 >= 11 idle cycles: DeadlockError.
TEST(Deadlock, WatchdogFiresExactlyAfterItsIntervalWithoutProgress) {
  for (std::uint64_t watchdog : {12u, 11u}) {
    SCOPED_TRACE(::testing::Message() << "watchdog " << watchdog);
    FabricParams p = makeParams(routingMode<XyRouting>(), 11, 1, 1, 2, 2);
    p.watchdogCycles = watchdog;
    FabricKernel fabric(p, nullptr);
    RecordingSink sink;
    fabric.setSink(&sink);
    ASSERT_TRUE(fabric.inject(p.mesh.id(0, 0), makeWavelet(0, 0, 10, 0), 0));
    std::uint64_t t = 0;
    bool threw = false;
    try {
      for (; t <= 20 && !fabric.idle(); ++t) fabric.step(t);
    } catch (const DeadlockError&) {
      threw = true;
    }
    if (watchdog == 12) {
      EXPECT_FALSE(threw);
      ASSERT_EQ(sink.arrivals.size(), 1u);
      EXPECT_EQ(sink.arrivals[0].cycle, 14u);
    } else {
      EXPECT_TRUE(threw);
      EXPECT_EQ(t, 11u);
    }
  }
}

// Work outside the fabric that is due (a PE computing before it takes its
// next wavelet) is not counted: XY 1x1, R = 2, a wavelet injected at 0 for
// the PE's own RAMP, which the PE does not take (its inbox is full), and
// the PE's op due at cycle 100. Watchdog 20: nothing moves or is due after
// cycle 100, so step(119) has 19 quiet cycles and step(120) throws. An
// earlier due cycle noted afterwards does not shorten the wait. Without
// the due work, step(20) throws (20 cycles after the injection).
TEST(Deadlock, DueWorkOutsideTheFabricIsNotCounted) {
  for (const bool due : {true, false}) {
    SCOPED_TRACE(due ? "PE op due at 100" : "nothing due");
    FabricParams p = makeParams(routingMode<XyRouting>(), 1, 1, 1, 2, 2);
    p.watchdogCycles = 20;
    FabricKernel fabric(p, nullptr);
    RecordingSink sink;
    fabric.setSink(&sink);
    fabric.setRampAccepting(0, 0, false);
    ASSERT_TRUE(fabric.inject(0, makeWavelet(0, 1), 0));
    if (due) {
      fabric.notePendingUntil(100);
      fabric.notePendingUntil(50);
    }
    const Deadlocked d = stepUntilDeadlock(fabric);
    const std::uint64_t expected = due ? 120 : 20;
    EXPECT_EQ(d.cycle, expected);
    EXPECT_TRUE(contains(d.report, "for 20 cycles (cycle " + std::to_string(expected))) << d.report;
    EXPECT_TRUE(contains(d.report, "blocked by the PE, which takes no more wavelets of color 0")) << d.report;
    EXPECT_TRUE(sink.arrivals.empty());
  }
}

// Individual wavelets wait far longer than the watchdog in a saturated
// hotspot, but the hotspot delivers every cycle, so nothing is reported.
// XY 4x4, all 15 other PEs send 20 wavelets each to (0,0), watchdog 10.
TEST(Deadlock, WatchdogIgnoresLongWaitsWhileTheFabricProgresses) {
  FabricParams p = makeParams(routingMode<XyRouting>(), 4, 4, 1, 2, 3);
  p.watchdogCycles = 10;
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  for (RouterId r = 1; r < p.mesh.routers(); ++r)
    for (unsigned k = 0; k < 20; ++k) driver.offer(r, makeWavelet(0, r * 100 + k, 0, 0));
  EXPECT_NO_THROW(driver.drain(2000));
  EXPECT_EQ(driver.sink.arrivals.size(), 15u * 20);
  std::uint64_t longest = 0;
  for (const Arrival& a : driver.sink.arrivals) {
    const std::uint32_t id = a.wavelet.payload;
    for (const auto& acc : driver.accepted)
      if (acc.wavelet.payload == id) longest = std::max(longest, a.cycle - acc.cycle);
  }
  // 300 wavelets through one RAMP output at one per cycle: someone waits
  // far longer than 10 cycles.
  EXPECT_GT(longest, 10u);
}

}  // namespace
}  // namespace wsesim::fabric
