// The train workload on the tiny model and preset (timing mode, one
// simulation per test process): the step time is the sum of its simulated
// GEMMs (each distinct GEMM once, times its occurrences), the ops' cost
// model, the wafer's waits for weights and the optimizer's tail; simulating
// every layer or every wafer gives the same step; bad settings are refused
// with the key named; sparse blocks stream, send and update only their
// non-zeros.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <sstream>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "firmware/gemm/WeightSparsity.h"
#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "testbench/registry/WorkloadTypes.h"
#include "testbench/workload/Workload.h"

namespace wsesim::train {
namespace {

nlohmann::json runTrain(const std::string& workloadYaml, const std::string& runYaml = "  mode: timing\n",
                        const std::string& archYaml = "") {
  config::ConfigTree tree = config::ConfigTree::fromText(
      "arch:\n  preset: tiny\n" + archYaml + "run:\n" + runYaml + "workload:\n  type: train\n" + workloadYaml, "test");
  tree.applyPreset(config::defaultPresetDir());
  config::ParamReader params(tree);
  const config::ArchConfig arch = config::ArchConfig::read(params);
  const config::RunConfig run = config::RunConfig::read(params, arch);
  params.text("workload.type");
  auto work = workload::workloadTypes().at("train")(params, arch, run);
  params.rejectUnknownKeys();
  work->run({});
  nlohmann::json r = work->results();
  r["cycles"] = work->cycles();
  return r;
}

// The step on the system model: the wafer's GEMMs (each distinct GEMM
// simulated once, times its occurrences) and ops, the time it stood idle
// waiting for weights, and the optimizer update still running in MemoryX
// after the wafer is done; each rounded to cycles, hence the tolerance.
// Every n simulated, so the wavelets simulated are each distinct GEMM's.
TEST(TrainStep, StepIsTheWafersWorkItsWaitsAndTheOptimizerTail) {
  const nlohmann::json r = runTrain("  model: tiny\n  batch: 2\n  steps: 3\n  steady_state_outputs: 0\n");
  const nlohmann::json& b = r["breakdown_cycles"];
  std::uint64_t gemms = 0;
  for (const nlohmann::json& g : r["gemms"]) {
    gemms += g["cycles"].get<std::uint64_t>() * g["occurrences"].get<std::uint64_t>();
    EXPECT_GE(g["cycles"].get<std::uint64_t>(), g["lower_bound"].get<std::uint64_t>()) << g.dump();
  }
  EXPECT_EQ(b["gemms"], gemms);
  std::uint64_t byPass = 0;
  for (const auto& [pass, cycles] : b["gemms_by_pass"].items()) byPass += cycles.get<std::uint64_t>();
  EXPECT_EQ(byPass, gemms);
  const double parts = double(b["gemms"].get<std::uint64_t>() + b["ops"].get<std::uint64_t>() +
                              b["wafer_idle"].get<std::uint64_t>() + b["optimizer_tail"].get<std::uint64_t>());
  EXPECT_NEAR(double(r["step_cycles"].get<std::uint64_t>()), parts, 2);
  EXPECT_NEAR(double(r["cycles"].get<std::uint64_t>()), 3.0 * double(r["step_cycles"].get<std::uint64_t>()), 3);
  // The tiny model's layers stream in well under MemoryX's 1 us access
  // latency: the wafer waits, and the phases say MemoryX bound them.
  EXPECT_GT(b["wafer_idle"].get<std::uint64_t>(), 0u);
  EXPECT_TRUE(r["phase_bounds"]["forward"].contains("memoryx")) << r["phase_bounds"].dump();
  // Adam updates every matrix (4 per layer, 2 layers, the LM head) and the
  // rest of the parameters, every step.
  EXPECT_EQ(r["memoryx"]["updates"], 3u * (4 * 2 + 1 + 1));
  // 4 weights x 3 passes + the LM head's 3, less the 3 backward-data
  // products of a forward one's shape: attn_out's own (16 x 16), ffn_up's
  // (ffn_down's forward, 32 x 16) and ffn_down's (ffn_up's forward).
  EXPECT_EQ(r["gemms"].size(), 12u);
  EXPECT_EQ(r["gemm_count"], 27u);
  EXPECT_EQ(r["tokens_per_step"], 16u);
  // Each distinct GEMM once: K x N weights in for the forward passes and
  // the backward-data passes of their own shape (qkv's, the LM head's),
  // K x N gradients out (qkv 16 x 48, attn_out 16 x 16, ffn_up 16 x 32,
  // ffn_down 32 x 16, lm_head 16 x 24).
  const std::uint64_t weights = 16 * 48 + 16 * 16 + 16 * 32 + 32 * 16 + 16 * 24;
  EXPECT_EQ(r["simulated_wavelets"]["weights_in"], weights + 16 * 48 + 16 * 24);
  EXPECT_EQ(r["simulated_wavelets"]["gradients_out"], weights);
  const double seconds = r["step_seconds"].get<double>();
  EXPECT_NEAR(r["tokens_per_second"].get<double>(), 16 / seconds, 1e-6 * 16 / seconds);
}

// With MemoryX, SwarmX and the I/O ring far faster than the wafer and no
// latencies, weights are always there when the wafer wants them and the
// optimizer takes no time: the step is the wafer's GEMMs and ops alone.
TEST(TrainStep, WithInstantLinksTheStepIsTheWafersWork) {
  const nlohmann::json r = runTrain("  model: tiny\n  batch: 2\n", "  mode: timing\n",
                                    "  io:\n    bandwidth_bytes_per_s: 1e15\n"
                                    "  memoryx:\n    bandwidth_bytes_per_s: 1e15\n    latency_s: 0\n"
                                    "    optimizer_flops_per_s: 1e18\n"
                                    "  swarmx:\n    nic_bandwidth_bytes_per_s: 1e15\n    node_latency_s: 0\n");
  const nlohmann::json& b = r["breakdown_cycles"];
  EXPECT_LE(b["wafer_idle"].get<std::uint64_t>(), 1u);
  EXPECT_EQ(b["optimizer_tail"].get<std::uint64_t>(), 0u);
  EXPECT_NEAR(double(r["step_cycles"].get<std::uint64_t>()),
              double(b["gemms"].get<std::uint64_t>() + b["ops"].get<std::uint64_t>()), 1);
  EXPECT_FALSE(r["phase_bounds"]["forward"].contains("memoryx")) << r["phase_bounds"].dump();
}

// Two simulations, so two `wsesim run` processes (SystemC elaborates once
// per process): identical layers simulated once or every time, same step.
nlohmann::json runCli(const std::string& name, const std::string& overrides) {
  const std::string dir = ::testing::TempDir();
  const std::string config = dir + "/train_" + name + ".yaml", out = dir + "/train_" + name + ".json";
  std::ofstream(config) << "arch:\n  preset: tiny\nrun:\n  mode: timing\nworkload:\n  type: train\n  model: tiny\n"
                           "  batch: 2\n";
  const std::string command = "'" WSESIM_BINARY "' run '" + config + "' " + overrides + " --out '" + out + "' > /dev/null";
  if (std::system(command.c_str()) != 0) {
    ADD_FAILURE() << command;
    return nlohmann::json::object();
  }
  return nlohmann::json::parse(std::ifstream(out));
}

// A run that must fail: its exit status and what it said on stderr.
struct Refusal {
  int status = 0;
  std::string said;
};
Refusal refusedCli(const std::string& name, const std::string& overrides) {
  const std::string dir = ::testing::TempDir();
  const std::string config = dir + "/train_" + name + ".yaml", err = dir + "/train_" + name + ".err";
  std::ofstream(config) << "arch:\n  preset: tiny\nrun:\n  mode: timing\nworkload:\n  type: train\n  model: tiny\n"
                           "  batch: 2\n";
  const std::string command = "'" WSESIM_BINARY "' run '" + config + "' " + overrides + " --out '" + dir + "/train_" +
                              name + ".json' 2> '" + err + "'";
  Refusal r;
  r.status = WEXITSTATUS(std::system(command.c_str()));
  std::stringstream said;
  said << std::ifstream(err).rdbuf();
  r.said = said.str();
  return r;
}

// Representative phases across GEMMs: a one-layer model (d_model 64, FFN
// 256, vocabulary 512) at 32 x 128 tokens on the 64 x 64 `small` preset
// with 8 KiB of SRAM runs its GEMMs in 3 to 19 passes of 21 to 27 n's;
// ffn_up's passes of 26 n's and the LM head's are one kind on one layout,
// so the LM head interpolates on the line ffn_up learnt, simulating none of
// its passes of that kind. Measured: the step 427,117 cycles against
// 427,114 simulating every phase, 157,741 cycles simulated against 298,921
// (at precision level 0, every GEMM mixed: the layouts above are its fp32
// accumulators').
TEST(TrainStep, RepresentativePhasesAcrossGemmsGiveTheStepOfEveryPhase) {
  const std::string model = ::testing::TempDir() + "/share.yaml";
  std::ofstream(model) << "name: share\ndescription: one layer\nlayers: 1\nd_model: 64\nheads: 2\nd_ff: 256\n"
                          "vocab: 512\nseq: 128\npositions: learned\ntied_embeddings: true\nparameters: 91072\n";
  const std::string base = "--set arch.preset=small --set arch.pe.sram_bytes=8192 --set workload.model='" + model +
                           "' --set workload.batch=32 --set workload.seq=128 --set workload.precision_opt_level=0 "
                           "--set workload.phases=";
  const nlohmann::json all = runCli("phases_all", base + "all");
  const nlohmann::json some = runCli("phases_some", base + "representative");
  ASSERT_FALSE(all.empty() || some.empty());
  const double step = all["workload"]["step_cycles"].get<double>();
  EXPECT_NEAR(some["workload"]["step_cycles"].get<double>(), step, 1e-4 * step);
  EXPECT_LT(some["workload"]["host"]["simulated_gemm_cycles"].get<double>(),
            0.6 * all["workload"]["host"]["simulated_gemm_cycles"].get<double>());
}

// A weight gradient's representative columns in the step: a one-layer
// model (d_model 256, FFN 512, vocabulary 512) at 2 x 64 tokens on a WSE-2
// cut to 8 x 136 PEs (8 bands of 17 rows, each channel at the WSE-2's
// rate), its weight gradients' groups on two threads, each on a chip two
// bands tall, against every column on one. Measured: the step 375,270
// cycles against 375,294, each weight gradient within 7 cycles.
TEST(TrainStep, RepresentativeColumnsGiveTheStepOfEveryColumn) {
  const std::string model = ::testing::TempDir() + "/band.yaml";
  std::ofstream(model) << "name: band\ndescription: one layer\nlayers: 1\nd_model: 256\nheads: 2\nd_ff: 512\n"
                          "vocab: 512\nseq: 64\npositions: learned\ntied_embeddings: true\nparameters: 675072\n";
  const std::string base = "--set arch.preset=wse2 --set arch.mesh.width=8 --set arch.mesh.height=136 "
                           "--set arch.io.channels_per_edge=8 --set arch.io.bandwidth_bytes_per_s=20e9 "
                           "--set workload.model='" + model + "' --set workload.batch=2 --set workload.seq=64 ";
  const nlohmann::json all = runCli("columns_all", base + "--set workload.columns=all --set run.threads=1");
  const nlohmann::json some = runCli("columns_some", base + "--set workload.columns=representative --set run.threads=2");
  ASSERT_FALSE(all.empty() || some.empty());
  const double step = all["workload"]["step_cycles"].get<double>();
  EXPECT_NEAR(some["workload"]["step_cycles"].get<double>(), step, 5e-4 * step);
  unsigned gradients = 0;
  for (std::size_t i = 0; i < all["workload"]["gemms"].size(); ++i) {
    const nlohmann::json &a = all["workload"]["gemms"][i], &s = some["workload"]["gemms"][i];
    const bool gradient = a["pass"] == "weight_grad";
    gradients += gradient;
    EXPECT_EQ(a["columns_simulated"], 136) << a["name"];
    EXPECT_EQ(s["columns_simulated"], gradient ? 34 : 136) << s["name"] << " " << s["pass"];
    EXPECT_NEAR(s["cycles"].get<double>(), a["cycles"].get<double>(), 3e-3 * a["cycles"].get<double>())
        << a["name"] << " " << a["pass"];
  }
  EXPECT_GE(gradients, 3u);
}

// Representative columns follow workload.rows: a step asking for every row
// runs every column without being told (asked for both, it stops).
TEST(TrainStep, EveryRowMeansEveryColumn) {
  const nlohmann::json all = runCli("rows_all", "--set workload.rows=all");
  ASSERT_FALSE(all.empty());
  for (const nlohmann::json& g : all["workload"]["gemms"]) EXPECT_EQ(g["rows_simulated"], 8) << g["name"];
  const Refusal both = refusedCli("rows_all_columns", "--set workload.rows=all --set workload.columns=representative");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.said.find("workload.columns: representative samples the columns of the representative rows"),
            std::string::npos)
      << both.said;
}

// A cluster simulates one wafer and reuses its timing for the others, or
// simulates every system's wafer: the same step either way. Four systems
// take four times the tokens in a step no shorter than one system's, and
// SwarmX carries each weight to the root and on to each system.
TEST(TrainStep, EveryWaferSimulatedGivesTheSameStepAsOne) {
  const nlohmann::json one = runCli("one_system", "");
  const nlohmann::json reused = runCli("cluster_one", "--set arch.cluster.systems=4");
  const nlohmann::json every = runCli("cluster_every", "--set arch.cluster.systems=4 --set workload.wafers=every");
  ASSERT_FALSE(one.empty() || reused.empty() || every.empty());
  EXPECT_EQ(every["workload"]["step_cycles"], reused["workload"]["step_cycles"]);
  EXPECT_EQ(every["workload"]["per_system"], reused["workload"]["per_system"]);
  ASSERT_EQ(reused["workload"]["per_system"].size(), 4u);
  EXPECT_EQ(reused["workload"]["tokens_per_step"], 4 * one["workload"]["tokens_per_step"].get<std::uint64_t>());
  EXPECT_GE(reused["workload"]["step_cycles"], one["workload"]["step_cycles"]);
  // The one-system reference run beside the cluster is the one-system run.
  EXPECT_NEAR(reused["workload"]["scaling"]["one_system_step_seconds"].get<double>(),
              one["workload"]["step_seconds"].get<double>(), 1e-15);
  EXPECT_EQ(one["workload"]["scaling"]["efficiency"], 1.0);
  EXPECT_EQ(reused["workload"]["scaling"]["swarmx_depth"], 1u);
  EXPECT_EQ(reused["workload"]["traffic"]["swarmx_broadcast"]["bytes"],
            5 * one["workload"]["traffic"]["swarmx_broadcast"]["bytes"].get<std::uint64_t>());
  EXPECT_EQ(reused["workload"]["traffic"]["io_ring_ingress"]["bytes"],
            4 * one["workload"]["traffic"]["io_ring_ingress"]["bytes"].get<std::uint64_t>());
}

// run.wafer_timing_cache: the first run simulates the wafer and keeps its
// timing and action counts; a run that changes only the cluster (or the
// energy coefficients) reads it back and gives the step and energy the
// simulation gives; a change to the wafer misses the entry.
TEST(TrainStep, CachedWaferTimingGivesTheSimulatedStep) {
  const std::string cache = "--set run.wafer_timing_cache='" + ::testing::TempDir() + "/wafer_timing_" +
                            std::to_string(::getpid()) + "' ";
  const nlohmann::json first = runCli("cache_first", cache);
  const nlohmann::json reused = runCli("cache_reused", cache + "--set arch.cluster.systems=2");
  const nlohmann::json simulated = runCli("cache_simulated", "--set arch.cluster.systems=2");
  const nlohmann::json changed = runCli("cache_changed", cache + "--set arch.fabric.queue_depth=3");
  ASSERT_FALSE(first.empty() || reused.empty() || simulated.empty() || changed.empty());
  EXPECT_EQ(first["workload"]["wafer_timing"].get<std::string>().rfind("simulated, kept in ", 0), 0u);
  EXPECT_EQ(reused["workload"]["wafer_timing"].get<std::string>().rfind("from ", 0), 0u);
  EXPECT_EQ(changed["workload"]["wafer_timing"].get<std::string>().rfind("simulated", 0), 0u);
  EXPECT_EQ(reused["workload"]["step_cycles"], simulated["workload"]["step_cycles"]);
  EXPECT_EQ(reused["workload"]["gemms"], simulated["workload"]["gemms"]);
  EXPECT_EQ(reused["workload"]["breakdown_cycles"], simulated["workload"]["breakdown_cycles"]);
  // The entry keeps the GEMMs' action counts: the same energy.
  EXPECT_EQ(reused["workload"]["actions"], simulated["workload"]["actions"]);
  EXPECT_EQ(reused["workload"]["energy"], simulated["workload"]["energy"]);
  // Energy coefficients change no timing: a run with others reuses the entry.
  const nlohmann::json cheaper = runCli("cache_cheaper", cache + "--set arch.energy.pe.idle_cycle_pj=1");
  ASSERT_FALSE(cheaper.empty());
  EXPECT_EQ(cheaper["workload"]["wafer_timing"].get<std::string>().rfind("from ", 0), 0u);
  EXPECT_LT(cheaper["workload"]["energy"]["total_j"].get<double>(), first["workload"]["energy"]["total_j"].get<double>());
}

// An entry that is damaged (its key right, its GEMMs cut off) or not a
// regular file (a FIFO planted under its name, which would block a read)
// is not used: the run simulates the wafer again and gives the same step.
TEST(TrainStep, ADamagedOrSpecialCacheEntryIsSimulatedAgain) {
  const std::string dir = ::testing::TempDir() + "/wafer_timing_bad_" + std::to_string(::getpid());
  const std::string cache = "--set run.wafer_timing_cache='" + dir + "' ";
  const nlohmann::json first = runCli("bad_first", cache);
  ASSERT_FALSE(first.empty());
  const std::string kept = first["workload"]["wafer_timing"].get<std::string>().substr(std::string("simulated, kept in ").size());
  nlohmann::json entry = nlohmann::json::parse(std::ifstream(kept));
  entry.erase("gemms");
  std::ofstream(kept) << entry.dump();
  const nlohmann::json damaged = runCli("bad_damaged", cache);
  ASSERT_FALSE(damaged.empty());
  EXPECT_EQ(damaged["workload"]["wafer_timing"].get<std::string>().rfind("simulated", 0), 0u);
  EXPECT_EQ(damaged["workload"]["step_cycles"], first["workload"]["step_cycles"]);
  std::remove(kept.c_str());
  ASSERT_EQ(::mkfifo(kept.c_str(), 0600), 0);
  const nlohmann::json fifo = runCli("bad_fifo", cache);
  std::remove(kept.c_str());
  ASSERT_FALSE(fifo.empty());
  EXPECT_EQ(fifo["workload"]["wafer_timing"].get<std::string>().rfind("simulated", 0), 0u);
  EXPECT_EQ(fifo["workload"]["step_cycles"], first["workload"]["step_cycles"]);
}

// A cache that cannot be kept (its directory would lie under a plain file)
// fails the run before the wafer is simulated, naming the key and the file,
// and writes no results.
TEST(TrainStep, UnstorableWaferTimingCacheFailsNamingTheKey) {
  const std::string dir = ::testing::TempDir(), blocker = dir + "/train_cache_blocker_" + std::to_string(::getpid());
  std::ofstream(blocker) << "a file, not a directory\n";
  const std::string config = dir + "/train_unstorable.yaml", out = dir + "/train_unstorable.json",
                    err = dir + "/train_unstorable.err";
  std::ofstream(config) << "arch:\n  preset: tiny\nrun:\n  mode: timing\n  wafer_timing_cache: '" << blocker
                        << "/cache'\nworkload:\n  type: train\n  model: tiny\n  batch: 2\n";
  std::remove(out.c_str());
  const std::string command =
      "'" WSESIM_BINARY "' run '" + config + "' --out '" + out + "' > /dev/null 2> '" + err + "'";
  EXPECT_NE(std::system(command.c_str()), 0);
  std::stringstream message;
  message << std::ifstream(err).rdbuf();
  EXPECT_NE(message.str().find("run.wafer_timing_cache: the wafer's timing could not be kept in " + blocker +
                               "/cache/"),
            std::string::npos)
      << message.str();
  EXPECT_NE(message.str().find("(checked before simulating): cannot create " + blocker + "/cache"), std::string::npos)
      << message.str();
  EXPECT_FALSE(std::ifstream(out).good()) << "results were written";
}

// --vcd also writes the system's waveform, --timeline lanes for the step:
// MemoryX streams every layer the schedule names (the step streams 9
// matrices forward and 9 back), each
// wafer shows each GEMM and op of the step as a task (the zero-length one
// that sends the embeddings' gradients does not show), and time never runs
// back.
TEST(TrainStep, SystemWaveformFollowsTheRecords) {
  const std::string vcd = ::testing::TempDir() + "/train_" + std::to_string(::getpid()) + ".vcd";
  const std::string timeline = vcd + ".timeline.json";
  const nlohmann::json r =
      runCli("vcd", "--set arch.cluster.systems=2 --vcd '" + vcd + "' --timeline '" + timeline + "'");
  ASSERT_FALSE(r.empty());
  std::map<std::string, unsigned> spansByLane, laneIds;
  const nlohmann::json trace = nlohmann::json::parse(std::ifstream(timeline));
  for (const nlohmann::json& e : trace["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name") laneIds[e["args"]["name"]] = e["tid"];
  for (const auto& [lane, tid] : laneIds)
    for (const nlohmann::json& e : trace["traceEvents"])
      if (e["ph"] == "X" && e["pid"] == 0 && e["tid"] == tid) ++spansByLane[lane];
  EXPECT_EQ(spansByLane["step: MemoryX streams"], 18u);
  EXPECT_EQ(spansByLane["step: MemoryX updates"], 10u);
  EXPECT_EQ(spansByLane["wafer model: each distinct GEMM"], 12u);
  std::ifstream in(vcd.substr(0, vcd.size() - 4) + "_system.vcd");
  ASSERT_TRUE(in.good());
  std::map<std::string, std::string> ids;  // "scope.name" -> id
  std::map<std::string, unsigned> defined;  // id -> changes to a defined value
  std::string line, scope;
  std::uint64_t now = 0;
  bool monotonic = true;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string first;
    words >> first;
    if (first == "$scope") {
      std::string kind;
      words >> kind >> scope;
    } else if (first == "$var") {
      std::string type, width, id, name;
      words >> type >> width >> id >> name;
      ids[scope + "." + name] = id;
    } else if (first[0] == '#') {
      const std::uint64_t t = std::stoull(first.substr(1));
      monotonic = monotonic && t >= now;
      now = t;
    } else if (first[0] == 'b' && first != "bx") {
      std::string id;
      words >> id;
      ++defined[id];
    }
  }
  EXPECT_TRUE(monotonic);
  EXPECT_EQ(defined[ids.at("memoryx.stream_layer")], 18u);
  EXPECT_EQ(ids.count("memoryx.activation_transfers"), 1u);  // none here: nothing offloaded
  EXPECT_EQ(defined[ids.at("system_0.wafer_task")],
            r["workload"]["gemm_count"].get<unsigned>() + r["workload"]["op_count"].get<unsigned>());
  EXPECT_EQ(defined[ids.at("system_1.wafer_task")], defined[ids.at("system_0.wafer_task")]);
}

TEST(TrainStep, EveryLayerSimulatedGivesTheSameStep) {
  const nlohmann::json reused = runCli("reused", "");
  const nlohmann::json all = runCli("all", "--set workload.layers=all");
  ASSERT_FALSE(reused.empty() || all.empty());
  EXPECT_EQ(all["workload"]["step_cycles"], reused["workload"]["step_cycles"]);
  EXPECT_EQ(all["workload"]["gemms"].size(), 27u);
  EXPECT_EQ(reused["workload"]["gemms"].size(), 12u);
}

// A last micro-batch a few sequences short whose largest rows hold as many
// tokens (batch 5 in micro-batches of 3 sequences of 5 tokens: 15 and 10
// tokens on 8 rows, 2 the most on a row) is not simulated again: its 12
// GEMMs take the cycles of the first micro-batch's, and their actions
// scaled by their multiply-adds. The step, its GEMMs' cycles and its
// energy are those of simulating every GEMM.
TEST(TrainStep, ALastMicroBatchWithTheSameRowsTakesTheirTiming) {
  const std::string base = "--set workload.batch=5 --set workload.micro_batch=3 --set workload.seq=5 ";
  const nlohmann::json twins = runCli("twins", base);
  const nlohmann::json all = runCli("twins_all", base + "--set workload.layers=all");
  ASSERT_FALSE(twins.empty() || all.empty());
  const nlohmann::json &t = twins["workload"], &a = all["workload"];
  EXPECT_EQ(t["step_cycles"], a["step_cycles"]);
  EXPECT_NEAR(t["energy"]["total_j"].get<double>(), a["energy"]["total_j"].get<double>(),
              1e-12 * a["energy"]["total_j"].get<double>());
  const nlohmann::json& gemms = t["gemms"];
  ASSERT_EQ(gemms.size(), 24u);
  for (std::size_t i = 0; i < 12; ++i) {
    const nlohmann::json &first = gemms[i], &last = gemms[i + 12];
    EXPECT_EQ(first["cycles_of"], i);
    EXPECT_EQ(last["cycles_of"], i) << last["mapping"];
    EXPECT_EQ(last["cycles"], first["cycles"]) << last["mapping"];
    EXPECT_NE(last["mapping"], first["mapping"]);
  }
  std::size_t groupMembers = 0;
  for (const nlohmann::json& g : t["host"]["gemm_groups"])
    for (const nlohmann::json& m : g["gemms"]) {
      EXPECT_LT(m.get<std::size_t>(), 12u);
      ++groupMembers;
    }
  EXPECT_EQ(groupMembers, 12u);
}

// Each GEMM of a sequence starts on an empty fabric with its own routes
// and programs, on a mesh as wide as its group's rows need (GemmGroups.h):
// the first of its group (the tiny model's QKV, 64 tokens x 16 x 48,
// forward, backward-data and weight gradient) takes to the cycle what the
// same GEMM takes alone, sampled as the step samples it (representative
// rows and phases, S = 8, lines within 0.5%). (When the step's mesh was as
// wide as its widest GEMM's rows, two columns for the weight gradients'
// two rows, the forward took 1,312 cycles for 1,314 alone, 1,581 for
// 1,582 mixed: the weights fed from the East crossed the empty column.)
// Alone, the GEMM runs in the precision it has in the step: at
// precision_opt_level 1 (the default) fp16 FMACs whose sums cross PEs in
// fp32, at 0 mixed (fp32 sums throughout). Eight tokens a PE row make them differ (measured: the
// forward 1,314 cycles at level 1, 1,582 mixed, 1,220 with fp16 sums
// across PEs too: an FMAC of 8 elements takes 2 cycles on 4 lanes, 4 on 2;
// the weight gradient 583 and 637).
TEST(TrainStep, AGemmInTheStepTakesWhatItTakesAlone) {
  for (const std::string level : {"0", "1"}) {
    const nlohmann::json step =
        runCli("alone_" + level, "--set workload.batch=8 --set workload.precision_opt_level=" + level);
    ASSERT_FALSE(step.empty());
    EXPECT_EQ(step["workload"]["gemm_precision"], level == "1" ? "fp16" : "mixed");
    EXPECT_EQ(step["workload"]["gemm_reduction_dtype"], "f32");
    for (const std::string pass : {"forward", "backward_data", "weight_grad"}) {
      const std::string dtype = level == "1" ? "fp16 --set workload.reduction_dtype=fp32" : "mixed";
      const std::string out = ::testing::TempDir() + "/qkv_" + pass + "_level" + level + ".json";
      const std::string command = "'" WSESIM_BINARY "' run '" WSESIM_SOURCE_DIR
                                  "/testbench/configs/gemm_small.yaml' --set run.mode=timing --set workload.m=64 "
                                  "--set workload.k=16 --set workload.n=48 --set workload.dtype=" + dtype +
                                  " --set workload.pass=" + pass +
                                  " --set workload.rows=representative --set workload.phases=representative "
                                  "--set workload.steady_state_outputs=8 --set workload.phase_line_tolerance=0.005 "
                                  "--out '" + out + "' > /dev/null";
      ASSERT_EQ(std::system(command.c_str()), 0) << command;
      const nlohmann::json alone = nlohmann::json::parse(std::ifstream(out));
      bool found = false;
      for (const nlohmann::json& g : step["workload"]["gemms"])
        if (g["name"] == "qkv" && g["pass"] == pass) {
          found = true;
          EXPECT_EQ(g["cycles"], alone["cycles"]) << pass << " at level " << level;
        }
      EXPECT_TRUE(found) << pass;
    }
  }
}

// Functional equals timing on the micro-batched tiny step (batch 4 in
// micro-batches of 2: 16 tokens a GEMM): every GEMM of each layer and pass,
// run alone in functional mode, gives the exact product and the cycles of
// timing mode; and each distinct GEMM the step simulated took what it takes
// alone within 0.5% (alone every row and phase runs; the step samples
// them, as AGemmInTheStepTakesWhatItTakesAlone does to the cycle).
TEST(TrainMicroBatches, FunctionalEqualsTimingForEveryGemmOfTheStep) {
  const nlohmann::json step = runCli("micro_functional", "--set workload.batch=4 --set workload.micro_batch=2");
  ASSERT_FALSE(step.empty());
  ASSERT_EQ(step["workload"]["micro_batch"]["count"], 2u);
  // The tiny model's layers (models/zoo/tiny.yaml: d_model 16, d_ff 32, vocabulary 24).
  const std::vector<std::tuple<std::string, unsigned, unsigned>> layers = {
      {"qkv", 16, 48}, {"attn_out", 16, 16}, {"ffn_up", 16, 32}, {"ffn_down", 32, 16}, {"lm_head", 16, 24}};
  const auto runGemm = [](const std::string& name, const std::string& settings) {
    const std::string out = ::testing::TempDir() + "/micro_" + name + ".json";
    const std::string command = "'" WSESIM_BINARY "' run '" WSESIM_SOURCE_DIR
                                "/testbench/configs/gemm_small.yaml' --set workload.m=16 " +
                                settings + " --out '" + out + "' > /dev/null";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return nlohmann::json::parse(std::ifstream(out));
  };
  unsigned compared = 0;
  for (const auto& [name, k, n] : layers)
    for (const std::string pass : {"forward", "backward_data", "weight_grad"}) {
      // At precision_opt_level 1 the step's GEMMs sum in fp16 within a PE, in fp32 across PEs.
      const std::string shape = "--set workload.k=" + std::to_string(k) + " --set workload.n=" + std::to_string(n) +
                                " --set workload.pass=" + pass +
                                " --set workload.dtype=fp16 --set workload.reduction_dtype=fp32";
      const nlohmann::json functional = runGemm(name + pass + "_f", shape + " --set run.mode=functional");
      const nlohmann::json timing = runGemm(name + pass + "_t", shape + " --set run.mode=timing");
      EXPECT_EQ(functional["workload"]["mismatches"], 0u) << name << " " << pass;
      EXPECT_EQ(functional["cycles"], timing["cycles"]) << name << " " << pass;
      for (const nlohmann::json& g : step["workload"]["gemms"])
        if (g["name"] == name && g["pass"] == pass) {
          ++compared;
          EXPECT_NEAR(g["cycles"].get<double>(), timing["cycles"].get<double>(), 0.005 * timing["cycles"].get<double>())
              << name << " " << pass;
        }
    }
  EXPECT_EQ(compared, 12u);  // every distinct GEMM of the step
}

// With 200 bytes of SRAM several GEMMs run in passes whose output buffers
// stay on their target columns; the next GEMM starts on PEs freed of them
// (it used to find a stale kept buffer of the same name and fail).
TEST(TrainStep, GemmsInPassesLeaveNothingBehindForTheNext) {
  const nlohmann::json r = runTrain("  model: tiny\n  batch: 2\n", "  mode: timing\n", "  pe:\n    sram_bytes: 200\n");
  unsigned multiPass = 0;
  for (const nlohmann::json& g : r["gemms"]) multiPass += g["mapping"].get<std::string>().find(" passes ") != std::string::npos;
  EXPECT_GE(multiPass, 2u);
  EXPECT_GT(r["step_cycles"].get<std::uint64_t>(), 0u);
}

// A step of two micro-batches (tiny model, 4 sequences in micro-batches of
// 2): each is a whole forward and backward pass, so the step has twice a
// micro-batch's 27 GEMMs and 37 ops (per layer 8 ops each way; the
// embedding, the final norm both ways and the loss), and its weights cross
// SwarmX four times: 4 x 4,480 streamed parameters x 2 bytes (per layer
// qkv 16 x 48, attn_out 16 x 16, ffn_up 16 x 32, ffn_down 32 x 16, and the
// LM head's 16 x 24). The micro-batches are identical, so the 12 distinct
// GEMMs are simulated once. MemoryX adds the first micro-batch's gradients
// of each of the 9 matrices into its accumulator (writing 4,480 x 4 bytes)
// and updates every matrix, and the parameters no GEMM streams, once.
TEST(TrainMicroBatches, EachMicroBatchIsAPassAndMemoryXUpdatesOncePerStep) {
  const nlohmann::json r = runTrain("  model: tiny\n  batch: 4\n  micro_batch: 2\n");
  EXPECT_EQ(r["micro_batch"]["count"], 2u);
  EXPECT_EQ(r["micro_batch"]["size"], 2u);
  EXPECT_EQ(r["micro_batch"]["chosen_by"], "workload.micro_batch");
  EXPECT_EQ(r["gemm_count"], 54u);
  EXPECT_EQ(r["op_count"], 74u);
  EXPECT_EQ(r["gemms"].size(), 12u);
  EXPECT_EQ(r["tokens_per_step"], 32u);
  EXPECT_EQ(r["traffic"]["swarmx_broadcast"]["bytes"], 4u * 4480 * 2);
  EXPECT_EQ(r["memoryx"]["gradient_accumulations"], 9u);
  EXPECT_EQ(r["memoryx"]["accumulation_bytes"], 4480u * 4);
  EXPECT_EQ(r["memoryx"]["updates"], 10u);
}

// With 300 bytes of SRAM a PE holds the tiny model's step for 3 sequences
// but not 4: `auto` splits a batch of 4 into 2 micro-batches of 2. At
// precision level 0, every GEMM's accumulator in fp32 (at level 1 the
// forward GEMMs' 16-bit ones leave room to recompute instead).
TEST(TrainMicroBatches, AutoSplitsWhatDoesNotFit) {
  const nlohmann::json r = runTrain("  model: tiny\n  batch: 4\n  precision_opt_level: 0\n", "  mode: timing\n",
                                    "  pe:\n    sram_bytes: 300\n");
  EXPECT_EQ(r["micro_batch"]["chosen_by"], "auto");
  EXPECT_EQ(r["micro_batch"]["largest_fitting"], 3u);
  EXPECT_EQ(r["micro_batch"]["count"], 2u);
  EXPECT_EQ(r["micro_batch"]["size"], 2u);
}

// The same SRAM refuses a micro-batch of 4, naming the key, what does not
// fit and the 3 that would (its own process: nothing has simulated yet).
// Recomputation off: the subject is what a step keeps in full.
TEST(TrainMicroBatches, ATooLargeOneIsRefusedWithTheOneThatFits) {
  try {
    runTrain("  model: tiny\n  batch: 4\n  micro_batch: 4\n  activation_recompute: off\n", "  mode: timing\n",
             "  pe:\n    sram_bytes: 300\n");
    ADD_FAILURE() << "a micro-batch that does not fit ran";
  } catch (const config::ConfigError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind("workload.micro_batch: 4 sequences do not fit: ", 0), 0u) << msg;
    EXPECT_NE(msg.find("(what is left beside 176 B a PE of activations kept for the backward pass of "
                       "arch.pe.sram_bytes = 300)"), std::string::npos) << msg;
    EXPECT_NE(msg.find("; micro_batch: 3 would (the largest that fits)"), std::string::npos) << msg;
  }
}

