// `wsesim keys`: the catalogue of every key the readers declare, the defaults
// and their sources, and the descriptions behind docs/configuration.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "hw/common/ConfigError.h"
#include "hw/config/ConfigTree.h"
#include "testbench/keys/KeyDescriptions.h"
#include "testbench/keys/KeyTable.h"

namespace {

using namespace wsesim;

std::vector<keys::KeyTable> tables(const std::string& preset, const std::vector<std::string>& overrides) {
  const std::filesystem::path dir = config::defaultPresetDir();
  return keys::keyTables(keys::keyCatalogue(dir, preset, overrides), dir);
}

const keys::KeyTable& table(const std::vector<keys::KeyTable>& all, const std::string& name) {
  const auto t = std::find_if(all.begin(), all.end(), [&](const keys::KeyTable& t) { return t.name == name; });
  if (t == all.end()) throw std::runtime_error("no section " + name);
  return *t;
}

const keys::KeyRow& row(const std::vector<keys::KeyTable>& all, const std::string& section, const std::string& key) {
  const keys::KeyTable& t = table(all, section);
  const auto r = std::find_if(t.rows.begin(), t.rows.end(), [&](const keys::KeyRow& r) { return r.key == key; });
  if (r == t.rows.end()) throw std::runtime_error("no key " + key + " in " + section);
  return *r;
}

const std::vector<std::string> kWithModel = {"workload.model=gpt3-xl"};

TEST(Keys, DescribeEveryKeyAndNoOther) {
  const std::vector<keys::KeyTable> all = tables("wse2", kWithModel);
  std::vector<const keys::KeyDescription*> used;
  for (const keys::KeyTable& t : all)
    for (const keys::KeyRow& r : t.rows) {
      EXPECT_FALSE(r.meaning.empty()) << r.key << " (" << t.name << ") has no entry in testbench/keys/KeyDescriptions.cpp";
      used.push_back(keys::describe(t.name, r.key));
    }
  for (const keys::KeyDescription& d : keys::keyDescriptions())
    EXPECT_NE(std::find(used.begin(), used.end(), &d), used.end())
        << d.pattern << " (" << (d.section.empty() ? "any section" : d.section) << ") describes no key read";
}

TEST(Keys, FindKeysReadOnlyForSomeChoices) {
  const std::vector<keys::KeyTable> all = tables("wse2", kWithModel);
  // A hotspot needs packet mode (arch.fabric.routing = xy, not the preset's color): a pair of choices.
  EXPECT_EQ(row(all, "noc", "workload.hotspot.fraction").defaultValue, "0.1");
  EXPECT_EQ(row(all, "noc", "workload.broadcast_sources").range,
            "1 .. 24 (one color per source, at most arch.fabric.colors and one per PE)");
  EXPECT_EQ(row(all, "gemm", "workload.optimizer").range, "sgd, adam");  // only with workload.weights = memoryx
  EXPECT_EQ(row(all, "run", "run.max_cycles").defaultValue, "unset");
  EXPECT_EQ(row(all, "train", "run.wafer_timing_cache").type, "text");
  for (const keys::KeyTable& t : all) EXPECT_EQ(t.incomplete, "") << t.name;
}

TEST(Keys, DefaultsSayWhereTheyComeFrom) {
  const std::vector<keys::KeyTable> wse2 = tables("wse2", {});
  const keys::KeyRow& width = row(wse2, "arch", "arch.mesh.width");
  EXPECT_EQ(width.range, "1 .. 2^16 - 1");
  EXPECT_EQ(width.defaultValue, "750");
  EXPECT_EQ(width.source, "preset wse2: WSE-FACTS \"Wafer size\": largest user rectangle 750 x 994");
  EXPECT_EQ(row(wse2, "arch", "arch.mesh.height").source,
            "preset wse2: WSE-FACTS \"Wafer size\": largest user rectangle 750 x 994");
  // A lane count has no comment of its own: its precision's line speaks for it.
  EXPECT_EQ(row(wse2, "arch", "arch.pe.lanes.mixed.fadd").source,
            "preset wse2: WSE-FACTS PE \"fp16 x fp16 -> fp32 FMAC (fmachs)\": 2; other mixed ops: modelling choice");
  EXPECT_EQ(row(wse2, "arch", "arch.memoryx.latency_s").source,
            "preset wse2: not public — modelling choice: per storage access");
  EXPECT_EQ(row(wse2, "noc", "workload.injection_rate").defaultValue, "0.01");
  EXPECT_EQ(row(wse2, "noc", "workload.injection_rate").source, "built in");
  EXPECT_EQ(row(wse2, "gemm", "workload.m").defaultValue, "—");
  EXPECT_EQ(row(wse2, "gemm", "workload.m").source, "required");
  // A run's --set steers the readers but is no default.
  EXPECT_EQ(row(tables("wse2", kWithModel), "train", "workload.model").defaultValue, "—");

  // A preset based on another: its own values, and its base's for the rest.
  const std::vector<keys::KeyTable> small = tables("small", {});
  EXPECT_EQ(row(small, "arch", "arch.mesh.width").defaultValue, "64");
  EXPECT_EQ(row(small, "arch", "arch.mesh.width").source,
            "preset small: modelling choice: a 64 x 64 corner of a WSE-2 (integration tests, benchmarks)");
  EXPECT_EQ(row(small, "arch", "arch.pe.sram_bytes").source, "preset wse2: WSE-FACTS PE \"SRAM per PE\": 48 KiB");
  EXPECT_EQ(row(small, "chain_reduce", "workload.pes").range, "2 .. 64 (a chain runs along one row of the mesh)");
}

// train's model is required and the keys after it depend on the model
// file: a plain listing stands in the zoo's first model to reach them, says
// so, and still lists the model (and the batch) as required.
TEST(Keys, ListEveryTrainKeyWithoutAModel) {
  const std::vector<keys::KeyTable> plain = tables("wse2", {}), withModel = tables("wse2", kWithModel);
  const keys::KeyTable& train = table(plain, "train");
  EXPECT_EQ(train.incomplete, "");
  std::vector<std::string> listed, expected;
  for (const keys::KeyRow& r : train.rows) listed.push_back(r.key);
  for (const keys::KeyRow& r : table(withModel, "train").rows) expected.push_back(r.key);
  EXPECT_EQ(listed, expected);
  EXPECT_GE(listed.size(), 12u);
  for (const char* key : {"workload.model", "workload.batch"}) {
    EXPECT_EQ(row(plain, "train", key).defaultValue, "—") << key;
    EXPECT_EQ(row(plain, "train", key).source, "required") << key;
  }
  EXPECT_EQ(row(plain, "train", "workload.micro_batch").defaultValue, "auto");
  EXPECT_EQ(train.standIns, "workload.model=bert-large");  // the zoo's first model
  EXPECT_EQ(table(withModel, "train").standIns, "");
}

TEST(Keys, SayWhereAGivenValueStoppedAReader) {
  const std::vector<keys::KeyTable> all = tables("wse2", {"workload.model=no-such-model"});
  const keys::KeyTable& train = table(all, "train");
  ASSERT_EQ(train.rows.size(), 1u);
  EXPECT_EQ(train.rows[0].key, "workload.model");
  EXPECT_NE(train.incomplete.find("workload.model: no model 'no-such-model'"), std::string::npos) << train.incomplete;
}

TEST(Keys, RejectAnUnknownPreset) {
  try {
    tables("wse9", {});
    FAIL() << "no error";
  } catch (const config::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("wse9"), std::string::npos) << e.what();
  }
}

}  // namespace
