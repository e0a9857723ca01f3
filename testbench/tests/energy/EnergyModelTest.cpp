// The energy and area model against hand derivations from the coefficients
// of presets/wse2.yaml (the tiny preset inherits them): one FMAC op, one
// hop, one SRAM access, the SRAM scaling law, the area of a PE; the actions
// a run counts, the same in both data modes.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "hw/energy/ActionCounts.h"
#include "hw/energy/EnergyModel.h"
#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::energy {
namespace {

using pe::DataMode;
using pe::ElementType;
using pe::Opcode;
using pe::Precision;
using pe::ProgramBuilder;
using pe::testing::PeTestBench;

constexpr double kPj = 1e-12;

// A preset's architecture with `overrides` (as for --set), without simulating.
config::ArchConfig archOf(const std::string& preset, const std::vector<std::string>& overrides = {}) {
  config::ConfigTree tree = config::ConfigTree::fromText("arch:\n  preset: " + preset + "\n", "test");
  for (const std::string& o : overrides) tree.applyOverride(o);
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  return config::ArchConfig::read(params);
}

// wse2.yaml's per-byte SRAM energy (0.3125 pJ at an 8 KiB bank) at the
// preset's 6 KiB banks (48 KiB / 8): x sqrt(6144 / 8192).
const double kSramPjPerByte = 0.3125 * std::sqrt(0.75);

// One fp16 FMAC op of 64 elements on one PE: y = y + x * 2.
ActionCounts oneFmacOp(DataMode mode, std::uint64_t& busyCycles) {
  PeTestBench bench(1, 1, mode);
  ProgramBuilder b("fmac");
  const pe::BufferRef x = b.buffer("x", ElementType::F16, 64), y = b.buffer("y", ElementType::F16, 64);
  const pe::TaskRef t = b.task("main");
  b.activateAtStart(t);
  b.fmac(t, Precision::Fp16, pe::memory(y, 64), pe::memory(y, 64), pe::memory(x, 64), pe::scalar(2));
  bench.load(0, 0, b);
  bench.simulate();
  busyCycles = bench.busy(0);
  return bench.chip->actionsUntil(bench.wafer->cycles());
}

void expectOneFmacOp(DataMode mode) {
  std::uint64_t busy = 0;
  const ActionCounts a = oneFmacOp(mode, busy);
  EXPECT_EQ(a.elements(Opcode::Fmac, Precision::Fp16), 64.0);
  EXPECT_EQ(a.sramReadBytes, 256.0);  // y and x, 2 bytes each; the scalar is no SRAM read
  EXPECT_EQ(a.sramWriteBytes, 128.0);
  EXPECT_EQ(a.peActiveCycles, double(busy));
  EXPECT_EQ(busy, 2u + 2 + 64 / 4);  // task start + op overhead + 64 elements over 4 lanes
  EXPECT_EQ(a.hops + a.rampCrossings, 0.0);

  const EnergyBreakdown e = archOf("tiny").energyModel().energyOf(a, 0.0);
  // Horowitz 45 nm fp16 mult 1.1 + add 0.4 pJ, x 0.25: 0.375 pJ per element.
  EXPECT_NEAR(e.compute, 64 * 0.375 * kPj, 1e-24);
  EXPECT_NEAR(e.sram, 384 * kSramPjPerByte * kPj, 1e-24);  // 103.9 pJ
  EXPECT_NEAR(e.peCycles, (double(busy) * 6.0 + a.peIdleCycles * 3.0) * kPj, 1e-24);
  EXPECT_EQ(e.leakage, 0.0);  // no time given
  EXPECT_EQ(e.fabric, 0.0);
}

TEST(EnergyModel, OneFmacOpFunctional) { expectOneFmacOp(DataMode::Functional); }
TEST(EnergyModel, OneFmacOpTiming) { expectOneFmacOp(DataMode::Timing); }

TEST(EnergyModel, OneHopBetweenNeighbours) {
  // PE (0,0) sends one fp32 value to PE (1,0): one link transfer.
  PeTestBench bench(2, 1);
  bench.routeEast(0, 0, 1);
  ProgramBuilder send("send"), recv("recv");
  const pe::BufferRef out = send.buffer("out", ElementType::F32, 1), in = recv.buffer("in", ElementType::F32, 1);
  const pe::TaskRef s = send.task("main"), r = recv.task("main");
  send.activateAtStart(s);
  recv.activateAtStart(r);
  send.fmov(s, Precision::Fp32, pe::fabricOut(0, 1), pe::memory(out, 1));
  recv.fmov(r, Precision::Fp32, pe::memory(in, 1), pe::fabricIn(0, 1));
  bench.load(0, 0, send);
  bench.load(1, 0, recv);
  bench.pes->keepPerPeActions();
  bench.simulate();

  const ActionCounts a = bench.chip->actionsUntil(bench.wafer->cycles());
  EXPECT_EQ(a.hops, 1.0);
  EXPECT_EQ(a.rampCrossings, 2.0);  // on at (0,0), off at (1,0)
  EXPECT_EQ(a.queuePushes, 2.0);    // (0,0)'s RAMP queue, (1,0)'s West queue
  EXPECT_EQ(a.queueReads, 2.0);     // out East, out to the RAMP
  EXPECT_EQ(a.queuePops, 2.0);
  EXPECT_EQ(a.sramReadBytes, 4.0);
  EXPECT_EQ(a.sramWriteBytes, 4.0);
  EXPECT_EQ(a.elements(Opcode::Fmov, Precision::Fp32), 2.0);
  EXPECT_EQ(bench.pes->actionTotals().waveletsSent, 1u);
  ASSERT_NE(bench.pes->actions(bench.pe(0)), nullptr);
  EXPECT_EQ(bench.pes->actions(bench.pe(0))->waveletsSent, 1u);  // each PE's, kept when asked
  EXPECT_EQ(bench.pes->actions(bench.pe(0))->sramReadBytes, 4u);
  EXPECT_EQ(bench.pes->actions(bench.pe(1))->sramWriteBytes, 4u);
  EXPECT_EQ(bench.pes->actions(bench.pe(1))->waveletsSent, 0u);

  // The PE tile (area below) is 0.0532713 mm^2, so a link is its side,
  // 0.230806 mm: 38 bits x 0.230806 mm x 0.05 pJ/bit/mm = 0.438531 pJ of
  // wire; plus 0.3 pJ per queue write, queue read and RAMP crossing, two each.
  const EnergyBreakdown e = bench.arch.energyModel().energyOf(a, 0.0);
  EXPECT_NEAR(e.fabric, (0.438531 + 6 * 0.3) * kPj, 1e-18);
  EXPECT_NEAR(bench.arch.energyModel().perAction().hopWire, 0.438531, 1e-6);
}

TEST(EnergyModel, OneSramAccessFollowsHorowitzAndTheSquareRootLaw) {
  // A 64-bit read of an 8 KiB bank (8 banks of 64 KiB) is Horowitz's 8 KB
  // figure, 10 pJ, x 0.25; a 32 KiB bank's is twice it (Horowitz: 20 pJ).
  const auto readOf8Bytes = [](std::uint64_t sramBytes) {
    const config::ArchConfig arch = archOf("tiny", {"arch.pe.sram_bytes=" + std::to_string(sramBytes)});
    return 8 * arch.energyModel().perAction().sramReadPerByte;
  };
  EXPECT_DOUBLE_EQ(readOf8Bytes(8 * 8192), 2.5);
  EXPECT_DOUBLE_EQ(readOf8Bytes(8 * 32768), 5.0);
  EXPECT_NEAR(readOf8Bytes(49152), 8 * kSramPjPerByte, 1e-12);
}

TEST(EnergyModel, AreaOfAPeAndTheWafer) {
  const AreaEstimate a = archOf("tiny", {"arch.mesh.width=1", "arch.mesh.height=1"}).energyModel().area();
  // 8 banks of 49,152 bits: cells 0.027 um^2 each, periphery 4 um^2 x sqrt(49,152).
  EXPECT_NEAR(a.sramMm2, 8 * (49152 * 0.027 + 4.0 * std::sqrt(49152.0)) * 1e-6, 1e-12);
  // 5 ports x 24 colors x depth 4 x 38 bits of queue at 0.25 um^2, plus 0.002 mm^2.
  EXPECT_NEAR(a.routerMm2, 0.002 + 18240 * 0.25e-6, 1e-12);
  EXPECT_NEAR(a.tileMm2(), 0.0532713, 1e-7);
  EXPECT_NEAR(a.pitchMm, std::sqrt(a.tileMm2()), 1e-12);
  EXPECT_DOUBLE_EQ(a.physicalPes, 1.14017);  // the 1 x 1 mesh and its spares
}

TEST(EnergyModel, RouterAreaAndLeakageGrowWithColorsAndQueueDepth) {
  const auto arch = [](unsigned colors, unsigned depth) {
    return archOf("tiny", {"arch.fabric.colors=" + std::to_string(colors),
                           "arch.fabric.queue_depth=" + std::to_string(depth)});
  };
  const config::ArchConfig base = arch(24, 4), deeper = arch(24, 8), fewer = arch(12, 4);
  // 5 ports x 24 colors x 4 more slots x 38 bits: 0.25 um^2 and 200 pW each.
  const double bits = 5 * 24 * 4 * 38;
  EXPECT_NEAR(deeper.energyModel().area().routerMm2 - base.energyModel().area().routerMm2, bits * 0.25e-6, 1e-12);
  EXPECT_NEAR(deeper.energyModel().perAction().leakagePerPeW - base.energyModel().perAction().leakagePerPeW,
              bits * 200e-12, 1e-15);
  // 12 colors fewer at depth 4: half as many bits.
  EXPECT_NEAR(base.energyModel().area().routerMm2 - fewer.energyModel().area().routerMm2, bits / 2 * 0.25e-6, 1e-12);
  // A larger tile makes every link longer: the hop's wire grows with sqrt(tile).
  EXPECT_GT(deeper.energyModel().perAction().hopWire, base.energyModel().perAction().hopWire);
}

TEST(EnergyModel, TheFullWse2AndWse3FitTheirWafersWse2WithDoubleSramDoesNot) {
  const auto area = [](const std::string& sram) {
    return archOf("wse2", {"arch.pe.sram_bytes=" + sram}).energyModel().area();
  };
  const AreaEstimate wse2 = area("49152"), doubled = area("98304");
  EXPECT_TRUE(wse2.fits());
  EXPECT_NEAR(wse2.waferMm2 / wse2.usableMm2, 0.98, 0.01);  // 850,000 PEs of 0.0533 mm^2 on 46,225 mm^2
  EXPECT_FALSE(doubled.fits());
  EXPECT_GT(doubled.waferMm2, 1.2 * doubled.usableMm2);
  // WSE-3's 893,064 PEs (900,000 with spares) fit its 46,225 mm^2 with 5 nm cells.
  const AreaEstimate wse3 = archOf("wse3").energyModel().area();
  EXPECT_TRUE(wse3.fits());
  EXPECT_NEAR(wse3.physicalPes, 900000, 10);
}

}  // namespace
}  // namespace wsesim::energy
