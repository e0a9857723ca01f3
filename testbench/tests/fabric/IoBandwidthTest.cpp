// The I/O ring's bandwidth as credit: wavelets go at the configured rate
// exactly, whichever cycles the simulation looks at, and nextAvailable()
// names the cycle in which one may go.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "hw/wafer/IoBandwidth.h"

namespace wsesim::wafer {
namespace {

// The cycles in which a stream that always has a wavelet waiting sends,
// `count` of them, the bandwidth looked at in every cycle.
std::vector<std::uint64_t> sendsLookingEveryCycle(double rate, std::size_t count) {
  IoBandwidth b(rate);
  std::vector<std::uint64_t> sends;
  for (std::uint64_t now = 0; sends.size() < count; ++now) {
    b.advance(now);
    if (!b.available()) continue;
    b.consume();
    sends.push_back(now);
  }
  return sends;
}

// The same, looked at only in the cycles nextAvailable() names (as the
// wafer does when nothing else can happen in between).
std::vector<std::uint64_t> sendsLookingWhenDue(double rate, std::size_t count) {
  IoBandwidth b(rate);
  std::vector<std::uint64_t> sends;
  for (std::uint64_t now = 0; sends.size() < count; now = b.nextAvailable(now + 1)) {
    b.advance(now);
    if (!b.available()) continue;
    b.consume();
    sends.push_back(now);
  }
  return sends;
}

// gemm_small's ring at 1e7 B/s: 8 of the tiny preset's 60 channels per
// edge share a row, 1e7 / 120 B/s each, fp32 at 1.1 GHz: one wavelet every
// 6600 cycles, the first once a cycle's worth has come in. Wavelet k goes
// in cycle 6600 k - 1 exactly, however many go; summing the credit cycle by
// cycle lost a cycle every few wavelets to rounding (19800, 26401, ...).
TEST(IoBandwidth, OneWaveletEvery6600CyclesExactly) {
  const double rate = 8 * (1e7 / (2.0 * 60) / 1.1e9 / 4);
  const std::vector<std::uint64_t> sends = sendsLookingEveryCycle(rate, 400);
  for (std::size_t k = 0; k < sends.size(); ++k) ASSERT_EQ(sends[k], 6600 * (k + 1) - 1) << k;
}

// Looking only in the cycles nextAvailable() names gives the same cycles as
// looking in every one, for rates whose multiples round awkwardly too.
TEST(IoBandwidth, SendsDoNotDependOnTheCyclesLookedAt) {
  for (const double rate : {8 * (1e7 / (2.0 * 60) / 1.1e9 / 4), 0.1, 1.0 / 3, 0.3, 0.7, 1e-5, 1.0, 1.7})
    EXPECT_EQ(sendsLookingWhenDue(rate, 300), sendsLookingEveryCycle(rate, 300)) << rate;
}

// A rate of one wavelet every n cycles sends the 300th in cycle 300 n - 1,
// not a cycle later for every few whose credit rounds below one.
TEST(IoBandwidth, WholePeriodsDoNotDrift) {
  for (const double period : {10.0, 3.0, 1e5, 7.0, 1.0})
    EXPECT_EQ(sendsLookingEveryCycle(1 / period, 300).back(), std::uint64_t(300 * period) - 1) << period;
}

// nextAvailable() is the very cycle available() turns true in.
TEST(IoBandwidth, NextAvailableIsTheFirstCycleWithCredit) {
  for (const double rate : {0.1, 1.0 / 3, 1.0 / 6600}) {
    IoBandwidth b(rate);
    b.advance(0);
    std::uint64_t last = 0;  // the last cycle looked at
    for (int wavelet = 0; wavelet < 20; ++wavelet) {
      const std::uint64_t due = b.nextAvailable(last + 1);
      for (std::uint64_t c = std::max(last + 1, due > 50 ? due - 50 : 0); c < due; ++c) {
        IoBandwidth early = b;
        early.advance(c);
        EXPECT_FALSE(early.available()) << rate << " cycle " << c;
      }
      b.advance(due);
      ASSERT_TRUE(b.available()) << rate << " wavelet " << wavelet;
      b.consume();
      last = due;
    }
  }
}

// A stream that always has a wavelet waiting goes at the rate exactly:
// what a cycle earns past a whole wavelet carries to the next. WSE-2's
// ring feeds take fp32 gradients out at 150e9 / 120 B/s each, 0.284
// wavelets a cycle at 1.1 GHz: the 1000th goes in cycle 3520 (1000 /
// 0.2841 - 1), not in cycle 3999 as when the credit stopped at one wavelet
// and every wavelet waited 4 whole cycles.
TEST(IoBandwidth, AStreamAlwaysWaitingGoesAtTheRateExactly) {
  const double gradientsOut = 150e9 / 120 / 1.1e9 / 4;
  EXPECT_EQ(sendsLookingEveryCycle(gradientsOut, 1000).back(), 3519u);
  for (const double rate : {gradientsOut, 0.3, 2 * gradientsOut, 0.7})  // one wavelet a cycle at most here
    for (std::size_t count : {10u, 300u, 1000u}) {
      const double last = double(sendsLookingEveryCycle(rate, count).back());
      EXPECT_GE(last + 1, count / rate - 1) << rate << " " << count;
      EXPECT_LE(last + 1, count / rate + 1) << rate << " " << count;
    }
}

// Bandwidth unused while nothing could move is not saved up beyond one
// cycle's worth: after a long wait one wavelet goes at once (beside what one
// cycle earns), the next a period less a cycle later.
TEST(IoBandwidth, UnusedBandwidthIsNotSavedUp) {
  IoBandwidth slow(0.25);
  slow.advance(0);
  slow.advance(1000);
  ASSERT_TRUE(slow.available());
  slow.consume();
  EXPECT_FALSE(slow.available());
  EXPECT_EQ(slow.nextAvailable(1001), 1003u);

  IoBandwidth fast(2.5);
  fast.advance(0);
  fast.advance(1000);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(fast.available());
    fast.consume();
  }
  EXPECT_FALSE(fast.available());  // 3.5 wavelets' worth, not 1000 cycles'
  EXPECT_EQ(fast.nextAvailable(1001), 1001u);
}

}  // namespace
}  // namespace wsesim::wafer
