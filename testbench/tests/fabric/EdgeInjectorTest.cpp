// Streams entering edge routers from the I/O ring: the rows of a ring
// feed share its bandwidth round-robin, rows of different bands do not,
// one wavelet per edge port per cycle, backpressure without loss, and only
// the West and East edges have channels.
#include <gtest/gtest.h>

#include "hw/wafer/EdgeCollector.h"
#include "hw/wafer/EdgeInjector.h"
#include "testbench/tests/fabric/FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using testsupport::makeParams;
using testsupport::RecordingSink;

// Row y of a 2 x 3 mesh takes color 0 from its West edge and delivers it
// to the PE of column 1; color 1 from its East edge, delivered to column 0.
struct EdgeBench {
  FabricParams params = makeParams(routingMode<ColorRouting>(), 2, 3, 1, 2, 4);
  ColorRouteTable routes{params.mesh, params.colors};
  FabricKernel kernel{params, &routes};
  RecordingSink sink;

  EdgeBench() {
    for (std::uint32_t y = 0; y < 3; ++y) {
      routes.set(0, y, 0, bit(Port::West), bit(Port::East));
      routes.set(1, y, 0, bit(Port::West), bit(Port::Ramp));
      routes.set(1, y, 1, bit(Port::East), bit(Port::West));
      routes.set(0, y, 1, bit(Port::East), bit(Port::Ramp));
    }
    kernel.setSink(&sink);
  }

  wafer::EdgeStream stream(std::uint32_t y, std::uint64_t count, Port side = Port::West) const {
    wafer::EdgeStream s;
    s.router = params.mesh.id(side == Port::West ? 0 : 1, y);
    s.side = side;
    s.color = side == Port::West ? 0 : 1;
    s.count = count;
    s.payload = [y](std::uint64_t i) { return std::uint32_t(y * 100 + i); };
    return s;
  }
  // Where row y's stream from `side` is delivered.
  RouterId receiver(std::uint32_t y, Port side = Port::West) const {
    return params.mesh.id(side == Port::West ? 1 : 0, y);
  }

  // Steps like the wafer from cycle `start`: skips idle stretches to the injector's next activity.
  void run(wafer::EdgeInjector& injector, std::uint64_t limit = 1000, std::uint64_t start = 0) {
    for (std::uint64_t now = start; now < limit && !(injector.finished(now, kernel) && kernel.idle()); ++now) {
      if (kernel.idle()) now = std::max(now, injector.nextActivity(now));
      injector.beginCycle(now, kernel);
      kernel.step(now);
    }
  }
};

// One channel per edge at a quarter wavelet per cycle: one leaves every 4
// cycles, once a wavelet's worth of bandwidth has accrued (cycles 3, 7,
// 11); each arrives a hop, a hop and the ramp later.
TEST(EdgeInjector, BandwidthBelowOneWaveletPerCycle) {
  EdgeBench b;
  wafer::EdgeInjector injector({b.stream(0, 3)}, wafer::IoRingEdge(3, 1, 0.25), b.params.mesh);
  b.run(injector);
  const auto got = b.sink.at(b.receiver(0));
  ASSERT_EQ(got.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].cycle, 3 + 4 * i + 1 + 1 + 2) << i;
    EXPECT_EQ(got[i].wavelet.payload, i);
  }
  EXPECT_EQ(b.kernel.counters().fromEdge, 3u);
  EXPECT_EQ(b.kernel.counters().injected, 0u);  // none came from a PE
}

// One channel per edge: the three rows are its band and share its one
// wavelet per cycle round-robin, each row every third cycle; with ample
// bandwidth each row's edge link takes one per cycle.
TEST(EdgeInjector, RowsOfABandShareTheirChannelRoundRobin) {
  for (const double rate : {1.0, 10.0}) {
    EdgeBench b;
    wafer::EdgeInjector injector({b.stream(0, 4), b.stream(1, 4), b.stream(2, 4)}, wafer::IoRingEdge(3, 1, rate),
                                 b.params.mesh);
    EXPECT_EQ(injector.feedsUsed(), 1u);
    b.run(injector);
    for (std::uint32_t y = 0; y < 3; ++y) {
      const auto got = b.sink.at(b.receiver(y));
      ASSERT_EQ(got.size(), 4u);
      const std::uint64_t spacing = rate >= 3 ? 1 : 3;
      for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(got[i].cycle - got[i - 1].cycle, spacing) << "rate " << rate;
      for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(got[i].wavelet.payload, y * 100 + i);
    }
    EXPECT_EQ(injector.sent(), 12u);
  }
}

