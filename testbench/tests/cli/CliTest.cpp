// End-to-end tests of the `wsesim` executable: each test runs the real binary
// (WSESIM_BINARY) in a fresh temporary directory and checks its exit status,
// its messages, and exactly which files it leaves behind.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "testbench/tests/cli/CliFixture.h"

namespace {

using namespace wsesim::clitest;
namespace fs = std::filesystem;
using nlohmann::json;

// ---------------------------------------------------------------- help, usage

TEST_F(Cli, HelpExitsZeroAndPrintsUsage) {
  for (const char* flag : {"--help", "-h", "help"}) {
    const Outcome o = wsesim(flag);
    EXPECT_EQ(o.status, 0) << flag;
    expectMentions(o.out, {"usage:", "wsesim run CONFIG.yaml", "--set key=value", "[--out RESULT.json]",
                           "[--vcd TRACE.vcd]", "[--map MAP.json]", "[--timeline TIMELINE.json]", "wsesim presets [--format table|json]",
                           "wsesim models [--format table|json]", "2 configuration error", "3 simulation failed"});
    EXPECT_EQ(o.err, "") << flag;
  }
  EXPECT_EQ(filesInWork(), std::set<std::string>{});
}

TEST_F(Cli, MissingOrUnknownCommandIsAUsageError) {
  // Cli.h: kUsageError = 1, with the usage on stderr.
  Outcome o = wsesim("");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"missing command", "usage:"});
  o = wsesim("frobnicate");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"unknown command 'frobnicate'", "usage:"});
  o = wsesim("run");  // no CONFIG
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"config", "usage: wsesim run"});
  o = wsesim("run x.yaml --bogus");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"bogus"});
}

// -------------------------------------------------------------------- presets

TEST_F(Cli, PresetsListsTheFourPresetsWithTheirMeshes) {
  const Outcome o = wsesim("presets");
  ASSERT_EQ(o.status, 0) << o.err;
  // One line per preset, starting with its name; the mesh is printed "%5ux%-5u".
  const std::map<std::string, std::string> meshes = {
      {"wse2", "750x994"}, {"wse3", "762x1172"}, {"tiny", "8x8"}, {"small", "64x64"}};
  for (const auto& [name, mesh] : meshes) {
    const std::regex line("(^|\\n)" + name + " +" + mesh + " ");
    EXPECT_TRUE(std::regex_search(o.out, line)) << name << " " << mesh << " not listed:\n" << o.out;
  }
}

TEST_F(Cli, PresetsJsonNamesTheDirectoryAndEveryPresetFile) {
  // A scratch preset directory: the repository's wse2 and a preset based on it.
  const char* presetDir = std::getenv("WSESIM_PRESET_DIR");
  ASSERT_NE(presetDir, nullptr) << "ctest sets WSESIM_PRESET_DIR";
  const fs::path dir = scratch("presets");
  fs::create_directory(dir);
  fs::copy_file(fs::path(presetDir) / "wse2.yaml", dir / "wse2.yaml");
  writeFile(dir / "corner.yaml", "description: a 4 x 2 corner\nbase: wse2\nmesh: {width: 4, height: 2}\n");
  writeFile(dir / "notes.txt", "not a preset\n");
  const std::string env = "WSESIM_PRESET_DIR='" + dir.string() + "'";

  Outcome o = wsesim("presets --format json", env);
  ASSERT_EQ(o.status, 0) << o.err;
  const json doc = json::parse(o.out);
  EXPECT_EQ(doc.at("preset_dir"), dir.string());
  EXPECT_EQ(doc.at("wsesim_version"), WSESIM_VERSION);
  ASSERT_EQ(doc.at("presets").size(), 2u) << o.out;
  const json& corner = doc["presets"][0];
  EXPECT_EQ(corner.at("name"), "corner");
  EXPECT_EQ(corner.at("file"), (dir / "corner.yaml").string());
  EXPECT_EQ(corner.at("description"), "a 4 x 2 corner");
  EXPECT_EQ(corner.at("mesh_width"), 4);
  EXPECT_EQ(corner.at("mesh_height"), 2);
  EXPECT_EQ(corner.at("sram_bytes"), 49152);  // WSE-2's 48 KiB, from its base
  EXPECT_EQ(doc["presets"][1].at("name"), "wse2");
  EXPECT_EQ(doc["presets"][1].at("mesh_width"), 750);

  // The table is unchanged: the directory first, then a line per preset.
  o = wsesim("presets --format table", env);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out.rfind("presets in " + dir.string() + "\npreset ", 0), 0u) << o.out;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("\\ncorner +4x2 +8 "))) << o.out;
  EXPECT_EQ(filesInWork(), std::set<std::string>{});
}

TEST_F(Cli, PresetsRefusesBadArguments) {
  Outcome o = wsesim("presets --format yaml");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"wsesim presets: --format yaml: expected table or json", "usage: wsesim presets"});
  o = wsesim("presets --format");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"--format needs a value"});
  o = wsesim("presets extra");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"unknown argument 'extra'"});
  EXPECT_EQ(o.out, "");
}

// --------------------------------------------------------------------- models

// The zoo's 2-layer test model (models/zoo/tiny.yaml), named NAME.
std::string tinyModel(const std::string& name, bool tiedEmbeddings) {
  return "name: " + name + "\ndescription: 2-layer test model\nlayers: 2\nd_model: 16\nheads: 2\nd_ff: 32\n" +
         "vocab: 24\nseq: 8\npositions: learned\ntied_embeddings: " + (tiedEmbeddings ? "true" : "false") +
         "\nparameters: " + (tiedEmbeddings ? "4992" : "5376") + "\n";
}

TEST_F(Cli, ModelsJsonNamesTheDirectoryAndEveryModelFile) {
  // A scratch zoo: the tiny model, and the same with an untied LM head
  // (4992 + vocab x d_model = 4992 + 24 x 16 = 5376 parameters).
  const fs::path dir = scratch("zoo");
  fs::create_directory(dir);
  writeFile(dir / "tiny.yaml", tinyModel("tiny", true));
  writeFile(dir / "tiny-untied.yaml", tinyModel("tiny-untied", false));
  writeFile(dir / "notes.txt", "not a model\n");
  const std::string env = "WSESIM_MODEL_DIR='" + dir.string() + "'";

  Outcome o = wsesim("models --format json", env);
  ASSERT_EQ(o.status, 0) << o.err;
  const json doc = json::parse(o.out);
  EXPECT_EQ(doc.at("model_dir"), dir.string());
  EXPECT_EQ(doc.at("wsesim_version"), WSESIM_VERSION);
  ASSERT_EQ(doc.at("models").size(), 2u) << o.out;
  const json& tiny = doc["models"][0];
  EXPECT_EQ(tiny.at("name"), "tiny");
  EXPECT_EQ(tiny.at("file"), (dir / "tiny.yaml").string());
  EXPECT_EQ(tiny.at("description"), "2-layer test model");
  EXPECT_EQ(tiny.at("layers"), 2);
  EXPECT_EQ(tiny.at("d_model"), 16);
  EXPECT_EQ(tiny.at("heads"), 2);
  EXPECT_EQ(tiny.at("d_ff"), 32);
  EXPECT_EQ(tiny.at("vocab"), 24);
  EXPECT_EQ(tiny.at("seq"), 8);
  EXPECT_EQ(tiny.at("ffn"), "gelu");  // the defaults of keys the file leaves out
  EXPECT_EQ(tiny.at("norm"), "layernorm");
  EXPECT_EQ(tiny.at("bias"), true);
  EXPECT_EQ(tiny.at("parameters"), 4992);
  EXPECT_EQ(tiny.at("published_parameters"), 4992);
  const json& untied = doc["models"][1];
  EXPECT_EQ(untied.at("name"), "tiny-untied");
  EXPECT_EQ(untied.at("file"), (dir / "tiny-untied.yaml").string());
  EXPECT_EQ(untied.at("parameters"), 5376);

  // The table is unchanged: the directory first, then a line per model.
  o = wsesim("models --format table", env);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out.rfind("models in " + dir.string() + "\nmodel ", 0), 0u) << o.out;
  EXPECT_TRUE(std::regex_search(
      o.out, std::regex("\\ntiny-untied +2 +16 +2 +32 +24 +8 +5376 +5376  2-layer test model\\n")))
      << o.out;
  EXPECT_EQ(o.out, wsesim("models", env).out);
  EXPECT_EQ(filesInWork(), std::set<std::string>{});
}

