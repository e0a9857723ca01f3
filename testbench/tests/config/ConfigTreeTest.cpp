// ConfigTree: YAML loading, presets and their `base:` chains, and the
// precedence preset < file < --set; structural errors (bad YAML, unknown
// sections, unknown or self-based presets) as ConfigErrors.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/config/ConfigTree.h"
#include "hw/config/ParamReader.h"
#include "testbench/tests/config/ConfigTestUtil.h"

namespace wsesim::config {
namespace {

using testing::configErrorOf;
using testing::expectMentions;
using testing::layered;
using testing::ScratchDir;

std::string originOf(const ConfigTree& tree, const std::string& key) {
  const ConfigValue* v = tree.find(key);
  return v ? v->origin : "<missing>";
}
std::string textOf(const ConfigTree& tree, const std::string& key) {
  const ConfigValue* v = tree.find(key);
  return v ? v->text : "<missing>";
}

TEST(Presets, TheSourceTreeHoldsWse2Wse3TinyAndSmall) {
  // hw/config/presets/{small,tiny,wse2,wse3}.yaml, listed sorted by name.
  EXPECT_EQ(presetNames(defaultPresetDir()), (std::vector<std::string>{"small", "tiny", "wse2", "wse3"}));
}

TEST(Presets, Wse2MatchesTheWseFactsSheet) {
  ConfigTree tree = layered("arch:\n  preset: wse2\n");
  ParamReader params(tree);
  const ArchConfig a = ArchConfig::read(params);
  // docs/hardware-facts.md: largest user rectangle 750 x 994; SRAM per PE
  // 48 KiB = 49,152 B; 24 routable colors; wavelet has a 5-bit color; clock
  // 1.1 GHz (WaferLLM); hop ~1 cycle, ramp on/off ~2 cycles; static per-color routes.
  EXPECT_EQ(a.mesh.width, 750u);
  EXPECT_EQ(a.mesh.height, 994u);
  EXPECT_EQ(a.pe.sramBytes, 49152u);
  EXPECT_EQ(a.fabric.colors, 24u);
  EXPECT_EQ(a.fabric.colorBits, 5u);
  EXPECT_DOUBLE_EQ(a.clockHz, 1.1e9);
  EXPECT_EQ(a.fabric.hopLatencyCycles, 1u);
  EXPECT_EQ(a.fabric.rampLatencyCycles, 2u);
  EXPECT_EQ(a.fabric.routing, fabric::routingMode<fabric::ColorRouting>());
  EXPECT_EQ(originOf(tree, "arch.mesh.width"), "preset wse2");
}

TEST(Presets, TinyInheritsEverythingButItsMeshFromWse2) {
  ConfigTree tree = layered("arch:\n  preset: tiny\n");
  ParamReader params(tree);
  const ArchConfig a = ArchConfig::read(params);
  // tiny.yaml sets description and an 8 x 8 mesh; `base: wse2` supplies the rest.
  EXPECT_EQ(a.mesh.width, 8u);
  EXPECT_EQ(a.mesh.height, 8u);
  EXPECT_EQ(a.description, "8x8 WSE-2 fabric for tests");
  EXPECT_EQ(originOf(tree, "arch.mesh.width"), "preset tiny");
  EXPECT_EQ(originOf(tree, "arch.description"), "preset tiny");
  // Inherited wse2 values, and their origin says so.
  EXPECT_EQ(a.pe.sramBytes, 49152u);
  EXPECT_EQ(a.fabric.colors, 24u);
  EXPECT_EQ(a.fabric.colorBits, 5u);
  EXPECT_EQ(a.fabric.queueDepth, 4u);
  EXPECT_DOUBLE_EQ(a.clockHz, 1.1e9);
  EXPECT_EQ(originOf(tree, "arch.pe.sram_bytes"), "preset wse2");
  EXPECT_EQ(originOf(tree, "arch.fabric.queue_depth"), "preset wse2");
  // `base` itself is not a parameter.
  EXPECT_EQ(tree.find("arch.base"), nullptr);
}

TEST(Presets, Wse3OverridesTheMeshOfItsWse2Base) {
  ConfigTree tree = layered("arch:\n  preset: wse3\n");
  ParamReader params(tree);
  const ArchConfig a = ArchConfig::read(params);
  // WSE-FACTS: WSE-3 fabric the SDK exposes is 762 x 1172; colors come from wse2.
  EXPECT_EQ(a.mesh.width, 762u);
  EXPECT_EQ(a.mesh.height, 1172u);
  EXPECT_EQ(a.fabric.colors, 24u);
  EXPECT_EQ(originOf(tree, "arch.mesh.height"), "preset wse3");
  EXPECT_EQ(originOf(tree, "arch.fabric.colors"), "preset wse2");
}

TEST(Layering, FileValuesOverrideThePreset) {
  ConfigTree tree = layered(
      "arch:\n"
      "  preset: tiny\n"
      "  mesh:\n"
      "    width: 16\n"
      "  fabric:\n"
      "    queue_depth: 8\n");
  // width: file 16 beats tiny's 8; queue_depth: file 8 beats wse2's 4;
  // height is still tiny's 8.
  EXPECT_EQ(textOf(tree, "arch.mesh.width"), "16");
  EXPECT_EQ(originOf(tree, "arch.mesh.width"), "test.yaml");
  EXPECT_EQ(textOf(tree, "arch.fabric.queue_depth"), "8");
  EXPECT_EQ(originOf(tree, "arch.fabric.queue_depth"), "test.yaml");
  EXPECT_EQ(textOf(tree, "arch.mesh.height"), "8");
  EXPECT_EQ(originOf(tree, "arch.mesh.height"), "preset tiny");
}

TEST(Layering, SetOverridesTheFileAndThePreset) {
  ConfigTree tree = layered("arch:\n  preset: tiny\n  mesh:\n    width: 16\n",
                            {"arch.mesh.width=32", "arch.fabric.colors=7", "workload.injection_rate=0.02"});
  // width: --set 32 beats the file's 16; colors: --set 7 beats wse2's 24.
  EXPECT_EQ(textOf(tree, "arch.mesh.width"), "32");
  EXPECT_EQ(originOf(tree, "arch.mesh.width"), "--set");
  EXPECT_EQ(textOf(tree, "arch.fabric.colors"), "7");
  EXPECT_EQ(originOf(tree, "arch.fabric.colors"), "--set");
  EXPECT_EQ(textOf(tree, "workload.injection_rate"), "0.02");
  EXPECT_EQ(textOf(tree, "arch.mesh.height"), "8");
}

TEST(Layering, SetCanChooseThePresetItself) {
  // --set is applied before the preset chain, so it picks the chain: wse3
  // instead of the file's tiny gives 762 x 1172.
  ConfigTree tree = layered("arch:\n  preset: tiny\n", {"arch.preset=wse3"});
  EXPECT_EQ(textOf(tree, "arch.mesh.width"), "762");
  EXPECT_EQ(textOf(tree, "arch.mesh.height"), "1172");
}

TEST(Layering, SetValuesAreYamlScalars) {
  ConfigTree tree;
  tree.applyOverride("arch.description='quoted # text'");
  tree.applyOverride("arch.mesh.width=12 # trailing comment");
  EXPECT_EQ(textOf(tree, "arch.description"), "quoted # text");
  EXPECT_EQ(textOf(tree, "arch.mesh.width"), "12");
}

TEST(Layering, MalformedSetIsAConfigErrorNamingTheKey) {
  ConfigTree tree;
  expectMentions(configErrorOf([&] { tree.applyOverride("arch.mesh.width"); }),
                 {"arch.mesh.width", "dotted.key=value"});
  expectMentions(configErrorOf([&] { tree.applyOverride("=5"); }), {"dotted.key=value"});
  expectMentions(configErrorOf([&] { tree.applyOverride("arch.mesh.width=[1, 2]"); }),
                 {"arch.mesh.width", "single scalar"});
  expectMentions(configErrorOf([&] { tree.applyOverride("mesh.width=4"); }),
                 {"mesh.width", "arch., workload. or run."});
}

TEST(YamlErrors, UnknownTopLevelSection) {
  expectMentions(configErrorOf([] { ConfigTree::fromText("arhc:\n  preset: tiny\n", "test.yaml"); }),
                 {"test.yaml", "unknown section 'arhc'", "arch, workload, run"});
}

TEST(YamlErrors, InvalidYamlNamesTheFileAndTheLine) {
  // The flow sequence opened on line 1 is never closed.
  expectMentions(configErrorOf([] { ConfigTree::fromText("arch:\n  mesh: [1\n", "test.yaml"); }),
                 {"test.yaml", "not valid YAML", "line"});
}

TEST(YamlErrors, TopLevelMustBeAMapping) {
  expectMentions(configErrorOf([] { ConfigTree::fromText("- arch\n- run\n", "test.yaml"); }),
                 {"test.yaml", "arch, workload, run"});
}

TEST(YamlErrors, EmptyValuesAndListsNameTheirKey) {
  expectMentions(configErrorOf([] { ConfigTree::fromText("arch:\n  mesh:\n    width:\n", "test.yaml"); }),
                 {"arch.mesh.width", "test.yaml", "no value"});
  expectMentions(configErrorOf([] { ConfigTree::fromText("arch:\n  mesh:\n    width: [8, 16]\n", "test.yaml"); }),
                 {"arch.mesh.width", "lists are not accepted"});
}

TEST(YamlErrors, DottedKeysInTheFileAreRejected) {
  expectMentions(configErrorOf([] { ConfigTree::fromText("arch:\n  mesh.width: 8\n", "test.yaml"); }),
                 {"mesh.width", "test.yaml"});
}

TEST(YamlErrors, NonScalarMappingKeyIsAConfigError) {
  expectMentions(configErrorOf([] { ConfigTree::fromText("{[1, 2]: 3}\n", "test.yaml"); }), {"test.yaml"});
  expectMentions(configErrorOf([] { ConfigTree::fromText("arch:\n  {[1]: 2}\n", "test.yaml"); }),
                 {"test.yaml", "arch"});
}

TEST(PresetErrors, UnknownPresetListsTheKnownOnes) {
  expectMentions(configErrorOf([] { layered("arch:\n  preset: wse9\n"); }),
                 {"arch.preset", "wse9", "test.yaml", "known: small, tiny, wse2, wse3"});
}

TEST(PresetErrors, PresetBasedOnItself) {
  ScratchDir dir;
  dir.write("loop.yaml", "base: loop\nmesh:\n  width: 4\n");
  expectMentions(configErrorOf([&] { layered("arch:\n  preset: loop\n", {}, dir.path()); }),
                 {"preset 'loop'", "based on itself"});
}

TEST(PresetErrors, CycleOfTwoPresetsIsAConfigError) {
  ScratchDir dir;
  dir.write("pa.yaml", "base: pb\n");
  dir.write("pb.yaml", "base: pa\n");
  // Must terminate with an error rather than follow pa -> pb -> pa forever.
  expectMentions(configErrorOf([&] { layered("arch:\n  preset: pa\n", {}, dir.path()); }), {"pa"});
}

TEST(PresetErrors, CycleOfTwoPresetsNamesTheWholeChain) {
  ScratchDir dir;
  dir.write("pa.yaml", "base: pb\n");
  dir.write("pb.yaml", "base: pa\n");
  expectMentions(configErrorOf([&] { layered("arch:\n  preset: pa\n", {}, dir.path()); }), {"pa", "pb", "base"});
}

TEST(PresetErrors, MissingBasePresetIsBlamedOnThePresetThatNamesIt) {
  ScratchDir dir;
  dir.write("child.yaml", "base: wse9\n");
  const std::string message = configErrorOf([&] { layered("arch:\n  preset: child\n", {}, dir.path()); });
  expectMentions(message, {"wse9", "preset child", "base"});
  EXPECT_EQ(message.find("arch.preset = wse9"), std::string::npos) << message;
}

TEST(PresetErrors, NonScalarBaseIsAConfigError) {
  ScratchDir dir;
  dir.write("listbase.yaml", "base: [wse2]\n");
  expectMentions(configErrorOf([&] { layered("arch:\n  preset: listbase\n", {}, dir.path()); }),
                 {"listbase", "base"});
}

TEST(PresetErrors, PresetsFillOnlyArchKeys) {
  ScratchDir dir;
  dir.write("p.yaml", "mesh:\n  width: 4\n  height: 2\n");
  ConfigTree tree = layered("arch:\n  preset: p\nworkload:\n  type: noc\n", {}, dir.path());
  // Preset keys are placed under arch.; nothing else is added.
  EXPECT_EQ(textOf(tree, "arch.mesh.width"), "4");
  EXPECT_EQ(originOf(tree, "arch.mesh.width"), "preset p");
  EXPECT_EQ(tree.values().size(), 4u);  // arch.preset, arch.mesh.width, arch.mesh.height, workload.type
}

}  // namespace
}  // namespace wsesim::config