// Three channels per edge on three rows: each row has a channel of its
// own, so each row's stream moves at the full channel rate; the West and
// East channels of a row are separate feeds too.
TEST(EdgeInjector, RowsOfOtherBandsAndEdgesDoNotShare) {
  EdgeBench b;
  const wafer::IoRingEdge ring(3, 3, 1.0);
  ASSERT_EQ(ring.feeds(), 6u);
  wafer::EdgeInjector injector({b.stream(0, 4), b.stream(1, 4), b.stream(2, 4), b.stream(1, 4, Port::East)}, ring,
                               b.params.mesh);
  EXPECT_EQ(injector.feedsUsed(), 4u);
  b.run(injector);
  for (const auto& [y, side] : {std::pair{0u, Port::West}, {1u, Port::West}, {2u, Port::West}, {1u, Port::East}}) {
    const auto got = b.sink.at(b.receiver(y, side));
    ASSERT_EQ(got.size(), 4u);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(got[i].cycle, i + 1 + 1 + 2) << y << " " << portName(side);
  }
}

// A row whose wavelets leave at its East edge through a channel four times
// slower than the West one feeding it (queues of depth 4), and a stream of
// 40 numbered wavelets into its West edge.
struct SlowExitRow {
  FabricParams params = makeParams(routingMode<ColorRouting>(), 2, 1, 1, 2, 4);
  ColorRouteTable routes{params.mesh, params.colors};
  FabricKernel kernel{params, &routes};
  wafer::EdgeCollector out{wafer::IoRingEdge(1, 1, 0.25), params.mesh, true};
  wafer::EdgeStream stream;
  SlowExitRow() {
    for (std::uint32_t x = 0; x < 2; ++x) routes.set(x, 0, 0, bit(Port::West), bit(Port::East));
    kernel.setEdgeSink(&out);
    stream.router = params.mesh.id(0, 0);
    stream.side = Port::West;
    stream.count = 40;
    stream.payload = [](std::uint64_t i) { return std::uint32_t(i); };
  }
};

// Backpressure from the fabric to the ring: the slow exit fills the row's
// queues, and the West channel then waits: it stalls, sends every wavelet
// once, and they all leave in order.
TEST(EdgeInjector, AFullEdgeQueueHoldsTheChannelBack) {
  SlowExitRow row;
  wafer::EdgeInjector injector({row.stream}, wafer::IoRingEdge(1, 1, 1.0), row.params.mesh);
  for (std::uint64_t now = 0; now < 1000 && !(injector.finished(now, row.kernel) && row.kernel.idle()); ++now) {
    injector.beginCycle(now, row.kernel);
    row.kernel.step(now);
  }
  EXPECT_EQ(injector.sent(), 40u);
  EXPECT_GT(injector.stalls(), 0u);
  const std::vector<std::uint32_t>& got = row.out.payloads(row.params.mesh.id(1, 0), Port::East);
  ASSERT_EQ(got.size(), 40u);
  for (std::uint32_t i = 0; i < 40; ++i) EXPECT_EQ(got[i], i);
  EXPECT_GE(row.out.lastArrival(), 4u * 39);  // paced by the slow channel out
}

// A stream whose queue is full waits to hear it has room (EdgeSource)
// instead of trying every cycle, and counts a stall for every cycle it
// would have tried: the same stalls, sends and arrivals as a feed that
// tries injectAtEdge every cycle, on the slow-exit row.
TEST(EdgeInjector, WaitingForRoomCountsTheStallsRetryingWould) {
  const auto run = [](bool retryEveryCycle, std::uint64_t& stalls) {
    SlowExitRow row;
    const wafer::EdgeStream& s = row.stream;
    FabricKernel& kernel = row.kernel;
    wafer::EdgeInjector injector({s}, wafer::IoRingEdge(1, 1, 1.0), row.params.mesh);
    std::uint64_t sent = 0;
    for (std::uint64_t now = 0; now < 1000 && !((retryEveryCycle ? sent == s.count : injector.finished(now, kernel)) &&
                                                 kernel.idle());
         ++now) {
      if (!retryEveryCycle) {
        injector.beginCycle(now, kernel);
      } else if (sent < s.count) {  // one wavelet's bandwidth every cycle
        Wavelet w;
        w.payload = s.payload(sent);
        if (kernel.injectAtEdge(s.router, s.side, w, now))
          ++sent;
        else
          ++stalls;
      }
      kernel.step(now);
    }
    if (!retryEveryCycle) stalls = injector.stalls();
    return row.out.lastArrival();
  };
  std::uint64_t retried = 0, waited = 0;
  const std::uint64_t retriedEnd = run(true, retried), waitedEnd = run(false, waited);
  EXPECT_GT(retried, 40u);  // more cycles held back than wavelets sent
  EXPECT_EQ(waited, retried);
  EXPECT_EQ(waitedEnd, retriedEnd);
}