TEST_F(Cli, ModelsRefusesBadArgumentsAndABadZooFile) {
  Outcome o = wsesim("models --format yaml");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"wsesim models: --format yaml: expected table or json", "usage: wsesim models"});
  o = wsesim("models --format");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"--format needs a value"});
  o = wsesim("models extra");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"unknown argument 'extra'"});
  EXPECT_EQ(o.out, "");

  // A zoo file a listing cannot read: exit status 2 in either format, the
  // file named, no half listing on stdout.
  const fs::path dir = scratch("zoo");
  fs::create_directory(dir);
  writeFile(dir / "tiny.yaml", tinyModel("tiny", true));
  writeFile(dir / "broken.yaml", tinyModel("broken", true) + "depth: 3\n");
  for (const char* format : {"table", "json"}) {
    o = wsesim(std::string("models --format ") + format, "WSESIM_MODEL_DIR='" + dir.string() + "'");
    EXPECT_EQ(o.status, 2) << format;
    expectMentions(o.err, {"broken.yaml", "depth"});
    EXPECT_EQ(o.out, "") << format;
  }
}

// ----------------------------------------------------------------------- keys

TEST_F(Cli, KeysListsEveryKeyWithItsDefaultAndSource) {
  Outcome o = wsesim("keys --preset tiny");
  ASSERT_EQ(o.status, 0) << o.err;
  expectMentions(o.out, {"configuration keys (defaults with arch.preset = tiny)", "arch.mesh.width  integer 1 .. 2^16 - 1",
                         "default 8 (preset tiny", "workload.type: noc", "workload.hotspot.fraction",
                         "incomplete: no run of this reader got to its end: workload.model"});
  o = wsesim("keys --format json --set workload.model=tiny");
  ASSERT_EQ(o.status, 0) << o.err;
  const json doc = json::parse(o.out);
  EXPECT_EQ(doc["preset"], "wse2");
  for (const json& section : doc["sections"]) EXPECT_EQ(section["incomplete"], "") << section["name"];
  o = wsesim("keys --format markdown");
  ASSERT_EQ(o.status, 0) << o.err;
  expectMentions(o.out, {"<!-- BEGIN wsesim keys: arch", "| `arch.fabric.queue_depth` | integer | 1 .. 255 | 4 |",
                         "<!-- END wsesim keys: train -->"});
  EXPECT_EQ(filesInWork(), std::set<std::string>{});
}

TEST_F(Cli, KeysRefusesBadArgumentsAndUnknownPresets) {
  Outcome o = wsesim("keys --format yaml");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"--format yaml: expected table, markdown or json", "usage: wsesim keys"});
  o = wsesim("keys --preset");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"--preset needs a value"});
  o = wsesim("keys extra");
  EXPECT_EQ(o.status, 1);
  expectMentions(o.err, {"unknown argument 'extra'"});
  o = wsesim("keys --preset wse9");
  EXPECT_EQ(o.status, 2);
  expectMentions(o.err, {"wsesim: configuration error:", "wse9"});
}

// ------------------------------------------------------------- a complete run