// GPT-J's block: attention and FFN read one norm of the layer input, so
// the QKV and FFN-up GEMMs keep one copy of it. The tiny model at 4
// sequences on 300 B (the refusal above) keeps, on the fullest PE, a 2 k x
// 4 m fp16 block (16 B) of each d_model-wide input and a 4 k x 4 m one
// (32 B) of the FFN's activation: a layer's norm_1, context, norm_2 and
// activation, 80 B, twice, and the final norm's 16 B: 176 B. With the
// parallel block norm_2 is gone: 2 x 64 + 16 = 144 B. At precision level
// 0: with level 1's fp16 accumulators the GEMMs leave room for 4 sequences.
TEST(TrainMicroBatches, AParallelBlockKeepsItsSharedInputOnce) {
  const std::string file = ::testing::TempDir() + "tiny_parallel.yaml";
  std::ofstream(file) << "name: tiny_parallel\ndescription: tiny with a parallel block\nlayers: 2\nd_model: 16\n"
                         "heads: 2\nd_ff: 32\nvocab: 24\nseq: 8\npositions: learned\ntied_embeddings: true\n"
                         "block: parallel\nparameters: 4928\n";
  try {
    runTrain("  model: " + file + "\n  batch: 4\n  micro_batch: 4\n  activation_recompute: off\n"
             "  precision_opt_level: 0\n", "  mode: timing\n",
             "  pe:\n    sram_bytes: 300\n");
    ADD_FAILURE() << "a micro-batch that does not fit ran";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("beside 144 B a PE of activations kept"), std::string::npos) << e.what();
  }
}

