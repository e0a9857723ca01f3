#include <gtest/gtest.h>

#include <vector>

#include "hw/pe/WakeCalendar.h"

namespace wsesim::pe {
namespace {

std::vector<fabric::RouterId> drained(WakeCalendar& c, std::uint64_t now) {
  std::vector<fabric::RouterId> out;
  c.drain(now, [&](fabric::RouterId pe) { out.push_back(pe); });
  return out;
}

TEST(WakeCalendar, NearAndFarWakeUpsComeOutAtTheirCycles) {
  WakeCalendar c;
  EXPECT_EQ(c.next(), WakeCalendar::kNever);
  c.schedule(5, 1);
  c.schedule(3, 2);
  c.schedule(5, 3);
  c.schedule(100000, 4);  // beyond the ring: waits in the heap
  c.schedule(1023, 5);    // the ring's last slot from cycle 0
  EXPECT_EQ(c.next(), 3u);
  EXPECT_EQ(drained(c, 3), std::vector<fabric::RouterId>{2});
  EXPECT_EQ(c.next(), 5u);
  EXPECT_EQ(drained(c, 5), (std::vector<fabric::RouterId>{1, 3}));
  EXPECT_EQ(c.next(), 1023u);
  c.schedule(1500, 6);  // wraps around the ring
  EXPECT_EQ(drained(c, 1023), std::vector<fabric::RouterId>{5});
  EXPECT_EQ(c.next(), 1500u);
  EXPECT_EQ(drained(c, 1500), std::vector<fabric::RouterId>{6});
  EXPECT_EQ(c.next(), 100000u);
  EXPECT_TRUE(drained(c, 99999).empty());
  EXPECT_EQ(drained(c, 100000), std::vector<fabric::RouterId>{4});
  EXPECT_TRUE(c.empty());
  EXPECT_EQ(c.next(), WakeCalendar::kNever);
}

TEST(WakeCalendar, FarWakeUpsJoinTheRingWhenItReachesThem) {
  WakeCalendar c;
  c.schedule(2000, 7);
  c.schedule(2001, 8);
  EXPECT_TRUE(drained(c, 1500).empty());  // moves both into the ring
  c.schedule(1600, 9);
  EXPECT_EQ(c.next(), 1600u);
  EXPECT_EQ(drained(c, 1600), std::vector<fabric::RouterId>{9});
  EXPECT_EQ(c.next(), 2000u);
  EXPECT_EQ(drained(c, 2000), std::vector<fabric::RouterId>{7});
  EXPECT_EQ(drained(c, 2001), std::vector<fabric::RouterId>{8});
}

}  // namespace
}  // namespace wsesim::pe
