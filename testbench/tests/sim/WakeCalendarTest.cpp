// The wake-up calendar of the cycle drivers (PEs, NoC traffic sources):
// each wake-up comes out in its cycle, never early, never twice, wherever
// it sits on the ring or past it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "hw/sim/WakeCalendar.h"

namespace wsesim::sim {
namespace {

std::vector<std::uint32_t> drained(WakeCalendar& c, std::uint64_t now) {
  std::vector<std::uint32_t> out;
  c.drain(now, [&](std::uint32_t id) { out.push_back(id); });
  return out;
}

TEST(WakeCalendar, NearAndFarWakeUpsComeOutAtTheirCycles) {
  WakeCalendar c;
  EXPECT_EQ(c.next(), kNever);
  c.schedule(5, 1);
  c.schedule(3, 2);
  c.schedule(5, 3);
  c.schedule(100000, 4);  // beyond the ring: waits in the heap
  c.schedule(1023, 5);    // the ring's last slot from cycle 0
  EXPECT_EQ(c.next(), 3u);
  EXPECT_EQ(drained(c, 3), std::vector<std::uint32_t>{2});
  EXPECT_EQ(c.next(), 5u);
  EXPECT_EQ(drained(c, 5), (std::vector<std::uint32_t>{1, 3}));
  EXPECT_EQ(c.next(), 1023u);
  c.schedule(1500, 6);  // wraps around the ring
  EXPECT_EQ(drained(c, 1023), std::vector<std::uint32_t>{5});
  EXPECT_EQ(c.next(), 1500u);
  EXPECT_EQ(drained(c, 1500), std::vector<std::uint32_t>{6});
  EXPECT_EQ(c.next(), 100000u);
  EXPECT_TRUE(drained(c, 99999).empty());
  EXPECT_EQ(drained(c, 100000), std::vector<std::uint32_t>{4});
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.next(), kNever);
}

TEST(WakeCalendar, FarWakeUpsJoinTheRingWhenItReachesThem) {
  WakeCalendar c;
  c.schedule(2000, 7);
  c.schedule(2001, 8);
  EXPECT_TRUE(drained(c, 1500).empty());  // moves both into the ring
  c.schedule(1600, 9);
  EXPECT_EQ(c.next(), 1600u);
  EXPECT_EQ(drained(c, 1600), std::vector<std::uint32_t>{9});
  EXPECT_EQ(c.next(), 2000u);
  EXPECT_EQ(drained(c, 2000), std::vector<std::uint32_t>{7});
  EXPECT_EQ(drained(c, 2001), std::vector<std::uint32_t>{8});
}

TEST(WakeCalendar, ABucketLongerThanAChunkKeepsSchedulingOrder) {
  WakeCalendar c;
  std::vector<std::uint32_t> expected;
  for (std::uint32_t id = 0; id < 500; ++id) {
    c.schedule(7, 1000 + id);
    expected.push_back(1000 + id);
    c.schedule(8, id);  // another bucket's chunks interleave in the pool
  }
  EXPECT_EQ(c.next(), 7u);
  EXPECT_EQ(drained(c, 7), expected);
  // Chunks freed by cycle 7 are reused; cycle 8's list is intact.
  for (std::uint32_t id = 0; id < 100; ++id) c.schedule(9, id);
  EXPECT_EQ(drained(c, 8).size(), 500u);
  EXPECT_EQ(drained(c, 9).size(), 100u);
  EXPECT_TRUE(c.empty());
}

TEST(WakeCalendar, AVisitMaySchedule) {
  WakeCalendar c;
  for (std::uint32_t id = 0; id < 200; ++id) c.schedule(1, id);
  std::vector<std::uint32_t> seen;
  // Every visit schedules the id again a cycle later, growing the chunk pool mid-walk.
  c.drain(1, [&](std::uint32_t id) {
    seen.push_back(id);
    c.schedule(2, id);
  });
  EXPECT_EQ(seen.size(), 200u);
  EXPECT_EQ(drained(c, 2), seen);
}

// Against a sorted map, driven as the wafer drives it: every cycle, or a
// jump to the next wake-up over idle cycles; wake-ups from a few cycles to
// several rings ahead.
TEST(WakeCalendar, MatchesAReferenceQueue) {
  std::mt19937_64 rng(12345);
  WakeCalendar calendar;
  std::multimap<std::uint64_t, std::uint32_t> reference;
  std::uint64_t now = 0;
  std::uint32_t nextId = 0;
  for (int step = 0; step < 20000; ++step) {
    for (int n = int(rng() % 3); n > 0; --n) {
      const std::uint64_t ahead = rng() % 8 == 0 ? rng() % 5000 : rng() % 300;
      calendar.schedule(now + 1 + ahead, nextId);
      reference.emplace(now + 1 + ahead, nextId++);
    }
    const std::uint64_t next = reference.empty() ? kNever : reference.begin()->first;
    ASSERT_EQ(calendar.next(), next) << "at cycle " << now;
    now = rng() % 4 == 0 && next != kNever ? next : now + 1;
    std::vector<std::uint32_t> expected;
    for (; !reference.empty() && reference.begin()->first == now; reference.erase(reference.begin()))
      expected.push_back(reference.begin()->second);
    std::vector<std::uint32_t> got = drained(calendar, now);
    std::sort(got.begin(), got.end());
    ASSERT_EQ(got, expected) << "at cycle " << now;
  }
  EXPECT_EQ(calendar.empty(), reference.empty());
}

}  // namespace
}  // namespace wsesim::sim
