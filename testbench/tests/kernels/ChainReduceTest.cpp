// The chain_reduce testbench through the workload interface: exact results
// in functional mode and cycle counts equal to the hand-derived closed form,
// in both data modes (one simulation per test process).
#include <gtest/gtest.h>

#include "firmware/kernels/ChainReduce.h"
#include "testbench/tests/MechanismTiming.h"
#include "testbench/tests/kernels/ChainRun.h"

namespace wsesim::kernels {
namespace {

// The tiny preset with the mechanism timing (MechanismTiming.h).
nlohmann::json runChain(const std::string& workloadYaml, const std::string& mode = "functional") {
  return testing::runChain("arch:\n  preset: tiny\nrun:\n  mode: " + mode + "\nworkload:\n  type: chain_reduce\n" +
                               workloadYaml,
                           wsesim::testing::kMechanismTiming)
      .results;
}

// 8 PEs, 64 fp32 elements: task start 2, FMUL 2 + 64/1, the streaming
// FADD's overhead 2, 64 elements, 7 relay stages of 2 + 1 + 2 + 1 cycles
// (ramp, hop, ramp, fabric input: HPDC'24's 2 TR + 2), plus cycle 0.
constexpr std::uint64_t kFp32Cycles = 2 + (2 + 64) + 2 + 64 + 7 * 6 + 1;

TEST(ChainReduce, Fp32SumIsExactAndTakesTheClosedFormCycles) {
  const nlohmann::json r = runChain("  pes: 8\n  rows: 3\n  length: 64\n");
  EXPECT_EQ(r["cycles"], kFp32Cycles);
  EXPECT_EQ(r["expected_cycles"], kFp32Cycles);
  EXPECT_EQ(r["checked"], true);
  EXPECT_EQ(r["mismatches"], 0u);
  EXPECT_LT(r["max_abs_error_vs_exact"].get<double>(), 1e-5);
  EXPECT_EQ(r["pe_ops"], 3u * 8 * 2);
  EXPECT_EQ(r["wavelets_delivered"], 3u * 7 * 64);
  EXPECT_EQ(r["sram_high_water_bytes"], 4u * 64 * 4);  // x, w, partial (+ sum on the last PE)
}

TEST(ChainReduce, TimingModeTakesTheSameCycles) {
  const nlohmann::json r = runChain("  pes: 8\n  rows: 3\n  length: 64\n", "timing");
  EXPECT_EQ(r["cycles"], kFp32Cycles);
  EXPECT_EQ(r["checked"], false);
}

// fp16 with three local ops: FMUL 2 + 64/4, two FMACs reading three vectors
// (two passes over two read ports) 2 + 2 * 64/4 each.
TEST(ChainReduce, Fp16RepeatedLocalOpsRoundLikeTheHardware) {
  const nlohmann::json r = runChain("  pes: 5\n  length: 64\n  dtype: fp16\n  repeat: 3\n");
  EXPECT_EQ(r["cycles"], 2u + (2 + 16) + 2 * (2 + 32) + 2 + 64 + 4 * 6 + 1);
  EXPECT_EQ(r["mismatches"], 0u);
  // Every fp16 rounding loses at most half an ulp (<= 2^-11 relative): values stay near the exact sum.
  EXPECT_LT(r["max_abs_error_vs_exact"].get<double>(), 0.05);
}

}  // namespace
}  // namespace wsesim::kernels