// The tiny model with 6 layers, written as a zoo file named `name` (each
// test its own: they run as processes side by side); its path.
std::string sixLayerModel(const std::string& name) {
  const std::string file = ::testing::TempDir() + name + ".yaml";
  std::ofstream(file) << "name: " << name << "\ndescription: tiny with 6 layers\nlayers: 6\nd_model: 16\nheads: 2\n"
                         "d_ff: 32\nvocab: 24\nseq: 8\npositions: learned\ntied_embeddings: true\nparameters: 13888\n";
  return file;
}

// Activation offload, on a 6-layer tiny model at 4 sequences a system, 2
// systems, 500 B of SRAM. A layer keeps 80 B a PE of activations and the
// head 16 B (as in the test above), and the most any GEMM of the step needs
// beside them is the QKV forward's 176 B (4 sequences fit 352 B with the
// 176 B the 2-layer model keeps, not 348 B). Without offload 4 sequences
// keep 6 x 80 + 16 = 496 B: two micro-batches of 2. With it the first f
// layers' go to MemoryX, room for two of them staying: (6 - f) x 80 +
// 2 x 80 + 16 <= 500 - 176 takes f = 5, one micro-batch of 4. Each
// offloaded layer's inputs, 80 elements a token of 2 bytes (fp16) for 32
// tokens, leave and come back: 5 x 32 x 160 = 25,600 B each way a system.
// At precision level 0, whose fp32 accumulators the 176 B are (level 1's
// fp16 ones leave room for a third layer to stay).
TEST(TrainOffload, TheFewestLayersThatFitGoToMemoryXAndBack) {
  const std::string file = sixLayerModel("tiny6");
  const std::string shape = "--set workload.model='" + file + "' --set workload.batch=4 "
                            "--set arch.pe.sram_bytes=500 --set arch.cluster.systems=2 "
                            "--set workload.precision_opt_level=0 ";
  const nlohmann::json kept = runCli("offload_off", shape + "--set workload.activation_recompute=off");
  const nlohmann::json offloaded = runCli("offload_on", shape + "--set workload.activation_offload=on");
  ASSERT_FALSE(kept.empty() || offloaded.empty());
  EXPECT_EQ(kept["workload"]["micro_batch"]["largest_fitting"], 2u);
  EXPECT_EQ(kept["workload"]["activation_offload"]["layers_offloaded"], 0u);
  EXPECT_EQ(kept["workload"]["memoryx"]["activations_offloaded_bytes"], 0u);
  const nlohmann::json& r = offloaded["workload"];
  EXPECT_EQ(r["micro_batch"]["count"], 1u);
  EXPECT_EQ(r["micro_batch"]["size"], 4u);
  EXPECT_EQ(r["activation_offload"]["enabled"], true);
  EXPECT_EQ(r["activation_offload"]["layers_offloaded"], 5u);
  EXPECT_EQ(r["activation_offload"]["layers"], 6u);
  EXPECT_EQ(r["activation_offload"]["bytes_each_way_per_system"], 25600u);
  EXPECT_EQ(r["memoryx"]["activations_offloaded_bytes"], 2u * 25600);
  EXPECT_EQ(r["memoryx"]["activations_fetched_bytes"], 2u * 25600);
  EXPECT_TRUE(r["breakdown_cycles"].contains("activation_wait"));
  // MemoryX holds both systems' 25,600 B beside the model's 13,888 x 12 B
  // (Adam): 217,856 B, more than a capacity of 200,000. A configuration
  // error (exit 2), found before the run.
  const Refusal full = refusedCli("offload_full", shape + "--set workload.activation_offload=on "
                                                          "--set arch.memoryx.capacity_bytes=200000");
  EXPECT_EQ(full.status, 2);
  EXPECT_NE(full.said.find("workload.activation_offload: MemoryX would hold 0.000051"), std::string::npos) << full.said;
  EXPECT_NE(full.said.find("arch.memoryx.capacity_bytes = 200000"), std::string::npos) << full.said;
  // Without offload the model alone, 166,656 B, fits 200,000; not 100,000.
  const Refusal model = refusedCli("model_full", shape + "--set arch.memoryx.capacity_bytes=100000");
  EXPECT_EQ(model.status, 2);
  EXPECT_NE(model.said.find("workload.model: MemoryX would hold 0.000167 GB (13888 parameters x 12 bytes"),
            std::string::npos) << model.said;
}