TEST_F(Cli, SmallRunWritesTheCompleteResultDocument) {
  writeFile(work("run.yaml"), kSmallRun);
  const Outcome o = wsesim("run run.yaml --out result.json");
  ASSERT_EQ(o.status, 0) << o.err;
  expectMentions(o.out, {"NoC uniform_random on 8x8", "results:  result.json"});
  // Written atomically: the result and nothing else (no *.tmp.PID left over).
  EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "result.json"}));

  const json r = readJson("result.json");
  EXPECT_EQ(r.at("wsesim_version"), WSESIM_VERSION);

  // The fully resolved configuration, nested, typed: the file's values, the
  // tiny and wse2 presets' values, and every default the run used.
  json expectedConfig = json::parse(R"({
    "arch": {"preset": "tiny", "description": "8x8 WSE-2 fabric for tests",
             "mesh": {"width": 8, "height": 8}, "clock_hz": 1.1e9,
             "io": {"bandwidth_bytes_per_s": 1.5e11, "channels_per_edge": 60},
             "memoryx": {"capacity_bytes": 4000000000000, "bandwidth_bytes_per_s": 1.5e11,
                         "optimizer_flops_per_s": 1e12, "latency_s": 1e-6, "prefetch_layers": 1},
             "swarmx": {"nic_bandwidth_bytes_per_s": 1.25e10, "nics_per_link": 12, "fan_out": 4,
                        "node_latency_s": 1e-6},
             "cluster": {"systems": 1},
             "firmware": {"summa_loop_cycles": 14, "cannon_loop_cycles": 14, "meshgemm_loop_cycles": 0,
                          "weight_stream_loop_cycles": 0, "weight_stream_reduction": "auto",
                          "weight_grad_slices": 4},
             "pe": {"sram_bytes": 49152, "sram_banks": 8, "sram_bank_word_bytes": 2, "sram_read_ports": 2,
                    "threads": 8, "tasks": 64, "data_tasks": 24, "op_overhead_cycles": 2, "task_start_cycles": 2,
                    "fabric_input_cycles": 1, "index_registers": 16, "ramp_inbox_depth": 4,
                    "lanes": {"fp16": {"fmac": 4, "fadd": 4, "fmul": 4, "fmov": 4},
                              "mixed": {"fmac": 2, "fadd": 2, "fmul": 2, "fmov": 2},
                              "fp32": {"fmac": 1, "fadd": 2, "fmul": 1, "fmov": 2}},
                    "cycles_per_element": {"fp16": {"fmac": 0.25, "fadd": 0.25, "fmul": 0.25, "fmov": 0.25},
                                           "mixed": {"fmac": 0.5, "fadd": 0.5, "fmul": 0.5, "fmov": 0.5},
                                           "fp32": {"fmac": 2.49652, "fadd": 0.5, "fmul": 1.0, "fmov": 0.5}}},
             "fabric": {"color_bits": 5, "colors": 24, "queue_depth": 4, "hop_latency_cycles": 1,
                        "ramp_latency_cycles": 2, "route_switch_cycles": 440, "routing": "xy",
                        "arbitration": "round_robin"}},
    "run": {"mode": "functional", "watchdog_cycles": 100000, "vcd": {"region": {"x0": 0, "y0": 0, "x1": 3, "y1": 3}},
            "timeline": {"link_window_cycles": 100}},
    "workload": {"type": "noc", "pattern": "uniform_random", "injection_rate": 0.01, "packet_wavelets": 1,
                 "warmup_cycles": 100, "measure_cycles": 2000, "drain_cycles": 100000, "seed": 1,
                 "colors": 1}})");
  // The cost side as presets/wse2.yaml gives it, but tiny's share of the system power and wafer area.
  expectedConfig["arch"]["energy"] = json::parse(R"({
    "op_pj": {"fp16": {"fmac": 0.375, "fadd": 0.1, "fmul": 0.275, "fmov": 0.025},
              "mixed": {"fmac": 0.5, "fadd": 0.225, "fmul": 0.275, "fmov": 0.025},
              "fp32": {"fmac": 1.15, "fadd": 0.225, "fmul": 0.925, "fmov": 0.05}},
    "sram": {"read_pj_per_byte": 0.3125, "write_pj_per_byte": 0.3125, "reference_bank_bytes": 8192.0,
             "leakage_pw_per_bit": 50.0},
    "fabric": {"wire_bits": 38, "wire_pj_per_bit_mm": 0.05, "queue_write_pj": 0.3, "queue_read_pj": 0.3,
               "ramp_pj": 0.3, "leakage_pw_per_bit": 200.0},
    "pe": {"active_cycle_pj": 6.0, "idle_cycle_pj": 3.0, "logic_leakage_w": 0.002},
    "system": {"io_ring_pj_per_byte": 80.0, "memoryx_pj_per_byte": 162.5, "optimizer_pj_per_parameter": 1000.0,
               "swarmx_pj_per_byte": 80.0, "static_w": 0.3434}})");
  expectedConfig["arch"]["area"] = json::parse(R"({
    "wafer_usable_mm2": 3.968, "spare_pe_fraction": 0.14017, "pe_logic_mm2": 0.029, "sram_bit_um2": 0.027,
    "sram_periphery_um2_per_sqrt_bit": 4.0, "router_base_mm2": 0.002, "router_bit_um2": 0.25})");
  EXPECT_EQ(r.at("config"), expectedConfig) << r.at("config").dump(2);
  EXPECT_TRUE(r["config"]["arch"]["mesh"]["width"].is_number_integer());
  EXPECT_TRUE(r["config"]["workload"]["injection_rate"].is_number_float());

  // The run covers at least warm-up + measurement = 100 + 2000 cycles.
  ASSERT_TRUE(r.at("cycles").is_number_unsigned());
  const auto cycles = r["cycles"].get<std::uint64_t>();
  EXPECT_GE(cycles, 2100u);
  // simulated_seconds = cycles / clock = cycles / 1.1e9.
  EXPECT_NEAR(r.at("simulated_seconds").get<double>(), double(cycles) / 1.1e9, 1e-15);
  EXPECT_GT(r.at("host").at("wall_seconds").get<double>(), 0.0);
  EXPECT_LT(r["host"]["wall_seconds"].get<double>(), 10.0);
  EXPECT_GT(r.at("host").at("peak_rss_bytes").get<std::uint64_t>(), 1u << 20);

  const json& w = r.at("workload");
  for (const char* key : {"latency_avg", "offered_rate", "accepted_rate", "router_cycles_per_second",
                          "wavelet_hops_per_second"})
    EXPECT_TRUE(w.at(key).is_number()) << key;
  for (const char* key : {"latency_p50", "latency_p99", "latency_max", "wavelets_injected", "wavelets_delivered"})
    EXPECT_TRUE(w.at(key).is_number_unsigned()) << key;
  for (const char* key : {"mean", "p99", "max"}) EXPECT_TRUE(w.at("link_utilisation").at(key).is_number()) << key;
  EXPECT_TRUE(w.at("link_utilisation").at("busiest").is_string());

  // Sanity bounds: the shortest uniform-random path is 1 hop + 2 ramps of 2
  // cycles = 5 cycles; p50 <= p99 <= max; nothing is delivered that was not injected.
  EXPECT_GE(w["latency_avg"].get<double>(), 5.0);
  EXPECT_LE(w["latency_p50"].get<std::uint64_t>(), w["latency_p99"].get<std::uint64_t>());
  EXPECT_LE(w["latency_p99"].get<std::uint64_t>(), w["latency_max"].get<std::uint64_t>());
  EXPECT_GT(w["wavelets_delivered"].get<std::uint64_t>(), 0u);
  EXPECT_LE(w["wavelets_delivered"].get<std::uint64_t>(), w["wavelets_injected"].get<std::uint64_t>());
  EXPECT_GT(w["offered_rate"].get<double>(), 0.0);
  EXPECT_GT(w["accepted_rate"].get<double>(), 0.0);
  EXPECT_GT(w["router_cycles_per_second"].get<double>(), 0.0);
  EXPECT_GT(w["wavelet_hops_per_second"].get<double>(), 0.0);
  EXPECT_GT(w["link_utilisation"]["max"].get<double>(), 0.0);
  EXPECT_LE(w["link_utilisation"]["max"].get<double>(), 1.0);  // one wavelet per link per cycle
}

TEST_F(Cli, TheResultsConfigFedBackReproducesTheRun) {
  writeFile(work("run.yaml"), kSmallRun);
  Outcome o = wsesim("run run.yaml --set workload.seed=5 --set arch.fabric.queue_depth=3 --out first.json");
  ASSERT_EQ(o.status, 0) << o.err;
  const json first = readJson("first.json");

  // JSON is YAML: the resolved configuration is itself a run configuration.
  writeFile(work("replay.json"), first.at("config").dump(2));
  o = wsesim("run replay.json --out second.json");
  ASSERT_EQ(o.status, 0) << o.err;
  const json second = readJson("second.json");

  EXPECT_EQ(second.at("config"), first.at("config"));
  EXPECT_EQ(second.at("cycles"), first.at("cycles"));
  for (const char* key : {"latency_avg", "latency_p50", "latency_p99", "latency_max", "latency_samples",
                          "offered_rate", "accepted_rate", "wavelets_injected", "wavelets_delivered",
                          "wavelet_hops", "measured_packets", "link_utilisation"})
    EXPECT_EQ(second["workload"].at(key), first["workload"].at(key)) << key;
}

// ---------------------------------------------------------------- bad configs

struct BadConfig {
  const char* name;
  std::string yaml;  // contents of run.yaml; empty: none is written
  std::string args;  // after `run`
  std::vector<std::string> mentions;
  std::string presetFile = {};  // if set: "NAME.yaml=TEXT" in a scratch WSESIM_PRESET_DIR
};

// gtest prints a parameter by its case name rather than as raw bytes.
void PrintTo(const BadConfig& c, std::ostream* os) { *os << c.name; }

std::string smallRunWith(const std::string& archExtra, const std::string& workloadExtra = "") {
  return "arch:\n  preset: tiny\n  fabric:\n    routing: xy\n" + archExtra +
         "workload:\n  type: noc\n  warmup_cycles: 100\n  measure_cycles: 2000\n" + workloadExtra;
}

