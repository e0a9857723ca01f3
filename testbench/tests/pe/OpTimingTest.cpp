// The closed-form op timing: lanes per (precision, opcode), bank conflicts
// of strided access, read-port passes, one element per cycle on the fabric.
#include <gtest/gtest.h>

#include "hw/pe/OpTiming.h"
#include "hw/pe/ProgramBuilder.h"
#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe {
namespace {

const SramGeometry kWse2Sram{8, 2, 2};

TEST(BankLimit, StridedFp16Access) {
  // 16-bit words over 8 banks: stride s touches 8 / gcd(s, 8) banks.
  EXPECT_EQ(bankLimitedElements(1, 2, false, kWse2Sram), 8u);
  EXPECT_EQ(bankLimitedElements(2, 2, false, kWse2Sram), 4u);
  EXPECT_EQ(bankLimitedElements(3, 2, false, kWse2Sram), 8u);
  EXPECT_EQ(bankLimitedElements(4, 2, false, kWse2Sram), 2u);
  EXPECT_EQ(bankLimitedElements(8, 2, false, kWse2Sram), 1u);  // WSE-FACTS: stride multiple of 8 -> 1 lane
  EXPECT_EQ(bankLimitedElements(24, 2, false, kWse2Sram), 1u);
}

TEST(BankLimit, StridedFp32AccessSpansTwoWords) {
  EXPECT_EQ(bankLimitedElements(1, 4, false, kWse2Sram), 4u);
  EXPECT_EQ(bankLimitedElements(2, 4, false, kWse2Sram), 2u);
  EXPECT_EQ(bankLimitedElements(4, 4, false, kWse2Sram), 1u);
}

TEST(BankLimit, StrideZeroReadsOneWordForAllLanesButWritesSerialise) {
  EXPECT_EQ(bankLimitedElements(0, 2, false, kWse2Sram), ~0u);
  EXPECT_EQ(bankLimitedElements(0, 4, true, kWse2Sram), 1u);
}

class OpTimingTest : public ::testing::Test {
 protected:
  testing::PeTestBench bench{1, 1};
  ProgramBuilder b{"t"};
  BufferRef h = b.buffer("h", ElementType::F16, 1024);
  BufferRef f = b.buffer("f", ElementType::F32, 1024);

  OpTiming last() {
    const Task& t = b.program().tasks.back();
    return opTiming(t.code.back().op, bench.arch.pe);
  }
};

TEST_F(OpTimingTest, LanesPerPrecisionAndOpcodeFromThePreset) {
  const TaskRef t = b.task("t");
  // overhead 2 + ceil(64 / lanes)
  b.fmac(t, Precision::Fp16, memory(h, 64), memory(h, 64), memory(h, 64, 64), scalar(1));
  EXPECT_EQ(last().cycles, 2u + 16);
  b.fmac(t, Precision::Mixed, memory(f, 64), memory(f, 64), memory(h, 64), scalar(1));
  EXPECT_EQ(last().cycles, 2u + 32);
  b.fmac(t, Precision::Fp32, memory(f, 64), memory(f, 64), memory(f, 64, 64), scalar(1));
  EXPECT_EQ(last().cycles, 2u + 64);
  b.fadd(t, Precision::Fp32, memory(f, 64), memory(f, 64), memory(f, 64, 64));
  EXPECT_EQ(last().cycles, 2u + 32);
  b.fmov(t, Precision::Fp32, memory(f, 63), memory(f, 63, 64));
  EXPECT_EQ(last().cycles, 2u + 32);  // ceil(63 / 2)
}

TEST_F(OpTimingTest, StridedOperandsLowerTheLaneCount) {
  const TaskRef t = b.task("t");
  b.fmac(t, Precision::Fp16, memory(h, 64), memory(h, 64), memory(h, 64, 256, 4), scalar(1));
  EXPECT_EQ(last().lanes, 2u);
  EXPECT_EQ(last().cycles, 2u + 32);
  b.fmac(t, Precision::Fp16, memory(h, 64), memory(h, 64), memory(h, 64, 256, 8), scalar(1));
  EXPECT_EQ(last().lanes, 1u);
  EXPECT_EQ(last().cycles, 2u + 64);
  b.fmac(t, Precision::Fp16, memory(h, 64), memory(h, 64), memory(h, 64, 256, 3), scalar(1));
  EXPECT_EQ(last().lanes, 4u);  // stride 3 still spreads over all banks
  b.fadd(t, Precision::Fp32, memory(f, 64, 0, 4), memory(f, 64, 0, 4), scalar(1));
  EXPECT_EQ(last().lanes, 1u);
  EXPECT_EQ(last().cycles, 2u + 64);
}

TEST_F(OpTimingTest, ReductionIntoOneElementIsSerial) {
  const TaskRef t = b.task("t");
  b.fmac(t, Precision::Fp16, memory(h, 64, 0, 0), memory(h, 64, 0, 0), memory(h, 64, 64), memory(h, 64, 128));
  EXPECT_EQ(last().lanes, 1u);
  EXPECT_EQ(last().cycles, 2u + 64);
}

TEST_F(OpTimingTest, MoreVectorReadsThanReadPortsTakeTwoPasses) {
  const TaskRef t = b.task("t");
  b.fmac(t, Precision::Fp16, memory(h, 64), memory(h, 64), memory(h, 64, 64), memory(h, 64, 128));
  EXPECT_EQ(last().portPasses, 2u);
  EXPECT_EQ(last().cycles, 2u + 2 * 16);
}

TEST_F(OpTimingTest, FabricOperandsMoveOneElementPerCycle) {
  const TaskRef t = b.task("t");
  b.fmac(t, Precision::Fp16, fabricOut(1, 64), memory(h, 64), memory(h, 64, 64), scalar(1));
  EXPECT_EQ(last().lanes, 1u);
  EXPECT_EQ(last().cycles, 2u + 64);
}

}  // namespace
}  // namespace wsesim::pe
