// The chip builds only the parts a workload asks for and names a missing
// one when it is used, steps the workload's controller before the ingress
// edge in every cycle, and attaches the waveform tracers from outside the
// wafer.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "hw/chip/WaferChip.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "testbench/tests/ScratchDir.h"

namespace wsesim::chip {
namespace {

using fabric::bit;
using fabric::Port;

struct Configs {
  config::ArchConfig arch;
  config::RunConfig run;
};

// The 8 x 8 test preset with every other key at its default (a VCD of
// routers and PEs (0..3, 0..3)).
Configs tiny() {
  config::ConfigTree tree = config::ConfigTree::fromText("arch: {preset: tiny}\n", "test");
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  Configs c{config::ArchConfig::read(params), {}};
  c.run = config::RunConfig::read(params, c.arch);
  return c;
}

// The chip a NoC study asks for: routes and an ingress edge of one
// wavelet per channel-cycle, no PEs.
ChipParts fabricOnly() {
  ChipParts parts;
  parts.pes = false;
  parts.ingress = wafer::IoRingEdge(8, 1, 1.0);
  return parts;
}

std::string thrownBy(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "nothing thrown";
}

struct Delivered : fabric::WaveletSink {
  std::vector<std::uint64_t> cycles;
  void deliver(fabric::RouterId, const fabric::Wavelet&, std::uint64_t cycle) override { cycles.push_back(cycle); }
};

// Hands one wavelet's stream to the ingress edge in cycle `at`; done once it
// has arrived.
struct HandOver : sim::CycleDriver {
  wafer::EdgeIngress& ingress;
  const Delivered& sink;
  std::uint64_t at;
  bool handed = false;
  HandOver(wafer::EdgeIngress& i, const Delivered& s, std::uint64_t a) : ingress(i), sink(s), at(a) {}