std::vector<BadConfig> badConfigs() {
  const std::string good = kSmallRun;
  return {
      {"TypoInsideArch", smallRunWith("    queue_dept: 8\n"), "run.yaml", {"arch.fabric.queue_dept", "run.yaml"}},
      {"UnknownWorkloadKey", smallRunWith("", "  injection_rat: 0.1\n"), "run.yaml", {"workload.injection_rat"}},
      {"UnknownKeyFromSet", good, "run.yaml --set arch.mesh.widht=4",
       {"arch.mesh.widht (--set; did you mean arch.mesh.width?)"}},
      {"UnknownKeyOfAnotherWorkloadType", good, "run.yaml --set workload.algorithm=summa",
       {"workload.algorithm (--set; a key of workload.type gemm, not noc)"}},
      {"UnknownKeyFarFromAnyKnownOne", good, "run.yaml --set workload.zzz=1", {"workload.zzz (--set)"}},
      {"UnknownSection", good + "arhc:\n  preset: tiny\n", "run.yaml", {"arhc", "arch, workload, run"}},
      {"TextForInteger", smallRunWith("  mesh:\n    width: wide\n"), "run.yaml",
       {"arch.mesh.width", "'wide'", "[1, 65535]"}},
      {"FractionForInteger", smallRunWith("", "  packet_wavelets: 1.5\n"), "run.yaml",
       {"workload.packet_wavelets", "'1.5'", "[1, 65535]"}},
      {"MeshWidthZero", good, "run.yaml --set arch.mesh.width=0", {"arch.mesh.width", "'0'", "[1, 65535]"}},
      {"NegativeInjectionRate", good, "run.yaml --set workload.injection_rate=-0.01",
       {"workload.injection_rate", "'-0.01'", "[0, 1]"}},
      {"QueueDepthZero", good, "run.yaml --set arch.fabric.queue_depth=0", {"arch.fabric.queue_depth", "[1, 255]"}},
      // 5 bits hold 32 colors; 3 bits hold 8.
      {"FortyColorsInFiveBits", good, "run.yaml --set arch.fabric.colors=40", {"arch.fabric.colors", "[1, 32]"}},
      {"NineColorsInThreeBits", good, "run.yaml --set arch.fabric.color_bits=3 --set arch.fabric.colors=9",
       {"arch.fabric.colors", "'9'", "[1, 8]"}},
      {"WrongChoice", good, "run.yaml --set workload.pattern=zigzag", {"workload.pattern", "uniform_random"}},
      {"UnknownWorkloadType", good, "run.yaml --set workload.type=summa", {"workload.type", "'summa'", "chain_reduce, gemm, noc"}},
      {"UnknownPreset", good, "run.yaml --set arch.preset=wse9",
       {"arch.preset", "wse9", "known: small, tiny, wse2, wse3"}},
      {"PresetBasedOnItself", good, "run.yaml --set arch.preset=loop", {"loop", "based on itself"},
       "loop.yaml=base: loop\n"},
      {"InvalidYaml", "arch:\n  preset: [tiny\n", "run.yaml", {"run.yaml", "not valid YAML"}},
      {"MissingKeyWithoutPreset", "arch:\n  fabric:\n    routing: xy\nworkload:\n  type: noc\n", "run.yaml",
       {"arch.mesh.width", "missing"}},
      {"PatternNeedsXyRouting", good, "run.yaml --set arch.fabric.routing=color", {"arch.fabric.routing", "xy"}},
      {"MalformedSet", good, "run.yaml --set arch.mesh.width", {"--set", "arch.mesh.width", "dotted.key=value"}},
      {"MissingConfigFile", "", "absent.yaml", {"absent.yaml"}},
      // Issue 23, item 3: yaml-cpp lets the last of two equal keys win, and ignores a second document.
      {"RepeatedKeyInArch", smallRunWith("  mesh:\n    width: 8\n    width: 16\n"), "run.yaml",
       {"run.yaml", "'arch.mesh.width' is given twice", "lines 6 and 7"}},
      {"RepeatedSection", good + "arch:\n  preset: wse2\n", "run.yaml", {"'arch' is given twice", "lines 1 and 11"}},
      {"SecondDocument", good + "---\nrun: {mode: timing}\n", "run.yaml", {"run.yaml", "a second YAML document"}},
      {"RepeatedKeyInPreset", good, "run.yaml --set arch.preset=dup",
       {"preset dup", "'fabric.queue_depth' is given twice", "lines 3 and 4"},
       "dup.yaml=base: tiny\nfabric:\n  queue_depth: 2\n  queue_depth: 4\n"},
      // Item 2: these escaped as uncaught exceptions (SystemC's E549, exit 1).
      {"NotUtf8InFile", smallRunWith("", "  seed: \xff\n"), "run.yaml", {"run.yaml", "line 9 is not UTF-8"}},
      {"PresetNameNotUtf8", good, "run.yaml --set 'arch.preset=\xff'", {"--set arch.preset", "not UTF-8"}},
      {"PresetNameTooLong", good, "run.yaml --set arch.preset=" + std::string(300, 'p'),
       {"arch.preset = ppp", "no such preset", "known: small, tiny, wse2, wse3"}},
      {"ModelNameTooLong", "arch: {preset: tiny}\nrun: {mode: timing}\nworkload: {type: train, batch: 2}\n",
       "run.yaml --set workload.model=" + std::string(300, 'm'), {"workload.model", "no model 'mmm"}},
      {"ModelIsADirectory", "arch: {preset: tiny}\nrun: {mode: timing}\nworkload: {type: train, batch: 2}\n",
       "run.yaml --set workload.model=/tmp", {"workload.model", "'/tmp': it is a directory"}},
      // Item 4: refused before anything is built, with the estimate and the limit.
      {"PlannedMemoryOverTheLimit", good,
       "run.yaml --set arch.mesh.width=64 --set arch.mesh.height=64 --set run.max_host_bytes=1048576",
       {"needs an estimated", "of host memory for its 64 x 64 mesh", "limit 0.00 GiB (1048576 bytes) (run.max_host_bytes)"}},
      {"FullWaferSramOverTheHostsMemory", "arch: {preset: tiny}\nworkload: {type: chain_reduce, pes: 4, length: 32}\n",
       "run.yaml --set arch.mesh.width=65535 --set arch.mesh.height=65535",
       {"for its 65535 x 65535 mesh", "arch.pe.sram_bytes = 49152 per PE in functional mode",
        "the host's available memory, MemAvailable in /proc/meminfo"}},
  };
}

class CliBadConfig : public Cli, public ::testing::WithParamInterface<BadConfig> {};

TEST_P(CliBadConfig, ExitsTwoNamesTheKeyAndWritesNothing) {
  const BadConfig& c = GetParam();
  if (!c.yaml.empty()) writeFile(work("run.yaml"), c.yaml);
  std::string env;
  if (!c.presetFile.empty()) {
    const auto eq = c.presetFile.find('=');
    fs::create_directory(scratch("presets"));
    writeFile(scratch("presets") / c.presetFile.substr(0, eq), c.presetFile.substr(eq + 1));
    env = "WSESIM_PRESET_DIR='" + scratch("presets").string() + "'";
  }
  const Outcome o = wsesim("run " + c.args + " --out result.json --vcd trace.vcd", env);
  EXPECT_EQ(o.status, 2) << o.out << o.err;  // Cli.h: kConfigError
  expectMentions(o.err, {"configuration error"});
  expectMentions(o.err, c.mentions);
  EXPECT_EQ(o.out.find("results:"), std::string::npos) << o.out;
  // No result, no waveform, no temporary: only the configuration file remains.
  EXPECT_EQ(filesInWork(), c.yaml.empty() ? std::set<std::string>{} : std::set<std::string>{"run.yaml"});
}