// Activation recomputation, on the 6-layer tiny model at 4 sequences, 500 B
// of SRAM (the offload test above: a layer keeps 80 B a PE, the head 16 B,
// and the QKV forward needs 176 B beside them, so at most 324 B of
// activations). A layer recomputing its FFN's activation keeps its other
// inputs (norm_1, context and norm_2, 48 B) and no longer the activation
// (32 B); one recomputing its whole forward pass keeps only its input, its
// norm_1-shaped block of 16 B; the wafer keeps room for what one layer
// recomputes. r layers' activations: (6 - r) x 80 + r x 48 + 32 + 16 B, 336
// B at r = 6, too much; then w of them whole: w x 16 + (6 - w) x 48 + 64 +
// 16, 304 B at w = 2 (336 at w = 1). One micro-batch of 4 instead of two of
// 2, and the GEMMs recomputed: 6 FFN-up forwards and 2 layers' QKV,
// attention-out and FFN-down forwards, 12 beside the step's 75 (12 a layer,
// 3 for the LM head), their cycles counted apart as `recompute`. At
// precision level 0, whose fp32 accumulators the 176 B are.
TEST(TrainRecompute, TheFewestLayersThatFitRunTheirForwardPassAgain) {
  const std::string file = sixLayerModel("tiny6r");
  const std::string shape = "--set workload.model='" + file + "' --set workload.batch=4 --set arch.pe.sram_bytes=500 "
                            "--set workload.precision_opt_level=0 ";
  const nlohmann::json recomputed = runCli("recompute_on", shape + "--set workload.activation_recompute=on");
  ASSERT_FALSE(recomputed.empty());
  const nlohmann::json& r = recomputed["workload"];
  EXPECT_EQ(r["micro_batch"]["count"], 1u);
  EXPECT_EQ(r["micro_batch"]["size"], 4u);
  EXPECT_EQ(r["activation_recompute"]["enabled"], true);
  EXPECT_EQ(r["activation_recompute"]["layers_recomputed"], 6u);
  EXPECT_EQ(r["activation_recompute"]["whole_layers_recomputed"], 2u);
  EXPECT_EQ(r["activation_recompute"]["layers"], 6u);
  EXPECT_EQ(r["memoryx"]["gradient_accumulations"], 0u);
  EXPECT_EQ(r["gemm_count"], 75u + 12u);
  std::map<std::string, std::uint64_t> forward;
  for (const nlohmann::json& g : r["gemms"])
    if (g["pass"] == "forward") forward[g["name"]] = g["cycles"].get<std::uint64_t>();
  const std::uint64_t layerForward = forward["qkv"] + forward["attn_out"] + forward["ffn_up"] + forward["ffn_down"];
  const nlohmann::json& byPass = r["breakdown_cycles"]["gemms_by_pass"];
  EXPECT_EQ(byPass["recompute"], 6 * forward["ffn_up"] + 2 * (layerForward - forward["ffn_up"]));
  EXPECT_EQ(byPass["forward"], 6 * layerForward + forward["lm_head"]);
  EXPECT_TRUE(r["breakdown_cycles"]["ops_by_kind"].contains("softmax_recompute"));
  // Offload and recomputation are two answers to one question: a step takes one.
  const Refusal both = refusedCli("recompute_and_offload", shape + "--set workload.activation_recompute=on "
                                                                    "--set workload.activation_offload=on");
  EXPECT_EQ(both.status, 2);
  EXPECT_NE(both.said.find("workload.activation_recompute: on with workload.activation_offload: on"),
            std::string::npos) << both.said;
}

