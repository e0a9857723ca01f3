// The mesh split into bands stepped by several threads at once gives what
// one thread gives (docs/fabric-model.md, "Bands over threads"): every
// delivery (its PE, wavelet and cycle, in order), every wavelet that left
// the mesh (in order, per edge port), every counter and every link's
// transfers, at 1, 2, 3 and 7 threads (7: more than this host's cores,
// for correctness only). These tests also run under ThreadSanitizer
// (.ci/sanitize-thread).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "hw/wafer/EdgeCollector.h"
#include "testbench/tests/fabric/FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using testsupport::Arrival;
using testsupport::Driver;
using testsupport::makeParams;
using testsupport::makeWavelet;

constexpr unsigned kThreads[] = {2, 3, 7};

struct Outcome {
  std::vector<Arrival> deliveries;
  std::vector<std::uint32_t> transfers;  // per router and output
  std::vector<std::vector<std::uint32_t>> leftEast;  // per row: payloads off the East edge, in order
  FabricCounters counters;
  std::uint64_t cycles = 0, lastEdgeArrival = 0, cyclesInBands = 0;
  unsigned bands = 0;
};

void expectSame(const Outcome& one, const Outcome& many, unsigned threads) {
  SCOPED_TRACE("threads " + std::to_string(threads));
  EXPECT_GT(many.bands, 1u);
  EXPECT_GT(many.cyclesInBands, 0u) << "the bands never stepped at once";
  EXPECT_EQ(many.cycles, one.cycles);
  ASSERT_EQ(many.deliveries.size(), one.deliveries.size());
  for (std::size_t i = 0; i < one.deliveries.size(); ++i) {
    const Arrival &a = one.deliveries[i], &b = many.deliveries[i];
    ASSERT_TRUE(a.at == b.at && a.cycle == b.cycle && a.wavelet.payload == b.wavelet.payload &&
                a.wavelet.color == b.wavelet.color)
        << "delivery " << i << ": PE " << b.at << " payload " << b.wavelet.payload << " at cycle " << b.cycle
        << ", one thread: PE " << a.at << " payload " << a.wavelet.payload << " at cycle " << a.cycle;
  }
  EXPECT_EQ(many.transfers, one.transfers);
  EXPECT_EQ(many.leftEast, one.leftEast);
  EXPECT_EQ(many.lastEdgeArrival, one.lastEdgeArrival);
  EXPECT_EQ(many.counters.injected, one.counters.injected);
  EXPECT_EQ(many.counters.delivered, one.counters.delivered);
  EXPECT_EQ(many.counters.hops, one.counters.hops);
  EXPECT_EQ(many.counters.toEdge, one.counters.toEdge);
  EXPECT_EQ(many.counters.queued, 0u);
}

void record(Outcome& o, const FabricKernel& kernel, const Driver& driver) {
  o.deliveries = driver.sink.arrivals;
  const MeshGeometry& mesh = kernel.params().mesh;
  for (RouterId r = 0; r < mesh.routers(); ++r)
    for (unsigned p = 0; p < kPortCount; ++p) o.transfers.push_back(kernel.transfers(r, Port(p)));
  o.counters = kernel.counters();
  o.cycles = driver.now();
  o.cyclesInBands = kernel.cyclesInBands();
  o.bands = kernel.bands();
}