INSTANTIATE_TEST_SUITE_P(Cases, CliBadConfig, ::testing::ValuesIn(badConfigs()),
                         [](const ::testing::TestParamInfo<BadConfig>& info) { return info.param.name; });

// The host-memory refusal names the mesh the workload simulates and
// advises only what makes the estimate smaller (issue 24). Each run is
// refused under run.max_host_bytes = 1 MiB, leaving nothing behind.
class CliHostMemory : public Cli {
 protected:
  std::string refusal(const std::string& yaml, const std::string& args) {
    writeFile(work("run.yaml"), yaml);
    const Outcome o = wsesim("run run.yaml --set run.max_host_bytes=1048576 " + args + " --out result.json");
    EXPECT_EQ(o.status, 2) << o.out << o.err;  // Cli.h: kConfigError
    EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"});
    expectMentions(o.err, {"configuration error: the run needs an estimated",
                           "more than the limit 0.00 GiB (1048576 bytes) (run.max_host_bytes): ",
                           "or set run.max_host_bytes if the estimate is too high for this run"});
    return o.err;
  }
  static void expectAbsent(const std::string& text, const std::vector<std::string>& parts) {
    for (const std::string& part : parts)
      EXPECT_EQ(text.find(part), std::string::npos) << "says \"" << part << "\":\n" << text;
  }
  static std::string config(const char* name) {
    return readFile(fs::path(WSESIM_SOURCE_DIR) / "testbench" / "configs" / name);
  }
};

const char* const kWse2Mesh = "--set arch.mesh.width=750 --set arch.mesh.height=994";

// A GEMM's representative rows run on a mesh only as wide as they are,
// with every row of arch.mesh: the refusal names that mesh beside
// arch.mesh and why, and advises fewer rows; never run.mode: timing, which
// these runs already use. gemm_small: m = 40 over a grid of 40 rows, all
// of one size, so one representative row, on one mesh column.
// A training step's cluster is planned too: each system's models take
// about 1.7 MiB on wse2's 120 I/O channels (hw/system/Cluster.h), so 2,048
// systems of the tiny model need 3.35 GiB, nearly all of it theirs: the
// refusal says so and advises fewer systems first.
TEST_F(CliHostMemory, ATrainingClusterNamesItsSystems) {
  const std::string err = refusal(config("train_tiny.yaml"), "--set arch.cluster.systems=2048");
  expectMentions(err, {"the run needs an estimated 3.35 GiB",
                       "3.35 GiB (3592077312 bytes) of it for the models of 2048 systems (arch.cluster.systems)), "
                       "more than the limit",
                       "(run.max_host_bytes): lower arch.cluster.systems, make arch.mesh.height smaller"});
}

// A GEMM whose weights come from MemoryX runs on the same cluster
// (workload::ClusterModel), planned the same way: 2,048 systems refuse the
// 8 x 8 gemm_small at 3.34 GiB, nearly all of it theirs (it ran unplanned
// before, under any limit).
TEST_F(CliHostMemory, AGemmFromMemoryxNamesItsSystems) {
  const std::string err = refusal(config("gemm_small.yaml"), "--set run.mode=timing --set workload.weights=memoryx "
                                                             "--set arch.cluster.systems=2048");
  expectMentions(err, {"the run needs an estimated 3.34 GiB",
                       "3.34 GiB (3590324224 bytes) of it for the models of 2048 systems (arch.cluster.systems)), "
                       "more than the limit",
                       "(run.max_host_bytes): lower arch.cluster.systems, make arch.mesh smaller"});
}

TEST_F(CliHostMemory, NarrowedGemmNamesTheOneColumnOfItsRepresentativeRow) {
  const std::string err = refusal(config("gemm_small.yaml"), std::string(kWse2Mesh) +
                                                                 " --set run.mode=timing --set workload.rows=representative");
  expectMentions(err, {"for the 1 x 994 mesh it simulates of the 750 x 994 arch.mesh (workload.rows: representative; "
                       "the rows simulated lie along 1 mesh column), more than the limit",
                       "make arch.mesh.height smaller (the mesh simulated has all 994 rows of arch.mesh), or set"});
  expectAbsent(err, {"make arch.mesh smaller", "run.mode: timing", "arch.pe.sram_bytes"});
}

// The weight-gradient GEMMs run two rows of token blocks (SimulatedGemm.h):
// the widest GEMM of the training step takes two mesh columns.
TEST_F(CliHostMemory, NarrowedTrainStepNamesTheTwoColumnsOfItsWidestGemm) {
  const std::string err = refusal(config("train_tiny.yaml"), kWse2Mesh);
  expectMentions(err, {"for the 2 x 994 mesh it simulates of the 750 x 994 arch.mesh (workload.rows: representative; "
                       "the rows simulated lie along 2 mesh columns), more than the limit",
                       "make arch.mesh.height smaller (the mesh simulated has all 994 rows of arch.mesh), or set"});
  expectAbsent(err, {"make arch.mesh smaller", "run.mode: timing", "arch.pe.sram_bytes"});
}

// Every row simulated: the whole arch.mesh, named as before; timing mode
// already, so not advised.
TEST_F(CliHostMemory, WholeMeshGemmInTimingModeNamesArchMesh) {
  const std::string err = refusal(config("gemm_small.yaml"), std::string(kWse2Mesh) + " --set run.mode=timing");
  expectMentions(err, {"of host memory for its 750 x 994 mesh (arch.mesh), more than the limit",
                       "(run.max_host_bytes): make arch.mesh smaller, or set run.max_host_bytes"});
  expectAbsent(err, {"run.mode: timing", "mesh it simulates"});
}

// A NoC run has no PEs: functional mode gives it no SRAM bytes to name, and
// timing mode would not make it smaller.
TEST_F(CliHostMemory, NocRunInFunctionalModeNamesNoSram) {
  const std::string err =
      refusal(kSmallRun, "--set run.mode=functional --set arch.mesh.width=64 --set arch.mesh.height=64");
  expectMentions(err, {"for its 64 x 64 mesh (arch.mesh), more than the limit",
                       "make arch.mesh smaller, or set run.max_host_bytes"});
  expectAbsent(err, {"sram_bytes", "run.mode: timing"});
}

TEST_F(Cli, NonScalarYamlKeyIsAConfigurationError) {
  writeFile(work("run.yaml"), "{[1, 2]: 3}\n");
  const Outcome o = wsesim("run run.yaml --out result.json");
  EXPECT_EQ(o.status, 2);
  expectMentions(o.err, {"configuration error", "run.yaml"});
  EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"});
}

// ---------------------------------------------------------------- waveforms

