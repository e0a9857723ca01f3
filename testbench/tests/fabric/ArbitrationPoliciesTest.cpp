// The arbitration policy list: arch.fabric.arbitration's values, its error
// and its default come from the list; every policy in it keeps the
// kernel's promises under backpressure (no wavelet lost or duplicated,
// every one delivered, in order per source and color); and, per policy,
// who an output serves when two inputs saturate it, with exact cycles.
// The EveryArbitrationPolicy cases enumerate the list, so a new policy is covered
// without a new test.

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "hw/fabric/ArbitrationPolicies.h"
#include "testbench/tests/fabric/FabricTestSupport.h"

namespace wsesim::fabric {
namespace {

using namespace testsupport;

config::ArchConfig presetArch(const std::string& preset, const std::string& fabricKeys = "") {
  config::ConfigTree tree = config::ConfigTree::fromText(
      "arch:\n  preset: " + preset + "\n" + (fabricKeys.empty() ? "" : "  fabric:\n" + fabricKeys), "test");
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  return config::ArchConfig::read(params);
}

config::ArchConfig tinyArchArbitration(const std::string& arbitration) {
  return presetArch("tiny", "    arbitration: " + arbitration + "\n");
}

TEST(ArbitrationPolicies, NamesAreUniqueAndEachNamesItsOwnPolicy) {
  const std::vector<std::string> names = arbitrationNames();
  ASSERT_EQ(names.size(), std::tuple_size_v<ArbitrationPolicyList>);
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(names[i], names[j]);
    EXPECT_EQ(arbitrationModeOf(names[i]).index, i) << names[i];
    EXPECT_EQ(arbitrationName(arbitrationModeOf(names[i])), names[i]);
  }
  EXPECT_EQ(arbitrationName(arbitrationMode<RoundRobinArbitration>()), std::string("round_robin"));
  EXPECT_EQ(arbitrationName(arbitrationMode<FixedPriorityArbitration>()), std::string("fixed_priority"));
}

TEST(ArbitrationPolicies, AnUnknownValueIsRefusedNamingTheKeyAndEveryPolicy) {
  try {
    tinyArchArbitration("oldest_first");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("arch.fabric.arbitration"), std::string::npos) << msg;
    EXPECT_NE(msg.find("oldest_first"), std::string::npos) << msg;
    for (const std::string& name : arbitrationNames())
      EXPECT_NE(msg.find(name), std::string::npos) << name << ": " << msg;
  }
  try {
    arbitrationModeOf("oldest_first");
    ADD_FAILURE() << "expected a FabricError";
  } catch (const FabricError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("arbitration policy"), std::string::npos) << msg;
    for (const std::string& name : arbitrationNames())
      EXPECT_NE(msg.find(name), std::string::npos) << name << ": " << msg;
  }
}

// Today's behaviour is the presets' default: the pinned cycles depend on it.
TEST(ArbitrationPolicies, EveryPresetArbitratesRoundRobin) {
  for (const char* preset : {"tiny", "small", "wse2", "wse3"})
    EXPECT_EQ(presetArch(preset).fabric.arbitration, arbitrationMode<RoundRobinArbitration>()) << preset;
}

// Programs, for every color, a tree that converges on the hotspot: a router
// off the hotspot's row sends north/south towards that row, a router on it
// sends east/west towards the hotspot, the hotspot hands to its PE. Every
// router accepts from its own PE and from the neighbours whose next hop it is.
void routeTreeTo(ColorRouteTable& table, Coord hotspot) {
  const MeshGeometry& mesh = table.mesh();
  auto nextHop = [&](std::uint32_t x, std::uint32_t y) {
    if (y != hotspot.second) return y < hotspot.second ? Port::South : Port::North;
    if (x != hotspot.first) return x < hotspot.first ? Port::East : Port::West;
    return Port::Ramp;
  };
  for (unsigned color = 0; color < table.colors(); ++color) {
    for (std::uint32_t y = 0; y < mesh.height; ++y) {
      for (std::uint32_t x = 0; x < mesh.width; ++x) {
        PortMask accept = bit(Port::Ramp);
        const RouterId r = mesh.id(x, y);
        for (Port p : {Port::North, Port::East, Port::South, Port::West}) {
          const RouterId n = mesh.neighbour(r, p);
          if (n != kNoRouter && nextHop(mesh.xOf(n), mesh.yOf(n)) == opposite(p)) accept |= bit(p);
        }
        table.set(x, y, color, accept, bit(nextHop(x, y)));
      }
    }
  }
}