// `auto` (the default) recomputes where it saves micro-batches and the
// step's estimate says it pays. The 6-layer model at 4 sequences on 500 B
// (the test above): keeping all takes 2 micro-batches of 2, recomputing
// the 6 layers' FFN activations and 2 layers whole 1 of 4. With MemoryX's
// storage at 1 MB/s its traffic bounds both estimates, derived by hand: a
// pass streams the 6 layers' 2,048 weights
// and the LM head's 384 (12,672, 2 B each); Adam touches 28 B of each of
// the 13,888 parameters (388,864 B). Keeping all: 2 micro-batches x 2
// passes x 25,344 B, and the first micro-batch's fp32 gradients written,
// then read by the update (2 x 55,552 B): 601,344 B, 0.6013 s. Recomputing
// (the test above): 2 passes and 6 FFN-up matrices (512 weights each) and
// 2 layers' other three (1,536) again, 62,976 B, no accumulation: 451,840
// B, 0.4518 s. So it recomputes. At the preset's storage the wafer's floor
// binds, the recomputed forward passes cost more than the second
// micro-batch, and it keeps all. At precision level 0, as the test above.
TEST(TrainRecompute, AutoRecomputesWhereTheStepsEstimateSaysItPays) {
  const std::string file = sixLayerModel("tiny6a");
  const std::string shape = "--set workload.model='" + file + "' --set workload.batch=4 --set arch.pe.sram_bytes=500 "
                            "--set workload.precision_opt_level=0 ";
  const nlohmann::json slow = runCli("recompute_auto_slow", shape + "--set arch.memoryx.bandwidth_bytes_per_s=1e6");
  const nlohmann::json fast = runCli("recompute_auto_fast", shape);
  ASSERT_FALSE(slow.empty() || fast.empty());
  const nlohmann::json& r = slow["workload"]["activation_recompute"];
  EXPECT_EQ(r["chosen_by"], "auto");
  EXPECT_EQ(r["enabled"], true);
  EXPECT_EQ(r["layers_recomputed"], 6u);
  EXPECT_EQ(slow["workload"]["micro_batch"]["count"], 1u);
  const std::string why = r["why"];
  EXPECT_NE(why.find("1 micro-batch of 4 (6 layers recompute their FFN's activation, 2 of them their whole forward "
                     "pass): 0.4518 s; 2 micro-batches of 2 (keeping all): 0.6013 s; the lowest taken"),
            std::string::npos) << why;
  EXPECT_EQ(fast["workload"]["activation_recompute"]["enabled"], false);
  EXPECT_EQ(fast["workload"]["micro_batch"]["count"], 2u);
  EXPECT_NE(fast["workload"]["activation_recompute"]["why"].get<std::string>().find("; 2 micro-batches of 2 (keeping all)"),
            std::string::npos);
}

