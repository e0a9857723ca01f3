// The cost side of `wsesim run` results, each simulation its own process:
// components sum to the total, functional and timing runs cost the same, a
// training step's parts add up to its wafer, the wafer map's PEs add up to
// the wafer, more SRAM costs energy and area while it saves cycles, and a
// configuration larger than the wafer is reported as such.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/tests/config/ConfigTestUtil.h"

namespace {

using nlohmann::json;
using wsesim::config::testing::ScratchDir;

struct RunOutcome {
  json result;         // the result document
  std::string summary;  // what it printed
};

// `wsesim run CONFIG` (under testbench/configs) with `overrides` and extra options.
RunOutcome wsesim(const ScratchDir& dir, const std::string& config, const std::vector<std::string>& overrides,
           const std::string& options = "") {
  static int runs = 0;
  const std::string name = (dir.path() / ("run" + std::to_string(++runs))).string();
  std::string command = "'" WSESIM_BINARY "' run '" WSESIM_SOURCE_DIR "/testbench/configs/" + config + "'";
  for (const std::string& o : overrides) command += " --set " + o;
  command += " " + options + " --out '" + name + ".json' > '" + name + ".txt'";
  const int status = std::system(command.c_str());
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ADD_FAILURE() << command;
    return {};
  }
  std::stringstream text;
  text << std::ifstream(name + ".txt").rdbuf();
  return {json::parse(std::ifstream(name + ".json")), text.str()};
}

double sumOf(const json& object) {
  double sum = 0;
  for (const auto& [name, value] : object.items()) sum += value.get<double>();
  return sum;
}

void expectConservation(const json& w, double seconds) {
  const json& e = w.at("energy");
  const double total = e.at("total_j").get<double>();
  EXPECT_GT(total, 0.0);
  EXPECT_NEAR(sumOf(e.at("components_j")), total, 1e-12 * total);
  EXPECT_NEAR(w.at("power").at("average_w").get<double>() * seconds, total, 1e-9 * total);
  EXPECT_NEAR(sumOf(w.at("power").at("components_w")), w["power"]["average_w"].get<double>(),
              1e-9 * w["power"]["average_w"].get<double>());
}

TEST(EnergyResults, ComponentsSumToTheTotalInAGemm) {
  const ScratchDir dir;
  const RunOutcome r = wsesim(dir, "gemm_small.yaml", {});
  const json& w = r.result.at("workload");
  expectConservation(w, r.result.at("simulated_seconds").get<double>());
  EXPECT_NEAR(w["energy"]["per_sample_j"].get<double>() * w["m"].get<double>(), w["energy"]["total_j"].get<double>(),
              1e-12);
  // The weights in through the ring: k x n fp32 values of 4 bytes.
  EXPECT_EQ(w["actions"]["io_ring_bytes"].get<double>(), 24.0 * 16 * 4);
  EXPECT_EQ(w["actions"]["io_ring_bytes"].get<double>(), w["wavelets"]["weights_in"].get<double>() * 4);
  EXPECT_EQ(w["actions"]["hops"].get<double>(), w["wavelets"]["hops"].get<double>());
  EXPECT_NE(r.summary.find("energy    "), std::string::npos) << r.summary;
}

TEST(EnergyResults, ComponentsSumToTheTotalAndPartsToTheWaferInATrainingStep) {
  const ScratchDir dir;
  const RunOutcome r = wsesim(dir, "train_tiny.yaml", {});
  const json& w = r.result.at("workload");
  expectConservation(w, w.at("step_seconds").get<double>());
  const json& c = w["energy"]["components_j"];
  // One system's wafer and its static power, by part: GEMMs by pass, ops, waiting.
  const double wafer = w["energy"]["total_j"].get<double>() - c["io_ring"].get<double>() -
                       c["memoryx"].get<double>() - c["optimizer"].get<double>() - c["swarmx"].get<double>();
  EXPECT_NEAR(sumOf(w["energy"]["per_system_by_part_j"]), wafer, 1e-9 * wafer);
  EXPECT_GT(w["energy"]["per_system_by_part_j"]["waiting"].get<double>(), 0.0);
  EXPECT_GT(c["memoryx"].get<double>(), 0.0);
  EXPECT_GT(c["optimizer"].get<double>(), 0.0);
  EXPECT_NEAR(w["energy"]["per_sample_j"].get<double>() * w["global_batch"].get<double>(),
              w["energy"]["total_j"].get<double>(), 1e-12);
}