// 35 PEs of a 6x6 mesh send to the PE at (3,2), each offering a new wavelet
// with probability 3/10 per cycle for 300 cycles: ~10 offers per cycle into a
// sink that takes one per cycle, so queues fill and most offers are refused
// (the PE keeps retrying its oldest wavelet). Unicast conserves wavelets:
// at every point, accepted = delivered + queued, and the queued count is what
// the queues hold. After draining, every wavelet has arrived exactly once,
// unmodified, no sooner than its zero-load latency, and per (source, color)
// in the order it was injected. Whatever the policy: it decides only who
// goes first.
void expectConservationUnderHotspot(RoutingMode mode, ArbitrationMode arbitration) {
  FabricParams p = makeParams(mode, 6, 6, 1, 2, 3);
  p.arbitration = arbitration;
  const Coord hotspot{3, 2};
  const RouterId sinkPe = p.mesh.id(hotspot.first, hotspot.second);
  ColorRouteTable routes(p.mesh, p.colors);
  routeTreeTo(routes, hotspot);
  FabricKernel fabric(p, &routes);
  Driver driver(fabric);
  std::mt19937 rng(12345);

  auto checkConservation = [&](const char* when) {
    const FabricCounters& c = fabric.counters();
    ASSERT_EQ(c.injected, c.delivered + c.queued) << when << " cycle " << driver.now();
    ASSERT_EQ(c.injected, driver.accepted.size()) << when << " cycle " << driver.now();
    ASSERT_EQ(c.delivered, driver.sink.arrivals.size()) << when << " cycle " << driver.now();
    std::uint64_t held = 0;
    for (RouterId r = 0; r < p.mesh.routers(); ++r)
      for (unsigned in = 0; in < kPortCount; ++in) held += fabric.occupancy(r, Port(in));
    ASSERT_EQ(held, c.queued) << when << " cycle " << driver.now();
  };

  std::uint32_t nextId = 0;
  while (driver.now() < 300) {
    for (RouterId r = 0; r < p.mesh.routers(); ++r) {
      if (r == sinkPe || rng() % 10 >= 3) continue;
      Wavelet w = makeWavelet(rng() % p.colors, nextId++, hotspot.first, hotspot.second);
      w.control = rng() % 2;  // carried untouched, like every field
      w.last = rng() % 2;
      driver.offer(r, w);
    }
    driver.offerAll();
    checkConservation("after offers");
    driver.step();
    checkConservation("after step");
  }
  while ((driver.hasPending() || !fabric.idle()) && driver.now() < 20000) {
    driver.cycle();
    checkConservation("draining");
  }
  ASSERT_TRUE(fabric.idle());
  ASSERT_FALSE(driver.hasPending());
  EXPECT_GT(driver.refusals, 1000u) << "not saturated: backpressure was not exercised";

  // Exactly once, unmodified, at the hotspot.
  ASSERT_EQ(driver.accepted.size(), nextId);
  ASSERT_EQ(driver.sink.arrivals.size(), nextId);
  std::vector<int> seen(nextId, 0);
  std::vector<const Driver::Accepted*> byId(nextId, nullptr);
  for (const auto& a : driver.accepted) byId[a.wavelet.payload] = &a;
  std::uint64_t previousArrival = 0;
  std::map<std::pair<RouterId, unsigned>, std::uint32_t> lastIdPerSourceColor;
  for (const Arrival& a : driver.sink.arrivals) {
    const std::uint32_t id = a.wavelet.payload;
    ASSERT_LT(id, nextId);
    ASSERT_EQ(++seen[id], 1) << "wavelet " << id << " delivered twice";
    const Driver::Accepted& src = *byId[id];
    EXPECT_EQ(a.at, sinkPe);
    EXPECT_EQ(a.wavelet.color, src.wavelet.color);
    EXPECT_EQ(a.wavelet.control, src.wavelet.control);
    EXPECT_EQ(a.wavelet.last, src.wavelet.last);
    EXPECT_EQ(a.wavelet.destX, src.wavelet.destX);
    EXPECT_EQ(a.wavelet.destY, src.wavelet.destY);
    // Zero-load latency from the source: hops * 1 + 2 * 2.
    const unsigned hops = unsigned(std::abs(int(p.mesh.xOf(src.pe)) - int(hotspot.first)) +
                                   std::abs(int(p.mesh.yOf(src.pe)) - int(hotspot.second)));
    EXPECT_GE(a.cycle, src.cycle + hops + 4) << "wavelet " << id;
    // The hotspot's RAMP output hands over one wavelet per cycle.
    EXPECT_GT(a.cycle, previousArrival) << "two deliveries in one cycle at the hotspot";
    previousArrival = a.cycle;
    // A PE's wavelets of one color follow one path through FIFO queues.
    // Ids grow with offer order, and a PE's offers are accepted in order.
    const auto key = std::make_pair(src.pe, unsigned(src.wavelet.color));
    auto [it, first] = lastIdPerSourceColor.emplace(key, id);
    if (!first) {
      EXPECT_GT(id, it->second) << "source " << p.mesh.name(src.pe) << " color " << key.second << " reordered";
      it->second = id;
    }
  }
}

