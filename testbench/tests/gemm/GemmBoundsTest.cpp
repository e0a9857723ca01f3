// Property: for random shapes, grids and I/O bandwidths, the simulated cycle
// count of the weight-streaming GEMM is never below its analytic lower
// bound. Each shape is its own `wsesim run` (one simulation per process).
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace {

namespace fs = std::filesystem;

TEST(GemmBounds, CyclesNeverBelowTheLowerBoundOnRandomShapes) {
  std::string dir = (fs::temp_directory_path() / "wsesim-gemm-bounds-XXXXXX").string();
  ASSERT_NE(::mkdtemp(dir.data()), nullptr);
  std::mt19937 rng(20261123);
  std::uniform_int_distribution<int> small(1, 40), grid(0, 8), bandwidth(0, 2);
  const char* const dtypes[] = {"fp32", "mixed", "fp16"};
  const char* const bandwidths[] = {"150e9", "4e9", "1e9"};  // plenty, about one, and a quarter wavelet per cycle
  for (int i = 0; i < 12; ++i) {
    const int m = small(rng), k = small(rng), n = small(rng) / 4 + 1;
    const int gx = std::min(grid(rng), k), gy = std::min(grid(rng), m);
    const std::string out = dir + "/r" + std::to_string(i) + ".json";
    const std::string command = std::string("'" WSESIM_BINARY "' run '" WSESIM_SOURCE_DIR "/testbench/configs/gemm_small.yaml'") +
                                " --set run.mode=timing --set workload.m=" + std::to_string(m) +
                                " --set workload.k=" + std::to_string(k) + " --set workload.n=" + std::to_string(n) +
                                " --set workload.grid_x=" + std::to_string(gx) + " --set workload.grid_y=" +
                                std::to_string(gy) + " --set workload.dtype=" + dtypes[i % 3] +
                                " --set arch.io.bandwidth_bytes_per_s=" + bandwidths[bandwidth(rng)] + " --out '" + out +
                                "' > /dev/null";
    const int status = std::system(command.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << command;
    const nlohmann::json r = nlohmann::json::parse(std::ifstream(out));
    const std::uint64_t cycles = r.at("cycles"), bound = r.at("workload").at("lower_bounds").at("max");
    EXPECT_GE(cycles, bound) << command;
    EXPECT_GT(bound, 0u) << command;
  }
  fs::remove_all(dir);
}

}  // namespace