TEST(EnergyResults, AGemmFromMemoryxCountsEverySystemAndTheSystemAroundThem) {
  const ScratchDir dir;
  const std::vector<std::string> fromMemoryx = {"workload.weights=memoryx", "workload.pass=weight_grad"};
  std::vector<std::string> two = fromMemoryx;
  two.push_back("arch.cluster.systems=2");
  const json one = wsesim(dir, "gemm_small.yaml", fromMemoryx).result.at("workload");
  const json both = wsesim(dir, "gemm_small.yaml", two).result.at("workload");
  expectConservation(one, one["system"]["seconds"].get<double>());
  expectConservation(both, both["system"]["seconds"].get<double>());
  const json& c1 = one["energy"]["components_j"];
  const json& c2 = both["energy"]["components_j"];
  EXPECT_GT(c1["memoryx"].get<double>(), 0.0);
  EXPECT_GT(c1["optimizer"].get<double>(), 0.0);  // the weight gradient's update: k x n parameters
  EXPECT_EQ(one["actions"]["optimizer_parameters"].get<double>(), 24.0 * 16);
  // Each system's wafer does the same work: twice the compute and SRAM energy.
  EXPECT_NEAR(c2["compute"].get<double>(), 2 * c1["compute"].get<double>(), 1e-9 * c1["compute"].get<double>());
  EXPECT_NEAR(c2["sram"].get<double>(), 2 * c1["sram"].get<double>(), 1e-9 * c1["sram"].get<double>());
  EXPECT_GT(c2["swarmx"].get<double>(), c1["swarmx"].get<double>());
}

TEST(EnergyResults, FunctionalAndTimingRunsCostTheSame) {
  const ScratchDir dir;
  for (const char* pass : {"forward", "weight_grad"}) {
    const std::string p = std::string("workload.pass=") + pass;
    const json functional = wsesim(dir, "gemm_small.yaml", {p, "run.mode=functional"}).result.at("workload");
    const json timing = wsesim(dir, "gemm_small.yaml", {p, "run.mode=timing"}).result.at("workload");
    EXPECT_EQ(functional.at("actions"), timing.at("actions")) << pass;
    EXPECT_EQ(functional.at("energy"), timing.at("energy")) << pass;
    EXPECT_EQ(functional.at("area"), timing.at("area")) << pass;
  }
}

TEST(EnergyResults, TheWaferMapsPesAddUpToTheWafer) {
  const ScratchDir dir;
  const std::string map = (dir.path() / "map.json").string();
  const RunOutcome r = wsesim(dir, "gemm_small.yaml", {}, "--map '" + map + "'");
  const json m = json::parse(std::ifstream(map));
  const json& w = r.result.at("workload");
  const json& c = w["energy"]["components_j"];
  ASSERT_EQ(m.at("pe_energy_pj").size(), 64u);
  // The PEs' energy is the wafer's without its spares' leakage (the mesh's
  // 64 PEs of 64 x 1.14017) and without the queue writes of the weights
  // entering at the edge (384 x 0.3 pJ), charged to no PE.
  const double wafer = c["compute"].get<double>() + c["sram"].get<double>() + c["fabric"].get<double>() +
                       c["pe_cycles"].get<double>() + c["leakage"].get<double>() / 1.14017 - 384 * 0.3e-12;
  EXPECT_NEAR(sumOf(m["pe_energy_pj"]) * 1e-12, wafer, 64 * 0.5e-12);
}

TEST(EnergyResults, TheTimelineHasAPowerLane) {
  const ScratchDir dir;
  const std::string timeline = (dir.path() / "timeline.json").string();
  wsesim(dir, "gemm_small.yaml", {}, "--timeline '" + timeline + "'");
  const json t = json::parse(std::ifstream(timeline));
  unsigned pe = 0, region = 0;
  std::uint64_t peak = 0;
  for (const json& event : t.at("traceEvents")) {
    if (event.value("ph", "") != "C") continue;
    if (event["name"] == "power mW") ++pe;
    if (event["name"] == "region power mW") {
      ++region;
      peak = std::max(peak, event["args"]["value"].get<std::uint64_t>());
    }
  }
  EXPECT_GT(pe, 0u);
  EXPECT_GT(region, 0u);
  // 16 PEs (the 4 x 4 region) busy: at least 6 pJ a cycle each at 1.1 GHz.
  EXPECT_GT(peak, std::uint64_t(16 * 6e-12 * 1.1e9 * 1e3));
}

