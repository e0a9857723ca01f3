// Index registers: descriptors that step through a buffer, a counter that
// wraps and activates a task, and programs replaced on a PE with buffers kept.
#include <gtest/gtest.h>

#include "hw/pe/ProgramText.h"
#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe {
namespace {

using testing::expectMentions;
using testing::PeTestBench;
using testing::programErrorOf;

// Six wavelets, each scaling one column of a 3-column matrix into `acc`:
// column i0 of x times the wavelet, for i0 = 0, 1, 2, 0, 1, 2; each wrap of
// i0 runs 'flush', which adds acc into out[i1] and steps i1.
TEST(IndexRegisters, StepThroughColumnsAndActivateOnWrap) {
  PeTestBench bench(2, 1);
  bench.routeEast(0, 0, 1);
  ProgramBuilder send("send");
  const BufferRef w = send.buffer("w", ElementType::F32, 6);
  const TaskRef t = send.task("main");
  send.activateAtStart(t);
  send.fmov(t, Precision::Fp32, fabricOut(0, 6), memory(w, 6));

  ProgramBuilder b("columns");
  const BufferRef x = b.buffer("x", ElementType::F32, 3 * 2), acc = b.buffer("acc", ElementType::F32, 2);
  const BufferRef out = b.buffer("out", ElementType::F32, 2 * 2);
  // 'flush' has the lower number, so it runs as soon as it is activated,
  // ahead of wavelets already waiting for 'on_weight'.
  const TaskRef flush = b.task("flush"), onWeight = b.dataTask("on_weight", 0);
  b.fmac(onWeight, Precision::Fp32, memory(acc, 2), memory(acc, 2), memory(x, 2).indexed(0, 2), taskArgument());
  b.countIndex(onWeight, 0, 3, flush);
  b.fmov(flush, Precision::Fp32, memory(out, 2).indexed(1, 2), memory(acc, 2));
  b.fmov(flush, Precision::Fp32, memory(acc, 2), scalar(0));
  b.countIndex(flush, 1, 2);
  bench.load(0, 0, send);
  bench.load(1, 0, b);
  bench.pes->write(bench.pe(0), "w", 0, {1, 2, 3, 10, 20, 30});
  bench.pes->write(bench.pe(1), "x", 0, {1, 2, 3, 4, 5, 6});  // columns (1,2), (3,4), (5,6)
  bench.simulate();
  // 1*(1,2) + 2*(3,4) + 3*(5,6) = (22, 28); ten times that for the second round.
  EXPECT_EQ(bench.pes->read(bench.pe(1), "out", 0, 4), (std::vector<float>{22, 28, 220, 280}));
  EXPECT_EQ(bench.pes->counters(bench.pe(1)).tasksRun, 6u + 2);
  EXPECT_EQ(dump(b.build()).find("1: count i0 to 3, then activate 'flush'") != std::string::npos, true) << dump(b.build());
  EXPECT_NE(dump(b.build()).find("x[0+i0*2:+2:1]"), std::string::npos);
}

TEST(IndexRegisters, BoundsAreCheckedAtTheRegistersLargestValue) {
  PeTestBench bench(1, 1);
  ProgramBuilder b("oob");
  const BufferRef x = b.buffer("x", ElementType::F32, 8);
  const TaskRef t = b.task("t");
  b.fmov(t, Precision::Fp32, memory(x, 2).indexed(3, 2), scalar(1));
  b.countIndex(t, 3, 5);
  const ProgramId id = bench.pes->addProgram(b.build());
  expectMentions(programErrorOf([&] { bench.pes->load(0, id); }),
                 {"PE (0,0)", "reaches element 9 of buffer 'x'", "index register 3 at its largest, 4", "8 elements"});
}

TEST(IndexRegisters, RegistersWithinTheArchitecture) {
  PeTestBench bench(1, 1, DataMode::Functional, {"arch.pe.index_registers=4"});
  ProgramBuilder b("two");
  const BufferRef x = b.buffer("x", ElementType::F32, 64);
  b.fadd(b.task("t"), Precision::Fp32, memory(x, 2).indexed(0, 2), memory(x, 2).indexed(5, 2), scalar(1));
  expectMentions(programErrorOf([&] { bench.pes->load(0, bench.pes->addProgram(b.build())); }),
                 {"index register 5", "arch.pe.index_registers=4"});
  ProgramBuilder c("many");
  c.setIndex(c.task("t"), 4, 1);
  expectMentions(programErrorOf([&] { bench.pes->load(0, bench.pes->addProgram(c.build())); }),
                 {"index register 4", "arch.pe.index_registers=4"});
}

// A second program finds the kept buffer with its data; the others are freed.
TEST(ProgramReplacement, KeptBuffersSurviveAndTheRestIsFreed) {
  PeTestBench bench(1, 1);
  ProgramBuilder first("first");
  const BufferRef x = first.buffer("x", ElementType::F32, 4);
  first.buffer("scratch", ElementType::F32, 1000);
  const TaskRef t = first.task("t");
  first.activateAtStart(t);
  first.fmov(t, Precision::Fp32, memory(x, 4), scalar(7));
  bench.load(0, 0, first);
  EXPECT_EQ(bench.pes->sram(0).used(), 16u + 4000);
  // Running: cannot be replaced yet.
  expectMentions(programErrorOf([&] { bench.pes->unload(0); }), {"PE (0,0)", "still running program 'first'"});
  sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));  // runs to completion (the wafer stops when done)
  bench.pes->unload(0, {"x"});
  EXPECT_EQ(bench.pes->sram(0).used(), 16u);
  EXPECT_EQ(bench.pes->sram(0).highWater(), 16u + 4000);
  ProgramBuilder second("second");
  second.buffer("y", ElementType::F32, 4);
  second.buffer("x", ElementType::F32, 4);
  bench.pes->load(0, bench.pes->addProgram(second.build()));
  EXPECT_EQ(bench.pes->read(0, "x", 0, 4), std::vector<float>(4, 7.0f));
  ProgramBuilder third("third");
  third.buffer("x", ElementType::F32, 8);
  bench.pes->unload(0, {"x"});
  expectMentions(programErrorOf([&] { bench.pes->load(0, bench.pes->addProgram(third.build())); }),
                 {"buffer 'x' as f32[8]", "kept buffer of that name is f32[4]"});
}

}  // namespace
}  // namespace wsesim::pe
