#include <gtest/gtest.h>

#include "hw/pe/ProgramError.h"
#include "hw/pe/SramAllocator.h"
#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe {
namespace {

using testing::expectMentions;
using testing::programErrorOf;

TEST(SramAllocator, PlacesFirstFitReusesFreedGapsAndKeepsTheHighWaterMark) {
  SramAllocator s;
  EXPECT_EQ(s.allocate("(0,0)", "a", 100, 1000), 0u);
  EXPECT_EQ(s.allocate("(0,0)", "b", 6, 1000), 100u);
  EXPECT_EQ(s.allocate("(0,0)", "c", 200, 1000), 108u);  // 6 bytes round up to 8
  EXPECT_EQ(s.used(), 308u);
  s.free("(0,0)", "a");
  EXPECT_EQ(s.used(), 208u);
  EXPECT_EQ(s.allocate("(0,0)", "d", 64, 1000), 0u);  // into the freed gap
  EXPECT_EQ(s.allocate("(0,0)", "e", 40, 1000), 308u);  // 36 left in the gap: too small
  EXPECT_EQ(s.highWater(), 312u);
  EXPECT_EQ(s.find("c"), 108);
  EXPECT_EQ(s.find("a"), -1);
}

TEST(SramAllocator, OverflowNamesThePeTheBufferAndTheBytes) {
  SramAllocator s;
  s.allocate("(3,2)", "weights", 40000, 49152);
  expectMentions(programErrorOf([&] { s.allocate("(3,2)", "acts", 10000, 49152); }),
                 {"PE (3,2)", "'acts'", "10000 bytes asked", "9152 of 49152 bytes free", "arch.pe.sram_bytes"});
}

TEST(SramAllocator, RejectsDuplicateNamesAndUnknownFrees) {
  SramAllocator s;
  s.allocate("(0,0)", "a", 4, 100);
  expectMentions(programErrorOf([&] { s.allocate("(0,0)", "a", 4, 100); }), {"'a'", "already allocated"});
  expectMentions(programErrorOf([&] { s.free("(0,0)", "zz"); }), {"'zz'", "not allocated"});
}

}  // namespace
}  // namespace wsesim::pe