// A stream waiting for the ring's bandwidth is not a deadlock, but once it
// has sent its last wavelet a fabric that cannot move is. Row 0's receiver
// takes nothing (its inbox is full); two wavelets come in at 1/1024 wavelet
// per cycle: the first once a wavelet's bandwidth has accrued (cycle 1023,
// the credit of cycle 0 included), the second 1024 cycles later (2047).
// The first waits at (1, 0)'s RAMP meanwhile, far longer than the watchdog
// of 50; after the second nothing is due, and step(2047 + 50) throws.
TEST(EdgeInjector, ATricklingRingIsNotADeadlockButWhatFollowsIs) {
  EdgeBench b;
  b.params.watchdogCycles = 50;
  FabricKernel kernel{b.params, &b.routes};
  kernel.setSink(&b.sink);
  kernel.setRampAccepting(b.receiver(0), 0, false);
  wafer::EdgeInjector injector({b.stream(0, 2)}, wafer::IoRingEdge(3, 1, 1.0 / 1024), b.params.mesh);
  std::uint64_t now = 0;
  std::string report;
  try {
    for (; now < 10000; ++now) {
      if (kernel.idle()) now = std::max(now, injector.nextActivity(now));
      injector.beginCycle(now, kernel);
      kernel.step(now);
    }
    FAIL() << "no DeadlockError";
  } catch (const DeadlockError& e) {
    report = e.what();
  }
  EXPECT_EQ(injector.sent(), 2u);
  EXPECT_EQ(now, 2047u + 50);
  EXPECT_NE(report.find("for 50 cycles (cycle 2097"), std::string::npos) << report;
  EXPECT_NE(report.find("router (1,0) input W color 0: 2 queued"), std::string::npos) << report;
  EXPECT_TRUE(b.sink.arrivals.empty());
}

TEST(EdgeInjector, StreamsEnterOnlyWhereTheRingHasChannels) {
  EdgeBench b;
  wafer::EdgeStream north = b.stream(0, 1);
  north.side = Port::North;  // router (0, 0) has a north edge, but no ring channel
  EXPECT_THROW(wafer::EdgeInjector({north}, wafer::IoRingEdge(3, 1, 1.0), b.params.mesh), FabricError);
  wafer::EdgeStream inside = b.stream(0, 1);
  inside.side = Port::East;  // router (0, 0) has a neighbour to the east
  EXPECT_THROW(wafer::EdgeInjector({inside}, wafer::IoRingEdge(3, 1, 1.0), b.params.mesh), FabricError);
}

// A mapping's phases hand their streams to one injector in turn: each set
// starts on the ring's bandwidth afresh (at a quarter wavelet per cycle the
// first wavelet waits 3 cycles after the handover), and the input ends the
// cycle after its last wavelet entered, or at the handover when it has none.
TEST(EdgeInjector, StreamsHandedOverOneSetAfterAnother) {
  EdgeBench b;
  wafer::EdgeInjector injector(wafer::IoRingEdge(3, 1, 0.25), b.params.mesh);
  injector.stream({b.stream(0, 2)}, 0);
  b.run(injector);
  EXPECT_EQ(injector.inputEnd(), 3u + 4 + 1);  // entered in cycles 3 and 7
  injector.stream({b.stream(1, 1), b.stream(2, 1, Port::East)}, 100);
  EXPECT_EQ(injector.sent(), 0u);
  EXPECT_EQ(injector.total(), 2u);
  b.run(injector, 1000, 100);
  EXPECT_EQ(injector.sent(), 2u);
  EXPECT_EQ(injector.inputEnd(), 103u + 1);  // the West and East channels each send one in cycle 103
  ASSERT_EQ(b.sink.at(b.receiver(1)).size(), 1u);
  EXPECT_EQ(b.sink.at(b.receiver(2, Port::East)).size(), 1u);
  injector.stream({}, 500);
  EXPECT_EQ(injector.total(), 0u);
  EXPECT_EQ(injector.inputEnd(), 500u);
  EXPECT_EQ(b.kernel.counters().fromEdge, 4u);
}

TEST(EdgeInjector, StreamsHandedOverBeforeThoseBeforeAreInAreRefused) {
  EdgeBench b;
  wafer::EdgeInjector injector({b.stream(0, 3)}, wafer::IoRingEdge(3, 1, 1.0), b.params.mesh);
  try {
    injector.stream({b.stream(1, 1)}, 0);
    FAIL() << "a second set of streams was taken while 3 wavelets were still to enter";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("3 wavelets of the streams before are still to enter"), std::string::npos)
        << e.what();
  }
}

TEST(EdgeInjector, OnlyEdgePortsTakeWaveletsFromOutside) {
  EdgeBench b;
  Wavelet w;
  EXPECT_THROW(b.kernel.injectAtEdge(b.params.mesh.id(1, 1), Port::West, w, 0), FabricError);  // has a neighbour
  EXPECT_THROW(b.kernel.injectAtEdge(b.params.mesh.id(0, 1), Port::Ramp, w, 0), FabricError);
  EXPECT_TRUE(b.kernel.injectAtEdge(b.params.mesh.id(0, 1), Port::West, w, 0));
  EXPECT_FALSE(b.kernel.injectAtEdge(b.params.mesh.id(0, 1), Port::West, w, 0));  // one per cycle
}

}  // namespace
}  // namespace wsesim::fabric
