// A run held up by a slow I/O ring, its fabric full of wavelets that wait:
// the wafer skips the cycles in which nothing can change, so it steps a few
// times per ring transfer, not once per cycle, and every cycle count is the
// one derived by hand for stepping every cycle.
#include <gtest/gtest.h>

#include "hw/chip/WaferChip.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "hw/pe/ProgramBuilder.h"
#include "testbench/tests/MechanismTiming.h"

namespace wsesim::chip {
namespace {

using fabric::bit;
using fabric::Port;
using namespace pe;

constexpr std::uint64_t kPeriod = 1024;  // cycles per ring wavelet: a rate of 2^-10, exact
constexpr std::uint32_t kElements = 40;

// Hands the ring's stream over in cycle 0; done once it is all in and the PEs are.
struct RingThenPes : sim::CycleDriver {
  wafer::EdgeIngress& ingress;
  PeArray& pes;
  RingThenPes(wafer::EdgeIngress& i, PeArray& p) : ingress(i), pes(p) {}
  void beginCycle(std::uint64_t now, fabric::FabricKernel&) override {
    if (now != 0) return;
    wafer::EdgeStream s;
    s.router = 1;  // (1,0), from the East
    s.side = Port::East;
    s.color = 0;
    s.count = kElements;
    ingress.stream({s}, now);
  }
  std::uint64_t nextActivity(std::uint64_t) const override { return sim::kNever; }
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override {
    return now > 0 && ingress.sent() == ingress.total() && pes.finished(now, fabric);
  }
};

// Counts the cycles the wafer steps.
struct StepCounter : sim::CycleObserver {
  std::uint64_t steps = 0;
  void sample(std::uint64_t) override { ++steps; }
};

// A 2 x 1 mesh: PE (1,0) adds, element by element, color 0 from the ring
// (its East edge, one wavelet per 1024 cycles) to color 1 from PE (0,0),
// which sends all 40 at once: they fill PE (0,0)'s RAMP queue, router
// (1,0)'s West queue and PE (1,0)'s inbox (4 each) and wait there.
TEST(StallSkip, ASlowRingIsSteppedPerTransferWithTheSameCycles) {
  config::ConfigTree tree = config::ConfigTree::fromText(
      "arch:\n  preset: tiny\n  mesh: {width: 2, height: 1}\nrun:\n  mode: timing\n", "test");
  for (const std::string& o : wsesim::testing::kMechanismTiming) tree.applyOverride(o);
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  const config::ArchConfig arch = config::ArchConfig::read(params);
  const config::RunConfig run = config::RunConfig::read(params, arch);
  ChipParts parts;
  parts.ingress = wafer::IoRingEdge(1, 1, 1.0 / kPeriod);
  WaferChip chip(arch, run, parts);
  chip.routes().set(1, 0, 0, bit(Port::East), bit(Port::Ramp));
  chip.routes().set(0, 0, 1, bit(Port::Ramp), bit(Port::East));
  chip.routes().set(1, 0, 1, bit(Port::West), bit(Port::Ramp));

  ProgramBuilder send("send");
  const BufferRef out = send.buffer("out", ElementType::F32, kElements);
  const TaskRef s = send.task("main");
  send.activateAtStart(s);
  send.fmov(s, Precision::Fp32, fabricOut(1, kElements), memory(out, kElements));
  ProgramBuilder add("add");
  const BufferRef sum = add.buffer("sum", ElementType::F32, kElements);
  const TaskRef a = add.task("main");
  add.activateAtStart(a);
  add.fadd(a, Precision::Fp32, memory(sum, kElements), fabricIn(0, kElements), fabricIn(1, kElements));
  chip.pes().load(0, chip.pes().addProgram(send.build()));
  chip.pes().load(1, chip.pes().addProgram(add.build()));

  RingThenPes controller(chip.ingress(), chip.pes());
  chip.setController(&controller);
  StepCounter counter;
  chip.loop().addTraceObserver(&counter);
  chip.simulate({});

  // Ring wavelet k goes in cycle 1024 (k + 1) - 1 (a cycle's worth of
  // credit in cycle 0), is ready at (1,0) a hop later, reaches the PE 2
  // ramp cycles after and is usable 1 more on: 1024 (k + 1) + 3, when the
  // adder moves element k. Its last element ends a cycle later, at
  // 1024 x 40 + 4, the run in the cycle after.
  const std::uint64_t lastElement = kPeriod * kElements + 3;
  EXPECT_EQ(chip.pes().counters(1).busyCycles, lastElement + 1);
  EXPECT_EQ(chip.cycles(), lastElement + 2);
  // The sender's element j + 12 goes in 3 cycles after the adder reads
  // element j (the room travels back: inbox, router (1,0), router (0,0)),
  // so its last, 39, at 1024 x 28 + 3 + 3, and it ends a cycle later.
  EXPECT_EQ(chip.pes().counters(0).busyCycles, kPeriod * (kElements - 12) + 3 + 3 + 1);
  EXPECT_EQ(chip.fabric().counters().delivered, 2u * kElements);
  // At most 8 steps per ring wavelet (it goes in; it reaches the RAMP; the
  // fabric stalls; the adder reads; the inbox's room, router (1,0)'s,
  // router (0,0)'s come back; the sender's next is refused) and the first
  // cycles, not one step per cycle: 41,000 of them.
  EXPECT_LE(counter.steps, 8 * kElements + 32);
  EXPECT_GE(counter.steps, 2 * kElements);
}

}  // namespace
}  // namespace wsesim::chip
