// Programs that cannot run: each error names the PE and the offending item.
#include <gtest/gtest.h>

#include "hw/pe/ProgramText.h"
#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe {
namespace {

using testing::expectMentions;
using testing::PeTestBench;
using testing::programErrorOf;

TEST(ProgramErrors, SramOverflowNamesThePeBufferAndBytes) {
  PeTestBench bench(4, 2, DataMode::Timing, {"arch.pe.sram_bytes=4096"});
  ProgramBuilder b("big");
  b.buffer("weights", ElementType::F16, 1024);  // 2048 bytes
  b.buffer("acts", ElementType::F32, 1024);     // 4096 bytes
  const ProgramId id = bench.pes->addProgram(b.build());
  expectMentions(programErrorOf([&] { bench.pes->load(bench.pe(2, 1), id); }),
                 {"PE (2,1)", "'acts'", "4096 bytes asked", "2048 of 4096 bytes free"});
}

TEST(ProgramErrors, TaskBoundToAColorTheRouterDoesNotDeliver) {
  PeTestBench bench(4, 1);
  bench.routeEast(5, 0, 3);  // delivers color 5 at (3,0) only
  ProgramBuilder b("recv");
  const BufferRef acc = b.buffer("acc", ElementType::F32, 1);
  const TaskRef t = b.dataTask("on_data", 5);
  b.fadd(t, Precision::Fp32, memory(acc, 1), memory(acc, 1), taskArgument());
  const ProgramId id = bench.pes->addProgram(b.build());
  bench.pes->load(bench.pe(3), id);
  expectMentions(programErrorOf([&] { bench.pes->load(bench.pe(2), id); }),
                 {"PE (2,0)", "task 'on_data'", "color 5", "does not deliver color 5 to its RAMP", "forwards {E}"});
}

TEST(ProgramErrors, SendingOnAColorTheRouterDoesNotTakeFromTheRamp) {
  PeTestBench bench(4, 1);
  ProgramBuilder b("send");
  const BufferRef out = b.buffer("out", ElementType::F32, 4);
  const TaskRef t = b.task("main");
  b.fmov(t, Precision::Fp32, fabricOut(2, 4), memory(out, 4));
  const ProgramId id = bench.pes->addProgram(b.build());
  expectMentions(programErrorOf([&] { bench.pes->load(bench.pe(1), id); }),
                 {"PE (1,0)", "task 'main' instruction 0", "sends on color 2", "does not accept color 2"});
}

TEST(ProgramErrors, DescriptorOutOfItsBuffer) {
  PeTestBench bench(2, 1);
  ProgramBuilder b("oob");
  const BufferRef x = b.buffer("x", ElementType::F16, 64);
  const TaskRef t = b.task("scale");
  b.fmul(t, Precision::Fp16, memory(x, 32, 4, 2), memory(x, 32, 4, 2), scalar(2));
  const ProgramId id = bench.pes->addProgram(b.build());
  expectMentions(programErrorOf([&] { bench.pes->load(bench.pe(1), id); }),
                 {"PE (1,0)", "task 'scale' instruction 0", "fmul.fp16 x[4:+32:2]", "element 66 of buffer 'x'",
                  "64 elements"});
}

TEST(ProgramErrors, WrongElementTypeLengthMismatchAndLimits) {
  PeTestBench bench(1, 1, DataMode::Functional, {"arch.pe.threads=2"});
  ProgramBuilder b("bad");
  const BufferRef h = b.buffer("h", ElementType::F16, 8), f = b.buffer("f", ElementType::F32, 8);
  const TaskRef t = b.task("t");
  const auto errorOf = [&](ProgramBuilder& builder) {
    const ProgramId id = bench.pes->addProgram(builder.build());
    return programErrorOf([&] { bench.pes->load(0, id); });
  };
  b.fadd(t, Precision::Fp32, memory(f, 8), memory(h, 8), scalar(1));
  expectMentions(errorOf(b), {"buffer 'h' of f16", "fp32 fadd needs f32"});

  ProgramBuilder c("bad2");
  const BufferRef f2 = c.buffer("f", ElementType::F32, 8);
  c.fadd(c.task("t"), Precision::Fp32, memory(f2, 8), memory(f2, 4), scalar(1));
  expectMentions(errorOf(c), {"source 0 has 4 elements, the operation 8"});

  ProgramBuilder d("bad3");
  const BufferRef f3 = d.buffer("f", ElementType::F32, 8);
  d.fmov(d.task("t"), Precision::Fp32, memory(f3, 8), scalar(0), Issue::onThread(2));
  expectMentions(errorOf(d), {"thread 2", "arch.pe.threads=2"});
}

// A wavelet's index (ArgumentRun) exists only in a data task, and the
// positions it splits off must fit the index's 16 bits.
TEST(ProgramErrors, AWaveletIndexOutsideADataTaskOrPastSixteenBits) {
  PeTestBench bench(2, 1);
  bench.routeEast(3, 0, 1);
  ProgramBuilder b("sparse");
  const BufferRef acc = b.buffer("acc", ElementType::F32, 4);
  const TaskRef done = b.task("done");
  const TaskRef main = b.task("main");
  b.argumentRun(main, 0, 1, 4, done);
  b.fadd(main, Precision::Fp32, memory(acc, 1).indexed(0, 1), memory(acc, 1).indexed(0, 1), scalar(1));
  const ProgramId id = bench.pes->addProgram(b.build());
  expectMentions(programErrorOf([&] { bench.pes->load(bench.pe(1), id); }),
                 {"PE (1,0)", "task 'main' instruction 0", "not a data task"});

  ProgramBuilder wide("wide");
  const TaskRef wideDone = wide.task("done");
  const TaskRef onData = wide.dataTask("on_data", 3);
  wide.argumentRun(onData, 0, 1, 70000, wideDone);
  const ProgramId wideId = bench.pes->addProgram(wide.build());
  expectMentions(programErrorOf([&] { bench.pes->load(bench.pe(1), wideId); }),
                 {"PE (1,0)", "task 'on_data' instruction 0", "70000 positions", "16-bit index"});
}

TEST(ProgramErrors, ATaskLongerThanTheProgramCounterCanCountIsRefused) {
  // Issue 29, item 10: a task of 65536 instructions ran round forever (the
  // PE's 16-bit program counter wrapped before reaching the task's end):
  // chain_reduce with repeat 1048576 ran past 150 s.
  PeTestBench bench(1, 1, DataMode::Timing);
  const auto longTask = [](std::size_t ops) {
    ProgramBuilder b("long");
    const BufferRef f = b.buffer("f", ElementType::F32, 1);
    const TaskRef t = b.task("main");
    b.activateAtStart(t);
    for (std::size_t i = 0; i < ops; ++i) b.fmov(t, Precision::Fp32, memory(f, 1), scalar(0));
    return b.build();
  };
  ProgramId id = bench.pes->addProgram(longTask(kMaxTaskInstructions + 1));
  expectMentions(programErrorOf([&] { bench.pes->load(0, id); }),
                 {"task 'main' has 65536 instructions, more than the 65535 a task may hold"});
  id = bench.pes->addProgram(longTask(kMaxTaskInstructions));
  bench.pes->load(0, id);  // the longest a task may be
}

TEST(ProgramErrors, PeLeftWaitingIsReportedAfterTheRun) {
  PeTestBench bench(2, 1);
  bench.routeEast(0, 0, 1);
  ProgramBuilder send("send");
  const BufferRef out = send.buffer("out", ElementType::F32, 4);
  const TaskRef t = send.task("main");
  send.activateAtStart(t);
  send.fmov(t, Precision::Fp32, fabricOut(0, 4), memory(out, 4));
  ProgramBuilder recv("recv");
  const BufferRef in = recv.buffer("in", ElementType::F32, 8);
  const TaskRef r = recv.task("main");
  recv.activateAtStart(r);
  recv.fmov(r, Precision::Fp32, memory(in, 8), fabricIn(0, 8));  // waits for 8, gets 4
  bench.load(0, 0, send);
  bench.load(1, 0, recv);
  expectMentions(programErrorOf([&] { bench.simulate(); }),
                 {"PE (1,0)", "task 'main' waits for instruction 0", "main thread holds", "4 of 8 elements moved"});
}

TEST(ProgramText, DumpIsReadable) {
  ProgramBuilder b("demo");
  const BufferRef acc = b.buffer("acc", ElementType::F32, 64);
  const TaskRef main = b.task("main"), done = b.task("done");
  b.activateAtStart(main);
  b.fadd(main, Precision::Fp32, fabricOut(3, 64), fabricIn(2, 64), memory(acc, 64),
         Issue::onThread(1).thenActivate(done));
  b.block(main, done);
  EXPECT_EQ(dump(b.build()),
            "program demo\n"
            "  buffer 0 acc: f32[64]\n"
            "  task 0 'main' (active at start)\n"
            "    0: fadd.fp32 out@c3[64] <- in@c2[64], acc[0:+64:1]  on thread 1, then activate 'done'\n"
            "    1: block 'done'\n"
            "  task 1 'done'\n");
}

}  // namespace
}  // namespace wsesim::pe
