// PeGrid::placeAsRun: the SRAM a program leaves behind, without running it.
// A GEMM's phase run alone on a chip of its own starts from it (GemmPhases),
// so it must be what loading, running and unloading the phases before leave.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/pe/ProgramError.h"
#include "hw/sim/CycleDriver.h"
#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe::testing {
namespace {

// A phase of a mapping: the resident "x", a scratch "acc", its own output
// "y<phase>" kept for later, and a task started at load (the phase's work).
Program phase(unsigned p, std::uint32_t accElements = 8) {
  ProgramBuilder b("phase" + std::to_string(p));
  b.buffer("x", ElementType::F32, 4);
  b.buffer("acc", ElementType::F32, accElements);
  b.buffer("y" + std::to_string(p), ElementType::F32, 2 + p);
  b.task("work");
  return b.build();
}

// A phase whose task never starts: loaded, it has ended, and unloads at once.
Program endedPhase(unsigned p) {
  ProgramBuilder b("ended" + std::to_string(p));
  b.buffer("x", ElementType::F32, 4);
  b.buffer("acc", ElementType::F32, 8);
  b.buffer("y" + std::to_string(p), ElementType::F32, 2 + p);
  b.task("never");
  return b.build();
}

const std::vector<std::string> kKept = {"x", "y0", "y1", "y2"};

TEST(PlaceAsRun, LeavesTheSramAsLoadingAndUnloadingDo) {
  PeTestBench bench(2, 1, DataMode::Timing);
  // PE 0 loads and unloads three phases in turn; PE 1 places them as run.
  for (unsigned p = 0; p < 3; ++p) {
    const ProgramId ended = bench.pes->addProgram(endedPhase(p), ProgramLifetime::UntilUnloaded);
    bench.pes->load(bench.pe(0), ended);
    bench.pes->unload(bench.pe(0), kKept);
    bench.pes->placeAsRun(bench.pe(1), bench.pes->addProgram(endedPhase(p), ProgramLifetime::UntilUnloaded), kKept);
  }
  const SramAllocator &ran = bench.pes->sram(bench.pe(0)), &placed = bench.pes->sram(bench.pe(1));
  // x (16 B), y0 (8), y1 (12), y2 (16) kept; acc (32) freed after each phase.
  EXPECT_EQ(placed.used(), 52u);
  EXPECT_EQ(placed.used(), ran.used());
  EXPECT_EQ(placed.highWater(), 84u);  // the last phase: x, y0, y1, acc, y2
  EXPECT_EQ(placed.highWater(), ran.highWater());
  for (const char* buffer : {"x", "acc", "y0", "y1", "y2"}) EXPECT_EQ(placed.find(buffer), ran.find(buffer)) << buffer;
  // The programs given until unloaded went: the next takes the first id again.
  EXPECT_EQ(bench.pes->addProgram(endedPhase(3), ProgramLifetime::UntilUnloaded), 0u);
}

TEST(PlaceAsRun, StartsNothing) {
  PeTestBench bench(1, 1, DataMode::Timing);
  bench.pes->placeAsRun(bench.pe(0), bench.pes->addProgram(phase(0)), kKept);
  EXPECT_TRUE(bench.pes->programEnded(bench.pe(0)));
  EXPECT_EQ(bench.pes->nextActivity(0), sim::kNever);
  EXPECT_EQ(bench.pes->sram(bench.pe(0)).used(), 24u);  // x and y0
  // The next phase loads over what it left, as after a run.
  bench.pes->load(bench.pe(0), bench.pes->addProgram(phase(1)));
  EXPECT_EQ(bench.pes->sram(bench.pe(0)).used(), 24u + 32u + 12u);
}

TEST(PlaceAsRun, AnOverflowIsTheOneLoadingWouldRaise) {
  // 48 KiB: an acc of 12,300 fp32 beside x and y0 does not fit. PE 0 loads
  // the phase, PE 1 places it as run: the same error but for the PE's name.
  PeTestBench bench(2, 1, DataMode::Timing);
  const ProgramId id = bench.pes->addProgram(phase(0, 12'300));
  const auto message = [&](bool place) {
    const fabric::RouterId pe = bench.pe(place ? 1 : 0);
    try {
      if (place)
        bench.pes->placeAsRun(pe, id, kKept);
      else
        bench.pes->load(pe, id);
    } catch (const ProgramError& e) {
      std::string m = e.what();
      const std::string name = bench.arch.mesh.name(pe);
      return m.replace(m.find(name), name.size(), "<pe>");
    }
    return std::string("no error");
  };
  const std::string loaded = message(false);
  EXPECT_NE(loaded.find("SRAM overflow allocating buffer 'acc'"), std::string::npos) << loaded;
  EXPECT_EQ(message(true), loaded);
}

}  // namespace
}  // namespace wsesim::pe::testing