TEST_F(Cli, VcdTracesTheRoutersOfTheRegion) {
  writeFile(work("run.yaml"), kSmallRun);
  // Region x 1..2, y 2..3: routers (1,2), (2,2), (1,3), (2,3).
  const Outcome o = wsesim(
      "run run.yaml --set run.vcd.region.x0=1 --set run.vcd.region.x1=2 --set run.vcd.region.y0=2 "
      "--set run.vcd.region.y1=3 --vcd trace.vcd");
  ASSERT_EQ(o.status, 0) << o.err;
  // The waveform is published under its name; no ".partial" file remains, and no JSON without --out.
  EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "trace.vcd"}));
  const std::string vcd = readFile(work("trace.vcd"));
  const auto header = vcd.find("$enddefinitions");
  ASSERT_NE(header, std::string::npos);
  const std::string declarations = vcd.substr(0, header);

  for (const char* router : {"r1_2", "r2_2", "r1_3", "r2_3"})
    expectMentions(declarations, {std::string("$scope module ") + router + " $end"});
  for (const char* outside : {"r0_0", "r0_2", "r3_2", "r1_1", "r1_4", "r3_3"})
    EXPECT_EQ(declarations.find(std::string("module ") + outside + " "), std::string::npos) << outside;
  // Per router, per port N, E, S, W, RAMP: input queue occupancy and output
  // link color: 4 routers x 5 ports x 2 = 40 variables.
  std::size_t vars = 0;
  for (auto at = declarations.find("$var"); at != std::string::npos; at = declarations.find("$var", at + 1)) ++vars;
  EXPECT_EQ(vars, 40u);
  expectMentions(declarations, {"in_RAMP_queued", "out_E_color", "in_W_queued"});
  // The color signals are 5 bits wide (arch.fabric.color_bits).
  EXPECT_NE(declarations.find("$var wire    5"), std::string::npos);

  // Value changes after time 0: the identifiers of the link-color and the
  // queue-occupancy variables, from "$var wire WIDTH ID NAME [..] $end".
  std::set<std::string> colorIds, queueIds;
  {
    std::istringstream in(declarations);
    for (std::string word; in >> word;) {
      if (word != "$var") continue;
      std::string kind, width, id, name;
      in >> kind >> width >> id >> name;
      if (name.find("_color") != std::string::npos) colorIds.insert(id);
      if (name.find("_queued") != std::string::npos) queueIds.insert(id);
    }
  }
  EXPECT_EQ(colorIds.size(), 20u);
  EXPECT_EQ(queueIds.size(), 20u);
  // After the first timestamp > 0, some link carries a color (a binary value
  // without Z: wavelets of color 0 here) and some queue holds a wavelet (> 0).
  std::istringstream body(vcd.substr(header));
  bool started = false, colorSeen = false, queueSeen = false;
  for (std::string line; std::getline(body, line);) {
    if (!line.empty() && line[0] == '#') started = started || std::stoull(line.substr(1)) > 0;
    if (!started || line.size() < 2 || line[0] != 'b') continue;
    const auto space = line.find(' ');
    const std::string value = line.substr(1, space - 1), id = line.substr(space + 1);
    const bool binary = value.find_first_not_of("01") == std::string::npos;
    colorSeen = colorSeen || (colorIds.count(id) && binary);
    queueSeen = queueSeen || (queueIds.count(id) && binary && value.find('1') != std::string::npos);
  }
  EXPECT_TRUE(started) << "no value changes after time 0";
  EXPECT_TRUE(colorSeen) << "no traced link ever carries a wavelet";
  EXPECT_TRUE(queueSeen) << "no traced queue ever holds a wavelet";
}

TEST_F(Cli, VcdRunKeepsStdoutForResults) {
  writeFile(work("run.yaml"), kSmallRun);
  const Outcome o = wsesim("run run.yaml --vcd trace.vcd");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out.find("Info:"), std::string::npos) << o.out;
  EXPECT_EQ(o.out.rfind("NoC uniform_random", 0), 0u) << o.out;  // the summary comes first
}

// --------------------------------------------------------- failed simulations

TEST_F(Cli, WatchdogShorterThanACrossingIsAConfigError) {
  // XY routing and the broadcast trees are deadlock-free, so a healthy run
  // must never trip the watchdog: it has to outlast a lone wavelet crossing
  // the mesh. tiny is 8 x 8 with 100-cycle hops and 2-cycle ramps, so a
  // corner-to-corner crossing takes (7 + 7) * 100 + 2 * 2 = 1404 cycles and
  // the smallest allowed watchdog is 1405. (A real deadlock is exercised on
  // the kernel in tests/fabric/DeadlockTest.cpp.)
  writeFile(work("run.yaml"), kSmallRun);
  const Outcome o = wsesim(
      "run run.yaml --set arch.fabric.hop_latency_cycles=100 --set run.watchdog_cycles=1404 "
      "--out result.json --vcd trace.vcd");
  EXPECT_EQ(o.status, 2) << o.out << o.err;  // Cli.h: kConfigError
  expectMentions(o.err, {"run.watchdog_cycles", "1404", "[1405,", "1404 cycles"});
  EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"});
}

TEST_F(Cli, UsageErrorsSayWhatIsMissingInTheClisOwnWords) {
  // Issue 23, item 6: Boost's words were "the option '--config' is required"
  // (there is no such option) and "too many positional options".
  const std::pair<std::string, std::vector<std::string>> cases[] = {
      {"run", {"no configuration file given", "wsesim run testbench/configs/noc_small.yaml"}},
      {"run --set --out r.json run.yaml", {"--set needs a value: --set dotted.key=value", "not the option '--out'"}},
      {"run run.yaml --set", {"--set needs a value"}},
      {"run run.yaml --out --vcd t.vcd", {"--out needs a value: --out RESULT.json", "not the option '--vcd'"}},
      {"run a.yaml b.yaml", {"one configuration file expected, got 'a.yaml' and 'b.yaml'"}},
      {"run run.yaml --ou r.json", {"unknown option '--ou'", "--map, --out, --set, --timeline, --vcd"}},
      {"run run.yaml --out a.json --out b.json", {"--out is given more than once"}},
  };
  writeFile(work("run.yaml"), kSmallRun);
  for (const auto& [args, mentions] : cases) {
    const Outcome o = wsesim(args);
    EXPECT_EQ(o.status, 1) << args << "\n" << o.err;  // Cli.h: kUsageError
    expectMentions(o.err, mentions);
    expectMentions(o.err, {"wsesim run: ", "usage: wsesim run CONFIG.yaml"});
    EXPECT_EQ(o.err.find("positional"), std::string::npos) << o.err;
    EXPECT_EQ(o.err.find("'--config'"), std::string::npos) << o.err;
    EXPECT_EQ(o.out, "") << args;
    EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"}) << args;
  }
}

TEST_F(Cli, OutputsAreCheckedBeforeTheSimulation) {
  // Issue 23, item 5. This run would fail in its simulation (exit 3, SRAM
  // overflow): exit 4 shows the outputs were checked first.
  writeFile(work("run.yaml"), "arch: {preset: tiny}\nworkload: {type: chain_reduce, pes: 4, length: 32}\n");
  fs::create_directory(work("adir"));
  const std::pair<std::string, std::vector<std::string>> cases[] = {
      {"--out no/such/dir/result.json", {"--out no/such/dir/result.json", "the directory 'no/such/dir' does not exist"}},
      {"--map adir", {"--map adir", "'adir' is a directory"}},
      {"--timeline run.yaml/t.json", {"--timeline run.yaml/t.json", "'run.yaml' is not a directory"}},
      {"--vcd missing/trace.vcd", {"--vcd missing/trace.vcd", "does not exist"}},
      {"--out " + std::string(300, 'r') + ".json", {"--out rrr", "file name too long"}},
  };
  for (const auto& [args, mentions] : cases) {
    const Outcome o = wsesim("run run.yaml --set arch.pe.sram_bytes=300 " + args);
    EXPECT_EQ(o.status, 4) << args << "\n" << o.err;  // Cli.h: kOutputError
    expectMentions(o.err, mentions);
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
    EXPECT_EQ(o.out, "") << args;  // no summary: nothing was simulated
    EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml", "adir"})) << args;
  }
}

