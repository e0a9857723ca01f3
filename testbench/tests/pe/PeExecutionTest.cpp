// Tasks, threads and op timing on one PE, against hand-derived cycle counts.
// wse2 numbers (tiny preset): task start 2 cycles, op overhead 2 cycles,
// lanes fp16 4 / mixed 2 / fp32 FMAC 1, fp32 add 2.
#include <gtest/gtest.h>

#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe {
namespace {

using testing::PeTestBench;

struct OpCase {
  Opcode opcode;
  Precision precision;
  unsigned lanes;
};

class EveryOpClass : public ::testing::TestWithParam<OpCase> {};

// One synchronous op of 64 elements: busy for task start + overhead + 64 / lanes.
TEST_P(EveryOpClass, TakesOverheadPlusLengthOverLanes) {
  const OpCase c = GetParam();
  PeTestBench bench(1, 1);
  ProgramBuilder b("op");
  const ElementType in = operandType(c.opcode, c.precision, 1);
  const ElementType acc = operandType(c.opcode, c.precision, -1);
  const BufferRef x = b.buffer("x", in, 64), y = b.buffer("y", acc, 64);
  const TaskRef t = b.task("main");
  b.activateAtStart(t);
  switch (c.opcode) {
    case Opcode::Fmac: b.fmac(t, c.precision, memory(y, 64), memory(y, 64), memory(x, 64), scalar(2)); break;
    case Opcode::Fadd: b.fadd(t, c.precision, memory(y, 64), memory(y, 64), memory(x, 64)); break;
    case Opcode::Fmul: b.fmul(t, c.precision, memory(y, 64), memory(x, 64), scalar(2)); break;
    case Opcode::Fmov: b.fmov(t, c.precision, memory(y, 64), memory(x, 64)); break;
  }
  bench.load(0, 0, b);
  bench.simulate();
  EXPECT_EQ(bench.busy(0), 2u + 2 + 64 / c.lanes) << opcodeName(c.opcode) << "." << precisionName(c.precision);
  EXPECT_EQ(bench.pes->counters(0).opsCompleted, 1u);
}

INSTANTIATE_TEST_SUITE_P(Wse2, EveryOpClass,
                         ::testing::Values(OpCase{Opcode::Fmac, Precision::Fp16, 4},
                                           OpCase{Opcode::Fadd, Precision::Fp16, 4},
                                           OpCase{Opcode::Fmul, Precision::Fp16, 4},
                                           OpCase{Opcode::Fmov, Precision::Fp16, 4},
                                           OpCase{Opcode::Fmac, Precision::Mixed, 2},
                                           OpCase{Opcode::Fmul, Precision::Mixed, 2},
                                           OpCase{Opcode::Fmac, Precision::Fp32, 1},
                                           OpCase{Opcode::Fadd, Precision::Fp32, 2},
                                           OpCase{Opcode::Fmul, Precision::Fp32, 1},
                                           OpCase{Opcode::Fmov, Precision::Fp32, 2}),
                         [](const auto& info) {
                           return std::string(opcodeName(info.param.opcode)) + "_" +
                                  precisionName(info.param.precision);
                         });

TEST(PeExecution, StridedAccessSlowsTheOpDown) {
  PeTestBench bench(1, 1);
  ProgramBuilder b("strided");
  const BufferRef x = b.buffer("x", ElementType::F16, 512), y = b.buffer("y", ElementType::F16, 64);
  const TaskRef t = b.task("main");
  b.activateAtStart(t);
  b.fmac(t, Precision::Fp16, memory(y, 64), memory(y, 64), memory(x, 64, 0, 8), scalar(1));  // 1 lane
  b.fmac(t, Precision::Fp16, memory(y, 64), memory(y, 64), memory(x, 64, 0, 4), scalar(1));  // 2 lanes
  bench.load(0, 0, b);
  bench.simulate();
  EXPECT_EQ(bench.busy(0), 2u + (2 + 64) + (2 + 32));
}

TEST(PeExecution, ALongOpWakesThePeAtItsCompletionOnly) {
  PeTestBench bench(1, 1);
  ProgramBuilder b("long");
  const BufferRef y = b.buffer("y", ElementType::F32, 8000);
  const TaskRef t = b.task("main");
  b.activateAtStart(t);
  b.fmac(t, Precision::Fp32, memory(y, 8000), memory(y, 8000), memory(y, 8000), scalar(1));
  bench.load(0, 0, b);
  bench.simulate();
  EXPECT_EQ(bench.busy(0), 2u + 2 + 8000);
  // Cycle 0 picks the task, cycle 2 issues the op, cycle 8004 completes it.
  EXPECT_EQ(bench.pes->counters(0).visits, 3u);
}

// An asynchronous fabric send on a thread overlaps a synchronous FMAC: the
// PE finishes when the send does, the FMAC's 2 + 64/4 = 18 cycles earlier
// than running both back to back.
std::uint64_t sendThenFmac(bool async) {
  PeTestBench bench(2, 1);
  bench.routeEast(0, 0, 1);
  ProgramBuilder send("send");
  const BufferRef out = send.buffer("out", ElementType::F32, 32), y = send.buffer("y", ElementType::F16, 64);
  const TaskRef t = send.task("main");
  send.activateAtStart(t);
  send.fmov(t, Precision::Fp32, fabricOut(0, 32), memory(out, 32), async ? Issue::onThread(1) : Issue::sync());
  send.fmac(t, Precision::Fp16, memory(y, 64), memory(y, 64), memory(y, 64), scalar(1));
  ProgramBuilder recv("recv");
  const BufferRef in = recv.buffer("in", ElementType::F32, 32);
  const TaskRef r = recv.task("main");
  recv.activateAtStart(r);
  recv.fmov(r, Precision::Fp32, memory(in, 32), fabricIn(0, 32));
  bench.load(0, 0, send);
  bench.load(1, 0, recv);
  bench.simulate();
  return bench.busy(0);
}

constexpr std::uint64_t kSendCycles = 2 + 32, kFmacCycles = 2 + 16;

TEST(PeExecution, OpsBackToBackOnTheMainThreadAddUp) { EXPECT_EQ(sendThenFmac(false), 2 + kSendCycles + kFmacCycles); }

TEST(PeExecution, OpsOnTwoThreadsOverlapByTheShorterOne) { EXPECT_EQ(sendThenFmac(true), 2 + kSendCycles); }

// Compute ops share the SIMD unit: on two threads they still run one after the other.
TEST(PeExecution, TwoComputeOpsOnTwoThreadsShareTheSimdUnit) {
  PeTestBench bench(1, 1);
  ProgramBuilder b("simd");
  const BufferRef y = b.buffer("y", ElementType::F16, 64), z = b.buffer("z", ElementType::F16, 64);
  const TaskRef t = b.task("main");
  b.activateAtStart(t);
  b.fmac(t, Precision::Fp16, memory(y, 64), memory(y, 64), memory(y, 64), scalar(1), Issue::onThread(0));
  b.fmac(t, Precision::Fp16, memory(z, 64), memory(z, 64), memory(z, 64), scalar(1));
  bench.load(0, 0, b);
  bench.simulate();
  EXPECT_EQ(bench.busy(0), 2u + 2 * (2 + 16));
}

// A task blocked at start runs only once another task unblocks it; an async
// op's completion activates a third task.
TEST(PeExecution, BlockUnblockAndActivationOnCompletion) {
  PeTestBench bench(1, 1);
  ProgramBuilder b("control");
  const BufferRef y = b.buffer("y", ElementType::F32, 8);
  const TaskRef first = b.task("first"), gated = b.task("gated"), after = b.task("after");
  b.activateAtStart(first).activateAtStart(gated).blockAtStart(gated);
  // first: 2 (start) + async FMOV 2 + 4 = 6 cycles on thread 3, then unblock gated.
  b.fmov(first, Precision::Fp32, memory(y, 8), scalar(1), Issue::onThread(3).thenActivate(after));
  b.unblock(first, gated);
  b.fadd(gated, Precision::Fp32, memory(y, 8), memory(y, 8), scalar(1));
  b.fmul(after, Precision::Fp32, memory(y, 8), memory(y, 8), scalar(3));
  bench.load(0, 0, b);
  bench.simulate();
  // Cycle 0: 'first' starts; 2: FMOV issued on thread 3 (done at 8), 'gated'
  // unblocked, 'first' ends; 2: 'gated' starts (task 1 < task 2), issues its
  // FADD at 4, which waits for the SIMD unit until 8 and ends at 8 + 6 = 14;
  // 'after' (activated at 8) starts at 14, its FMUL ends at 16 + 2 + 8 = 26.
  EXPECT_EQ(bench.busy(0), 26u);
  EXPECT_EQ(bench.pes->counters(0).tasksRun, 3u);
  EXPECT_EQ(bench.pes->read(0, "y", 0, 8), std::vector<float>(8, 6.0f));  // (1 + 1) * 3
}

// The same program takes the same cycles in both data modes (one mode per
// test process); timing mode keeps no data to read back.
class BothModes : public ::testing::TestWithParam<DataMode> {};

TEST_P(BothModes, SameCyclesWithOrWithoutData) {
  PeTestBench bench(1, 1, GetParam());
  ProgramBuilder b("p");
  const BufferRef y = b.buffer("y", ElementType::F16, 256);
  const TaskRef t = b.task("main");
  b.activateAtStart(t);
  b.fmac(t, Precision::Fp16, memory(y, 100), memory(y, 100), memory(y, 100, 100), scalar(1));
  b.fmov(t, Precision::Fp16, memory(y, 32, 0, 8), scalar(0), Issue::onThread(2));
  bench.load(0, 0, b);
  bench.simulate();
  // FMAC: 2 + ceil(100 / 4); the stride-8 FMOV writes one bank: 2 + 32.
  EXPECT_EQ(bench.busy(0), 2u + (2 + 25) + (2 + 32));
  if (GetParam() == DataMode::Timing)
    testing::expectMentions(testing::programErrorOf([&] { bench.pes->read(0, "y", 0, 1); }), {"run.mode: functional"});
  else
    EXPECT_EQ(bench.pes->read(0, "y", 0, 1), std::vector<float>{0.0f});
}

INSTANTIATE_TEST_SUITE_P(Modes, BothModes, ::testing::Values(DataMode::Functional, DataMode::Timing),
                         [](const auto& info) { return info.param == DataMode::Timing ? "timing" : "functional"; });

}  // namespace
}  // namespace wsesim::pe
