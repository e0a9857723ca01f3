// How the resident GEMM mappings hold the blocks they receive
// (workload.buffering): tile 46 fp32 fits the WSE-2's 48 KiB per algorithm,
// auto picks double buffering exactly while it fits, forcing a layout that
// does not fit or is not offered is a clear error, and single-buffered SUMMA
// computes the reference product with its broadcasts and products
// serialised (hand-derived cycles, the same in both modes).
#include <gtest/gtest.h>

#include "firmware/gemm/registry/GemmAlgorithms.h"
#include "firmware/gemm/resident/ResidentGemm.h"
#include "hw/config/ArchConfig.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "testbench/tests/gemm/GemmTestSupport.h"

namespace wsesim::gemm {
namespace {

using firmware::Buffering;
using testing::runGemm;
using testing::shape;

config::ArchConfig wse2() {
  config::ConfigTree tree = config::ConfigTree::fromText("arch:\n  preset: wse2\n", "test");
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  return config::ArchConfig::read(params);
}

// A P x P grid of t x t x t fp32 blocks on the WSE-2.
std::unique_ptr<firmware::GemmMapping> square(const std::string& algorithm, std::uint32_t grid, std::uint32_t tile,
                                              Buffering buffering) {
  const firmware::GemmShape s{grid * tile, grid * tile, grid * tile, pe::Precision::Fp32};
  return firmware::makeGemmMapping(algorithm, s, wse2(), grid, grid, buffering);
}

std::uint64_t busiestPeBytes(const firmware::GemmMapping& m) {
  return dynamic_cast<const firmware::ResidentGemm&>(m).plan().busiestPeBytes();
}

// Tile 46 fp32: a block is 46 * 46 * 4 = 8464 B. SUMMA double-buffered
// keeps 7 (a, ap0, ap1, b, bp0, bp1, c) = 59,248 B > 49,152 B, so auto
// falls back to single (a, ap, b, bp, c) = 42,320 B. Cannon and MeshGEMM
// keep 5 (a0, a1, b0, b1, c) = 42,320 B, double-buffered.
TEST(ResidentBuffering, Tile46Fp32FitsTheWse2PeForEveryAlgorithm) {
  for (const char* algorithm : {"summa", "cannon", "meshgemm"}) {
    const auto m = square(algorithm, 32, 46, Buffering::Auto);
    EXPECT_EQ(m->buffering(), std::string(algorithm) == "summa" ? Buffering::Single : Buffering::Double) << algorithm;
    EXPECT_NE(m->describe().find("blocks of 46 m x 46 k x 46 n"), std::string::npos) << m->describe();
    EXPECT_EQ(busiestPeBytes(*m), 42320u) << algorithm;
  }
}

// SUMMA's auto is single buffering, the SDK's schedule, at every tile
// (5 blocks: 33,620 B at t = 41); double (7 blocks) fits 49,152 B up to
// t = 41 (47,068 B) and no further (49,392 B at t = 42).
TEST(ResidentBuffering, SummaAutoIsTheSdkScheduleAndDoubleFitsUpToTile41) {
  EXPECT_EQ(square("summa", 4, 41, Buffering::Auto)->buffering(), Buffering::Single);
  EXPECT_EQ(busiestPeBytes(*square("summa", 4, 41, Buffering::Auto)), 33620u);
  EXPECT_EQ(square("summa", 4, 42, Buffering::Auto)->buffering(), Buffering::Single);
  EXPECT_EQ(busiestPeBytes(*square("summa", 4, 42, Buffering::Auto)), 35280u);
  EXPECT_EQ(busiestPeBytes(*square("summa", 4, 41, Buffering::Double)), 47068u);
  EXPECT_THROW(square("summa", 4, 42, Buffering::Double), firmware::PlanError);
  EXPECT_EQ(square("summa", 4, 41, Buffering::Double)->phases(), 5u);  // P + 1: broadcasts overlap products
  EXPECT_EQ(square("summa", 4, 42, Buffering::Auto)->phases(), 8u);    // 2P: broadcast, then product
}

// The message of the PlanError planning SUMMA on p x p PEs with square tiles throws; a test failure if none.
std::string planErrorOf(std::uint32_t p, std::uint32_t tile, Buffering buffering) {
  try {
    square("summa", p, tile, buffering);
  } catch (const firmware::PlanError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a PlanError";
  return "";
}

TEST(ResidentBuffering, DoubleThatDoesNotFitNamesThePeTheBuffersAndTheLimit) {
  const std::string msg = planErrorOf(32, 46, Buffering::Double);
  for (const char* part : {"as workload.buffering=double asks", "PE (31,31) needs 59248 bytes of SRAM",
                           "more than arch.pe.sram_bytes=49152", "ap1 2116 f32 = 8464 B"})
    EXPECT_NE(msg.find(part), std::string::npos) << part << " missing: " << msg;
}

// Tile 50: single-buffered SUMMA needs 5 x 10,000 B; auto says so.
TEST(ResidentBuffering, NothingFitsNamesTheSmallestLayout) {
  const std::string msg = planErrorOf(4, 50, Buffering::Auto);
  EXPECT_NE(msg.find("single-buffered: PE (3,3) needs 50000 bytes"), std::string::npos) << msg;
}

TEST(ResidentBuffering, RingShiftsAndWeightStreamingRefuseWhatTheyDoNotOffer) {
  for (const char* algorithm : {"cannon", "meshgemm"})
    EXPECT_THROW(square(algorithm, 4, 8, Buffering::Single), firmware::PlanError) << algorithm;
  try {
    runGemm("  algorithm: cannon\n" + shape(16, 16, 16) + "  buffering: single\n", "timing");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("cannon offers workload.buffering double (or auto), not single"),
              std::string::npos)
        << e.what();
  }
}

TEST(ResidentBuffering, WeightStreamingOffersNone) {
  EXPECT_THROW(runGemm(shape(16, 16, 16) + "  buffering: double\n", "timing"), config::ConfigError);
}

// SUMMA single-buffered on 2x2 PEs with 1x1 blocks (m = k = n = 2), fp32:
// each step is the double-buffered run's phase 0 (a broadcast alone, its
// last receive done at 12: ResidentGemmTest's
// CyclesMatchTheHandCountOnTwoByTwo) then its last phase (a product alone,
// 6 cycles with the task's end), so 2 x (13 + 6) = 38 cycles against double
// buffering's 32: the 6 cycles of step 0's product no longer hide behind
// step 1's broadcast. Paced PE by PE, the phases start when their first PE
// enters them: the product of step 0 at 7 (PE (0,0), the root of both
// lines, ends its sends at 6), the broadcast of step 1 at 13 ((0,0) again,
// its product done), the last product at 26 ((1,1), which only sends).
TEST(SummaSingleBuffering, BroadcastAndProductSerialiseOnTwoByTwo) {
  const nlohmann::json r = runGemm("  algorithm: summa\n  buffering: single\n" + shape(2, 2, 2));
  EXPECT_EQ(r["buffering"], "single");
  EXPECT_EQ(r["phase_start_cycles"], nlohmann::json::array({0, 7, 13, 26}));
  EXPECT_EQ(r["cycles"], 38u);
  EXPECT_EQ(r["mismatches"], 0u);
}

// Tile 46 fp32 on 3 x 3 PEs with the WSE-2's 48 KiB (the tiny preset is an
// 8 x 8 corner of it): auto picks single buffering, the product matches the
// reference exactly, the busiest PE holds the 42,320 B planned, and timing
// mode reproduces the functional cycles (recorded from a functional run).
// Three steps, each a broadcast of 2116-element panels then a product of
// 46 task runs of 46 FMACs, serialised. (317,717 before
// arch.pe.fabric_input_cycles: each broadcast's last element is usable a
// cycle later, three broadcasts; 317,720 before the phases were paced PE
// by PE.)
constexpr std::uint64_t kTile46Cycles = 317719;

class Tile46 : public ::testing::TestWithParam<const char*> {};

TEST_P(Tile46, SingleBufferedSummaIsExactAndTheSameInBothModes) {
  const nlohmann::json r = runGemm("  algorithm: summa\n  grid_x: 3\n" + shape(138, 138, 138), GetParam());
  EXPECT_EQ(r["buffering"], "single");
  EXPECT_EQ(r["phases"], 6u);
  EXPECT_EQ(r["sram_high_water_bytes"], 42320u);
  EXPECT_EQ(r["cycles"], kTile46Cycles);
  if (std::string(GetParam()) == "functional") {
    EXPECT_EQ(r["mismatches"], 0u) << r.dump(2);
  }
}

INSTANTIATE_TEST_SUITE_P(All, Tile46, ::testing::Values("functional", "timing"));

// ResidentGemmTest's BothModes shape (30 x 20 x 17 mixed on 8 x 8, 360
// cycles double-buffered) single-buffered: never faster than double, and the
// same count in both modes (both a cycle per receiving phase more since
// arch.pe.fabric_input_cycles: 359 and 562 before; 362 and 570 before the
// phases were paced PE by PE).
class SingleBothModes : public ::testing::TestWithParam<const char*> {};

TEST_P(SingleBothModes, NeverFasterThanDoubleAndTheSameInBothModes) {
  constexpr std::uint64_t kDoubleCycles = 360, kSingleCycles = 517;
  const nlohmann::json r =
      runGemm("  algorithm: summa\n  buffering: single\n  dtype: mixed\n" + shape(30, 20, 17), GetParam());
  EXPECT_GE(r["cycles"].get<std::uint64_t>(), kDoubleCycles);
  EXPECT_EQ(r["cycles"], kSingleCycles);
}

INSTANTIATE_TEST_SUITE_P(All, SingleBothModes, ::testing::Values("functional", "timing"));

}  // namespace
}  // namespace wsesim::gemm
