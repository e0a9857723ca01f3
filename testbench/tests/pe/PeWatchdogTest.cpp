// The deadlock watchdog on PEs: a PE that computes is busy, not stuck, so a
// sender held back by it is not a deadlock however short the watchdog; a PE
// that will never take its wavelets is, reported the watchdog's interval
// after the last thing that moved or was due (docs/fabric-model.md).
// Tiny preset: ramp 2 cycles, hop 1, queues and inboxes of 4, task start 2,
// op overhead 2. The shortest watchdog on a 3 x 1 mesh is a corner-to-corner
// crossing, (3 + 1 - 2) * 1 + 2 * 2 = 6 cycles, plus one: 7.
#include <gtest/gtest.h>

#include "hw/fabric/FabricError.h"
#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe {
namespace {

using testing::expectMentions;
using testing::PeTestBench;

constexpr std::uint32_t kSamples = 64;

// PE (0,0) sends kSamples fp32 values east on color 0 to PE (2,0).
PeTestBench sendEast(ProgramBuilder receiver) {
  PeTestBench bench(3, 1, DataMode::Functional, {"run.watchdog_cycles=7"});
  bench.routeEast(0, 0, 2);
  ProgramBuilder send("send");
  const BufferRef out = send.buffer("out", ElementType::F32, kSamples);
  const TaskRef t = send.task("main");
  send.activateAtStart(t);
  send.fmov(t, Precision::Fp32, fabricOut(0, kSamples), memory(out, kSamples));
  bench.load(0, 0, send);
  bench.load(2, 0, receiver);
  return bench;
}

// The receiver computes for 2 + 2 + 200 cycles (an FMAC of 200 elements at
// one per cycle) before it reads: the sender waits ~190 cycles with every
// queue full, far longer than the watchdog of 7, and nothing moves. Then
// its FMOV issues (ready at 206) and reads one wavelet per cycle: the
// timing of PeFabricIo.BackpressureStallsTheSenderAndLosesNothing.
TEST(PeWatchdog, AComputingReceiverIsNotADeadlock) {
  ProgramBuilder recv("recv");
  const BufferRef in = recv.buffer("in", ElementType::F32, kSamples);
  const BufferRef busy = recv.buffer("busy", ElementType::F32, 200);
  const TaskRef r = recv.task("main");
  recv.activateAtStart(r);
  recv.fmac(r, Precision::Fp32, memory(busy, 200), memory(busy, 200), memory(busy, 200), scalar(1));
  recv.fmov(r, Precision::Fp32, memory(in, kSamples), fabricIn(0, kSamples));
  PeTestBench bench = sendEast(recv);
  EXPECT_NO_THROW(bench.simulate());
  EXPECT_EQ(bench.busy(2), 2u + 2 + 200 + 2 + kSamples);
  EXPECT_EQ(bench.wafer->fabric().counters().delivered, kSamples);
}

// The receiver's data task is blocked for good: its inbox takes 4
// wavelets, the queues on the way 4 each ((2,0) W, (1,0) W, (0,0) RAMP):
// 16 enter, one per cycle from the sender's first element at 2 + 2 = 4, the
// last at 19. The sender's op is due once more, at 20, finds no room and
// retries every cycle after: blocked. So the run stops at 20 + 7.
TEST(PeWatchdog, AReceiverThatNeverReadsIsADeadlock) {
  ProgramBuilder recv("recv");
  const BufferRef acc = recv.buffer("acc", ElementType::F32, 1);
  const TaskRef onWavelet = recv.dataTask("on_wavelet", 0);
  recv.blockAtStart(onWavelet);
  recv.fadd(onWavelet, Precision::Fp32, memory(acc, 1), memory(acc, 1), taskArgument());
  PeTestBench bench = sendEast(recv);
  std::string report;
  try {
    bench.simulate();
    FAIL() << "no DeadlockError";
  } catch (const fabric::DeadlockError& e) {
    report = e.what();
  }
  const fabric::FabricCounters& c = bench.wafer->fabric().counters();
  EXPECT_EQ(c.injected, 16u);
  EXPECT_EQ(c.delivered, 4u);
  EXPECT_EQ(c.queued, 12u);
  EXPECT_EQ(bench.wafer->cycles(), 20u + 7);
  expectMentions(report, {"for 7 cycles (cycle 27", "12 wavelets still in the fabric",
                          "router (2,0) input W color 0: 4 queued",
                          "blocked by the PE, which takes no more wavelets of color 0"});
}

}  // namespace
}  // namespace wsesim::pe