// The same two runs through one run.wafer_timing_cache: MemoryX's storage
// is no key of the wafer's timing, but it moved `auto`'s layout, so the
// second run steps through other GEMMs and must not read the first one's
// entry (it did, and took their cycles for its own). A run given the
// layout `auto` took reads that layout's entry.
TEST(TrainRecompute, ACacheEntryTimesOnlyTheLayoutThatKeptIt) {
  const std::string file = sixLayerModel("tiny6c");
  const std::string shape = "--set workload.model='" + file + "' --set workload.batch=4 --set arch.pe.sram_bytes=500 " +
                            "--set workload.precision_opt_level=0 --set run.wafer_timing_cache='" + ::testing::TempDir() + "/wafer_timing_layout_" +
                            std::to_string(::getpid()) + "' ";
  const nlohmann::json slow = runCli("layout_cache_slow", shape + "--set arch.memoryx.bandwidth_bytes_per_s=1e6");
  const nlohmann::json fast = runCli("layout_cache_fast", shape);
  const nlohmann::json again = runCli("layout_cache_again", shape);
  // The layout `auto` took, given: the same GEMMs, the same entry.
  const nlohmann::json given = runCli("layout_cache_given", shape + "--set workload.micro_batch=2 "
                                                                    "--set workload.activation_recompute=off");
  const nlohmann::json uncached =
      runCli("layout_uncached_fast", "--set workload.model='" + file +
                                         "' --set workload.batch=4 --set arch.pe.sram_bytes=500 "
                                         "--set workload.precision_opt_level=0");
  ASSERT_FALSE(slow.empty() || fast.empty() || again.empty() || given.empty() || uncached.empty());
  ASSERT_NE(slow["workload"]["micro_batch"]["count"], fast["workload"]["micro_batch"]["count"]);
  EXPECT_EQ(fast["workload"]["wafer_timing"].get<std::string>().rfind("simulated, kept in ", 0), 0u);
  EXPECT_EQ(again["workload"]["wafer_timing"].get<std::string>().rfind("from ", 0), 0u);
  EXPECT_EQ(given["workload"]["wafer_timing"].get<std::string>().rfind("from ", 0), 0u);
  for (const nlohmann::json* r : {&fast, &again, &given}) {
    EXPECT_EQ((*r)["workload"]["step_cycles"], uncached["workload"]["step_cycles"]);
    EXPECT_EQ((*r)["workload"]["gemms"], uncached["workload"]["gemms"]);
  }
}

