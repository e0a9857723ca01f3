// Sparse weights in the weight-streaming GEMM (docs/sparsity.md): outputs
// against the reference matmul with the same zeros in every pass (the
// weight gradient: only the kept gradients); a stream of the non-zeros,
// each saying where it belongs and which outputs ended; one PE's cycles
// counted by hand; the column with the most non-zeros pacing an
// imbalanced grid; and the keys' errors.
#include <gtest/gtest.h>

#include <algorithm>

#include "firmware/gemm/registry/GemmAlgorithms.h"
#include "firmware/gemm/streaming/WeightStreamGemm.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/common/ConfigError.h"
#include "testbench/tests/gemm/GemmTestSupport.h"

namespace wsesim::gemm {
namespace {

using testing::runGemm;
using testing::shape;

std::string sparse(double density, const char* pattern = "uniform") {
  return "  dtype: mixed\n  weight_density: " + std::to_string(density) + "\n  weight_sparsity: " + pattern + "\n";
}

// W's non-zeros in rows [k0, k1) and columns [n0, n1).
std::uint64_t nonzeros(const firmware::WeightSparsity& s, std::uint32_t k0, std::uint32_t k1, std::uint32_t n0,
                       std::uint32_t n1) {
  std::uint64_t count = 0;
  for (std::uint32_t k = k0; k < k1; ++k)
    for (std::uint32_t n = n0; n < n1; ++n) count += s.kept(k, n);
  return count;
}

firmware::WeightSparsity sparsityOf(double density, std::uint32_t layerRows,
                                    firmware::SparsityPattern p = firmware::SparsityPattern::Uniform) {
  firmware::WeightSparsity s;
  s.density = density;
  s.pattern = p;
  s.seed = 1;  // workload.seed's default
  s.layerRows = layerRows;
  return s;
}

struct Case {
  const char* name;
  double density;
  const char* pass;
};

class Exact : public ::testing::TestWithParam<Case> {};

// 13 x 30 x 9 on the 8 x 8 mesh: 3 or 4 k's per column, 1 or 2 m's per
// row (uneven rows); integers, so the products are exact.
TEST_P(Exact, EqualsTheReferenceWithTheSameZeros) {
  const Case c = GetParam();
  const nlohmann::json r = runGemm(shape(13, 30, 9) + sparse(c.density) + "  pass: " + c.pass + "\n");
  EXPECT_EQ(r["checked"], true);
  EXPECT_EQ(r["mismatches"], 0u) << r.dump(2);
  if (c.density < 1) {
    const std::uint64_t kept = nonzeros(sparsityOf(c.density, 30), 0, 30, 0, 9);
    EXPECT_EQ(r["sparsity"]["nonzero_weights"], kept);
    EXPECT_EQ(r["sparsity"]["weights"], 270u);
    EXPECT_LT(kept, 270u);
    if (std::string(c.pass) == "weight_grad") {  // only the kept gradients leave, fp32 each
      EXPECT_EQ(r["sparsity"]["wavelets_streamed"], kept);
      EXPECT_EQ(r["wavelets"]["out_of_wafer"], kept);
      EXPECT_EQ(r["sparsity"]["bytes_streamed"], 4 * kept);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Densities, Exact,
                         ::testing::Values(Case{"forward_1", 1, "forward"}, Case{"forward_0_5", 0.5, "forward"},
                                           Case{"forward_0_1", 0.1, "forward"},
                                           Case{"backward_data_1", 1, "backward_data"},
                                           Case{"backward_data_0_5", 0.5, "backward_data"},
                                           Case{"backward_data_0_1", 0.1, "backward_data"},
                                           Case{"weight_grad_1", 1, "weight_grad"},
                                           Case{"weight_grad_0_5", 0.5, "weight_grad"},
                                           Case{"weight_grad_0_1", 0.1, "weight_grad"}),
                         [](const auto& info) { return std::string(info.param.name); });

// Each column's stream: the non-zeros of its block of k's, n by n, each
// wavelet's index (n's ended before it) x ks + its k, then one ending the
// pass's last n's: the n's ended add up to the pass's.
TEST(SparseWeightStream, AStreamHoldsTheNonzerosAndEndsEachN) {
  config::ConfigTree tree = config::ConfigTree::fromText("arch:\n  preset: tiny\n", "test");
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  const config::ArchConfig arch = config::ArchConfig::read(params);
  const firmware::WeightSparsity w = sparsityOf(0.25, 30);
  const auto mapping = firmware::makeGemmMapping(
      "weight_stream", runtime::passShape(13, 30, 9, pe::Precision::Mixed, GemmPass::Forward, w), arch, 0, 0,
      firmware::Buffering::Auto);
  const firmware::WeightStreamPlan& plan = dynamic_cast<const firmware::WeightStreamGemm&>(*mapping).plan();
  std::uint64_t streamed = 0, k0 = 0;
  const std::vector<wafer::EdgeStream> streams = mapping->streams(arch.mesh, nullptr, 0);
  ASSERT_EQ(mapping->phases(), 1u);
  ASSERT_EQ(streams.size(), 8u);
  for (std::uint32_t c = 0; c < 8; ++c) {
    const wafer::EdgeStream& s = streams[c];
    const std::uint32_t ks = plan.ks(c);
    ASSERT_EQ(plan.kBegin[c], k0);
    ASSERT_EQ(s.count, nonzeros(w, std::uint32_t(k0), std::uint32_t(k0 + ks), 0, 9) + 1) << "column " << c;
    std::uint32_t n = 0;
    for (std::uint64_t i = 0; i + 1 < s.count; ++i) {
      const std::uint32_t index = s.payload(i) >> 16;
      n += index / ks;
      EXPECT_TRUE(w.kept(std::uint32_t(k0) + index % ks, n)) << "column " << c << " wavelet " << i;
    }
    EXPECT_EQ(n + (s.payload(s.count - 1) >> 16) / ks, 9u);  // the last one ends the rest
    streamed += s.count;
    k0 += ks;
  }
  EXPECT_EQ(k0, 30u);
  EXPECT_EQ(streamed, nonzeros(w, 0, 30, 0, 9) + 8);
}

// One PE (a 1x1 grid), mixed: a weight is usable 4 cycles after it enters,
// and each wavelet runs an FMAC, start 2 + (2 + 4 m's at 2 lanes = 2): the
// non-zeros' and the last one's (a zero). One that ends r n's first ends
// its task (start 2), runs 'column_done' r times (start 2 + the copy to Y,
// 2 + 4 fp32 elements at 2 lanes = 2) and then its FMAC as 'held_weight'.
// The weights enter far ahead of the PE. So 4 + 6 (nnz + 1) + 2 B + 6 N + 1,
// B the wavelets that end n's.
class OnePe : public ::testing::TestWithParam<const char*> {};

TEST_P(OnePe, CyclesMatchTheHandCount) {
  const nlohmann::json r = runGemm(shape(4, 8, 5) + "  grid_x: 1\n  grid_y: 1\n" + sparse(0.5), GetParam());
  const firmware::WeightSparsity w = sparsityOf(0.5, 8);
  std::uint64_t nnz = 0, ending = 1;  // the last wavelet ends the last n
  std::uint32_t open = 0;
  for (std::uint32_t n = 0; n < 5; ++n)
    for (std::uint32_t k = 0; k < 8; ++k)
      if (w.kept(k, n)) {
        ++nnz;
        ending += n != open;
        open = n;
      }
  EXPECT_EQ(r["cycles"], 4 + 6 * (nnz + 1) + 2 * ending + 6 * 5 + 1);
  EXPECT_EQ(r["sparsity"]["wavelets_streamed"], nnz + 1);
  EXPECT_EQ(r["sparsity"]["bytes_streamed"], 4 * (nnz + 1));
}

INSTANTIATE_TEST_SUITE_P(Modes, OnePe, ::testing::Values("functional", "timing"));

// Row-imbalanced weights give the grid's last columns (W's last rows) the
// most non-zeros: one row of 4 PEs, 16 k's each; the busiest column's
// FMACs (6 cycles a non-zero) set the pace, and the others are done well
// before it.
TEST(SparseWeightStream, TheColumnWithTheMostNonzerosSetsThePace) {
  const nlohmann::json r =
      runGemm(shape(4, 64, 16) + "  grid_x: 4\n  grid_y: 1\n" + sparse(0.5, "row_imbalanced"), "timing");
  const firmware::WeightSparsity w = sparsityOf(0.5, 64, firmware::SparsityPattern::RowImbalanced);
  std::uint64_t busiest = 0, fewest = ~std::uint64_t(0);
  for (std::uint32_t c = 0; c < 4; ++c) {
    const std::uint64_t work = 6 * nonzeros(w, 16 * c, 16 * c + 16, 0, 16);
    busiest = std::max(busiest, work);
    fewest = std::min(fewest, work);
  }
  const std::uint64_t cycles = r["cycles"];
  EXPECT_GE(cycles, busiest);
  EXPECT_LE(cycles, busiest + 16 * 8 + 60);  // plus each n's column_done and the last n's reduction
  EXPECT_GT(busiest, fewest + 150);          // the imbalance is real
  EXPECT_NEAR(r["sparsity"]["column_imbalance"].get<double>(),
              double(busiest / 6) * 4 / r["sparsity"]["wavelets_streamed"].get<double>(), 0.05);
}

// MemoryX keeps a sparse layer as it streams: the non-zeros, each with its
// index, and each pass's last wavelets: that is what leaves its storage and crosses
// SwarmX and the system's I/O ring.
TEST(SparseWeightStream, MemoryxStreamsTheValueAndIndexBytes) {
  const nlohmann::json r = runGemm(shape(16, 24, 16) + sparse(0.25) + "  weights: memoryx\n", "timing");
  const std::uint64_t bytes = r["sparsity"]["bytes_streamed"];
  EXPECT_EQ(bytes, 4 * r["sparsity"]["wavelets_streamed"].get<std::uint64_t>());
  const nlohmann::json& traffic = r["system"]["traffic"];
  EXPECT_EQ(traffic["memoryx_storage"]["bytes"], bytes);
  EXPECT_EQ(traffic["swarmx_broadcast"]["bytes"], bytes);
  EXPECT_EQ(traffic["io_ring_ingress"]["bytes"], bytes);
}

// ... and receives, sums and updates only the kept gradients (fp32).
TEST(SparseWeightStream, MemoryxReceivesOnlyTheKeptGradients) {
  const nlohmann::json r =
      runGemm(shape(16, 24, 16) + sparse(0.25) + "  pass: weight_grad\n  weights: memoryx\n", "timing");
  const std::uint64_t kept = nonzeros(sparsityOf(0.25, 24), 0, 24, 0, 16);
  EXPECT_EQ(r["sparsity"]["nonzero_weights"], kept);
  EXPECT_EQ(r["system"]["traffic"]["swarmx_reduce"]["bytes"], 4 * kept);
  EXPECT_EQ(r["system"]["traffic"]["io_ring_egress"]["bytes"], 4 * kept);
}

TEST(SparseWeightStream, KeysOutOfRangeOrWhereSparsityIsNotModelledAreRefused) {
  const auto refusal = [](const std::string& yaml) -> std::string {
    try {
      runGemm(shape(8, 8, 8) + yaml);
    } catch (const config::ConfigError& e) {
      return e.what();
    }
    return "not refused";
  };
  EXPECT_NE(refusal("  dtype: mixed\n  weight_density: 0\n").find("workload.weight_density"), std::string::npos);
  EXPECT_NE(refusal("  dtype: mixed\n  weight_density: 1.5\n").find("workload.weight_density"), std::string::npos);
  EXPECT_NE(refusal("  dtype: mixed\n  weight_sparsity: banded\n").find("workload.weight_sparsity"), std::string::npos);
  const std::string fp32 = refusal("  dtype: fp32\n  weight_density: 0.5\n");
  EXPECT_NE(fp32.find("workload.weight_density=0.5"), std::string::npos) << fp32;
  EXPECT_NE(fp32.find("workload.dtype must be fp16 or mixed"), std::string::npos) << fp32;
  const std::string summa = refusal("  dtype: mixed\n  weight_density: 0.5\n  algorithm: summa\n");
  EXPECT_NE(summa.find("summa streams no sparse weights"), std::string::npos) << summa;
}

}  // namespace
}  // namespace wsesim::gemm
