// A GEMM's phases on chips of their own (GemmPassChips.h), any number of
// them at once, find what one chip running the phases in turn finds: every
// phase's start, the cycles, the whole GEMM's time, every counter and the
// actions bit for bit. On every pass, whole and sampled (representative
// rows and columns, phases and steady-state rounds). No SystemC kernel
// runs here (the chips have none), so the ThreadSanitizer job runs these tests.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "firmware/runtime/GemmPhases.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/chip/WaferChip.h"
#include "testbench/gemm/GemmPassChips.h"
#include "testbench/tests/MachineConfig.h"
#include "testbench/workload/GemmChipParts.h"

namespace wsesim::gemm {
namespace {

using testing::Machine;

Machine tiny() { return testing::machineFrom("arch:\n  preset: tiny\nrun:\n  mode: timing\n"); }

// 80 n's a pass: 8 passes (6 of the weight gradient's).
firmware::GemmShape shapeOf(GemmPass pass) {
  return runtime::passShape(1024, 64, 640, pe::Precision::Mixed, pass);
}

std::unique_ptr<runtime::SimulatedGemm> plan(const Machine& s, GemmPass pass, const runtime::GemmSampling& sampling) {
  return std::make_unique<runtime::SimulatedGemm>("weight_stream", shapeOf(pass), s.arch, 0, 0,
                                                  firmware::Buffering::Auto, sampling);
}

PassChipsRun how(const Machine& s, const runtime::SimulatedGemm& gemm, unsigned threads) {
  const config::ArchConfig simulated = gemm.simulatedArch(s.arch, gemm.meshColumns(s.arch));
  return PassChipsRun{s.arch, simulated, s.run,
                      workload::gemmChipParts(simulated, pe::Precision::Mixed, config::DataMode::Timing), threads,
                      threads};
}

// The phases in turn on one chip, as the gemm workload runs them with one thread.
GemmChipFindings onOneChip(const Machine& s, GemmPass pass, const runtime::GemmSampling& sampling) {
  const auto gemm = plan(s, pass, sampling);
  const PassChipsRun h = how(s, *gemm, 1);
  chip::ChipParts parts = h.parts;
  parts.systemc = false;
  chip::WaferChip chip(h.simulated, s.run, parts);
  runtime::GemmPhases phases(*gemm, chip.pes(), chip.routes(), chip.ingress(), chip.egress(), nullptr,
                             s.arch.fabric.routeSwitchCycles);
  chip.setController(&phases);
  chip.simulate({});
  GemmChipFindings f = chipFindings(chip, gemm->rows(), phases.edgeStalls());
  f.phaseStarts = phases.phaseStarts();
  f.time = phases.fullTime(chip.cycles(), s.arch, h.simulated.mesh.width);
  return f;
}

void expectSame(const GemmChipFindings& one, const GemmChipFindings& apart, const std::string& what) {
  EXPECT_EQ(one.phaseStarts, apart.phaseStarts) << what;
  EXPECT_EQ(one.cycles, apart.cycles) << what;
  EXPECT_EQ(one.time.cycles, apart.time.cycles) << what;
  EXPECT_EQ(one.time.inputEnd, apart.time.inputEnd) << what;
  EXPECT_EQ(one.time.phasesExtrapolated, apart.time.phasesExtrapolated) << what;
  EXPECT_EQ(one.time.phasesInterpolated, apart.time.phasesInterpolated) << what;
  EXPECT_EQ(one.busyCycles, apart.busyCycles) << what;
  EXPECT_EQ(one.tasks, apart.tasks) << what;
  EXPECT_EQ(one.sramHighWater, apart.sramHighWater) << what;
  EXPECT_EQ(one.edgeStalls, apart.edgeStalls) << what;
  for (std::uint64_t fabric::FabricCounters::*count :
       {&fabric::FabricCounters::injected, &fabric::FabricCounters::fromEdge, &fabric::FabricCounters::toEdge,
        &fabric::FabricCounters::delivered, &fabric::FabricCounters::hops, &fabric::FabricCounters::queued})
    EXPECT_EQ(one.fabric.*count, apart.fabric.*count) << what;
  // Bit for bit: the same counts (whole numbers, summed exactly).
  EXPECT_EQ(std::memcmp(&one.actions, &apart.actions, sizeof(energy::ActionCounts)), 0) << what;
}

struct Case {
  const char* name;
  runtime::GemmSampling sampling;
  bool rounds;  // runs in several rounds (but backward-data, whose dX has too few n's to cut)
};

const Case kCases[] = {
    {"every row and phase", {}, false},
    {"representative rows and columns", {true, false, 0, 0.002, 0.002, true}, false},
    {"representative phases", {true, true, 0, 0.002}, false},
    {"steady-state rounds", {true, false, 2, 0.002}, true},
};

class PassChips : public ::testing::TestWithParam<GemmPass> {};

TEST_P(PassChips, AnyThreadsFindWhatOneChipFinds) {
  const Machine s = tiny();
  for (const Case& c : kCases) {
    const GemmChipFindings one = onOneChip(s, GetParam(), c.sampling);
    ASSERT_GT(one.phaseStarts.size(), 1u) << c.name;
    for (unsigned threads : {1u, 2u, 3u, 7u}) {
      const auto gemm = plan(s, GetParam(), c.sampling);
      const GemmChipFindings apart = simulatePassChips(*gemm, how(s, *gemm, threads));
      EXPECT_EQ(apart.chips, apart.phaseStarts.size()) << c.name;
      if (c.rounds && GetParam() != GemmPass::BackwardData) {
        EXPECT_GT(gemm->roundsRun(), 1u) << c.name;
      }
      expectSame(one, apart, std::string(c.name) + ", " + std::to_string(threads) + " threads");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EveryPass, PassChips,
                         ::testing::Values(GemmPass::Forward, GemmPass::BackwardData, GemmPass::WeightGrad),
                         [](const ::testing::TestParamInfo<GemmPass>& p) { return std::string(gemmPassName(p.param)); });

}  // namespace
}  // namespace wsesim::gemm
