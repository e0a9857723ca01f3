// When the fabric's bands step at once (docs/fabric-model.md, "Splitting
// only where it pays"): fed host times per active router, the pacing keeps
// the split while it is not a quarter slower than one thread, turns to one
// thread when it is (an oversubscribed host), tries the split again every
// 1,024 cycles, and waits twice as long after each trial it lost after
// losing one. The cycles below are derived from BandPacing.h's constants.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "hw/fabric/BandPacing.h"

namespace wsesim::fabric {
namespace {

// Runs `cycles` cycles of 100 active routers each, costing `split` or
// `one` nanoseconds as the pacing chose; the cycles (from 1) after which
// its choice changed.
std::vector<std::uint64_t> changes(BandPacing& pacing, std::uint64_t cycles, std::uint64_t split, std::uint64_t one) {
  std::vector<std::uint64_t> at;
  for (std::uint64_t c = 1; c <= cycles; ++c) {
    const bool before = pacing.atOnce();
    pacing.cycleDone(before ? split : one, 100);
    if (pacing.atOnce() != before) at.push_back(c);
  }
  return at;
}

TEST(BandPacing, AFasterSplitKeepsItsPlaceBetweenTrials) {
  BandPacing pacing;
  // A trial of one thread after 1,024 cycles split, 24 cycles long, lost
  // by one thread: split again from cycle 1,048, the next trial at 2,072.
  EXPECT_EQ(changes(pacing, 2100, 50, 100), (std::vector<std::uint64_t>{1024, 1048, 2072, 2096}));
  EXPECT_TRUE(pacing.atOnce());
}

TEST(BandPacing, ASplitWithinAQuarterOfOneThreadStaysSplit) {
  BandPacing pacing;
  EXPECT_EQ(changes(pacing, 1100, 120, 100), (std::vector<std::uint64_t>{1024, 1048}));
  EXPECT_TRUE(pacing.atOnce());
}

TEST(BandPacing, ASlowerSplitGivesWayAndIsTriedLessOften) {
  BandPacing pacing;
  // Cycle 1,024: the trial of one thread begins and wins; one thread goes
  // on (no change at 1,048). Its first loss keeps the wait at 1,024: the
  // split's trial at 2,072 to 2,096 loses again, and the wait doubles to
  // 2,048 (the next trial at 4,144, lost, then 4,096: at 8,264).
  EXPECT_EQ(changes(pacing, 8300, 200, 100),
            (std::vector<std::uint64_t>{1024, 2072, 2096, 4144, 4168, 8264, 8288}));
  EXPECT_FALSE(pacing.atOnce());
}

}  // namespace
}  // namespace wsesim::fabric