// XY routing on 24 x 16 routers with queues of 2 (full ones everywhere):
// every PE offers a wavelet to a random PE in each of the first 150
// cycles, on one of 4 colors (queues of several colors at one input take
// blocks from the overflow pools), and the fabric drains.
Outcome uniformTraffic(unsigned threads) {
  const FabricParams params = makeParams(routingMode<XyRouting>(), 24, 16, 1, 2, 2, 4);
  FabricKernel kernel(params, nullptr, threads);
  kernel.setPacing(false);  // every cycle that could split does, however fast
  Driver driver(kernel);
  std::uint64_t seed = 12345;
  const auto next = [&] { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  for (std::uint64_t t = 0; t < 150; ++t) {
    for (RouterId r = 0; r < params.mesh.routers(); ++r) {
      const std::uint32_t x = std::uint32_t(next() % 24), y = std::uint32_t(next() % 16);
      driver.offer(r, makeWavelet(unsigned(next() % 4), std::uint32_t(t * 1000 + r), x, y));
    }
    driver.cycle();
  }
  driver.drain(200000);
  Outcome o;
  record(o, kernel, driver);
  return o;
}

// Color routing on 24 x 20: each row's first PE streams east, every router
// of the row hands each wavelet to its PE and forwards it (a multicast),
// and the last sends it off the mesh into one ring feed shared by every
// row, at a third of a wavelet per cycle: the rows' edge routers take
// turns at the ring, in the order one thread steps them.
Outcome rowStreamsOffTheEdge(unsigned threads) {
  const FabricParams params = makeParams(routingMode<ColorRouting>(), 24, 20, 1, 2, 4, 4);
  ColorRouteTable routes(params.mesh, params.colors);
  for (std::uint32_t y = 0; y < 20; ++y) {
    const unsigned color = y % 3;
    routes.set(0, y, color, bit(Port::Ramp), bit(Port::East));
    for (std::uint32_t x = 1; x < 24; ++x)
      routes.set(x, y, color, bit(Port::West), PortMask(bit(Port::East) | bit(Port::Ramp)));
  }
  FabricKernel kernel(params, &routes, threads);
  kernel.setPacing(false);
  wafer::EdgeCollector out(wafer::IoRingEdge(params.mesh.height, 1, 1.0 / 3), params.mesh, true);
  kernel.setEdgeSink(&out);
  Driver driver(kernel);
  for (std::uint32_t y = 0; y < 20; ++y)
    for (std::uint32_t i = 0; i < 40; ++i) driver.offer(params.mesh.id(0, y), makeWavelet(y % 3, y * 100 + i));
  driver.drain(200000);
  Outcome o;
  record(o, kernel, driver);
  for (std::uint32_t y = 0; y < 20; ++y) o.leftEast.push_back(out.payloads(params.mesh.id(23, y), Port::East));
  o.lastEdgeArrival = out.lastArrival();
  return o;
}

TEST(FabricBands, UniformTrafficUnderBackpressureIsTheSameForAnyThreadCount) {
  const Outcome one = uniformTraffic(1);
  EXPECT_EQ(one.bands, 1u);
  EXPECT_EQ(one.counters.injected, 150u * 384);
  for (unsigned threads : kThreads) {
    const Outcome many = uniformTraffic(threads);
    expectSame(one, many, threads);
    // Seven bands need every router active to step at once: only a few cycles do.
    if (threads < 7) {
      EXPECT_GT(many.cyclesInBands, many.cycles / 2) << "at " << threads << " threads";
    }
  }
}

TEST(FabricBands, MulticastRowsLeavingThroughOneRingFeedAreTheSameForAnyThreadCount) {
  const Outcome one = rowStreamsOffTheEdge(1);
  EXPECT_EQ(one.counters.toEdge, 20u * 40);
  EXPECT_EQ(one.counters.delivered, 20u * 40 * 23);
  for (unsigned threads : kThreads) expectSame(one, rowStreamsOffTheEdge(threads), threads);
}

// A mesh too small to split keeps one band, whatever the threads.
TEST(FabricBands, BandsHoldAtLeastSixteenRouters) {
  const FabricParams params = makeParams(routingMode<XyRouting>(), 4, 8, 1, 2, 4);
  EXPECT_EQ(FabricKernel(params, nullptr, 7).bands(), 2u);
  EXPECT_EQ(FabricKernel(params, nullptr, 2).bands(), 2u);
  EXPECT_EQ(FabricKernel(makeParams(routingMode<XyRouting>(), 4, 4, 1, 2, 4), nullptr, 4).bands(), 1u);
}

// Every 2 x 2 block of a 24 x 16 mesh has a loop of its own (color 0
// circling clockwise, as Deadlock.FilledCyclicRouteIsReportedAsDeadlockNotAHang's),
// which its first PE fills until nothing moves: the watchdog's error (the
// cycle it fires in, every blocked queue, in router order) is one thread's.
struct Deadlocked {
  std::uint64_t cycle = 0, cyclesInBands = 0;
  std::string report;
};

Deadlocked loopsDeadlock(unsigned threads) {
  FabricParams params = makeParams(routingMode<ColorRouting>(), 24, 16, 1, 1, 2);
  params.watchdogCycles = 50;
  ColorRouteTable routes(params.mesh, params.colors);
  for (std::uint32_t y = 0; y < 16; y += 2)
    for (std::uint32_t x = 0; x < 24; x += 2) {
      routes.set(x, y, 0, PortMask(bit(Port::Ramp) | bit(Port::South)), bit(Port::East));
      routes.set(x + 1, y, 0, bit(Port::West), bit(Port::South));
      routes.set(x + 1, y + 1, 0, bit(Port::North), bit(Port::West));
      routes.set(x, y + 1, 0, bit(Port::East), bit(Port::North));
    }
  FabricKernel kernel(params, &routes, threads);
  kernel.setPacing(false);
  Driver driver(kernel);
  for (std::uint32_t y = 0; y < 16; y += 2)
    for (std::uint32_t x = 0; x < 24; x += 2)
      for (std::uint32_t k = 0; k < 20; ++k) driver.offer(params.mesh.id(x, y), makeWavelet(0, y * 1000 + x * 20 + k));
  Deadlocked d;
  try {
    while (driver.now() < 2000) driver.cycle();
    ADD_FAILURE() << "no DeadlockError within 2000 cycles";
  } catch (const DeadlockError& e) {
    d.report = e.what();
  }
  d.cycle = driver.now();
  d.cyclesInBands = kernel.cyclesInBands();
  return d;
}

TEST(FabricBands, ADeadlockIsReportedAlikeForAnyThreadCount) {
  const Deadlocked one = loopsDeadlock(1);
  EXPECT_NE(one.report.find("deadlock"), std::string::npos) << one.report;
  for (unsigned threads : kThreads) {
    const Deadlocked many = loopsDeadlock(threads);
    EXPECT_EQ(many.cycle, one.cycle) << threads << " threads";
    EXPECT_EQ(many.report, one.report) << threads << " threads";
    if (threads == 2) {
      EXPECT_GT(many.cyclesInBands, 0u) << "the bands never stepped at once";
    }
  }
}

}  // namespace
}  // namespace wsesim::fabric