// Sparse blocks (density 1/2, the LM head dense): MemoryX keeps, streams
// and updates only the non-zeros. Per step of the tiny model (one system,
// one micro-batch), derived by hand: the gradients out are the blocks'
// non-zeros, the LM head's 16 x 24 and the 512 parameters no GEMM streams,
// each in fp32; the weights in are, in each of the two passes, the LM
// head's 384 in fp16 and each non-zero's value and index (4 B), plus one
// last wavelet per grid column of each pass of a sparse matrix (8 matrices
// of one pass on 8 columns: 64).
TEST(TrainSparse, MemoryXKeepsStreamsAndUpdatesOnlyTheNonzeros) {
  const nlohmann::json r = runTrain("  model: tiny\n  batch: 2\n  weight_density: 0.5\n  seed: 7\n");
  firmware::WeightSparsity sparsity;
  sparsity.density = 0.5;
  sparsity.seed = 7;
  std::uint64_t nonzeros = 0;  // two layers of QKV, attention out, FFN up and down
  for (const auto& [k, n] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{16, 48}, {16, 16}, {16, 32}, {32, 16}})
    nonzeros += 2 * sparsity.keptCount(k, n);
  EXPECT_EQ(r["sparsity"]["weights"], 4096u);
  EXPECT_EQ(r["sparsity"]["nonzero_weights"], nonzeros);
  EXPECT_GT(nonzeros, 1800u);
  EXPECT_LT(nonzeros, 2300u);
  const nlohmann::json& traffic = r["traffic"];
  EXPECT_EQ(traffic["io_ring_egress"]["bytes"], (nonzeros + 16 * 24 + 512) * 4);
  EXPECT_EQ(traffic["io_ring_ingress"]["bytes"], 2 * (384 * 2 + (nonzeros + 64) * 4));
  EXPECT_EQ(traffic["swarmx_reduce"]["bytes"], traffic["io_ring_egress"]["bytes"]);
  // Adam reads and writes each non-zero's state once, the dense LM head's
  // and the rest's all: less storage traffic than the dense step's.
  const nlohmann::json dense = runCli("dense", "");  // a second simulation: in a process of its own
  ASSERT_FALSE(dense.empty());
  EXPECT_LT(traffic["memoryx_storage"]["bytes"].get<double>(),
            0.7 * dense["workload"]["traffic"]["memoryx_storage"]["bytes"].get<double>());
  EXPECT_EQ(dense["workload"].count("sparsity"), 0u);
}