TEST_F(Cli, RunMaxCyclesBoundsTheSimulation) {
  // kSmallRun's window ends at cycle 2100: a bound of 500 stops it.
  writeFile(work("run.yaml"), kSmallRun);
  const Outcome o = wsesim("run run.yaml --set run.max_cycles=500 --out result.json --vcd trace.vcd");
  EXPECT_EQ(o.status, 3) << o.err;  // Cli.h: kSimulationError
  expectMentions(o.err, {"simulation failed", "had not finished by cycle 500", "run.max_cycles = 500"});
  EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"});
}

TEST_F(Cli, ThePlannedHostMemoryBoundsTheModelsOwnAtSaturation) {
  // Item 4: the estimate checked before the run (host.planned_bytes) must
  // hold what the fabric then takes: at injection rate 1 over 4 colors the
  // queues overflow into the pool that grows with congestion.
  writeFile(work("run.yaml"), kSmallRun);
  Outcome o = wsesim("run run.yaml --set workload.injection_rate=1 --set workload.colors=4 --out noc.json");
  ASSERT_EQ(o.status, 0) << o.err;
  const json noc = readJson("noc.json");
  EXPECT_GT(noc["workload"]["host"].at("fabric_bytes").get<double>(), 0);
  EXPECT_GE(noc["host"].at("planned_bytes").get<double>(), noc["workload"]["host"].at("fabric_bytes").get<double>());
  // The PEs' arrays and, in functional mode, all of every PE's SRAM
  // (64 PEs x 48 KiB = 3 MiB) come on top of the fabric.
  writeFile(work("chain.yaml"), "arch: {preset: tiny}\nworkload: {type: chain_reduce, pes: 4, length: 32}\n");
  o = wsesim("run chain.yaml --out chain.json");
  ASSERT_EQ(o.status, 0) << o.err;
  const json chain = readJson("chain.json");
  const json& host = chain["workload"]["host"];
  EXPECT_GE(chain["host"].at("planned_bytes").get<double>(),
            host.at("fabric_bytes").get<double>() + host.at("pe_bytes").get<double>() + 64 * 49152.0);
  o = wsesim("run chain.yaml --set run.mode=timing --out timing.json");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(chain["host"].at("planned_bytes").get<double>() - readJson("timing.json")["host"].at("planned_bytes").get<double>(),
            64 * 49152.0);
}

TEST_F(Cli, RunningOutOfHostMemoryAnywayIsANamedFailureWithTheEstimate) {
  // Item 4: with the limit raised past what the process may map (ulimit -v
  // 300 MB), building a 512 x 512 fabric (planned 2.4 GiB) fails: one line
  // with the estimate and the limit, never a bare std::bad_alloc.
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer maps terabytes of shadow memory: it cannot start under ulimit -v";
#endif
  writeFile(work("run.yaml"), kSmallRun);
  const Outcome o = wsesim("run run.yaml --set arch.mesh.width=512 --set arch.mesh.height=512 "
                           "--set run.max_host_bytes=1e12 --out result.json",
                           "sh -c 'ulimit -v 300000 && exec \"$0\" \"$@\"'");
  EXPECT_EQ(o.status, 3) << o.err;  // Cli.h: kSimulationError
  expectMentions(o.err, {"wsesim: simulation failed: out of host memory (estimated ", " GiB (",
                         "limit 931.32 GiB (1000000000000 bytes) (run.max_host_bytes)"});
  EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << o.err;
  EXPECT_EQ(o.err.find("std::bad_alloc"), std::string::npos) << o.err;
  EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"});
}

TEST_F(Cli, UnwritableOutputExitsFour) {
  writeFile(work("run.yaml"), kSmallRun);
  const Outcome o = wsesim("run run.yaml --out no/such/dir/result.json");
  EXPECT_EQ(o.status, 4) << o.err;  // Cli.h: kOutputError
  expectMentions(o.err, {"no/such/dir/result.json"});
  EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"});
}

}  // namespace

// ------------------------------------------------------------ the PE testbench

const char* const kChainRun =
    "arch:\n"
    "  preset: tiny\n"
    "workload:\n"
    "  type: chain_reduce\n"
    "  pes: 4\n"
    "  length: 32\n";

TEST_F(Cli, ChainReduceRunReportsClosedFormCyclesAndAnExactResult) {
  writeFile(work("run.yaml"), kChainRun);
  const Outcome o = wsesim("run run.yaml --out result.json --vcd trace.vcd");
  ASSERT_EQ(o.status, 0) << o.err;
  expectMentions(o.out, {"chain_reduce fp32 on 8x8", "(match)", "0 mismatches"});
  const json w = readJson("result.json").at("workload");
  EXPECT_EQ(w.at("cycles_match_closed_form"), true);
  EXPECT_EQ(w.at("mismatches"), 0);
  // The PEs' waveforms sit next to the routers'.
  const std::string vcd = readFile(work("trace.vcd"));
  expectMentions(vcd, {"$scope module pe0_0 $end", "$scope module pe3_0 $end", " busy ", " task [5:0] ",
                       " threads_busy [5:0] ", " sram_used [31:0] ", "$scope module r0_0 $end"});
}

TEST_F(Cli, ChainReduceSaysWhereItsClosedFormDoesNotHold) {
  // Issue 29, item 10: these exited 0 with cycles_match_closed_form false,
  // although the closed form is "checked on every run". It counts a chain
  // at one element a cycle, which these machines cannot keep up.
  writeFile(work("run.yaml"), kChainRun);
  const std::pair<std::string, std::string> cases[] = {
      {"arch.fabric.queue_depth=1", "arch.fabric.queue_depth = 1 < arch.fabric.hop_latency_cycles + 1 = 2"},
      {"arch.fabric.queue_depth=2", "arch.fabric.queue_depth = 2 < arch.fabric.ramp_latency_cycles + 1 = 3"},
      {"arch.pe.ramp_inbox_depth=1", "arch.pe.ramp_inbox_depth = 1 < 1 + arch.fabric.ramp_latency_cycles + "
                                     "arch.pe.fabric_input_cycles = 4"},
      {"arch.pe.sram_read_ports=1", "arch.pe.sram_read_ports = 1"},
  };
  for (const auto& [set, reason] : cases) {
    const Outcome o = wsesim("run run.yaml --set " + set + " --out result.json");
    ASSERT_EQ(o.status, 0) << set << "\n" << o.err;
    const json w = readJson("result.json").at("workload");
    EXPECT_TRUE(w.at("cycles_match_closed_form").is_null()) << set;
    EXPECT_EQ(w.at("closed_form_out_of_reach").get<std::string>().rfind(reason, 0), 0u) << w.dump();
    expectMentions(o.out, {"(does not hold here, see below)", "the closed form does not hold: " + reason});
  }
  // Where it holds, every run must meet it exactly (a run that does not
  // fails, exit 3): machines at the edges of the conditions.
  for (const std::string sets : {"", "--set arch.fabric.queue_depth=3", "--set arch.pe.ramp_inbox_depth=4",
                                 "--set arch.fabric.ramp_latency_cycles=0 --set arch.pe.fabric_input_cycles=1",
                                 "--set arch.fabric.hop_latency_cycles=3 --set workload.dtype=fp16 --set workload.repeat=3",
                                 "--set arch.pe.sram_read_ports=3 --set workload.rows=3 --set arch.pe.ramp_inbox_depth=9"}) {
    const Outcome o = wsesim("run run.yaml " + sets + " --out result.json");
    ASSERT_EQ(o.status, 0) << sets << "\n" << o.err;
    const json w = readJson("result.json").at("workload");
    EXPECT_EQ(w.at("cycles_match_closed_form"), true) << sets;
    EXPECT_EQ(readJson("result.json").at("cycles"), w.at("expected_cycles")) << sets;
    EXPECT_FALSE(w.contains("closed_form_out_of_reach")) << sets;
  }
}