  void beginCycle(std::uint64_t now, fabric::FabricKernel&) override {
    if (handed || now != at) return;
    wafer::EdgeStream s;
    s.router = 0;  // (0, 0), from the West
    s.count = 1;
    ingress.stream({s}, now);
    handed = true;
  }
  std::uint64_t nextActivity(std::uint64_t now) const override { return handed ? sim::kNever : std::max(now, at); }
  bool finished(std::uint64_t, const fabric::FabricKernel& fabric) const override {
    return !sink.cycles.empty() && fabric.idle();
  }
};

// The stream handed over in cycle 5 enters the mesh in cycle 5 itself: the
// controller runs before the ingress edge in a cycle (the other way round it
// would enter in cycle 6). It reaches the sink (no PEs) through the ramp.
TEST(WaferChip, ControllerRunsBeforeTheIngressEdgeInACycle) {
  const Configs c = tiny();
  WaferChip chip(c.arch, c.run, fabricOnly());
  chip.routes().set(0, 0, 0, bit(Port::West), bit(Port::Ramp));
  Delivered sink;
  HandOver controller(chip.ingress(), sink, 5);
  chip.setController(&controller);
  chip.setSink(&sink);
  chip.simulate({});
  EXPECT_EQ(chip.ingress().inputEnd(), 6u);
  ASSERT_EQ(sink.cycles.size(), 1u);
  EXPECT_EQ(chip.fabric().counters().fromEdge, 1u);
  // On the edge link a hop (ready in cycle 6), then the router hands it to
  // the ramp, 2 cycles to the PE: cycle 8. The fabric is empty after cycle 6.
  EXPECT_EQ(sink.cycles[0], 5u + 1 + 2);
  EXPECT_EQ(chip.cycles(), 7u);
}

TEST(WaferChip, PartsNotAskedForAreNamedWhenUsed) {
  const Configs c = tiny();
  WaferChip chip(c.arch, c.run, fabricOnly());
  EXPECT_NE(thrownBy([&] { chip.pes(); }).find("the chip was built without PEs"), std::string::npos);
  EXPECT_NE(thrownBy([&] { chip.egress(); }).find("without an egress edge"), std::string::npos);
  EXPECT_NE(thrownBy([&] { chip.simulate({}); }).find("a chip without PEs needs a controller"), std::string::npos);
}

TEST(WaferChip, TheFabricOfAChipWithPesDeliversToThem) {
  const Configs c = tiny();
  WaferChip chip(c.arch, c.run, ChipParts{});
  Delivered sink;
  EXPECT_NE(thrownBy([&] { chip.setSink(&sink); }).find("delivers to its PEs"), std::string::npos);
  EXPECT_THROW(chip.ingress(), std::logic_error);
}

TEST(WaferChip, PlansTheHostBytesOfThePartsAsked) {
  const Configs c = tiny();
  const std::uint64_t wafer =
      wafer::CycleLoop::plannedHostBytes(c.arch.fabricParams(c.run.watchdogCycles)) + sizeof(wafer::Wafer);
  const std::uint64_t pes = pe::PeArray::plannedHostBytes(c.arch.pe, c.arch.mesh, c.arch.fabric.colors, c.run.mode);
  const std::uint64_t routes = fabric::ColorRouteTable::plannedHostBytes(c.arch.mesh, c.arch.fabric.colors);
  EXPECT_EQ(WaferChip::plannedHostBytes(c.arch, c.run, ChipParts{}), wafer + pes + routes);
  ChipParts bare;
  bare.pes = bare.routes = false;
  EXPECT_EQ(WaferChip::plannedHostBytes(c.arch, c.run, bare), wafer);
  bare.systemc = false;
  EXPECT_EQ(WaferChip::plannedHostBytes(c.arch, c.run, bare), wafer - sizeof(wafer::Wafer));
}

// Runs the chip for `cycles` cycles, doing nothing.
struct Idle : sim::CycleDriver {
  std::uint64_t cycles;
  explicit Idle(std::uint64_t n) : cycles(n) {}
  void beginCycle(std::uint64_t, fabric::FabricKernel&) override {}
  std::uint64_t nextActivity(std::uint64_t now) const override { return now; }
  bool finished(std::uint64_t now, const fabric::FabricKernel&) const override { return now >= cycles; }
};

// The waveform of run.vcd.region (routers and PEs (0..3, 0..3)) has both
// tracers' signals under the wafer's name.
TEST(WaferChip, WaveformHasTheRoutersAndPesOfTheRegion) {
  const Configs c = tiny();
  const wsesim::testing::ScratchDir dir;
  const std::filesystem::path base = dir.path() / "waveform";
  WaferChip chip(c.arch, c.run, ChipParts{});
  Idle idle(3);
  chip.setController(&idle);
  RunOptions options;
  options.vcdBaseName = base.string();
  chip.simulate(options);
  std::ifstream in(base.string() + ".vcd");
  std::stringstream text;
  text << in.rdbuf();
  // SystemC writes each dot of a name as a scope.
  const std::string vcd = text.str();
  const std::size_t wafer = vcd.find("$scope module wafer $end");
  ASSERT_NE(wafer, std::string::npos) << vcd;
  const std::size_t router = vcd.find("$scope module r0_0 $end", wafer);
  ASSERT_NE(router, std::string::npos) << vcd;
  EXPECT_NE(vcd.find("in_N_queued", router), std::string::npos);
  EXPECT_NE(vcd.find("out_E_color", router), std::string::npos);
  const std::size_t pe = vcd.find("$scope module pe0_0 $end", wafer);
  ASSERT_NE(pe, std::string::npos) << vcd;
  EXPECT_NE(vcd.find("busy", pe), std::string::npos);
  EXPECT_NE(vcd.find("$scope module pe3_3 $end", wafer), std::string::npos);
  EXPECT_EQ(vcd.find("module r4_0"), std::string::npos);  // outside the region
  EXPECT_EQ(chip.cycles(), 3u);
}

}  // namespace
}  // namespace wsesim::chip
