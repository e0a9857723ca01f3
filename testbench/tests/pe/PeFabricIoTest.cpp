// Ops that read and write the fabric: one wavelet per cycle through the
// RAMP, ramp and hop latency, backpressure without loss, data tasks
// started by the color of an arriving wavelet.
// Latencies (tiny preset): ramp 2 cycles each way, hop 1 cycle.
#include <gtest/gtest.h>

#include <numeric>
#include <string>

#include "testbench/tests/pe/PeTestBench.h"

namespace wsesim::pe {
namespace {

using testing::PeTestBench;

std::vector<float> iota(std::size_t n, float first) {
  std::vector<float> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

// PE (0,0) sends n fp32 values east on color 0; PE (x,0) receives them into memory.
struct SendReceive {
  PeTestBench bench;
  explicit SendReceive(std::uint32_t distance, std::uint32_t n, std::uint32_t receiverDelayElements = 0,
                       const std::vector<std::string>& overrides = {})
      : bench(distance + 1, 1, DataMode::Functional, overrides) {
    bench.routeEast(0, 0, distance);
    ProgramBuilder send("send");
    const BufferRef out = send.buffer("out", ElementType::F32, n);
    const TaskRef t = send.task("main");
    send.activateAtStart(t);
    send.fmov(t, Precision::Fp32, fabricOut(0, n), memory(out, n));
    ProgramBuilder recv("recv");
    const BufferRef in = recv.buffer("in", ElementType::F32, n);
    const TaskRef r = recv.task("main");
    recv.activateAtStart(r);
    if (receiverDelayElements) {  // a long compute op first: the receiver is late
      const BufferRef busy = recv.buffer("busy", ElementType::F32, receiverDelayElements);
      recv.fmac(r, Precision::Fp32, memory(busy, receiverDelayElements), memory(busy, receiverDelayElements),
                memory(busy, receiverDelayElements), scalar(1));
    }
    recv.fmov(r, Precision::Fp32, memory(in, n), fabricIn(0, n));
    bench.load(0, 0, send);
    bench.load(distance, 0, recv);
    bench.pes->write(bench.pe(0), "out", 0, iota(n, 1));
  }
};

// Element k leaves the sender's op at cycle 2 + 2 + k, spends 2 cycles on
// each ramp and 1 per hop, and 1 more (fabric input) before the receiver
// can use it: at 4 + k + 2 + d + 2 + 1.
class Distance : public ::testing::TestWithParam<std::uint32_t> {};

TEST_P(Distance, SendAndReceiveThroughTheRampAtOneWaveletPerCycle) {
  const std::uint32_t d = GetParam();
  SendReceive s(d, 16);
  s.bench.simulate();
  EXPECT_EQ(s.bench.busy(0), 2u + 2 + 16);
  EXPECT_EQ(s.bench.busy(d), 4u + 15 + 4 + d + 1 + 1);
  EXPECT_EQ(s.bench.pes->read(s.bench.pe(d), "in", 0, 16), iota(16, 1));
}

INSTANTIATE_TEST_SUITE_P(Hops, Distance, ::testing::Values(1u, 3u));

TEST(PeFabricIo, RampLatencyIsAParameter) {
  // Deeper router queues and inbox, so that the ramps' longer pipelines still run at full rate.
  SendReceive s(1, 16, 0,
                {"arch.fabric.ramp_latency_cycles=5", "arch.fabric.queue_depth=8", "arch.pe.ramp_inbox_depth=8"});
  s.bench.simulate();
  EXPECT_EQ(s.bench.busy(1), 4u + 15 + 5 + 1 + 5 + 1 + 1);
}

// The receiver spends 2 + 2 + 200 cycles in an FMAC before it reads: the
// sender stalls once the route's queues and the receiver's inbox are full,
// resumes at one wavelet per cycle, and nothing is lost or reordered.
TEST(PeFabricIo, BackpressureStallsTheSenderAndLosesNothing) {
  SendReceive s(2, 64, 200);
  s.bench.simulate();
  EXPECT_EQ(s.bench.pes->read(s.bench.pe(2), "in", 0, 64), iota(64, 1));
  const std::uint64_t receiverReads = 2 + 2 + 200 + 2;  // its FMOV's first element
  EXPECT_EQ(s.bench.busy(2), receiverReads + 64);       // then one wavelet per cycle
  EXPECT_GT(s.bench.busy(0), receiverReads);            // the sender waited
  EXPECT_EQ(s.bench.wafer->fabric().counters().delivered, 64u);
}

// The receiver's RAMP inbox has its own depth D (arch.pe.ramp_inbox_depth),
// apart from the routers' queues (arch.fabric.queue_depth: 4). While the
// receiver computes, color 0 fills its inbox, then router 1's West queue
// and router 0's RAMP queue: the sender stalls after D + 8 wavelets. From
// then on the receiver's read of element j at cycle receiverReads + j
// frees an inbox slot, and the room travels back one stage a cycle: router
// 1 delivers into the inbox at +1, router 0 forwards east at +2, the
// sender injects element j + D + 8 at +3. So its last element, n - 1,
// leaves at receiverReads + (n - 1 - D - 8) + 3: each slot more in the
// inbox, one cycle less for the sender. The receiver reads a wavelet a
// cycle at every D >= 4, the cycles from a read to the next wavelet it can
// use in the freed slot (delivery +1, ramp 2, fabric input 1).
class InboxDepth : public ::testing::TestWithParam<unsigned> {};

TEST_P(InboxDepth, ADeeperRampInboxHoldsMoreWaveletsBeforeTheSenderStalls) {
  const unsigned depth = GetParam();
  const std::uint32_t n = 64, queues = 2 * 4;
  SendReceive s(1, n, 200, {"arch.pe.ramp_inbox_depth=" + std::to_string(depth)});
  s.bench.simulate();
  const std::uint64_t receiverReads = 2 + 2 + 200 + 2;  // its FMOV's first element
  EXPECT_EQ(s.bench.pes->read(s.bench.pe(1), "in", 0, n), iota(n, 1));
  EXPECT_EQ(s.bench.busy(1), receiverReads + n);
  EXPECT_EQ(s.bench.busy(0), receiverReads + (n - 1 - depth - queues) + 3 + 1);  // + 1: its last cycle
}

INSTANTIATE_TEST_SUITE_P(Depths, InboxDepth, ::testing::Values(4u, 8u, 16u));

// A sender whose RAMP queue is full sleeps until the router takes a wavelet
// from it (FabricKernel::rampFreed), not retrying every cycle: while the
// receiver computes 200 cycles it is not visited: 68 visits in all (the
// task's start, the op's issue, 64 elements, the one refused, the
// completion), not one more per cycle of its stall.
TEST(PeFabricIo, ASenderAgainstAFullRampSleepsUntilThereIsRoom) {
  SendReceive s(1, 64, 200);
  s.bench.simulate();
  const std::uint64_t receiverReads = 2 + 2 + 200 + 2;
  EXPECT_EQ(s.bench.busy(0), receiverReads + (64 - 1 - 4 - 8) + 3 + 1);  // as InboxDepth at depth 4
  EXPECT_EQ(s.bench.pes->counters(s.bench.pe(0)).visits, 68u);
}

// Each wavelet of color 0 starts the data task bound to it with its payload
// as the task argument; the task accumulates it.
TEST(PeFabricIo, DataTaskRunsOncePerWaveletOfItsColor) {
  PeTestBench bench(2, 1);
  bench.routeEast(0, 0, 1);
  ProgramBuilder send("send");
  const BufferRef out = send.buffer("out", ElementType::F32, 3);
  const TaskRef t = send.task("main");
  send.activateAtStart(t);
  send.fmov(t, Precision::Fp32, fabricOut(0, 3), memory(out, 3));
  ProgramBuilder recv("recv");
  const BufferRef acc = recv.buffer("acc", ElementType::F32, 1);
  const TaskRef onWavelet = recv.dataTask("on_wavelet", 0);
  recv.fadd(onWavelet, Precision::Fp32, memory(acc, 1), memory(acc, 1), taskArgument());
  bench.load(0, 0, send);
  bench.load(1, 0, recv);
  bench.pes->write(bench.pe(0), "out", 0, {1.5f, 2.0f, 4.0f});
  bench.simulate();
  EXPECT_EQ(bench.pes->read(bench.pe(1), "acc", 0, 1), std::vector<float>{7.5f});
  EXPECT_EQ(bench.pes->counters(bench.pe(1)).tasksRun, 3u);
  // Wavelets arrive at 9, 10, 11; each task takes 2 (start) + 2 + 1 cycles,
  // so they run back to back from 9 to 24.
  EXPECT_EQ(bench.busy(1), 15u);
}

// A blocked data task leaves its wavelets waiting (and the sender stalled)
// until another task unblocks it.
TEST(PeFabricIo, BlockedDataTaskHoldsItsWavelets) {
  PeTestBench bench(2, 1);
  bench.routeEast(0, 0, 1);
  ProgramBuilder send("send");
  // More wavelets than the route's queues and the inbox hold (3 x 4).
  const BufferRef out = send.buffer("out", ElementType::F32, 20);
  const TaskRef t = send.task("main");
  send.activateAtStart(t);
  send.fmov(t, Precision::Fp32, fabricOut(0, 20), memory(out, 20));
  ProgramBuilder recv("recv");
  const BufferRef acc = recv.buffer("acc", ElementType::F32, 1), work = recv.buffer("work", ElementType::F32, 300);
  const TaskRef onWavelet = recv.dataTask("on_wavelet", 0), gate = recv.task("gate");
  recv.blockAtStart(onWavelet).activateAtStart(gate);
  recv.fadd(onWavelet, Precision::Fp32, memory(acc, 1), memory(acc, 1), taskArgument());
  recv.fmac(gate, Precision::Fp32, memory(work, 300), memory(work, 300), memory(work, 300), scalar(1));
  recv.unblock(gate, onWavelet);
  bench.load(0, 0, send);
  bench.load(1, 0, recv);
  bench.pes->write(bench.pe(0), "out", 0, iota(20, 1));
  bench.simulate();
  EXPECT_EQ(bench.pes->read(bench.pe(1), "acc", 0, 1), std::vector<float>{210.0f});
  EXPECT_EQ(bench.pes->counters(bench.pe(1)).tasksRun, 21u);
  EXPECT_GT(bench.busy(0), 2u + 2 + 300);  // the sender stalled behind the blocked task
}

}  // namespace
}  // namespace wsesim::pe
