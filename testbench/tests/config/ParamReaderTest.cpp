// ParamReader, ArchConfig and RunConfig: typed and range-checked reads,
// unknown-key rejection, and the resolved parameter list. Every bad value
// must be a ConfigError naming the key and what would be allowed.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>

#include "hw/config/ArchConfig.h"
#include "hw/config/ParamReader.h"
#include "hw/config/RunConfig.h"
#include "testbench/noc/NocConfig.h"
#include "testbench/tests/config/ConfigTestUtil.h"

namespace wsesim::config {
namespace {

using testing::configErrorOf;
using testing::expectMentions;
using testing::layered;

// tiny preset plus `extra` YAML lines under arch:
std::string tinyArch(const std::string& extra) { return "arch:\n  preset: tiny\n" + extra; }

// The message of reading the arch section of `yaml` (after --set `overrides`).
std::string archError(const std::string& yaml, const std::vector<std::string>& overrides = {}) {
  return configErrorOf([&] {
    ConfigTree tree = layered(yaml, overrides);
    ParamReader params(tree);
    ArchConfig::read(params);
  });
}

TEST(TypedReads, TextWhereAnIntegerIsExpected) {
  expectMentions(archError(tinyArch("  mesh:\n    width: wide\n")),
                 {"arch.mesh.width", "'wide'", "test.yaml", "an integer in [1, 65535]"});
}

TEST(TypedReads, FractionWhereAnIntegerIsExpected) {
  expectMentions(archError(tinyArch("  fabric:\n    queue_depth: 1.5\n")),
                 {"arch.fabric.queue_depth", "'1.5'", "an integer in [1, 255]"});
}

TEST(TypedReads, TextWhereANumberIsExpected) {
  // Range [1 Hz, 1 THz], printed with up to 17 significant digits.
  expectMentions(archError(tinyArch("  clock_hz: fast\n")),
                 {"arch.clock_hz", "'fast'", "a number in [1, 1000000000000]"});
}

TEST(TypedReads, UnknownChoiceListsTheOptions) {
  expectMentions(archError(tinyArch("  fabric:\n    routing: mesh\n")),
                 {"arch.fabric.routing", "'mesh'", "one of color, xy"});
}

TEST(TypedReads, OriginOfABadValueIsReported) {
  // The same bad width from --set is blamed on --set, not on the file.
  expectMentions(archError(tinyArch(""), {"arch.mesh.width=abc"}), {"arch.mesh.width", "'abc'", "(--set)"});
}

TEST(Ranges, ADefaultTheOtherKeysPutOutOfRangeIsAnError) {
  // Found by the fuzz test (issue 29): chain_reduce's workload.color may be
  // 0 .. colors - 2; with one color no value fits, and its default 0 ran
  // into "route uses color 1 but the fabric has 1 colors" (exit 3, no key).
  ConfigTree tree = layered("arch: {preset: tiny}\n", {});
  ParamReader params(tree);
  expectMentions(configErrorOf([&] { params.integer("workload.color", 0, -1, 0, "the chain uses this color and the next one"); }),
                 {"workload.color (not set, default 0): out of range here, must be an integer in [0, -1]",
                  "(the chain uses this color and the next one)"});
  expectMentions(configErrorOf([&] { params.real("workload.rate", 1, 2, 0.5); }),
                 {"workload.rate (not set, default 0.5): out of range here, must be a number in [1, 2]"});
  EXPECT_EQ(params.integer("workload.pes", 2, 8, 4), 4);  // a default in range is taken
}

TEST(Ranges, MeshWidthZero) {
  // Coordinates are 16-bit: 1 .. 65535.
  expectMentions(archError(tinyArch("  mesh:\n    width: 0\n")),
                 {"arch.mesh.width", "'0'", "out of range", "[1, 65535]"});
  expectMentions(archError(tinyArch("  mesh:\n    height: 65536\n")), {"arch.mesh.height", "[1, 65535]"});
}

TEST(Ranges, QueueDepthZero) {
  expectMentions(archError(tinyArch("  fabric:\n    queue_depth: 0\n")),
                 {"arch.fabric.queue_depth", "out of range", "[1, 255]"});
}

TEST(Ranges, RampInboxDepthZeroOrPastTheEightBitCount) {
  expectMentions(archError(tinyArch("  pe:\n    ramp_inbox_depth: 0\n")),
                 {"arch.pe.ramp_inbox_depth", "'0'", "out of range", "[1, 255]"});
  expectMentions(archError(tinyArch(""), {"arch.pe.ramp_inbox_depth=256"}),
                 {"arch.pe.ramp_inbox_depth", "'256'", "out of range", "[1, 255]"});
}

TEST(Ranges, CyclesPerElementFasterThanTheSimdWidth) {
  // fp16 FMAC has 4 lanes: an element costs at least 1/4 cycle.
  expectMentions(archError(tinyArch(""), {"arch.pe.cycles_per_element.fp16.fmac=0.2"}),
                 {"arch.pe.cycles_per_element.fp16.fmac", "'0.2'", "out of range", "arch.pe.lanes.fp16.fmac = 1/4"});
}

TEST(Ranges, MoreColorsThanTheFiveBitColorFieldHolds) {
  // 5 bits hold 2^5 = 32 colors, so 40 is out of [1, 32].
  expectMentions(archError(tinyArch("  fabric:\n    color_bits: 5\n    colors: 40\n")),
                 {"arch.fabric.colors", "'40'", "[1, 32]", "5-bit", "arch.fabric.color_bits"});
}

TEST(Ranges, MoreColorsThanTheThreeBitColorFieldHolds) {
  // 3 bits hold 2^3 = 8 colors, so 9 is out of [1, 8] ...
  expectMentions(archError(tinyArch("  fabric:\n    color_bits: 3\n    colors: 9\n")),
                 {"arch.fabric.colors", "'9'", "[1, 8]", "3-bit"});
  // ... and so is the preset's 24 once only color_bits is lowered.
  expectMentions(archError(tinyArch(""), {"arch.fabric.color_bits=3"}), {"arch.fabric.colors", "'24'", "[1, 8]"});
}

TEST(Ranges, ColorCountsAtTheLimitAreAccepted) {
  for (const auto& [bits, colors] : std::map<int, int>{{3, 8}, {5, 32}, {1, 2}}) {
    ConfigTree tree = layered(tinyArch(""), {"arch.fabric.color_bits=" + std::to_string(bits),
                                             "arch.fabric.colors=" + std::to_string(colors)});
    ParamReader params(tree);
    EXPECT_EQ(ArchConfig::read(params).fabric.colors, unsigned(colors)) << bits << " bits";
  }
}

TEST(Ranges, ColorBitsBeyondTheKernelsFiveBits) {
  expectMentions(archError(tinyArch("  fabric:\n    color_bits: 6\n")), {"arch.fabric.color_bits", "[1, 5]"});
}

TEST(Ranges, NegativeInjectionRate) {
  const std::string message = configErrorOf([] {
    ConfigTree tree = layered(tinyArch("  fabric:\n    routing: xy\n") +
                              "workload:\n  type: noc\n  injection_rate: -0.1\n");
    ParamReader params(tree);
    const ArchConfig arch = ArchConfig::read(params);
    noc::NocConfig::read(params, arch);
  });
  expectMentions(message, {"workload.injection_rate", "'-0.1'", "out of range", "a number in [0, 1]"});
}

TEST(Ranges, VcdRegionMustLieInTheMeshAndBeOrdered) {
  auto runError = [](const std::vector<std::string>& overrides) {
    return configErrorOf([&] {
      ConfigTree tree = layered(tinyArch(""), overrides);
      ParamReader params(tree);
      const ArchConfig arch = ArchConfig::read(params);
      RunConfig::read(params, arch);
    });
  };
  // tiny is 8 wide: x0 in [0, 7].
  expectMentions(runError({"run.vcd.region.x0=8"}), {"run.vcd.region.x0", "[0, 7]"});
  // x1 may not lie left of x0 = 5: [5, 7].
  expectMentions(runError({"run.vcd.region.x0=5", "run.vcd.region.x1=4"}), {"run.vcd.region.x1", "[5, 7]"});
  // tiny: (7 + 7) * 1 + 2 * 2 = 18-cycle crossing, so the watchdog must be >= 19.
  expectMentions(runError({"run.watchdog_cycles=0"}), {"run.watchdog_cycles", "[19, ", "18 cycles"});
}

TEST(RunConfig, DefaultsAreAFourByFourRegionAndA100kWatchdog) {
  ConfigTree tree = layered(tinyArch(""), {"run.vcd.region.x0=6"});
  ParamReader params(tree);
  const ArchConfig arch = ArchConfig::read(params);
  const RunConfig run = RunConfig::read(params, arch);
  EXPECT_EQ(run.watchdogCycles, 100000u);
  // x1 defaults to min(width - 1, x0 + 3) = min(7, 9) = 7; y: 0 .. 3.
  EXPECT_EQ(run.vcdRegion.x0, 6u);
  EXPECT_EQ(run.vcdRegion.x1, 7u);
  EXPECT_EQ(run.vcdRegion.y0, 0u);
  EXPECT_EQ(run.vcdRegion.y1, 3u);
}

TEST(MissingKeys, RequiredKeyWithoutAPresetNamesTheKeyAndTheWaysToSetIt) {
  // No arch.preset: nothing supplies the mesh, which ArchConfig reads first.
  expectMentions(archError("arch:\n  fabric:\n    routing: xy\n"),
                 {"arch.mesh.width", "missing", "--set arch.mesh.width=", "arch.preset"});
}

TEST(MissingKeys, EveryRequiredArchKeyIsReportedWhenItAloneIsMissing) {
  // A complete arch section without a preset, minus one key at a time.
  const std::map<std::string, std::string> complete = {
      {"arch.mesh.width", "4"},         {"arch.mesh.height", "4"},
      {"arch.clock_hz", "1e9"},         {"arch.pe.sram_bytes", "1024"},
      {"arch.fabric.color_bits", "5"},  {"arch.fabric.colors", "8"},
      {"arch.fabric.queue_depth", "2"}, {"arch.fabric.hop_latency_cycles", "1"},
      {"arch.fabric.ramp_latency_cycles", "0"}, {"arch.fabric.routing", "xy"},
      {"arch.fabric.arbitration", "fixed_priority"},
      {"arch.pe.sram_banks", "8"},      {"arch.pe.sram_bank_word_bytes", "2"},
      {"arch.pe.sram_read_ports", "2"}, {"arch.pe.threads", "8"},
      {"arch.pe.tasks", "64"},          {"arch.pe.data_tasks", "24"},
      {"arch.pe.op_overhead_cycles", "2"}, {"arch.pe.task_start_cycles", "2"},
      {"arch.pe.index_registers", "16"}, {"arch.pe.ramp_inbox_depth", "2"},
      {"arch.io.bandwidth_bytes_per_s", "150e9"},
      {"arch.io.channels_per_edge", "60"}, {"arch.memoryx.capacity_bytes", "4e12"},
      {"arch.memoryx.bandwidth_bytes_per_s", "150e9"}, {"arch.memoryx.optimizer_flops_per_s", "1e12"},
      {"arch.memoryx.latency_s", "1e-6"}, {"arch.memoryx.prefetch_layers", "1"},
      {"arch.swarmx.nic_bandwidth_bytes_per_s", "12.5e9"}, {"arch.swarmx.nics_per_link", "12"},
      {"arch.swarmx.fan_out", "4"}, {"arch.swarmx.node_latency_s", "1e-6"}, {"arch.cluster.systems", "1"},
      {"arch.pe.lanes.fp16.fmac", "4"}, {"arch.pe.lanes.fp16.fadd", "4"},
      {"arch.pe.lanes.fp16.fmul", "4"}, {"arch.pe.lanes.fp16.fmov", "4"},
      {"arch.pe.lanes.mixed.fmac", "2"}, {"arch.pe.lanes.mixed.fadd", "2"},
      {"arch.pe.lanes.mixed.fmul", "2"}, {"arch.pe.lanes.mixed.fmov", "2"},
      {"arch.pe.lanes.fp32.fmac", "1"}, {"arch.pe.lanes.fp32.fadd", "2"},
      {"arch.pe.lanes.fp32.fmul", "1"}, {"arch.pe.lanes.fp32.fmov", "2"},
      {"arch.pe.cycles_per_element.fp16.fmac", "0.25"}, {"arch.pe.cycles_per_element.fp16.fadd", "0.25"},
      {"arch.pe.cycles_per_element.fp16.fmul", "0.25"}, {"arch.pe.cycles_per_element.fp16.fmov", "0.25"},
      {"arch.pe.cycles_per_element.mixed.fmac", "0.5"}, {"arch.pe.cycles_per_element.mixed.fadd", "0.5"},
      {"arch.pe.cycles_per_element.mixed.fmul", "0.5"}, {"arch.pe.cycles_per_element.mixed.fmov", "0.5"},
      {"arch.pe.cycles_per_element.fp32.fmac", "2.5"}, {"arch.pe.cycles_per_element.fp32.fadd", "0.5"},
      {"arch.pe.cycles_per_element.fp32.fmul", "1"}, {"arch.pe.cycles_per_element.fp32.fmov", "0.5"},
      {"arch.pe.fabric_input_cycles", "1"}, {"arch.fabric.route_switch_cycles", "0"}};
  for (const auto& [missing, unused] : complete) {
    ConfigTree tree;
    for (const auto& [key, value] : complete)
      if (key != missing) tree.set(key, value, "test");
    const std::string message = configErrorOf([&] {
      ParamReader params(tree);
      ArchConfig::read(params);
    });
    expectMentions(message, {missing.c_str(), "missing"});
  }
}

TEST(MissingKeys, TheMessageForAWorkloadKeyDoesNotSendTheUserToAPreset) {
  const std::string message = configErrorOf([] {
    ConfigTree tree = layered(tinyArch(""));
    ParamReader params(tree);
    params.text("workload.type");
  });
  expectMentions(message, {"workload.type", "missing"});
  EXPECT_EQ(message.find("arch.preset"), std::string::npos) << message;
}

TEST(UnknownKeys, TypoInsideArchIsRejectedWithItsOrigin) {
  ConfigTree tree = layered(tinyArch("  fabric:\n    queue_dept: 8\n"));
  ParamReader params(tree);
  ArchConfig::read(params);  // every known arch key reads fine
  expectMentions(configErrorOf([&] { params.rejectUnknownKeys("arch."); }),
                 {"unknown configuration key", "arch.fabric.queue_dept", "test.yaml"});
}

TEST(UnknownKeys, EveryUnreadKeyIsListedAndOnlyUnderThePrefix) {
  ConfigTree tree = layered(tinyArch("  mesh:\n    depth: 3\n") + "workload:\n  tpye: noc\n",
                            {"run.vcd.regoin.x0=1"});
  ParamReader params(tree);
  ArchConfig::read(params);
  const std::string message = configErrorOf([&] { params.rejectUnknownKeys(); });
  expectMentions(message, {"arch.mesh.depth (test.yaml)", "workload.tpye (test.yaml)", "run.vcd.regoin.x0 (--set)"});
  // With the arch prefix, only the arch typo is reported.
  const std::string archOnly = configErrorOf([&] { params.rejectUnknownKeys("arch."); });
  EXPECT_NE(archOnly.find("arch.mesh.depth"), std::string::npos) << archOnly;
  EXPECT_EQ(archOnly.find("workload.tpye"), std::string::npos) << archOnly;
}

TEST(UnknownKeys, ACompleteRunHasNone) {
  ConfigTree tree = layered(tinyArch("  fabric:\n    routing: xy\n") + "workload:\n  type: noc\n");
  ParamReader params(tree);
  const ArchConfig arch = ArchConfig::read(params);
  RunConfig::read(params, arch);
  params.choice("workload.type", {"noc"});
  noc::NocConfig::read(params, arch);
  EXPECT_NO_THROW(params.rejectUnknownKeys());
}

TEST(Resolved, EveryArchKeyWithItsCanonicalValue) {
  // Non-canonical spellings on purpose: each must come back canonical.
  ConfigTree tree = layered(tinyArch(
      "  mesh:\n    width: 1.6e1\n"      // integer 16
      "  clock_hz: 850e6\n"              // real 850000000
      "  fabric:\n    queue_depth: 8.0\n"  // integer 8
      "    routing: xy\n"));
  ParamReader params(tree);
  ArchConfig::read(params);

  using Kind = ResolvedParam::Kind;
  std::map<std::string, std::pair<Kind, std::string>> expected = {
      {"arch.preset", {Kind::Text, "tiny"}},
      {"arch.description", {Kind::Text, "8x8 WSE-2 fabric for tests"}},
      {"arch.mesh.width", {Kind::Integer, "16"}},
      {"arch.mesh.height", {Kind::Integer, "8"}},
      {"arch.clock_hz", {Kind::Real, "850000000"}},
      {"arch.pe.sram_bytes", {Kind::Integer, "49152"}},
      {"arch.fabric.color_bits", {Kind::Integer, "5"}},
      {"arch.fabric.colors", {Kind::Integer, "24"}},
      {"arch.fabric.queue_depth", {Kind::Integer, "8"}},
      {"arch.fabric.hop_latency_cycles", {Kind::Integer, "1"}},
      {"arch.fabric.ramp_latency_cycles", {Kind::Integer, "2"}},
      {"arch.fabric.route_switch_cycles", {Kind::Integer, "440"}},
      {"arch.fabric.routing", {Kind::Text, "xy"}},
      {"arch.fabric.arbitration", {Kind::Text, "round_robin"}},
      {"arch.pe.sram_banks", {Kind::Integer, "8"}},
      {"arch.pe.sram_bank_word_bytes", {Kind::Integer, "2"}},
      {"arch.pe.sram_read_ports", {Kind::Integer, "2"}},
      {"arch.pe.threads", {Kind::Integer, "8"}},
      {"arch.pe.tasks", {Kind::Integer, "64"}},
      {"arch.pe.data_tasks", {Kind::Integer, "24"}},
      {"arch.pe.op_overhead_cycles", {Kind::Integer, "2"}},
      {"arch.pe.task_start_cycles", {Kind::Integer, "2"}},
      {"arch.pe.fabric_input_cycles", {Kind::Integer, "1"}},
      {"arch.pe.index_registers", {Kind::Integer, "16"}},
      {"arch.pe.ramp_inbox_depth", {Kind::Integer, "4"}},
      {"arch.io.bandwidth_bytes_per_s", {Kind::Real, "150000000000"}},
      {"arch.io.channels_per_edge", {Kind::Integer, "60"}},
      {"arch.memoryx.capacity_bytes", {Kind::Integer, "4000000000000"}},
      {"arch.memoryx.bandwidth_bytes_per_s", {Kind::Real, "150000000000"}},
      {"arch.memoryx.optimizer_flops_per_s", {Kind::Real, "1000000000000"}},
      {"arch.memoryx.latency_s", {Kind::Real, "9.9999999999999995e-07"}},
      {"arch.memoryx.prefetch_layers", {Kind::Integer, "1"}},
      {"arch.swarmx.nic_bandwidth_bytes_per_s", {Kind::Real, "12500000000"}},
      {"arch.swarmx.nics_per_link", {Kind::Integer, "12"}},
      {"arch.swarmx.fan_out", {Kind::Integer, "4"}},
      {"arch.swarmx.node_latency_s", {Kind::Real, "9.9999999999999995e-07"}},
      {"arch.cluster.systems", {Kind::Integer, "1"}},
      {"arch.firmware.summa_loop_cycles", {Kind::Integer, "14"}},
      {"arch.firmware.cannon_loop_cycles", {Kind::Integer, "14"}},
      {"arch.firmware.meshgemm_loop_cycles", {Kind::Integer, "0"}},
      {"arch.firmware.weight_stream_loop_cycles", {Kind::Integer, "0"}},
      {"arch.firmware.weight_stream_reduction", {Kind::Text, "auto"}},
      {"arch.firmware.weight_grad_slices", {Kind::Integer, "4"}},
      // The cost side (tiny's own system power and usable area, the rest wse2's).
      {"arch.energy.fabric.leakage_pw_per_bit", {Kind::Real, "200"}},
      {"arch.energy.fabric.queue_read_pj", {Kind::Real, "0.29999999999999999"}},
      {"arch.energy.fabric.queue_write_pj", {Kind::Real, "0.29999999999999999"}},
      {"arch.energy.fabric.ramp_pj", {Kind::Real, "0.29999999999999999"}},
      {"arch.energy.fabric.wire_bits", {Kind::Integer, "38"}},
      {"arch.energy.fabric.wire_pj_per_bit_mm", {Kind::Real, "0.050000000000000003"}},
      {"arch.energy.op_pj.fp16.fadd", {Kind::Real, "0.10000000000000001"}},
      {"arch.energy.op_pj.fp16.fmac", {Kind::Real, "0.375"}},
      {"arch.energy.op_pj.fp16.fmov", {Kind::Real, "0.025000000000000001"}},
      {"arch.energy.op_pj.fp16.fmul", {Kind::Real, "0.27500000000000002"}},
      {"arch.energy.op_pj.fp32.fadd", {Kind::Real, "0.22500000000000001"}},
      {"arch.energy.op_pj.fp32.fmac", {Kind::Real, "1.1499999999999999"}},
      {"arch.energy.op_pj.fp32.fmov", {Kind::Real, "0.050000000000000003"}},
      {"arch.energy.op_pj.fp32.fmul", {Kind::Real, "0.92500000000000004"}},
      {"arch.energy.op_pj.mixed.fadd", {Kind::Real, "0.22500000000000001"}},
      {"arch.energy.op_pj.mixed.fmac", {Kind::Real, "0.5"}},
      {"arch.energy.op_pj.mixed.fmov", {Kind::Real, "0.025000000000000001"}},
      {"arch.energy.op_pj.mixed.fmul", {Kind::Real, "0.27500000000000002"}},
      {"arch.energy.pe.active_cycle_pj", {Kind::Real, "6"}},
      {"arch.energy.pe.idle_cycle_pj", {Kind::Real, "3"}},
      {"arch.energy.pe.logic_leakage_w", {Kind::Real, "0.002"}},
      {"arch.energy.sram.leakage_pw_per_bit", {Kind::Real, "50"}},
      {"arch.energy.sram.read_pj_per_byte", {Kind::Real, "0.3125"}},
      {"arch.energy.sram.reference_bank_bytes", {Kind::Real, "8192"}},
      {"arch.energy.sram.write_pj_per_byte", {Kind::Real, "0.3125"}},
      {"arch.energy.system.io_ring_pj_per_byte", {Kind::Real, "80"}},
      {"arch.energy.system.memoryx_pj_per_byte", {Kind::Real, "162.5"}},
      {"arch.energy.system.optimizer_pj_per_parameter", {Kind::Real, "1000"}},
      {"arch.energy.system.static_w", {Kind::Real, "0.34339999999999998"}},
      {"arch.energy.system.swarmx_pj_per_byte", {Kind::Real, "80"}},
      {"arch.area.pe_logic_mm2", {Kind::Real, "0.029000000000000001"}},
      {"arch.area.router_base_mm2", {Kind::Real, "0.002"}},
      {"arch.area.router_bit_um2", {Kind::Real, "0.25"}},
      {"arch.area.spare_pe_fraction", {Kind::Real, "0.14016999999999999"}},
      {"arch.area.sram_bit_um2", {Kind::Real, "0.027"}},
      {"arch.area.sram_periphery_um2_per_sqrt_bit", {Kind::Real, "4"}},
      {"arch.area.wafer_usable_mm2", {Kind::Real, "3.968"}},
  };
  const char* lanes[][5] = {{"fp16", "4", "4", "4", "4"}, {"mixed", "2", "2", "2", "2"}, {"fp32", "1", "2", "1", "2"}};
  const char* ops[] = {"fmac", "fadd", "fmul", "fmov"};
  for (const auto& row : lanes)
    for (int op = 0; op < 4; ++op)
      expected[std::string("arch.pe.lanes.") + row[0] + "." + ops[op]] = {Kind::Integer, row[op + 1]};
  // 1 / lanes, but the fp32 FMAC's fitted 2.49652 (docs/validation.md).
  const char* cyclesPerElement[][5] = {{"fp16", "0.25", "0.25", "0.25", "0.25"},
                                       {"mixed", "0.5", "0.5", "0.5", "0.5"},
                                       {"fp32", "2.4965199999999999", "0.5", "1", "0.5"}};
  for (const auto& row : cyclesPerElement)
    for (int op = 0; op < 4; ++op)
      expected[std::string("arch.pe.cycles_per_element.") + row[0] + "." + ops[op]] = {Kind::Real, row[op + 1]};
  std::map<std::string, std::pair<Kind, std::string>> actual;
  for (const auto& [key, param] : params.resolved()) actual[key] = {param.kind, param.text};
  EXPECT_EQ(actual, expected);
}

TEST(Resolved, FallbacksAreRecordedToo) {
  // A key nobody set still appears, with the value the run used.
  ConfigTree tree = layered(tinyArch(""));
  ParamReader params(tree);
  const ArchConfig arch = ArchConfig::read(params);
  RunConfig::read(params, arch);
  ASSERT_EQ(params.resolved().count("run.watchdog_cycles"), 1u);
  EXPECT_EQ(params.resolved().at("run.watchdog_cycles").text, "100000");
  EXPECT_EQ(params.resolved().at("run.vcd.region.x1").text, "3");
}

TEST(TypedReads, FlagsAcceptYamlBooleansCanonically) {
  ConfigTree tree;
  tree.set("run.a", "yes", "test");
  tree.set("run.b", "off", "test");
  tree.set("run.c", "maybe", "test");
  ParamReader params(tree);
  EXPECT_TRUE(params.flag("run.a"));
  EXPECT_FALSE(params.flag("run.b"));
  EXPECT_EQ(params.resolved().at("run.a").text, "true");
  EXPECT_EQ(params.resolved().at("run.b").text, "false");
  expectMentions(configErrorOf([&] { params.flag("run.c"); }), {"run.c", "'maybe'", "true or false"});
}

TEST(TypedReads, IntegersBeyondDoublePrecisionAreReadExactlyOrRejected) {
  ConfigTree tree;
  tree.set("workload.seed", "9007199254740993", "test");
  ParamReader params(tree);
  std::int64_t value = 0;
  try {
    value = params.integer("workload.seed", 0, std::int64_t(1) << 62);
  } catch (const ConfigError&) {
    return;  // rejecting a value it cannot represent would also be correct
  }
  EXPECT_EQ(value, 9007199254740993LL);
  EXPECT_EQ(params.resolved().at("workload.seed").text, "9007199254740993");
}

TEST(Choice, AReadersDefaultOutsideItsOptionsIsABugNamedAsOne) {
  // The run file leaves the key unset, so the reader's own default is taken:
  // not being one of its options is the reader's fault, not the user's.
  ConfigTree tree = layered(tinyArch(""));
  ParamReader params(tree);
  try {
    params.choice("workload.pattern", {"uniform", "hotspot"}, std::string("transpose"));
    FAIL() << "a default outside the options was taken";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("workload.pattern: the reader's default 'transpose' is not one of its options uniform, hotspot"),
              std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace wsesim::config
