// The system keys: the wse2 preset's values, and out-of-range values named
// with their key and limit.
#include <gtest/gtest.h>

#include "hw/config/ArchConfig.h"
#include "hw/config/ParamReader.h"
#include "testbench/tests/config/ConfigTestUtil.h"

namespace wsesim::config {
namespace {

using testing::configErrorOf;
using testing::expectMentions;
using testing::layered;

ArchConfig readArch(const std::vector<std::string>& overrides) {
  ConfigTree tree = layered("arch:\n  preset: wse2\n", overrides);
  ParamReader params(tree);
  return ArchConfig::read(params);
}

TEST(SystemConfig, Wse2PresetValues) {
  const ArchConfig a = readArch({});
  EXPECT_EQ(a.io.channelsPerEdge, 60u);
  EXPECT_EQ(a.memoryx.capacityBytes, 4000000000000u);
  EXPECT_EQ(a.memoryx.prefetchLayers, 1u);
  EXPECT_EQ(a.swarmx.fanOut, 4u);
  EXPECT_DOUBLE_EQ(a.swarmx.linkBandwidthBytesPerS(), 150e9);  // 12 x 100 Gb/s
  EXPECT_EQ(a.cluster.systems, 1u);
}

TEST(SystemConfig, OutOfRangeValuesNameTheKeyAndTheLimit) {
  expectMentions(configErrorOf([] { readArch({"arch.swarmx.fan_out=1"}); }),
                 {"arch.swarmx.fan_out", "'1'", "--set", "[2, 64]"});
  expectMentions(configErrorOf([] { readArch({"arch.cluster.systems=4096"}); }),
                 {"arch.cluster.systems", "[1, 2048]"});
  expectMentions(configErrorOf([] { readArch({"arch.io.channels_per_edge=0"}); }),
                 {"arch.io.channels_per_edge", "[1, 65535]"});
  expectMentions(configErrorOf([] { readArch({"arch.memoryx.latency_s=-1"}); }),
                 {"arch.memoryx.latency_s", "[0, 1]"});
}

}  // namespace
}  // namespace wsesim::config
