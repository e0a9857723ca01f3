// The traffic sources' wake-up calendar: every source is taken in the
// cycle it is due (or at the first takeDue after it, over a jump), never
// early, never twice, wherever it sits on the wheel or past it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "testbench/noc/WakeCalendar.h"

namespace wsesim::noc {
namespace {

std::vector<std::uint32_t> takeSorted(WakeCalendar& calendar, std::uint64_t now) {
  std::vector<std::uint32_t> due;
  calendar.takeDue(now, due);
  std::sort(due.begin(), due.end());
  return due;
}

TEST(WakeCalendar, TakesEachSourceInItsCycleOnly) {
  WakeCalendar calendar;
  EXPECT_EQ(calendar.next(), wafer::kNever);
  calendar.schedule(3, 7);
  calendar.schedule(1, 2);
  calendar.schedule(3, 5);
  EXPECT_EQ(calendar.next(), 1u);
  EXPECT_TRUE(takeSorted(calendar, 0).empty());
  EXPECT_EQ(takeSorted(calendar, 1), std::vector<std::uint32_t>({2}));
  EXPECT_EQ(calendar.next(), 3u);
  EXPECT_TRUE(takeSorted(calendar, 2).empty());
  EXPECT_EQ(takeSorted(calendar, 3), std::vector<std::uint32_t>({5, 7}));
  EXPECT_EQ(calendar.next(), wafer::kNever);
}

TEST(WakeCalendar, WakeUpsPastTheWheelComeDueInTheirCycle) {
  WakeCalendar calendar;
  calendar.schedule(5000, 1);  // several wheel turns ahead
  calendar.schedule(1023, 2);  // the wheel's last cycle
  calendar.schedule(1024, 3);  // the first past it
  EXPECT_EQ(calendar.next(), 1023u);
  EXPECT_EQ(takeSorted(calendar, 1023), std::vector<std::uint32_t>({2}));
  EXPECT_EQ(calendar.next(), 1024u);
  EXPECT_EQ(takeSorted(calendar, 1024), std::vector<std::uint32_t>({3}));
  EXPECT_EQ(calendar.next(), 5000u);
  EXPECT_TRUE(takeSorted(calendar, 4999).empty());
  EXPECT_EQ(takeSorted(calendar, 5000), std::vector<std::uint32_t>({1}));
}

TEST(WakeCalendar, AJumpTakesEverythingDueOnTheWay) {
  WakeCalendar calendar;
  calendar.schedule(10, 1);
  calendar.schedule(900, 2);
  calendar.schedule(1500, 3);
  calendar.schedule(3000, 4);
  EXPECT_EQ(takeSorted(calendar, 2000), std::vector<std::uint32_t>({1, 2, 3}));
  // The wheel has turned: a wake-up just ahead of the new position lands
  // in a bucket below the one of the current cycle.
  calendar.schedule(2001 + 1000, 5);
  calendar.schedule(2010, 6);
  EXPECT_EQ(calendar.next(), 2010u);
  EXPECT_EQ(takeSorted(calendar, 2010), std::vector<std::uint32_t>({6}));
  EXPECT_EQ(calendar.next(), 3000u);
  EXPECT_EQ(takeSorted(calendar, 3001), std::vector<std::uint32_t>({4, 5}));
}

// Against a sorted map, over random schedules and jumps of every length.
TEST(WakeCalendar, MatchesAReferenceQueue) {
  std::mt19937_64 rng(12345);
  WakeCalendar calendar;
  std::multimap<std::uint64_t, std::uint32_t> reference;
  std::uint64_t now = 0;
  std::uint32_t nextSource = 0;
  for (int step = 0; step < 20000; ++step) {
    for (int n = int(rng() % 4); n > 0; --n) {
      // Mostly within a few hundred cycles, sometimes several wheels ahead.
      const std::uint64_t ahead = rng() % 8 == 0 ? rng() % 5000 : rng() % 300;
      calendar.schedule(now + 1 + ahead, nextSource);
      reference.emplace(now + 1 + ahead, nextSource++);
    }
    const std::uint64_t expectedNext = reference.empty() ? wafer::kNever : reference.begin()->first;
    ASSERT_EQ(calendar.next(), expectedNext) << "at cycle " << now;
    now += rng() % 16 == 0 ? 1 + rng() % 3000 : 1;
    std::vector<std::uint32_t> expected;
    while (!reference.empty() && reference.begin()->first <= now) {
      expected.push_back(reference.begin()->second);
      reference.erase(reference.begin());
    }
    std::sort(expected.begin(), expected.end());
    ASSERT_EQ(takeSorted(calendar, now), expected) << "at cycle " << now;
  }
}

}  // namespace
}  // namespace wsesim::noc
