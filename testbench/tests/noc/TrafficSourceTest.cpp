// A traffic source's packet creation times at tiny injection rates, where a
// geometric gap no longer fits in 64 bits (issue 23): such a source never
// fires, and gaps that do fit keep their distribution.
#include <gtest/gtest.h>

#include <cmath>

#include "testbench/noc/TrafficSource.h"

namespace wsesim::noc {
namespace {

TrafficPattern patternAtRate(double rate) {
  NocConfig c;
  c.pattern = Pattern::UniformRandom;
  c.injectionRate = rate;
  return TrafficPattern(c, fabric::MeshGeometry{8, 8});
}

TEST(TrafficSourceGap, AtRateOneInTenToTheThirtyNoPacketIsEverCreated) {
  // Mean gap 1e30 cycles: every one of these lies past 2^63 (the chance of a
  // gap below 2^63 is 9.2e18 / 1e30 = 1e-11 per draw).
  for (double rate : {1e-30, 1e-300}) {
    const TrafficPattern pattern = patternAtRate(rate);
    for (std::uint64_t seed = 1; seed <= 1000; ++seed) {
      TrafficSource s;
      s.rng = seed;
      pattern.firstPacket(s);
      ASSERT_EQ(s.createdAt, sim::kNever) << "rate " << rate << " seed " << seed;
    }
  }
}

TEST(TrafficSourceGap, TinyRatesThatFitKeepTheirGeometricMean) {
  // p = 1e-12: mean gap 1 / p = 1e12 cycles, standard deviation of one gap
  // ~1e12, so the mean of 20000 gaps is within 0.71% (1 sd) of 1e12: allow 3%.
  const TrafficPattern pattern = patternAtRate(1e-12);
  TrafficSource s;
  s.rng = 42;
  pattern.firstPacket(s);
  const std::uint64_t first = s.createdAt;
  constexpr int kGaps = 20000;
  for (int i = 0; i < kGaps; ++i) pattern.nextPacket(s);
  const double mean = double(s.createdAt - first) / kGaps;
  EXPECT_NEAR(mean, 1e12, 0.03e12);
}

TEST(TrafficSourceGap, GapsPastTwoToTheSixtyThreeBecomeNeverAtTheirExpectedShare) {
  // p = 2^-62: P(gap > 2^63) = (1 - p)^(2^63) = e^-2 = 13.5%. Of 20000 draws
  // (sd of the share 0.24%) allow 1.2% either side; every finite creation
  // time is below 2^63.
  const TrafficPattern pattern = patternAtRate(0x1p-62);
  int never = 0;
  constexpr int kDraws = 20000;
  for (int seed = 1; seed <= kDraws; ++seed) {
    TrafficSource s;
    s.rng = std::uint64_t(seed);
    pattern.firstPacket(s);
    if (s.createdAt == sim::kNever) ++never;
    else ASSERT_LT(s.createdAt, std::uint64_t(1) << 63);
  }
  EXPECT_NEAR(double(never) / kDraws, std::exp(-2.0), 0.012);
}

}  // namespace
}  // namespace wsesim::noc
