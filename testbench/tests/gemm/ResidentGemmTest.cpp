// The resident-operand GEMM mappings (SUMMA, Cannon, MeshGEMM) in
// functional mode on small meshes: outputs against a reference matmul
// (exact for integer-valued inputs), shapes that do not divide the grid,
// P = 1, fp16 and mixed; cycles never below the lower bound; timing mode
// reproducing functional mode's cycles; a hand-derived cycle count; plan
// and configuration errors.
#include <gtest/gtest.h>

#include "firmware/gemm/resident/MeshGemm.h"
#include "firmware/routes/LineRoutes.h"
#include "hw/common/ConfigError.h"
#include "testbench/tests/gemm/GemmTestSupport.h"

namespace wsesim::gemm {
namespace {

using testing::runGemm;
using testing::shape;

const char* const kAlgorithms[] = {"summa", "cannon", "meshgemm"};

std::string algorithm(const std::string& name) { return "  algorithm: " + name + "\n"; }

struct Case {
  const char* name;
  unsigned m, k, n;
  const char* extra;  // more workload keys
};

class Shapes : public ::testing::TestWithParam<std::tuple<const char*, Case>> {};

TEST_P(Shapes, ExactOnIntegersAndNeverBelowTheBound) {
  const auto& [name, c] = GetParam();
  const nlohmann::json r = runGemm(algorithm(name) + shape(c.m, c.k, c.n) + c.extra);
  EXPECT_EQ(r["checked"], true);
  EXPECT_EQ(r["mismatches"], 0u) << r.dump(2);
  EXPECT_GE(r["cycles"].get<std::uint64_t>(), r["lower_bounds"]["max"].get<std::uint64_t>()) << r.dump(2);
  EXPECT_EQ(r["wavelets"]["weights_in"], 0u);  // nothing streams in: both operands are resident
  EXPECT_LE(r["sram_high_water_bytes"].get<std::uint64_t>(), 49152u);
}

INSTANTIATE_TEST_SUITE_P(
    All, Shapes,
    ::testing::Combine(
        ::testing::ValuesIn(kAlgorithms),
        ::testing::Values(Case{"mesh_sized", 40, 24, 16, ""},            // 8x8 grid, 5 x 3 x 2 blocks
                          Case{"uneven", 13, 7, 9, ""},                 // 7x7 grid (k = 7), blocks of 1-2 m and n
                          Case{"uneven_given_grid", 23, 19, 29, "  grid_x: 5\n"},  // 4-5 m, 3-4 k, 5-6 n
                          Case{"one_pe", 3, 5, 2, "  grid_x: 1\n  grid_y: 1\n"},
                          Case{"two_by_two", 9, 10, 11, "  grid_y: 2\n"},
                          Case{"fp16", 20, 12, 6, "  dtype: fp16\n"},  // sums stay below 2048: exact in fp16
                          Case{"mixed", 20, 12, 6, "  dtype: mixed\n"})),
    [](const auto& info) {
      return std::string(std::get<0>(info.param)) + "_" + std::get<1>(info.param).name;
    });

// fp32 with values in [-1, 1): only the summation order differs from the
// double-precision reference, so the error stays within k fp32 ulps of the
// largest partial sum (|sum| <= k).
class Uniform : public ::testing::TestWithParam<const char*> {};

TEST_P(Uniform, Fp32WithinRounding) {
  const nlohmann::json r = runGemm(algorithm(GetParam()) + shape(24, 40, 8) + "  values: uniform\n");
  EXPECT_LT(r["max_abs_error"].get<double>(), 40 * 40 * 6e-8);
}

INSTANTIATE_TEST_SUITE_P(All, Uniform, ::testing::ValuesIn(kAlgorithms));

// Timing mode reproduces functional mode's cycles. Counts recorded from
// functional runs; each mode runs in its own process and must reproduce them.
// (Since arch.pe.fabric_input_cycles a cycle more per receiving phase:
// Cannon and MeshGEMM 615 and 595 before; SUMMA 359 double-buffered before
// single buffering became its default, and 570 before its phases were
// paced PE by PE: each step's broadcast latency now overlaps the work of
// the PEs nearer its roots.)
struct Recorded {
  const char* algorithm;
  std::uint64_t cycles;
};
class BothModes : public ::testing::TestWithParam<std::tuple<Recorded, const char*>> {};

TEST_P(BothModes, SameCycles) {
  const auto& [recorded, mode] = GetParam();
  const nlohmann::json r = runGemm(algorithm(recorded.algorithm) + shape(30, 20, 17) + "  dtype: mixed\n", mode);
  EXPECT_EQ(r["cycles"], recorded.cycles);
}

INSTANTIATE_TEST_SUITE_P(All, BothModes,
                         ::testing::Combine(::testing::Values(Recorded{"summa", 517}, Recorded{"cannon", 622},
                                                              Recorded{"meshgemm", 602}),
                                            ::testing::Values("functional", "timing")),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param).algorithm) + "_" + std::get<1>(info.param);
                         });

