// The wafer side of the I/O ring: which channels feed which rows' edge
// routers, and at what rate.
#include <gtest/gtest.h>

#include "hw/config/ArchConfig.h"
#include "hw/config/ParamReader.h"
#include "hw/fabric/FabricError.h"
#include "hw/wafer/IoRingEdge.h"
#include "testbench/tests/config/ConfigTestUtil.h"

namespace wsesim::wafer {
namespace {

using fabric::Port;

config::ArchConfig preset(const std::string& name) {
  config::ConfigTree tree = config::testing::layered("arch:\n  preset: " + name + "\n", {});
  config::ParamReader params(tree);
  return config::ArchConfig::read(params);
}

// WSE-2: 994 rows, 60 channels per edge: bands of 16 or 17 rows, one
// channel each, the same bands on both edges; a channel carries 150 GB/s /
// 120 = 1.25 GB/s, 0.568 fp16 wavelets per 1.1 GHz cycle.
TEST(IoRingEdge, Wse2BandsOfSixteenOrSeventeenRows) {
  const IoRingEdge ring = preset("wse2").ioRingEdge(2);
  EXPECT_EQ(ring.channels(), 120u);
  EXPECT_EQ(ring.feeds(), 120u);
  std::uint32_t covered = 0;
  for (unsigned k = 0; k < 60; ++k) {
    EXPECT_EQ(ring.edge(k), Port::West);
    EXPECT_EQ(ring.edge(60 + k), Port::East);
    EXPECT_EQ(ring.rowBegin(k), covered) << k;  // bands tile the rows
    EXPECT_EQ(ring.rowBegin(60 + k), covered) << k;
    const std::uint32_t rows = ring.rowEnd(k) - ring.rowBegin(k);
    EXPECT_TRUE(rows == 16 || rows == 17) << k;
    covered = ring.rowEnd(k);
  }
  EXPECT_EQ(covered, 994u);
  EXPECT_EQ(ring.feed(Port::West, 0), ring.feed(Port::West, 15));
  EXPECT_NE(ring.feed(Port::West, 0), ring.feed(Port::West, 17));
  EXPECT_NE(ring.feed(Port::West, 5), ring.feed(Port::East, 5));
  EXPECT_EQ(ring.channelCount(ring.feed(Port::East, 993)), 1u);
  EXPECT_NEAR(ring.waveletsPerCycle(0), 150e9 / 120 / 1.1e9 / 2, 1e-12);
}

// The 8-row tiny preset keeps the system's 60 channels per edge: 7 or 8 to
// a row, their bandwidth added up, every channel used.
TEST(IoRingEdge, ShortMeshGivesEachRowSeveralChannels) {
  const IoRingEdge ring = preset("tiny").ioRingEdge(2);
  EXPECT_EQ(ring.feeds(), 16u);
  unsigned channels = 0;
  for (std::uint32_t y = 0; y < 8; ++y)
    for (const Port edge : {Port::West, Port::East}) {
      const unsigned f = ring.feed(edge, y);
      EXPECT_TRUE(ring.channelCount(f) == 7 || ring.channelCount(f) == 8) << y;
      EXPECT_EQ(ring.edge(ring.firstChannel(f)), edge);
      EXPECT_NEAR(ring.waveletsPerCycle(f), ring.channelCount(f) * ring.waveletsPerChannelCycle(), 1e-12);
      channels += ring.channelCount(f);
    }
  EXPECT_EQ(channels, 120u);
}

TEST(IoRingEdge, NorthSouthAndRowsOffTheMeshAreErrors) {
  const IoRingEdge ring(4, 2, 1.0);
  EXPECT_THROW(ring.feed(Port::North, 0), fabric::FabricError);
  EXPECT_THROW(ring.feed(Port::South, 3), fabric::FabricError);
  EXPECT_THROW(ring.feed(Port::West, 4), fabric::FabricError);
}

}  // namespace
}  // namespace wsesim::wafer