TEST(EnergyResults, MoreSramCostsEnergyAndAreaWhileCyclesFall) {
  // A GEMM whose PEs hold more output columns per pass with more SRAM:
  // fewer passes, each with its own pipeline fill and drain, towards its
  // compute bound; each access costs more (sqrt law) and each PE is larger.
  const ScratchDir dir;
  double cycles = 1e300, perSample = 0, area = 0;
  std::uint64_t phases = ~0ull;
  for (const char* sram : {"12288", "24576", "49152", "98304", "196608"}) {
    const RunOutcome r = wsesim(dir, "gemm_small.yaml",
                         {"arch.preset=small", "run.mode=timing", "workload.m=4096", "workload.k=256",
                          "workload.n=512", "workload.dtype=mixed", "workload.rows=representative",
                          std::string("arch.pe.sram_bytes=") + sram});
    const json& w = r.result.at("workload");
    EXPECT_LT(r.result["cycles"].get<double>(), cycles) << sram;
    EXPECT_GT(w["energy"]["per_sample_j"].get<double>(), perSample) << sram;
    EXPECT_GT(w["area"]["total_mm2"].get<double>(), area) << sram;
    EXPECT_LE(w["phases"].get<std::uint64_t>(), phases) << sram;
    EXPECT_EQ(w["lower_bounds"]["max"], w["lower_bounds"]["compute"]) << sram;
    cycles = r.result["cycles"].get<double>();
    perSample = w["energy"]["per_sample_j"].get<double>();
    area = w["area"]["total_mm2"].get<double>();
    phases = w["phases"].get<std::uint64_t>();
  }
  EXPECT_EQ(phases, 1u);  // at 192 KiB every output column fits at once
}

TEST(EnergyResults, ASampledGemmCostsWhatTheWholeGemmDoes) {
  // Representative rows and steady-state outputs against every row and n
  // simulated: the multiply-adds, SRAM bytes and I/O exactly, the total
  // within 1% (the multicast's hops and the active cycles are
  // extrapolated: energy-model.md, "Sampled GEMMs"). The sums meet at the
  // target: folded, the sampled active cycles run 14% high and the total 2%
  // (the same section says why).
  const ScratchDir dir;
  const std::vector<std::string> gemm = {"arch.preset=small", "run.mode=timing", "workload.m=512", "workload.k=256",
                                         "workload.n=256", "workload.dtype=mixed",
                                         "arch.firmware.weight_stream_reduction=meet"};
  std::vector<std::string> whole = gemm, sampled = gemm;
  whole.insert(whole.end(), {"workload.rows=all", "workload.steady_state_outputs=0"});
  sampled.insert(sampled.end(), {"workload.rows=representative", "workload.steady_state_outputs=8"});
  const json w = wsesim(dir, "gemm_small.yaml", whole).result.at("workload");
  const json s = wsesim(dir, "gemm_small.yaml", sampled).result.at("workload");
  ASSERT_GT(s["phases_extrapolated"].get<int>(), 0);
  ASSERT_LT(s["rows_simulated"].get<int>(), w["rows_simulated"].get<int>());
  for (const char* exact : {"sram_read_bytes", "sram_write_bytes", "io_ring_bytes"})
    EXPECT_DOUBLE_EQ(s["actions"][exact].get<double>(), w["actions"][exact].get<double>()) << exact;
  EXPECT_DOUBLE_EQ(s["actions"]["op_elements"]["mixed"]["fmac"].get<double>(), 512.0 * 256 * 256);
  EXPECT_NEAR(s["energy"]["total_j"].get<double>(), w["energy"]["total_j"].get<double>(),
              0.01 * w["energy"]["total_j"].get<double>());
}

TEST(EnergyResults, AConfigurationLargerThanTheWaferIsReported) {
  const ScratchDir dir;
  const RunOutcome fits = wsesim(dir, "gemm_small.yaml", {});
  EXPECT_TRUE(fits.result["workload"]["area"]["fits"].get<bool>());
  EXPECT_NE(fits.summary.find(": fits"), std::string::npos) << fits.summary;
  // Twice the SRAM: 0.0710 mm^2 per PE, 5.18 mm^2 for the 8 x 8 PEs' 3.968.
  const RunOutcome big = wsesim(dir, "gemm_small.yaml", {"arch.pe.sram_bytes=98304"});
  const json& a = big.result["workload"]["area"];
  EXPECT_FALSE(a["fits"].get<bool>());
  EXPECT_GT(a["total_mm2"].get<double>(), a["usable_mm2"].get<double>());
  EXPECT_NE(big.summary.find("DOES NOT FIT the wafer"), std::string::npos) << big.summary;
}

}  // namespace