// SUMMA double-buffered on 2x2 PEs with 1x1 blocks (m = k = n = 2), fp32.
// Three phases, paced PE by PE (PePacing): a PE enters its next phase the
// cycle after its program ends, once no wavelet of a color whose route
// changes waits in its router.
//   phase 0 (from cycle 0): broadcast step 0. Each PE's 'start' task runs
//     2 cycles, then issues its one-element sends and receives; a send
//     issued at 2 puts its element on the router at 4 (op overhead), it
//     reaches the neighbour's PE at 4 + 2 (ramp) + 1 (hop) + 2 (ramp) = 9,
//     usable at 10 (fabric input), the receive moves it at 11 and completes
//     at 12. The root of both lines, PE (0,0), has one RAMP for its two
//     sends, so they leave a cycle apart (the other receive completes at
//     11) and its sends end at 6; its second wavelet is still in its
//     router at 7, whose routes step 1 changes, so it enters phase 1 at 8:
//     the phase's first start.
//   phase 1: broadcast step 1 from PE (1,1) (entered at 13, sends issued
//     at 15, again a cycle apart: its receivers complete at 24 and 25)
//     and from (1,0) and (0,1) (entered at 12 and 13); step 0's product
//     runs beside (2 + 2 + 2 + 1 = 7 cycles). (1,1), which only sends,
//     ends first and enters phase 2 at 21.
//   phase 2: step 1's product only: task start 2 + FMAC 2 + 1 lane beat =
//     5 cycles; the last PE, (1,0), enters at 26 and is done at 31: 32
//     cycles, as with a barrier between phases (two steps leave nothing
//     to overlap).
TEST(SummaGemm, CyclesMatchTheHandCountOnTwoByTwo) {
  const nlohmann::json r = runGemm(algorithm("summa") + "  buffering: double\n" + shape(2, 2, 2));
  EXPECT_EQ(r["phase_start_cycles"], nlohmann::json::array({0, 8, 21}));
  EXPECT_EQ(r["cycles"], 32u);
  EXPECT_EQ(r["mismatches"], 0u);
}

// The interleaved ring puts every logical neighbour at most two hops away;
// each directed link carries one ring path, so 4 colors per direction.
TEST(MeshGemm, InterleavedRingNeighboursAtMostTwoHops) {
  EXPECT_EQ(firmware::MeshGemm::interleaved(8), (std::vector<std::uint32_t>{0, 2, 4, 6, 7, 5, 3, 1}));
  EXPECT_EQ(firmware::MeshGemm::interleaved(5), (std::vector<std::uint32_t>{0, 2, 4, 3, 1}));
  for (std::uint32_t p = 1; p <= 9; ++p) {
    const firmware::RingShift ring = firmware::RingShift::plan(firmware::MeshGemm::interleaved(p), 0);
    for (std::uint32_t l = 0; l < p; ++l) EXPECT_LE(ring.transfer({}, l, 1).reach(), 2u) << p;
    EXPECT_LE(ring.colors, 4u) << p;
  }
}

// Cannon's ring in mesh order: neighbours one hop apart on two alternating
// colors, and the wrap-around path back over the whole line on a third.
TEST(CannonGemm, RingInMeshOrderWrapsTheLongWay) {
  const firmware::RingShift ring = firmware::RingShift::plan({0, 1, 2, 3, 4, 5}, 0);
  EXPECT_EQ(ring.colors, 3u);
  EXPECT_EQ(ring.transfer({}, 0, 1).reach(), 5u);
  for (std::uint32_t l = 1; l < 6; ++l) EXPECT_EQ(ring.transfer({}, l, 1).reach(), 1u);
}

class Errors : public ::testing::TestWithParam<const char*> {};

TEST_P(Errors, TooBigForSramNamesThePeTheBufferAndTheBytes) {
  try {
    runGemm(algorithm(GetParam()) + shape(2000, 2000, 2000), "timing");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    for (const char* part : {"PE (", "bytes of SRAM, more than arch.pe.sram_bytes=49152", "c 62500 f32 = 250000 B"})
      EXPECT_NE(msg.find(part), std::string::npos) << part << " missing: " << msg;
  }
}

TEST_P(Errors, NonSquareGridIsRefusedNamingTheKeys) {
  try {
    runGemm(algorithm(GetParam()) + shape(16, 16, 16) + "  grid_x: 3\n  grid_y: 4\n", "timing");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("workload.grid_x=3 and workload.grid_y=4"), std::string::npos) << msg;
  }
}

TEST_P(Errors, OnlyTheForwardPassAndAllRows) {
  EXPECT_THROW(runGemm(algorithm(GetParam()) + shape(8, 8, 8) + "  pass: backward_data\n", "timing"),
               config::ConfigError);
  EXPECT_THROW(runGemm(algorithm(GetParam()) + shape(8, 8, 8) + "  rows: representative\n", "timing"),
               config::ConfigError);
}

INSTANTIATE_TEST_SUITE_P(All, Errors, ::testing::ValuesIn(kAlgorithms));

}  // namespace
}  // namespace wsesim::gemm