// One I/O ring, each GEMM at its own wavelets' rate: the sparse blocks'
// value and index (4 B), the dense LM head's fp16 (2 B). With the ring slow
// enough to bound both, each takes no less than its bytes through the ring
// (the bandwidth bound, counted from its wavelets' bytes), and in the step
// what it takes alone.
TEST(TrainSparse, EachGemmStreamsAtItsOwnWaveletsRate) {
  const std::string slowRing = "--set arch.io.bandwidth_bytes_per_s=2e9";
  const nlohmann::json step = runCli("sparse_ring", "--set workload.weight_density=0.5 " + slowRing);
  ASSERT_FALSE(step.empty());
  for (const auto& [name, n, density] : std::vector<std::tuple<std::string, int, std::string>>{
           {"qkv", 48, "0.5"}, {"lm_head", 24, "1"}}) {
    const std::string out = ::testing::TempDir() + "/sparse_ring_" + name + ".json";
    const std::string command = "'" WSESIM_BINARY "' run '" WSESIM_SOURCE_DIR
                                "/testbench/configs/gemm_small.yaml' --set run.mode=timing --set workload.m=16 "
                                "--set workload.k=16 --set workload.n=" + std::to_string(n) +
                                " --set workload.dtype=mixed --set workload.rows=representative "
                                "--set workload.weight_density=" + density + " " + slowRing + " --out '" + out +
                                "' > /dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    const nlohmann::json alone = nlohmann::json::parse(std::ifstream(out));
    bool found = false;
    for (const nlohmann::json& g : step["workload"]["gemms"])
      if (g["name"] == name && g["pass"] == "forward") {
        found = true;
        EXPECT_EQ(g["bound"], "bandwidth") << name;
        EXPECT_GE(g["cycles"], g["lower_bound"]) << name;
        EXPECT_NEAR(g["cycles"].get<double>(), alone["cycles"].get<double>(), 0.005 * alone["cycles"].get<double>())
            << name;
      }
    EXPECT_TRUE(found) << name;
  }
}

TEST(TrainStep, BadSettingsNameTheKey) {
  const auto message = [](const std::string& workload, const std::string& run) {
    try {
      runTrain(workload, run);
    } catch (const config::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("  model: tiny\n  batch: 2\n", "  mode: functional\n").find("run.mode"), std::string::npos);
  EXPECT_NE(message("  model: gpt5\n  batch: 2\n", "  mode: timing\n").find("workload.model: no model 'gpt5'"),
            std::string::npos);
  EXPECT_NE(message("  model: tiny\n  batch: 2\n  seq: 9\n", "  mode: timing\n").find("workload.seq"), std::string::npos);
  EXPECT_NE(message("  model: tiny\n  batch: 2\n  wafers: some\n", "  mode: timing\n").find("workload.wafers"),
            std::string::npos);
  EXPECT_EQ(message("  model: tiny\n  batch: 2\n  micro_batch: 3\n", "  mode: timing\n"),
            "workload.micro_batch: '3' is neither auto nor a number of sequences from 1 to workload.batch = 2");
  EXPECT_NE(message("  model: tiny\n  batch: 2\n  micro_batch: half\n", "  mode: timing\n").find("workload.micro_batch"),
            std::string::npos);
  EXPECT_NE(message("  model: tiny\n  batch: 2\n  weight_density: 0\n", "  mode: timing\n").find("workload.weight_density"),
            std::string::npos);
  EXPECT_NE(message("  model: tiny\n  batch: 2\n  weight_density: 0.5\n  dtype: fp32\n", "  mode: timing\n")
                .find("workload.weight_density=0.5: a sparse weight streams as 16 bits of value beside 16 of index, so "
                      "workload.dtype must be fp16 or mixed, not fp32"),
            std::string::npos);
  EXPECT_NE(message("  model: tiny\n  batch: 2\n  activation_offload: yes\n", "  mode: timing\n")
                .find("workload.activation_offload"),
            std::string::npos);
  try {
    runTrain("  model: tiny\n  batch: 2\n", "  mode: timing\n", "  memoryx:\n    capacity_bytes: 1000\n");
    ADD_FAILURE() << "a model larger than MemoryX ran";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("arch.memoryx.capacity_bytes = 1000"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wsesim::train
