// The weight-streaming GEMM in functional mode on small meshes: outputs
// against a reference matmul (exact for integer-valued inputs), both passes,
// shapes that do not divide the mesh, K wider than the mesh, M = 1; cycle
// counts against a hand-derived single-PE count in both data modes.
#include <gtest/gtest.h>

#include "hw/common/ConfigError.h"
#include "testbench/tests/gemm/GemmTestSupport.h"

namespace wsesim::gemm {
namespace {

using testing::runGemm;
using testing::shape;

struct Case {
  const char* name;
  unsigned m, k, n;
  const char* extra;  // more workload keys
};

class Shapes : public ::testing::TestWithParam<Case> {};

TEST_P(Shapes, ExactOnIntegers) {
  const Case c = GetParam();
  const nlohmann::json r = runGemm(shape(c.m, c.k, c.n) + c.extra);
  EXPECT_EQ(r["checked"], true);
  EXPECT_EQ(r["mismatches"], 0u) << r.dump(2);
  EXPECT_GE(r["cycles"].get<std::uint64_t>(), r["lower_bounds"]["max"].get<std::uint64_t>());
  EXPECT_EQ(r["wavelets"]["weights_in"], std::uint64_t(c.k) * c.n);  // every weight streams in once
}

INSTANTIATE_TEST_SUITE_P(
    Fp32, Shapes,
    ::testing::Values(Case{"mesh_sized", 40, 24, 16, ""},          // 8x8 grid, 3 k per column, 5 m per row
                      Case{"m_is_1", 1, 8, 5, ""},                 // one row of PEs
                      Case{"k_wider_than_mesh", 7, 30, 3, ""},     // 3-4 k per column, 7 rows
                      Case{"k_narrower", 13, 5, 9, ""},            // 5 columns, uneven m per row
                      Case{"n_is_1", 9, 17, 1, ""},
                      Case{"one_column", 6, 1, 4, ""},             // no reduction: the PE stores Y itself
                      Case{"given_grid", 16, 16, 4, "  grid_x: 3\n  grid_y: 5\n"},
                      Case{"backward_data", 12, 10, 20, "  pass: backward_data\n"},  // dX = dY . W^T: 8 columns of n
                      Case{"fp16", 20, 12, 6, "  dtype: fp16\n"},  // sums stay below 2048: exact in fp16
                      Case{"mixed", 20, 12, 6, "  dtype: mixed\n"}),
    [](const auto& info) { return std::string(info.param.name); });

// The same shapes with the sums folded back to targets between the ends
// (one chain along the row past the target, its last column sending the
// total back): another order of the same fp32 adds, exact on integers.
class Folded : public ::testing::TestWithParam<Case> {};

TEST_P(Folded, ExactOnIntegers) {
  const Case c = GetParam();
  const nlohmann::json r =
      runGemm(shape(c.m, c.k, c.n) + c.extra, "functional", "  firmware:\n    weight_stream_reduction: fold\n");
  EXPECT_EQ(r["checked"], true);
  EXPECT_EQ(r["mismatches"], 0u) << r.dump(2);
  EXPECT_GE(r["cycles"].get<std::uint64_t>(), r["lower_bounds"]["max"].get<std::uint64_t>());
  EXPECT_EQ(r["wavelets"]["weights_in"], std::uint64_t(c.k) * c.n);
}

INSTANTIATE_TEST_SUITE_P(
    Fp32, Folded,
    ::testing::Values(Case{"mesh_sized", 40, 24, 16, ""}, Case{"k_narrower", 13, 5, 9, ""},
                      Case{"three_columns", 6, 3, 4, ""},  // the target's neighbours are both chain ends
                      Case{"given_grid", 16, 16, 4, "  grid_x: 3\n  grid_y: 5\n"},
                      Case{"backward_data", 12, 10, 20, "  pass: backward_data\n"},
                      Case{"mixed", 20, 12, 6, "  dtype: mixed\n"}),
    [](const auto& info) { return std::string(info.param.name); });

// Five passes whose targets (0, 2, 4, 5, 7) change the chain's routes from
// pass to pass: each pass reprograms them, and every output lands.
TEST(WeightStreamGemm, FoldedPassesReprogramTheirRoutes) {
  const nlohmann::json r = runGemm(shape(40, 24, 64), "functional",
                                   "  pe:\n    sram_bytes: 400\n  firmware:\n    weight_stream_reduction: fold\n");
  EXPECT_EQ(r["phases"], 5u);
  EXPECT_EQ(r["mismatches"], 0u);
  EXPECT_LE(r["sram_high_water_bytes"].get<std::uint64_t>(), 400u);
}

// One k per column and 64 m per row (mixed): an n's FMAC is 2 + 2 + 32
// cycles, but a target whose neighbours' sums meet there takes 2 x 64 of
// them through its one RAMP per n, so it would pace the row at more than
// 128 cycles an n. `auto` folds them instead (every PE takes one stream of
// 64), which the run must show by beating that pace over 64 n's.
TEST(WeightStreamGemm, AutoFoldsTheSumsWhenAMeetingTargetWouldPaceTheRow) {
  const nlohmann::json r = runGemm(shape(8 * 64, 8, 64) + "  dtype: mixed\n", "timing");
  EXPECT_NE(r["mapping"].get<std::string>().find("sums folded back"), std::string::npos) << r["mapping"];
  EXPECT_LT(r["cycles"].get<std::uint64_t>(), 64u * 2 * 64);
  EXPECT_GE(r["cycles"].get<std::uint64_t>(), r["lower_bounds"]["max"].get<std::uint64_t>());
}

// 16 k's a column: a meeting target is behind its row only by adding its
// own sums (2 + 2 + 128 / 4 cycles an n), which one n cannot make up for
// the folded sums' longer way (8 relay stages of 6 cycles): `auto` keeps
// them meeting. Over 64 n's it folds.
TEST(WeightStreamGemm, AutoKeepsTheSumsMeetingWhenThePassIsTooShortToFold) {
  const nlohmann::json r = runGemm(shape(1024, 128, 1) + "  dtype: fp16\n", "timing");
  EXPECT_EQ(r["mapping"].get<std::string>().find("folded"), std::string::npos) << r["mapping"];
}

// With 400 bytes of SRAM a target keeps 15 of the 64 n's: 5 passes, each
// reducing to its own column (0, 2, 4, 5, 7: end columns receive from one
// side, the others from both), the activations kept across passes.
TEST(WeightStreamGemm, OutputInPassesSpreadOverTheColumns) {
  const nlohmann::json r = runGemm(shape(40, 24, 64), "functional", "  pe:\n    sram_bytes: 400\n");
  EXPECT_EQ(r["phases"], 5u);
  EXPECT_EQ(r["mismatches"], 0u);
  EXPECT_GE(r["cycles"].get<std::uint64_t>(), r["lower_bounds"]["max"].get<std::uint64_t>());
  EXPECT_LE(r["sram_high_water_bytes"].get<std::uint64_t>(), 400u);
}

// fp32 with values in [-1, 1): only the summation order differs from the
// double-precision reference, so the error stays near k fp32 ulps.
TEST(WeightStreamGemm, Fp32UniformValuesWithinRounding) {
  const nlohmann::json r = runGemm(shape(24, 40, 8) + "  values: uniform\n");
  EXPECT_LT(r["max_abs_error"].get<double>(), 40 * 6e-8 * 4);
}

// Compute-bound: 128 m per row make each weight's fp16 FMAC 32 cycles and
// 16 k per column keep the row reduction (128 wavelets per n) behind the
// FMACs (16 x 32 cycles per n); task start and op overhead per weight, the
// accumulator copy per n and the pipeline's fill and drain keep the count
// within 1.5x of the compute bound (docs/gemm-mappings.md).
TEST(WeightStreamGemm, LargeComputeBoundShapeNearTheBound) {
  const nlohmann::json r = runGemm(shape(1024, 128, 4) + "  dtype: fp16\n  values: uniform\n", "timing");
  const double ratio = r["cycles_over_bound"].get<double>();
  EXPECT_EQ(r["lower_bounds"]["max"], r["lower_bounds"]["compute"]);
  EXPECT_GE(ratio, 1.0);
  EXPECT_LT(ratio, 1.5);
}

// One PE (a 1x1 grid): each weight can be used 4 cycles after the cycle it
// enters (a hop, the ramp, the fabric input) and runs a task: start 2 + FMAC (2 + m);
// after each n's k weights, 'column_done': start 2 + copy to Y (2 + m/2).
// Weights enter one per cycle, far ahead of the PE.
constexpr unsigned kM = 4, kK = 3, kN = 2;
constexpr std::uint64_t kOnePeCycles = 4 + kN * (kK * (2 + 2 + kM) + 2 + (2 + kM / 2)) + 1;

class OnePe : public ::testing::TestWithParam<const char*> {};

TEST_P(OnePe, CyclesMatchTheHandCountInBothModes) {
  const nlohmann::json r = runGemm(shape(kM, kK, kN) + "  grid_x: 1\n  grid_y: 1\n", GetParam());
  EXPECT_EQ(r["cycles"], kOnePeCycles);
  if (std::string(GetParam()) == "functional") {
    EXPECT_EQ(r["mismatches"], 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, OnePe, ::testing::Values("functional", "timing"));

// The whole mesh: timing mode reproduces functional mode's cycles. The
// count was recorded from a functional run; each mode runs in its own
// process and must reproduce it. (584 before arch.pe.fabric_input_cycles:
// the last weight's arrival and each relay stage of the sums take a cycle
// more; 590 before `auto` folded the sums past the target, whose meeting
// sums made it add its own an n later than its row.)
class BothModes : public ::testing::TestWithParam<const char*> {};

TEST_P(BothModes, SameCyclesOnAFullMesh) {
  const nlohmann::json r = runGemm(shape(40, 24, 16) + "  dtype: mixed\n", GetParam());
  EXPECT_EQ(r["cycles"], 512u);
}

INSTANTIATE_TEST_SUITE_P(Modes, BothModes, ::testing::Values("functional", "timing"));

// fp16 FMACs whose sums leave the PE in fp32 (workload.reduction_dtype:
// fp32, precision level 1's GEMMs). On one PE each weight's FMAC takes 2 +
// m/4 cycles on 4 lanes, and each n's copy of its fp16 sums into the fp32 Y
// is a mixed move, 2 + m/2 (an fp16 one: 2 + m/4).
class Fp32SumsOnOnePe : public ::testing::TestWithParam<const char*> {};

TEST_P(Fp32SumsOnOnePe, CyclesMatchTheHandCount) {
  const std::string fp16 = shape(kM, kK, kN) + "  grid_x: 1\n  grid_y: 1\n  dtype: fp16\n";
  const nlohmann::json wide = runGemm(fp16 + "  reduction_dtype: fp32\n", GetParam());
  EXPECT_EQ(wide["cycles"], 4 + kN * (kK * (2 + 2 + kM / 4) + 2 + (2 + kM / 2)) + 1);
  EXPECT_EQ(wide["reduction_dtype"], "f32");
  if (std::string(GetParam()) == "functional") {
    EXPECT_EQ(wide["mismatches"], 0u);
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, Fp32SumsOnOnePe, ::testing::Values("functional", "timing"));

// fp32 sums take twice the output's bytes: with 1,200 B a PE holds the
// activations (8 k x 16 m fp16, 256 B) and a meeting target's zeros,
// accumulator and two send buffers (4 x 16 fp16, 128 B), which leaves
// 816 B: 25 fp16 outputs of 16 m, 12 fp32 ones. So 96 n's run in 4 passes
// of 24 with fp16 sums and in 8 of 12 with fp32 sums, exact either way.
class SumsInPasses : public ::testing::TestWithParam<std::pair<const char*, unsigned>> {};

TEST_P(SumsInPasses, OutputsAPassKeepsFollowTheSumsType) {
  const auto [sums, passes] = GetParam();
  const nlohmann::json r = runGemm(shape(128, 64, 96) + "  dtype: fp16\n  reduction_dtype: " + sums + "\n",
                                   "functional", "  pe:\n    sram_bytes: 1200\n");
  EXPECT_EQ(r["phases"], passes);
  EXPECT_EQ(r["mismatches"], 0u);
}

INSTANTIATE_TEST_SUITE_P(Sums, SumsInPasses,
                         ::testing::Values(std::make_pair("accumulator", 4u), std::make_pair("fp32", 8u)),
                         [](const auto& info) { return std::string(info.param.first); });

// The resident algorithms pass their sums on in the accumulator's type only.
TEST(WeightStreamGemm, Fp32SumsAreRefusedWhereTheAlgorithmHasNone) {
  try {
    runGemm(shape(16, 16, 16) + "  algorithm: summa\n  dtype: fp16\n  reduction_dtype: fp32\n", "timing");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    for (const char* part : {"workload.reduction_dtype: summa", "(fp32: weight_stream)"})
      EXPECT_NE(msg.find(part), std::string::npos) << part << " missing: " << msg;
  }
}

TEST(WeightStreamGemm, PlanThatDoesNotFitExplainsWhichBufferOnWhichPe) {
  try {
    runGemm(shape(1000, 1000, 4), "timing");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    for (const char* part : {"PE (", "bytes of SRAM, more than arch.pe.sram_bytes=49152", "activations 125x125 f32 = 62500 B"})
      EXPECT_NE(msg.find(part), std::string::npos) << part << " missing: " << msg;
  }
}

TEST(WeightStreamGemm, GridLargerThanTheMeshIsRefused) {
  EXPECT_THROW(runGemm(shape(16, 16, 4) + "  grid_x: 9\n", "timing"), config::ConfigError);
}

}  // namespace
}  // namespace wsesim::gemm
