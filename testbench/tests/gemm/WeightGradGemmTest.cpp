// The weight-gradient pass dW = X^T . dY in functional mode on small
// meshes: X and dY resident where the forward pass leaves X and Y, the
// gradients reassembled from what leaves the wafer's East edge and
// checked against a reference matmul; timing mode's cycles equal
// functional mode's; the outbound I/O bandwidth holds the gradients back.
#include <gtest/gtest.h>

#include "firmware/gemm/streaming/WeightGradGemm.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ArchConfig.h"
#include "testbench/tests/gemm/GemmTestSupport.h"

namespace wsesim::gemm {
namespace {

using testing::runGemm;
using testing::shape;

struct Case {
  const char* name;
  unsigned m, k, n;  // of the layer Y[m x n] = X[m x k] . W[k x n]
  const char* extra;
};

// How many slices a block runs in: the plan's estimate, derived by hand.
// A block of 256 cycles of AXPYs and 822 of way out, 3 k's and 5 tokens a
// PE, an issue of 2 cycles and a task start of 2: a slice's token loop
// adds 5 x (2 + 6 x 2) = 70 cycles. S slices take 256 / S + 70 + (S - 1) x
// max(256 / S + 70, 822 / S) + 822 / S: 1148 at 1, 1020 at 2, 977.3 at 3,
// falling to 924 at 8, where a slice's AXPYs and loop (102) outlast its
// way out (102.75 at 8, 91.3 at 9: 977.1). So 3 where 3 are allowed, 8
// where 64 are. Where the dY rows bind a long token loop (1,000 cycles of
// them, 100 of way out, 150 tokens of one k: 1,500 cycles a loop), a second
// slice only adds its loop: 2,600 at 1 against 4,050 at 2, so one.
TEST(WeightGradGemm, SlicesAreAsManyAsTheEstimateSaysPay) {
  config::ArchConfig arch;
  arch.pe.opOverheadCycles = 2;
  arch.pe.taskStartCycles = 2;
  firmware::GemmBounds wayOutBinds;
  wayOutBinds.compute = 256;
  wayOutBinds.bandwidth = 822;
  arch.firmware.weightGradSlices = 3;
  EXPECT_EQ(firmware::WeightGradGemm::slicesThatPay(wayOutBinds, 1, 3, 5, arch, 0), 3u);
  arch.firmware.weightGradSlices = 64;
  EXPECT_EQ(firmware::WeightGradGemm::slicesThatPay(wayOutBinds, 1, 3, 5, arch, 0), 8u);
  firmware::GemmBounds rowsBind;
  rowsBind.compute = 100;
  rowsBind.reduction = 1000;
  rowsBind.bandwidth = 100;
  EXPECT_EQ(firmware::WeightGradGemm::slicesThatPay(rowsBind, 1, 1, 150, arch, 0), 1u);
  arch.firmware.weightGradSlices = 1;  // the key's 1: never sliced
  EXPECT_EQ(firmware::WeightGradGemm::slicesThatPay(wayOutBinds, 1, 3, 5, arch, 0), 1u);
}

class WeightGradShapes : public ::testing::TestWithParam<Case> {};

TEST_P(WeightGradShapes, ExactOnIntegersAndAllGradientsLeaveTheWafer) {
  const Case c = GetParam();
  const nlohmann::json r = runGemm(shape(c.m, c.k, c.n) + "  pass: weight_grad\n" + c.extra);
  EXPECT_EQ(r["checked"], true);
  EXPECT_EQ(r["mismatches"], 0u) << r.dump(2);
  EXPECT_GE(r["cycles"].get<std::uint64_t>(), r["lower_bounds"]["max"].get<std::uint64_t>());
  EXPECT_EQ(r["wavelets"]["out_of_wafer"], std::uint64_t(c.k) * c.n);  // each gradient leaves once
  EXPECT_EQ(r["wavelets"]["weights_in"], 0u);                          // nothing streams in
}

INSTANTIATE_TEST_SUITE_P(
    Passes, WeightGradShapes,
    ::testing::Values(Case{"mesh_sized", 40, 24, 16, ""},       // 8x8 grid
                      Case{"m_is_1", 1, 8, 5, ""},              // one row: it sends straight off the wafer
                      Case{"k_wider_than_mesh", 7, 30, 3, ""},  // 3-4 k per column
                      Case{"k_narrower", 13, 5, 9, ""},         // 5 columns, uneven m per row
                      Case{"n_is_1", 9, 17, 1, ""},
                      Case{"one_column", 6, 1, 4, ""},          // the target broadcasts to itself only
                      Case{"given_grid", 16, 16, 4, "  grid_x: 3\n  grid_y: 5\n"},  // rows below the grid pass sums on
                      Case{"fp16", 20, 12, 6, "  dtype: fp16\n"},
                      Case{"mixed", 20, 12, 6, "  dtype: mixed\n"}),
    [](const auto& info) { return std::string(info.param.name); });

// With 400 bytes of SRAM the forward layout keeps Y (so dY) in 5 passes at
// columns 0, 2, 4, 5, 7: the row broadcast's routes change with each pass;
// beside X and dY a PE's partial dW (3 k's) and two tokens' dY rows (one
// arriving, one in use) fit 4 n's, so each pass of 13 n's runs in 4 blocks,
// the last of 12 in 3.
TEST(WeightGradGemm, PassesBroadcastFromEachTargetColumn) {
  const nlohmann::json r =
      runGemm(shape(40, 24, 64) + "  pass: weight_grad\n", "functional", "  pe:\n    sram_bytes: 400\n");
  EXPECT_EQ(r["phases"], 19u);
  EXPECT_EQ(r["mismatches"], 0u);
  EXPECT_LE(r["sram_high_water_bytes"].get<std::uint64_t>(), 400u);
}

// Timing mode reproduces functional mode's cycles (recorded from a
// functional run of the nineteen-block case above); each mode in its own
// process. (2942 when every arriving dY ran a task of one FMAC over the
// PE's k's, before the outer products; 3131 in 15 blocks of 5 n's before a
// token's dY row arrived while the previous one's AXPYs ran: blocks of a
// few n's gain nothing from the overlap and pay for the extra blocks.)
class WeightGradModes : public ::testing::TestWithParam<const char*> {};

TEST_P(WeightGradModes, SameCyclesInBothModes) {
  const nlohmann::json r = runGemm(shape(40, 24, 64) + "  pass: weight_grad\n", GetParam(), "  pe:\n    sram_bytes: 400\n");
  EXPECT_EQ(r["cycles"], 3164u);
}

INSTANTIATE_TEST_SUITE_P(Modes, WeightGradModes, ::testing::Values("functional", "timing"));

// 2.2e8 B/s over 120 ring channels at 1.1 GHz is 1/2400 fp32 gradients per
// cycle per channel. The 8 columns (mesh rows, 3 k's each) send their 3 x 16
// gradients out East, each row through its 7 or 8 East channels: the rows
// with 7 need 48 x 2400 / 7 = 16,457 cycles, far beyond the pass's compute,
// so the outbound ring sets the pace (the fabric holds the sums back, none lost).
// The same for fp16 AXPYs whose sums leave in fp32 (workload.reduction_dtype:
// fp32): the gradients cross the ring at fp32's rate, not fp16's.
class OutboundIo : public ::testing::TestWithParam<const char*> {};

TEST_P(OutboundIo, OutboundIoBandwidthBindsWhenLow) {
  const nlohmann::json r = runGemm(shape(40, 24, 16) + "  pass: weight_grad\n" + GetParam(), "functional",
                                   "  clock_hz: 1100000000\n  io:\n    bandwidth_bytes_per_s: 220000000\n");
  EXPECT_EQ(r["mismatches"], 0u);
  EXPECT_EQ(r["lower_bounds"]["max"], r["lower_bounds"]["bandwidth"]);
  EXPECT_EQ(r["lower_bounds"]["bandwidth"], 16457u);
  EXPECT_GE(r["cycles"].get<std::uint64_t>(), 16457u);
  EXPECT_LT(r["cycles"].get<std::uint64_t>(), 16457u + 710u);
}

INSTANTIATE_TEST_SUITE_P(Sums, OutboundIo, ::testing::Values("", "  dtype: fp16\n  reduction_dtype: fp32\n"),
                         [](const auto& info) { return std::string(info.index == 0 ? "fp32" : "fp16_with_fp32_sums"); });

// The rows left out would hold results: functional mode simulates them all.
TEST(WeightGradGemm, RepresentativeRowsNeedTimingMode) {
  EXPECT_THROW(runGemm(shape(40, 24, 16) + "  pass: weight_grad\n  rows: representative\n", "functional"),
               config::ConfigError);
}

// 8 x 64 x 16 on the 8 x 8 grid with 120 bytes of SRAM: the forward layout
// fits (its target, grid column 4: 8 x 1 activations 32 B, 4 one-element sum
// buffers 16 B, 1 x 16 outputs 64 B = 112 B), but the weight gradient's
// target holds X 8 x 1 f32 = 32 B, dY 1 x 16 f32 = 64 B, and even
// in blocks of one n two dY rows of 4 B (one arriving while the other is
// used) and the partial dW 8 x 1 f32 = 32 B: 136 B.
// The grid lies transposed on the mesh, so grid column 4 is mesh row 4 and
// the error names the PE at mesh (0,4), as the map and the NoC summary do.
TEST(WeightGradGemm, APeThatOverflowsSramIsNamedWithEveryBufferAndTheLimit) {
  try {
    runGemm(shape(8, 64, 16) + "  pass: weight_grad\n", "timing", "  pe:\n    sram_bytes: 120\n");
    ADD_FAILURE() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    for (const char* part :
         {"weight_grad dW = X^T . dY of the layer 8x64x16", "PE (0,4) needs 136 bytes of SRAM, more than arch.pe.sram_bytes=120",
          "activations 'x' 8x1 f32 = 32 B", "output gradients 'dy' 1x16 f32 = 64 B", "dY rows 'dy_row' 2x1 f32 = 8 B",
          "partial dW 'acc' 8x1 f32 = 32 B"})
      EXPECT_NE(msg.find(part), std::string::npos) << part << " missing: " << msg;
  }
}

}  // namespace
}  // namespace wsesim::gemm
