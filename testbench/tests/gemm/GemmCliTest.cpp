// GEMM properties that take several simulations, each its own `wsesim run`
// (one simulation per process): cycles never below the analytic lower bound
// on random shapes (weight streaming and the resident algorithms);
// representative rows give the cycles of every row.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <string>

namespace {

namespace fs = std::filesystem;

class ScratchDir {
 public:
  ScratchDir() : path_((fs::temp_directory_path() / "wsesim-gemm-XXXXXX").string()) {
    if (!::mkdtemp(path_.data())) throw std::runtime_error("mkdtemp failed");
  }
  ~ScratchDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// `wsesim run` of the small GEMM config with overrides; its result document.
nlohmann::json runGemm(const ScratchDir& dir, const std::string& name, const std::string& overrides) {
  const std::string out = dir.path() + "/" + name + ".json";
  const std::string command = "'" WSESIM_BINARY "' run '" WSESIM_SOURCE_DIR "/testbench/configs/gemm_small.yaml' " +
                              overrides + " --out '" + out + "' > /dev/null";
  const int status = std::system(command.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ADD_FAILURE() << command;
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(std::ifstream(out));
}

TEST(GemmBounds, CyclesNeverBelowTheLowerBoundOnRandomShapes) {
  const ScratchDir dir;
  std::mt19937 rng(20261123);
  std::uniform_int_distribution<int> small(1, 40), grid(0, 8), bandwidth(0, 2);
  const char* const dtypes[] = {"fp32", "mixed", "fp16"};
  const char* const bandwidths[] = {"150e9", "4e9", "1e9"};  // plenty, about one, and a quarter wavelet per cycle
  for (int i = 0; i < 12; ++i) {
    const int m = small(rng), k = small(rng), n = small(rng) / 4 + 1;
    const int gx = std::min(grid(rng), k), gy = std::min(grid(rng), m);
    const std::string overrides = "--set run.mode=timing --set workload.m=" + std::to_string(m) +
                                  " --set workload.k=" + std::to_string(k) + " --set workload.n=" + std::to_string(n) +
                                  " --set workload.grid_x=" + std::to_string(gx) + " --set workload.grid_y=" +
                                  std::to_string(gy) + " --set workload.dtype=" + dtypes[i % 3] +
                                  " --set arch.io.bandwidth_bytes_per_s=" + bandwidths[bandwidth(rng)];
    const nlohmann::json r = runGemm(dir, "r" + std::to_string(i), overrides);
    if (r.empty()) continue;
    const std::uint64_t cycles = r.at("cycles"), bound = r.at("workload").at("lower_bounds").at("max");
    EXPECT_GE(cycles, bound) << overrides;
    EXPECT_GT(bound, 0u) << overrides;
  }
}

// The resident algorithms on random shapes, P from 1 to 8 (0: the default),
// in functional mode: exact results and cycles never below the bound.
TEST(GemmBounds, ResidentCyclesNeverBelowTheLowerBoundOnRandomShapes) {
  const ScratchDir dir;
  std::mt19937 rng(20260517);
  std::uniform_int_distribution<int> dim(1, 30), grid(0, 8);
  const char* const dtypes[] = {"fp32", "mixed", "fp16"};
  const char* const algorithms[] = {"summa", "cannon", "meshgemm"};
  for (int i = 0; i < 15; ++i) {
    const int m = dim(rng), k = dim(rng), n = dim(rng);
    const int p = std::min({grid(rng), m, k, n});
    const std::string overrides = "--set workload.algorithm=" + std::string(algorithms[i % std::size(algorithms)]) +
                                  " --set workload.m=" + std::to_string(m) + " --set workload.k=" + std::to_string(k) +
                                  " --set workload.n=" + std::to_string(n) + " --set workload.grid_x=" +
                                  std::to_string(p) + " --set workload.dtype=" + dtypes[i % 3] +
                                  " --set workload.value_range=2";
    const nlohmann::json r = runGemm(dir, "r" + std::to_string(i), overrides);
    if (r.empty()) continue;
    const std::uint64_t cycles = r.at("cycles"), bound = r.at("workload").at("lower_bounds").at("max");
    EXPECT_GE(cycles, bound) << overrides;
    EXPECT_GT(bound, 0u) << overrides;
    EXPECT_EQ(r.at("workload").at("mismatches"), 0u) << overrides;
  }
}

// Rows of 5 and 6 m's (44 over 8 rows): simulating one row of each, plus a
// hop per row left out in every pass, gives the cycles of all 8 rows, in one
// pass and in 7 (400 bytes of SRAM).
TEST(GemmRepresentativeRows, SameCyclesAsEveryRow) {
  const ScratchDir dir;
  for (const std::string passes : {"", " --set workload.n=64 --set arch.pe.sram_bytes=400"}) {
    const std::string base = "--set run.mode=timing --set workload.m=44" + passes;
    const nlohmann::json all = runGemm(dir, "all", base);
    const nlohmann::json some = runGemm(dir, "some", base + " --set workload.rows=representative");
    if (all.empty() || some.empty()) continue;
    EXPECT_EQ(some.at("cycles"), all.at("cycles")) << base;
    EXPECT_EQ(some.at("workload").at("rows_simulated"), 2) << base;
    EXPECT_EQ(all.at("workload").at("rows_simulated"), 8) << base;
    EXPECT_EQ(some.at("workload").at("lower_bounds"), all.at("workload").at("lower_bounds"));
  }
}

}  // namespace
