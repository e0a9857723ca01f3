// The WSE-2 preset's fitted timing (docs/validation.md), pinned against
// hand-derived counts: one fp32 FMAC op, one task start, and (in
// testbench/tests/gemm/RouteSwitchTest.cpp) one route switch. A new fit
// that changes a value must change these numbers, on purpose.
#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe::testing {
namespace {

constexpr unsigned kOpOverhead = 2;       // arch.pe.op_overhead_cycles: the hardware's issue (a modelling choice)
constexpr unsigned kSummaLoop = 14;       // arch.firmware.summa_loop_cycles: with it, SUMMA's fitted 16 per op
constexpr unsigned kTaskStart = 2;                        // arch.pe.task_start_cycles (a modelling choice)
constexpr double kFmacFp32CyclesPerElement = 2.49652;  // arch.pe.cycles_per_element.fp32.fmac
constexpr unsigned kRouteSwitch = 440;    // arch.fabric.route_switch_cycles (RouteSwitch in GemmCliTest)

// The preset's own timing: no mechanism overrides.
PeTestBench presetBench() { return PeTestBench(1, 1, DataMode::Timing, {}, {}); }

TEST(CalibratedTiming, ThePresetHoldsTheFittedValues) {
  const PeTestBench bench = presetBench();
  EXPECT_EQ(bench.arch.pe.opOverheadCycles, kOpOverhead);
  EXPECT_EQ(bench.arch.firmware.summaLoopCycles, kSummaLoop);
  EXPECT_EQ(bench.arch.pe.taskStartCycles, kTaskStart);
  EXPECT_DOUBLE_EQ(bench.arch.pe.cyclesPerElement.of(Opcode::Fmac, Precision::Fp32), kFmacFp32CyclesPerElement);
  EXPECT_EQ(bench.arch.fabric.routeSwitchCycles, kRouteSwitch);
}

// One fp32 FMAC of 46 elements (SUMMA's largest tile column) issued by
// SUMMA's loop: the task starts (2), the op pays the hardware's issue (2)
// and the loop's (14), then ceil(46 x 2.49652) = ceil(114.84) = 115 cycles
// for the elements: 133, as when the fit charged every op 16.
TEST(CalibratedTiming, OneFp32FmacOp) {
  PeTestBench bench = presetBench();
  ProgramBuilder b("fmac", bench.arch.firmware.summaLoopCycles);
  const BufferRef x = b.buffer("x", ElementType::F32, 46), y = b.buffer("y", ElementType::F32, 46);
  const TaskRef t = b.task("main");
  b.activateAtStart(t);
  b.fmac(t, Precision::Fp32, memory(y, 46), memory(y, 46), memory(x, 46), scalar(2));
  bench.load(0, 0, b);
  bench.simulate();
  EXPECT_EQ(bench.busy(0), 133u);
}

// A task that only activates a second: each pays the task start before its
// first instruction, and control instructions take no cycles.
TEST(CalibratedTiming, OneTaskStart) {
  PeTestBench bench = presetBench();
  ProgramBuilder b("tasks");
  const TaskRef first = b.task("first"), second = b.task("second");
  b.activateAtStart(first);
  b.activate(first, second);
  bench.load(0, 0, b);
  bench.simulate();
  EXPECT_EQ(bench.busy(0), 2 * kTaskStart);
  EXPECT_EQ(bench.pes->counters(0).tasksRun, 2u);
}

}  // namespace
}  // namespace wsesim::pe::testing
