// How long the PE array keeps a program (ProgramLifetime): a kept one's id
// stays valid for loads at any time; one given until it is unloaded goes
// with the last PE it was loaded on, and the next program takes its id, so
// a GEMM of many phases, each with programs of its own, holds only the
// current phase's.
#include <gtest/gtest.h>

#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe::testing {
namespace {

// A program with no start task: ended as soon as it is loaded, so it can
// be unloaded without running the simulation.
Program idle(const std::string& name, std::uint32_t elements) {
  ProgramBuilder b(name);
  b.buffer("x", ElementType::F32, elements);
  b.task("never");
  return b.build();
}

TEST(ProgramLifetime, AProgramUntilUnloadedGoesWithItsLastPe) {
  PeTestBench bench;
  const ProgramId phase = bench.pes->addProgram(idle("phase", 4), ProgramLifetime::UntilUnloaded);
  bench.pes->load(bench.pe(0), phase);
  bench.pes->load(bench.pe(1), phase);
  bench.pes->unload(bench.pe(0));
  // Still on PE 1: its id is not free.
  const ProgramId other = bench.pes->addProgram(idle("other", 4), ProgramLifetime::UntilUnloaded);
  EXPECT_NE(other, phase);
  EXPECT_EQ(bench.pes->program(phase).name, "phase");
  bench.pes->unload(bench.pe(1));
  // Gone with its last PE: the next program takes its id.
  const ProgramId next = bench.pes->addProgram(idle("next", 8), ProgramLifetime::UntilUnloaded);
  EXPECT_EQ(next, phase);
  EXPECT_EQ(bench.pes->program(next).name, "next");
  bench.pes->load(bench.pe(2), next);
  EXPECT_EQ(bench.pes->sram(bench.pe(2)).used(), 32u);
}

TEST(ProgramLifetime, AKeptProgramCanBeLoadedAgainAfterEveryPeUnloadedIt) {
  PeTestBench bench;
  const ProgramId kept = bench.pes->addProgram(idle("kept", 4));
  bench.pes->load(bench.pe(0), kept);
  bench.pes->unload(bench.pe(0));
  const ProgramId next = bench.pes->addProgram(idle("next", 4), ProgramLifetime::UntilUnloaded);
  EXPECT_NE(next, kept);
  bench.pes->load(bench.pe(3), kept);
  EXPECT_EQ(bench.pes->program(kept).name, "kept");
  EXPECT_EQ(bench.pes->sram(bench.pe(3)).used(), 16u);
}

}  // namespace
}  // namespace wsesim::pe::testing