TEST_F(Cli, ChainReduceOnOneColorIsAConfigurationError) {
  // Found by the fuzz test (issue 29): the chain alternates two colors; on
  // one the default workload.color 0 was taken unchecked and the run failed
  // in its simulation, naming no key (exit 3).
  writeFile(work("run.yaml"), kChainRun);
  const Outcome o = wsesim("run run.yaml --set arch.fabric.colors=1 --out result.json");
  EXPECT_EQ(o.status, 2) << o.err;
  expectMentions(o.err, {"workload.color (not set, default 0): out of range here, must be an integer in [0, -1]",
                         "arch.fabric.colors = 1"});
  EXPECT_EQ(filesInWork(), std::set<std::string>{"run.yaml"});
}

TEST_F(Cli, ChainReduceRepeatStopsWhereATaskCanHoldItsOps) {
  // Item 10: repeat 1048576 ran past 150 s: a task longer than 65535
  // instructions wrapped the PE's 16-bit program counter and ran round for
  // ever (the old code hangs here: timeout). The longest chain runs, its
  // programs in the host-memory plan.
  writeFile(work("run.yaml"), std::string(kChainRun) + "run: {mode: timing}\n");
  const std::string bounded = "timeout 60";
  Outcome o = wsesim("run run.yaml --set workload.repeat=65535 --out result.json", bounded);
  EXPECT_EQ(o.status, 2) << o.err;
  expectMentions(o.err, {"workload.repeat = '65535' (--set): out of range, must be an integer in [1, 65534]",
                         "a task holds at most 65535 instructions"});
  o = wsesim("run run.yaml --set workload.repeat=65534 --set workload.length=1 --out result.json", bounded);
  ASSERT_EQ(o.status, 0) << o.err;
  const json longest = readJson("result.json").at("host");
  EXPECT_EQ(readJson("result.json").at("workload").at("cycles_match_closed_form"), true);
  o = wsesim("run run.yaml --set workload.length=1 --out short.json", bounded);
  ASSERT_EQ(o.status, 0) << o.err;
  // The programs' memory (about 0.9 KiB per local op) is in the plan: it
  // grows by more than the process does (the plan leaves out the process's
  // fixed ~10 MiB, configuration.md).
  const json shortest = readJson("short.json").at("host");
  EXPECT_GE(longest.at("planned_bytes").get<double>() - shortest.at("planned_bytes").get<double>(),
            longest.at("peak_rss_bytes").get<double>() - shortest.at("peak_rss_bytes").get<double>());
}

TEST_F(Cli, SramOverflowFailsTheRunNamingThePeAndWritesNoResult) {
  writeFile(work("run.yaml"), kChainRun);
  const Outcome o = wsesim("run run.yaml --set arch.pe.sram_bytes=300 --out result.json");
  EXPECT_EQ(o.status, 3);
  expectMentions(o.err, {"PE (0,0)", "SRAM overflow", "'partial'", "128 bytes asked", "44 of 300 bytes free"});
  EXPECT_EQ(filesInWork(), (std::set<std::string>{"run.yaml"}));
}

// A NoC run with every default runs (issue 32): the presets route by color
// (the hardware's static routes), so the default pattern is a multicast over
// them; under packet routing it is uniform random traffic.
TEST_F(Cli, ANocRunWithEveryDefaultRuns) {
  writeFile(work("run.yaml"), "arch: {preset: small}\nworkload: {type: noc}\n");
  Outcome o = wsesim("run run.yaml --out color.json");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(readJson("color.json").at("workload").at("pattern"), "row_broadcast");
  o = wsesim("run run.yaml --set arch.fabric.routing=xy --out xy.json");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(readJson("xy.json").at("workload").at("pattern"), "uniform_random");
}

// A NoC run offered more than the mesh carries ends its drain with measured
// packets still in flight: its latencies are lower bounds, and the result
// and the summary say so; a run below saturation says nothing of the kind.
TEST_F(Cli, ASaturatedNocRunSaysItsLatenciesAreLowerBounds) {
  writeFile(work("run.yaml"), kSmallRun);
  Outcome o = wsesim("run run.yaml --out light.json");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(readJson("light.json").at("workload").at("saturated"), false);
  EXPECT_EQ(o.out.find("saturated"), std::string::npos) << o.out;

  o = wsesim("run run.yaml --set workload.injection_rate=0.8 --set workload.drain_cycles=200 --out heavy.json");
  ASSERT_EQ(o.status, 0) << o.err;
  const json heavy = readJson("heavy.json").at("workload");
  EXPECT_EQ(heavy.at("saturated"), true);
  EXPECT_GT(heavy.at("measured_deliveries_missing").get<double>(), 0);
  EXPECT_LT(heavy.at("accepted_rate").get<double>(), heavy.at("offered_rate").get<double>());
  expectMentions(o.out, {"warning   saturated: ", "% of the measured deliveries had not arrived",
                         "(workload.drain_cycles = 200)", "these latencies are lower bounds"});
}

// A preset or model folder that is not there is named as such, not as an
// empty list of known names.
TEST_F(Cli, AMissingPresetOrModelFolderIsNamedAsMissing) {
  writeFile(work("noc.yaml"), kSmallRun);
  Outcome o = wsesim("run noc.yaml", "WSESIM_PRESET_DIR=/nonexistent");
  EXPECT_EQ(o.status, 2) << o.err;
  expectMentions(o.err, {"no such preset in /nonexistent (no such directory; $WSESIM_PRESET_DIR, if set, names it)"});
  writeFile(work("train.yaml"), "arch: {preset: tiny}\nrun: {mode: timing}\nworkload: {type: train, model: tiny, batch: 2}\n");
  o = wsesim("run train.yaml", "WSESIM_MODEL_DIR=/nonexistent");
  EXPECT_EQ(o.status, 2) << o.err;
  expectMentions(o.err, {"no model 'tiny' in /nonexistent (no such directory; $WSESIM_MODEL_DIR, if set, names it)"});
  fs::create_directories(work("empty"));
  o = wsesim("run noc.yaml", "WSESIM_PRESET_DIR='" + work("empty").string() + "'");
  expectMentions(o.err, {"(it holds no presets (NAME.yaml))"});
}

// The area line compares the configuration with the area its preset gives
// the PEs, which for a corner preset is the corner's share of a wafer, not
// a wafer: it names the key rather than calling it the wafer's.
TEST_F(Cli, TheAreaLineNamesTheAreaItComparesWith) {
  writeFile(work("noc.yaml"), kSmallRun);
  const Outcome o = wsesim("run noc.yaml");
  ASSERT_EQ(o.status, 0) << o.err;
  expectMentions(o.out, {"mm^2 per PE, ", " of 3.968 mm^2 usable (arch.area.wafer_usable_mm2): fits"});
  EXPECT_EQ(o.out.find("wafer's"), std::string::npos) << o.out;
}