class EveryArbitrationPolicy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryArbitrationPolicy, TheKeySelectsIt) {
  EXPECT_EQ(arbitrationName(tinyArchArbitration(GetParam()).fabric.arbitration), GetParam());
}

TEST_P(EveryArbitrationPolicy, HotspotConservesWaveletsAndDeliversEachOnceXy) {
  expectConservationUnderHotspot(routingMode<XyRouting>(), arbitrationModeOf(GetParam()));
}

TEST_P(EveryArbitrationPolicy, HotspotConservesWaveletsAndDeliversEachOnceColorTree) {
  expectConservationUnderHotspot(routingMode<ColorRouting>(), arbitrationModeOf(GetParam()));
}

INSTANTIATE_TEST_SUITE_P(All, EveryArbitrationPolicy, ::testing::ValuesIn(arbitrationNames()),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// Two inputs saturate one output: XY, 3x1, H = 1, R = 1, depth 4. A = PE
// (0,0) and B = PE (1,0) each send 10 wavelets of color 0 to (2,0) (payloads
// 100 + k and 200 + k), offered from cycle 0, one a cycle while accepted.
// Router (1,0)'s east output is wanted by its W input (A's stream, a_k ready
// there at k + 2) and its RAMP input (B's, b0 ready at 1). Whatever (1,0)
// sends east at cycle u, (2,0) delivers at u + 1 (one a cycle arrives, its
// RAMP output is free) and the PE has it at u + 2.
struct TwoInputs {
  std::vector<Transfer> grants;   // (1,0)'s east output
  std::vector<Arrival> arrivals;  // at PE (2,0)
};

TwoInputs twoInputsSaturatingOneOutput(ArbitrationMode arbitration) {
  FabricParams p = makeParams(routingMode<XyRouting>(), 3, 1, 1, 1, 4);
  p.arbitration = arbitration;
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  RecordingObserver observer;
  driver.watch(observer);
  const RouterId a = p.mesh.id(0, 0), b = p.mesh.id(1, 0), dst = p.mesh.id(2, 0);
  for (unsigned k = 0; k < 10; ++k) {
    driver.offer(a, makeWavelet(0, 100 + k, 2, 0));
    driver.offer(b, makeWavelet(0, 200 + k, 2, 0));
  }
  driver.drain(200);
  return {observer.from(b, Port::East), driver.sink.at(dst)};
}

// Round-robin:
//   cycle 1: only b0 is ready; the initial position is "after RAMP", and
//            only RAMP asks: b0.
//   cycle 2: a0 and b1 ready; the search starts after the last grant (RAMP)
//            and goes N, E, S, W: a0.
//   cycle 3: after W comes RAMP: b1. And so on, alternating, both inputs
//            staying backlogged (each source offers one a cycle, gets one
//            every two).
// So (1,0) sends b_k east at 2k + 1 and a_k at 2k + 2, and the PE sees b_k
// at 2k + 3 and a_k at 2k + 4: cycles 3..22 alternate B, A. Equal shares:
// after any number of deliveries, the two sources' counts differ by at most one.
TEST(ArbitrationPolicies, RoundRobinAlternatesTwoInputsSaturatingOneOutput) {
  const TwoInputs run = twoInputsSaturatingOneOutput(arbitrationMode<RoundRobinArbitration>());
  ASSERT_EQ(run.grants.size(), 20u);
  for (unsigned i = 0; i < 20; ++i) EXPECT_EQ(run.grants[i].cycle, i + 1u) << "grant " << i;
  ASSERT_EQ(run.arrivals.size(), 20u);
  int fromA = 0, fromB = 0;
  for (unsigned k = 0; k < 10; ++k) {
    EXPECT_EQ(run.arrivals[2 * k].wavelet.payload, 200 + k);  // b_k
    EXPECT_EQ(run.arrivals[2 * k].cycle, 2 * k + 3);
    EXPECT_EQ(run.arrivals[2 * k + 1].wavelet.payload, 100 + k);  // a_k
    EXPECT_EQ(run.arrivals[2 * k + 1].cycle, 2 * k + 4);
  }
  for (const Arrival& arrival : run.arrivals) {
    ++(arrival.wavelet.payload < 200 ? fromA : fromB);
    EXPECT_LE(std::abs(fromA - fromB), 1) << "at cycle " << arrival.cycle;
  }
}

// Fixed priority: W (3) comes before RAMP (4), so B moves only in a cycle in
// which A has no ready head at (1,0):
//   cycle 1: a0 is not there yet: b0 (arrives at 3).
//   cycles 2..11: a_k is ready at k + 2 and wins: sent at k + 2, arrives at
//            k + 4 (4..13). B's RAMP queue fills (b1..b4, depth 4) and its
//            PE is refused meanwhile: starved.
//   cycle 12: A is done: b1. The pop frees a RAMP slot for cycle 13 (the
//            credit rule), so B injects b5 at 13, ready at 14, and so on, one
//            a cycle: b_k (k >= 1) is sent at 11 + k and arrives at 13 + k
//            (14..22).
// The link is as busy as under round-robin (grants at cycles 1..20), only
// the order differs.
TEST(ArbitrationPolicies, FixedPriorityServesTheFirstInputAndTheOtherOnlyWhenItIsIdle) {
  const TwoInputs run = twoInputsSaturatingOneOutput(arbitrationMode<FixedPriorityArbitration>());
  ASSERT_EQ(run.grants.size(), 20u);
  for (unsigned i = 0; i < 20; ++i) EXPECT_EQ(run.grants[i].cycle, i + 1u) << "grant " << i;
  ASSERT_EQ(run.arrivals.size(), 20u);
  EXPECT_EQ(run.arrivals[0].wavelet.payload, 200u);  // b0
  EXPECT_EQ(run.arrivals[0].cycle, 3u);
  for (unsigned k = 0; k < 10; ++k) {
    EXPECT_EQ(run.arrivals[1 + k].wavelet.payload, 100 + k);  // a_k
    EXPECT_EQ(run.arrivals[1 + k].cycle, k + 4);
  }
  for (unsigned k = 1; k < 10; ++k) {
    EXPECT_EQ(run.arrivals[10 + k].wavelet.payload, 200 + k);  // b_k
    EXPECT_EQ(run.arrivals[10 + k].cycle, k + 13);
  }
}

// Two colors of one input compete for one output (the single-contender
// path): XY, 2x1, H = 1, R = 1, depth 4. PE (0,0) sends three wavelets of
// color 1 (payloads 10..12), then three of color 0 (0..2), to PE (1,0),
// whose PE takes nothing until cycle 20 (setRampAccepting): by then all six
// wait at (1,0)'s W input, three per color, and from cycle 20 its RAMP
// output grants one a cycle, each arriving R = 1 later.
std::vector<Arrival> twoColorsOfOneInput(ArbitrationMode arbitration) {
  FabricParams p = makeParams(routingMode<XyRouting>(), 2, 1, 1, 1, 4);
  p.arbitration = arbitration;
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  const RouterId src = p.mesh.id(0, 0), dst = p.mesh.id(1, 0);
  for (unsigned c : {1u, 0u}) {
    fabric.setRampAccepting(dst, c, false);
    for (unsigned k = 0; k < 3; ++k) driver.offer(src, makeWavelet(c, 10 * c + k, 1, 0));
  }
  while (driver.now() < 20) driver.cycle();
  EXPECT_EQ(fabric.occupancy(dst, Port::West), 6u);
  EXPECT_TRUE(driver.sink.arrivals.empty());
  for (unsigned c : {0u, 1u}) fabric.setRampAccepting(dst, c, true);
  driver.drain(100);
  return driver.sink.at(dst);
}

// The arrivals carry `payloads`, in that order, one a cycle from cycle 21.
void expectOneACycleFrom21(const std::vector<Arrival>& arrivals, const std::vector<std::uint32_t>& payloads) {
  ASSERT_EQ(arrivals.size(), payloads.size());
  for (unsigned i = 0; i < payloads.size(); ++i) {
    EXPECT_EQ(arrivals[i].wavelet.payload, payloads[i]) << "arrival " << i;
    EXPECT_EQ(arrivals[i].cycle, 21 + i) << "arrival " << i;
  }
}

// Round-robin: the RAMP output has granted nothing yet, so it starts after
// (RAMP, 31): W's lowest color, 0, at 20; then W's next color after 0, 1,
// at 21; then none after 1, so 0 again: the colors alternate.
TEST(ArbitrationPolicies, RoundRobinAlternatesTheColorsOfOneInput) {
  expectOneACycleFrom21(twoColorsOfOneInput(arbitrationMode<RoundRobinArbitration>()), {0, 10, 1, 11, 2, 12});
}

// Fixed priority: the lowest color first, whatever came first: color 0 at
// 20..22, then color 1 at 23..25.
TEST(ArbitrationPolicies, FixedPriorityServesTheLowestColorOfOneInputFirst) {
  expectOneACycleFrom21(twoColorsOfOneInput(arbitrationMode<FixedPriorityArbitration>()), {0, 1, 2, 10, 11, 12});
}

// An output's round-robin remembers its last grant through idle cycles;
// restarted (FabricKernel::restartArbiters, at every GEMM phase), it
// starts as a new fabric's. The RAMP output at (1,0) of the set-up above
// first delivers one wavelet of color 0; then both colors wait at its W
// input as above.
std::vector<std::uint32_t> twoColorsAfterOneOfColor0(bool restart) {
  FabricParams p = makeParams(routingMode<XyRouting>(), 2, 1, 1, 1, 4);
  p.arbitration = arbitrationMode<RoundRobinArbitration>();
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  const RouterId src = p.mesh.id(0, 0), dst = p.mesh.id(1, 0);
  driver.offer(src, makeWavelet(0, 99, 1, 0));
  driver.drain(100);
  if (restart) fabric.restartArbiters();
  const std::uint64_t idle = driver.now();
  for (unsigned c : {1u, 0u}) {
    fabric.setRampAccepting(dst, c, false);
    for (unsigned k = 0; k < 3; ++k) driver.offer(src, makeWavelet(c, 10 * c + k, 1, 0));
  }
  while (driver.now() < idle + 20) driver.cycle();
  for (unsigned c : {0u, 1u}) fabric.setRampAccepting(dst, c, true);
  driver.drain(100);
  std::vector<std::uint32_t> payloads;
  for (const Arrival& a : driver.sink.at(dst)) payloads.push_back(a.wavelet.payload);
  return payloads;
}

TEST(ArbitrationPolicies, RestartedRoundRobinStartsAsANewOne) {
  // Kept: the last grant was W's color 0, so color 1 goes first.
  EXPECT_EQ(twoColorsAfterOneOfColor0(false), (std::vector<std::uint32_t>{99, 10, 0, 11, 1, 12, 2}));
  // Restarted: color 0 first, as on a new fabric (RoundRobinAlternatesTheColorsOfOneInput).
  EXPECT_EQ(twoColorsAfterOneOfColor0(true), (std::vector<std::uint32_t>{99, 0, 10, 1, 11, 2, 12}));
}

TEST(ArbitrationPolicies, ArbitersRestartOnlyInAnEmptyFabric) {
  FabricParams p = makeParams(routingMode<XyRouting>(), 2, 1, 1, 1, 4);
  FabricKernel fabric(p, nullptr);
  Driver driver(fabric);
  driver.offer(p.mesh.id(0, 0), makeWavelet(0, 1, 1, 0));
  driver.cycle();
  EXPECT_THROW(fabric.restartArbiters(), std::logic_error);
}

}  // namespace
}  // namespace wsesim::fabric
