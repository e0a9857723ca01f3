// WaveletQueues on its own: FIFO order and slot blocks shared between queues and reused
// once a queue drains.
//
// Queue ids follow the kernel's layout: (color * routers + router) * 5 + port,
// with homes = routers * 5: one home block per (router, port).
#include <gtest/gtest.h>

#include <deque>
#include <random>
#include <vector>

#include "hw/fabric/WaveletQueues.h"

namespace wsesim::fabric {
namespace {

using QueueId = WaveletQueues::QueueId;

QueueId queueId(unsigned routers, unsigned router, Port port, unsigned color) {
  return (QueueId(color) * routers + router) * kPortCount + unsigned(port);
}

Wavelet tagged(std::uint32_t payload) {
  Wavelet w;
  w.payload = payload;
  w.color = std::uint8_t(payload % 24);
  w.destX = std::uint16_t(1000 + payload);
  w.destY = std::uint16_t(2000 + payload);
  w.control = payload % 2;
  w.last = payload % 3 == 0;
  return w;
}

TEST(WaveletQueues, PushPopIsFifoAcrossWrapAround) {
  // 2 routers x 5 ports x 2 colors, depth 3.
  WaveletQueues queues(/*queues=*/20, /*homes=*/10, /*depth=*/3);
  const QueueId q = queueId(2, 1, Port::West, 1);
  EXPECT_TRUE(queues.empty(q));
  queues.push(q, tagged(10), 5);
  queues.push(q, tagged(11), 6);
  queues.push(q, tagged(12), 7);
  EXPECT_EQ(queues.size(q), 3u);
  EXPECT_EQ(queues.front(q).wavelet().payload, 10u);
  EXPECT_EQ(queues.front(q).readyAt(), 5u);
  EXPECT_EQ(queues.at(q, 1).wavelet().payload, 11u);
  EXPECT_EQ(queues.at(q, 2).wavelet().payload, 12u);
  EXPECT_EQ(queues.at(q, 2).readyAt(), 7u);

  queues.pop(q);
  queues.push(q, tagged(13), 8);  // slot 2 held 12; 13 wraps into slot 0
  EXPECT_EQ(queues.front(q).wavelet().payload, 11u);
  EXPECT_EQ(queues.at(q, 1).wavelet().payload, 12u);
  EXPECT_EQ(queues.at(q, 2).wavelet().payload, 13u);
  const Wavelet thirteen = queues.at(q, 2).wavelet();
  EXPECT_EQ(thirteen.color, 13u);
  EXPECT_EQ(thirteen.destX, 1013u);
  EXPECT_EQ(thirteen.destY, 2013u);
  EXPECT_TRUE(thirteen.control);
  EXPECT_FALSE(thirteen.last);
  EXPECT_TRUE(queues.at(q, 1).wavelet().last);  // 12
  EXPECT_EQ(queues.at(q, 2).readyAt(), 8u);

  // A long random push/pop sequence against a reference FIFO, one pop at
  // most per cycle as in the kernel.
  std::deque<std::uint32_t> model{11, 12, 13};
  std::mt19937 rng(99);
  std::uint32_t next = 14;
  for (std::uint64_t cycle = 1; cycle < 500; ++cycle) {
    if (!model.empty() && rng() % 2) {
      ASSERT_EQ(queues.front(q).wavelet().payload, model.front()) << "cycle " << cycle;
      queues.pop(q);
      model.pop_front();
    }
    if ((queues.size(q) < queues.depth()) && rng() % 2) {
      queues.push(q, tagged(next), next);
      model.push_back(next++);
    }
    ASSERT_EQ(queues.size(q), model.size());
    for (unsigned i = 0; i < model.size(); ++i) ASSERT_EQ(queues.at(q, i).wavelet().payload, model[i]);
  }
}

// 3 routers x 5 ports x 4 colors, every queue filled at once. With depth 4
// the four colors of one (router, port) share its home: one queue gets the
// home block, the others overflow blocks. With depth 64 a block is too large
// for homes and all come from the overflow pool. Either way every queue must
// keep its own wavelets.
void expectEveryQueueKeepsItsWavelets(unsigned depth) {
  const unsigned routers = 3, colors = 4;
  WaveletQueues queues(routers * kPortCount * colors, routers * kPortCount, depth);
  const QueueId n = QueueId(routers) * kPortCount * colors;
  for (std::uint32_t round = 0; round < depth; ++round)
    for (QueueId q = 0; q < n; ++q) queues.push(q, tagged(std::uint32_t(q * 100 + round)), round);
  for (QueueId q = 0; q < n; ++q) {
    ASSERT_EQ(queues.size(q), depth);
    for (unsigned i = 0; i < depth; ++i) EXPECT_EQ(queues.at(q, i).wavelet().payload, q * 100 + i) << "queue " << q;
  }
}

TEST(WaveletQueues, QueuesSharingAHomeKeepTheirOwnWavelets) { expectEveryQueueKeepsItsWavelets(4); }
TEST(WaveletQueues, DeepQueuesWithoutHomesKeepTheirOwnWavelets) { expectEveryQueueKeepsItsWavelets(64); }

// Drained queues give their blocks back and later queues take them: the ten
// colors of one (router, port) each cycle hold wavelets in a random subset,
// then drain. Without reuse every cycle would add overflow blocks and the
// memory footprint would keep growing.
TEST(WaveletQueues, DrainedBlocksAreReused) {
  const unsigned colors = 10;
  WaveletQueues queues(/*queues=*/kPortCount * colors, /*homes=*/kPortCount, /*depth=*/2);
  std::vector<QueueId> all;
  for (unsigned c = 0; c < colors; ++c) all.push_back(queueId(1, 0, Port::North, c));
  // First the worst case (all ten queues at once) so that the pool and its
  // free list have reached the size later cycles need.
  std::uint64_t now = 0;
  for (QueueId q : all) queues.push(q, tagged(0), now);
  for (QueueId q : all) queues.pop(q);
  const std::size_t footprint = queues.hostBytes();

  std::mt19937 rng(5);
  for (std::uint32_t round = 1; round <= 200; ++round) {
    ++now;
    std::vector<QueueId> used;
    for (QueueId q : all)
      if (rng() % 2) used.push_back(q);
    for (QueueId q : used) {
      queues.push(q, tagged(round * 1000 + std::uint32_t(q)), now);
      queues.push(q, tagged(round * 1000 + 500 + std::uint32_t(q)), now);
    }
    for (QueueId q : used) {
      ASSERT_EQ(queues.size(q), 2u);
      // No stale data from the block's previous owner.
      EXPECT_EQ(queues.front(q).wavelet().payload, round * 1000 + q);
      EXPECT_EQ(queues.at(q, 1).wavelet().payload, round * 1000 + 500 + q);
    }
    for (QueueId q : used) queues.pop(q);
    ++now;
    for (QueueId q : used) queues.pop(q);
    ASSERT_EQ(queues.hostBytes(), footprint) << "round " << round;
  }
}

// A queue that drains and is refilled within one cycle, next to another
// color of the same (router, port), keeps its FIFO order and its data.
TEST(WaveletQueues, QueueDrainedAndRefilledInOneCycleKeepsItsData) {
  WaveletQueues queues(/*queues=*/20, /*homes=*/10, /*depth=*/2);  // 2 routers, 2 colors
  const QueueId a = queueId(2, 1, Port::West, 0), b = queueId(2, 1, Port::West, 1);
  queues.push(a, tagged(1), 0);
  queues.pop(a);
  EXPECT_TRUE(queues.empty(a));
  queues.push(a, tagged(2), 1);
  queues.push(b, tagged(3), 1);  // same home: must not share a's block
  queues.push(a, tagged(4), 2);
  ASSERT_EQ(queues.size(a), 2u);
  EXPECT_EQ(queues.front(a).wavelet().payload, 2u);
  EXPECT_EQ(queues.at(a, 1).wavelet().payload, 4u);
  ASSERT_EQ(queues.size(b), 1u);
  EXPECT_EQ(queues.front(b).wavelet().payload, 3u);
}

// A queue takes its (router, port)'s home when it fills while no other
// color's queue is in it, and leaves it when it drains: refilling a drained
// queue takes no overflow block while the home is free; another color of
// the same (router, port) takes the home over once its holder is empty,
// and the old holder then needs an overflow block.
TEST(WaveletQueues, HomeChangesHandsOnlyWhileEmpty) {
  WaveletQueues queues(/*queues=*/20, /*homes=*/10, /*depth=*/2);  // 2 routers, 2 colors
  const QueueId a = queueId(2, 1, Port::West, 0), b = queueId(2, 1, Port::West, 1);
  queues.push(a, tagged(1), 0);
  const std::size_t homesOnly = queues.hostBytes();
  queues.pop(a);
  queues.push(a, tagged(2), 1);
  EXPECT_EQ(queues.hostBytes(), homesOnly) << "a refilled queue takes its home back, no overflow block";
  queues.push(b, tagged(3), 1);
  EXPECT_GT(queues.hostBytes(), homesOnly) << "the home is held by non-empty a: b overflows";
  queues.pop(a);
  queues.pop(b);  // b's overflow block goes back to the pool, a keeps the home
  const std::size_t oneOverflow = queues.hostBytes();
  queues.push(b, tagged(4), 2);  // takes the idle home over
  queues.push(a, tagged(5), 2);  // takes the pooled overflow block
  queues.push(a, tagged(6), 3);
  EXPECT_EQ(queues.hostBytes(), oneOverflow) << "blocks are reused, not added";
  ASSERT_EQ(queues.size(a), 2u);
  EXPECT_EQ(queues.front(a).wavelet().payload, 5u);
  EXPECT_EQ(queues.at(a, 1).wavelet().payload, 6u);
  ASSERT_EQ(queues.size(b), 1u);
  EXPECT_EQ(queues.front(b).wavelet().payload, 4u);
}

// A queue that overflowed stays under its own header while it is
// non-empty, even when the home frees up and another color takes it: its
// header does not move while it holds wavelets.
TEST(WaveletQueues, OverflowedQueueKeepsItsHeaderWhileTheHomeChangesHands) {
  WaveletQueues queues(/*queues=*/30, /*homes=*/10, /*depth=*/2);  // 2 routers, 3 colors
  const QueueId a = queueId(2, 1, Port::West, 0), b = queueId(2, 1, Port::West, 1),
                c = queueId(2, 1, Port::West, 2);
  queues.push(a, tagged(1), 0);  // a takes the home
  queues.push(b, tagged(2), 0);  // b overflows
  queues.pop(a);                 // the home is free, b still in its overflow block
  queues.push(c, tagged(3), 1);  // c takes the home
  queues.push(b, tagged(4), 1);  // appended to b's own queue, not to the home
  EXPECT_TRUE(queues.empty(a));
  ASSERT_EQ(queues.size(b), 2u);
  EXPECT_EQ(queues.front(b).wavelet().payload, 2u);
  EXPECT_EQ(queues.at(b, 1).wavelet().payload, 4u);
  ASSERT_EQ(queues.size(c), 1u);
  EXPECT_EQ(queues.front(c).wavelet().payload, 3u);
  queues.pop(b);
  queues.pop(b);
  queues.push(a, tagged(5), 2);  // the home is c's: a takes b's old block
  ASSERT_EQ(queues.size(a), 1u);
  EXPECT_EQ(queues.front(a).wavelet().payload, 5u);
  EXPECT_TRUE(queues.empty(b));
  EXPECT_EQ(queues.front(c).wavelet().payload, 3u);
}

TEST(WaveletQueues, DeepestConfigurableQueueHolds255) {
  WaveletQueues queues(5, 5, 255);  // arch.fabric.queue_depth allows 1..255
  const QueueId q = queueId(1, 0, Port::East, 0);
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_TRUE((queues.size(q) < queues.depth())) << i;
    queues.push(q, tagged(i), i);
  }
  EXPECT_FALSE((queues.size(q) < queues.depth()));
  EXPECT_EQ(queues.size(q), 255u);
  for (std::uint32_t i = 0; i < 255; ++i) {
    ASSERT_EQ(queues.front(q).wavelet().payload, i);
    queues.pop(q);
  }
  EXPECT_TRUE(queues.empty(q));
}

// The planned host memory (checked against run.max_host_bytes before a run)
// holds what the queues take at worst: every queue of every color full, so
// every queue but the homes' holders in an overflow block, then all drained
// into the free list. With homes (shallow queues) and without (deep ones).
TEST(WaveletQueues, PlannedHostBytesHoldEveryQueueFullThenDrained) {
  for (unsigned depth : {2u, 64u}) {
    const unsigned routers = 3, colors = 7;
    const std::size_t queueCount = std::size_t(routers) * kPortCount * colors, homes = routers * kPortCount;
    WaveletQueues queues(queueCount, homes, depth);
    const std::size_t planned = WaveletQueues::plannedHostBytes(queueCount, homes, depth);
    EXPECT_LT(queues.hostBytes(), planned) << "depth " << depth;
    for (QueueId q = 0; q < queueCount; ++q)
      for (unsigned i = 0; i < depth; ++i) queues.push(q, tagged(std::uint32_t(q * 100 + i)), 0);
    EXPECT_LE(queues.hostBytes(), planned) << "depth " << depth << ", every queue full";
    for (QueueId q = 0; q < queueCount; ++q)
      for (unsigned i = 0; i < depth; ++i) queues.pop(q);
    EXPECT_LE(queues.hostBytes(), planned) << "depth " << depth << ", drained";
    // Not loose either: all that is not the free list's slack is in use.
    EXPECT_GE(queues.hostBytes() + 2 * queueCount * sizeof(std::uint32_t), planned) << "depth " << depth;
  }
}

}  // namespace
}  // namespace wsesim::fabric
