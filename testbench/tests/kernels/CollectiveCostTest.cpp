// The collectives' costs on the default WSE-2 timing against Luczynski et
// al. (HPDC'24; WSE-FACTS "Collective costs"): a chain reduce of B
// wavelets over P PEs costs B + (2 TR + 2)(P - 1) beyond its local op, TR
// being the ramp latency. One chain per test process (SystemC elaborates
// once per process).
#include <gtest/gtest.h>

#include "hw/pe/OpTiming.h"
#include "testbench/tests/kernels/ChainRun.h"

namespace wsesim::kernels {
namespace {

class ChainOnWse2 : public ::testing::TestWithParam<std::uint32_t> {};

// The local op, as pe-model.md charges it: the task's start, its FMUL
// (x * w), the streaming FADD's overhead, and cycle 0 itself.
std::uint64_t localOp(const config::ArchConfig& arch, std::uint32_t length) {
  const pe::PeParams& pe = arch.pe;
  return pe.taskStartCycles + pe.opOverheadCycles +
         pe::elementCycles(pe, pe::Opcode::Fmul, pe::Precision::Fp32, length,
                           pe.lanes.of(pe::Opcode::Fmul, pe::Precision::Fp32)) +
         pe.opOverheadCycles + 1;
}

TEST_P(ChainOnWse2, CostsHpdcFormulaPlusTheLocalOp) {
  const std::uint32_t pes = GetParam(), length = 64;
  const testing::ChainRun run = testing::runChain(
      "arch:\n  preset: wse2\n  mesh: {width: " + std::to_string(pes) + ", height: 1}\nrun:\n  mode: timing\n" +
      "workload:\n  type: chain_reduce\n  pes: " + std::to_string(pes) + "\n  length: " + std::to_string(length) + "\n");
  const std::uint64_t cycles = run.results.at("cycles");
  const std::uint64_t tr = run.arch.fabric.rampLatencyCycles;
  const std::uint64_t hpdc = length + (2 * tr + 2) * (pes - 1);
  EXPECT_EQ(cycles, hpdc + localOp(run.arch, length)) << pes << " PEs";
  EXPECT_EQ(cycles, run.results.at("expected_cycles").get<std::uint64_t>());
}

INSTANTIATE_TEST_SUITE_P(Pes, ChainOnWse2, ::testing::Values(2u, 16u, 128u, 512u));

}  // namespace
}  // namespace wsesim::kernels
