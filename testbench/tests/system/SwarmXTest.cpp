// SwarmX: a broadcast reaches all N systems after the payload's
// serialisation plus one node latency per tree level, depth =
// ceil(log_fanout N); a reduction of N gradient payloads is their sum and
// arrives at line rate.
#include <gtest/gtest.h>

#include <memory>
#include <tuple>

#include "hw/system/SwarmX.h"
#include "testbench/tests/system/SystemTestSupport.h"

namespace wsesim::system {
namespace {

using testing::us;

// SwarmX with N stub systems and a stub MemoryX bound around it.
struct Cluster {
  testing::StubMemoryX memoryx{"memoryx"};
  SwarmX swarmx;
  std::vector<std::unique_ptr<testing::StubSystem>> systems;

  Cluster(unsigned n, unsigned fanOut, bool functional)
      : swarmx("swarmx", testing::swarmx(fanOut, 1.0), n, functional) {
    memoryx.weights_out.bind(swarmx.from_memoryx);
    swarmx.to_memoryx.bind(memoryx.gradients_in);
    swarmx.activations_to_memoryx.bind(memoryx.activations_in);
    for (unsigned i = 0; i < n; ++i) {
      systems.push_back(std::make_unique<testing::StubSystem>(("system" + std::to_string(i)).c_str()));
      swarmx.to_systems.bind(systems.back()->weights_in);
      systems.back()->gradients_out.bind(swarmx.from_systems);
      systems.back()->activations.bind(swarmx.activations_from_systems);
    }
  }
};

// (N, fan-out, depth = ceil(log_fanout N)), by hand:
// fan-out 4: 1 -> 0, 2 -> 1, 4 -> 1, 8 -> 2 (4 x 4 >= 8), 16 -> 2.
// fan-out 2: 1 -> 0, 2 -> 1, 4 -> 2, 8 -> 3, 16 -> 4.
class Broadcast : public ::testing::TestWithParam<std::tuple<unsigned, unsigned, unsigned>> {};

// 150,000 B over 150e9 B/s links = 1 us of serialisation, paid once (the
// nodes forward as bytes arrive); node latency 1 us per level. Sent at
// 2 us, every system has the last byte at 2 + 1 + depth us, and the
// write completes then.
TEST_P(Broadcast, ReachesAllSystemsAfterSerialisationPlusDepthNodeLatencies) {
  const auto [n, fanOut, depth] = GetParam();
  Cluster c(n, fanOut, true);
  ASSERT_EQ(c.swarmx.tree().depth(), depth);
  std::vector<float> weights(37500);  // 150,000 B
  for (std::size_t i = 0; i < weights.size(); ++i) weights[i] = float(i % 11);
  sc_core::sc_time done;
  testing::Stimulus stimulus("stimulus", [&] {
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(4096);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(weights.data()));
    p.set_data_length(150000);
    p.set_streaming_width(150000);
    sc_core::sc_time delay = us(2);
    c.memoryx.weights_out->b_transport(p, delay);
    EXPECT_TRUE(p.is_response_ok());
    done = sc_core::sc_time_stamp() + delay;
  });
  sc_core::sc_start();
  const sc_core::sc_time expected = us(2 + 1 + depth);
  EXPECT_EQ(done, expected);
  for (const auto& s : c.systems) {
    ASSERT_EQ(s->received.size(), 1u) << s->name();
    EXPECT_EQ(s->received[0].at, expected) << s->name();
    EXPECT_EQ(s->received[0].address, 4096u);
    EXPECT_EQ(s->received[0].values, weights) << s->name();
  }
  // Every tree edge carried the payload once: one link per node and per system.
  EXPECT_EQ(c.swarmx.broadcastStats().bytes, 150000u * (c.swarmx.tree().nodes() + n));
}

INSTANTIATE_TEST_SUITE_P(SwarmX, Broadcast,
                         ::testing::Values(std::make_tuple(1u, 4u, 0u), std::make_tuple(2u, 4u, 1u),
                                           std::make_tuple(4u, 4u, 1u), std::make_tuple(8u, 4u, 2u),
                                           std::make_tuple(16u, 4u, 2u), std::make_tuple(1u, 2u, 0u),
                                           std::make_tuple(2u, 2u, 1u), std::make_tuple(4u, 2u, 2u),
                                           std::make_tuple(8u, 2u, 3u), std::make_tuple(16u, 2u, 4u)),
                         [](const auto& info) {
                           return "systems" + std::to_string(std::get<0>(info.param)) + "_fanout" +
                                  std::to_string(std::get<1>(info.param));
                         });

// 8 systems, fan-out 2: depth 3. System i sends 37,500 floats (150,000 B,
// 1 us on a link) with value i * 1000 + (j % 7) at index j, all at 0 us;
// integers, so the fp32 sum is exact: 28,000 + 8 * (j % 7). Each node
// sums as the bytes stream through, so the sum's last byte reaches MemoryX
// at 1 us + 3 node latencies = 4 us: the same as one payload crossing the
// tree, i.e. at line rate. A second gradient (address 2) sent at 0 us as
// well queues behind the first on every link and arrives 1 us later, 5 us.
TEST(SwarmXReduce, SumOfTheSystemsGradientsArrivesAtLineRate) {
  Cluster c(8, 2, true);
  testing::Stimulus stimulus("stimulus", [&] {
    for (std::uint64_t address : {1u, 2u})
      for (unsigned i = 0; i < 8; ++i) {
        std::vector<float> g(37500);
        for (std::size_t j = 0; j < g.size(); ++j) g[j] = float(i * 1000 + j % 7);
        c.systems[i]->sendGradients(address, g, us(0));
      }
  });
  sc_core::sc_start();
  ASSERT_EQ(c.memoryx.received.size(), 2u);
  for (const testing::Received& r : c.memoryx.received) {
    ASSERT_EQ(r.values.size(), 37500u);
    for (std::size_t j = 0; j < r.values.size(); ++j) ASSERT_EQ(r.values[j], float(28000 + 8 * (j % 7))) << j;
  }
  EXPECT_EQ(c.memoryx.received[0].address, 1u);
  EXPECT_EQ(c.memoryx.received[0].at, us(4));
  EXPECT_EQ(c.memoryx.received[1].at, us(5));
  ASSERT_EQ(c.swarmx.reductions().size(), 2u);
  EXPECT_EQ(c.swarmx.reductions()[1].arrived, us(5));
  // The 7 nodes' partial sums came from the memory manager: a node's sum
  // goes back to the pool once its parent has added it in, so with the
  // systems sending in order at most one per level (3) is alive, and the
  // rest, the second reduction's included, reuse them.
  EXPECT_EQ(c.swarmx.payloads().created(), 3u);
  EXPECT_EQ(c.swarmx.payloads().inUse(), 0u);
}

// Timing mode, 5 systems, fan-out 4: the root has 2 children (4 systems and
// 1 system), depth 2. The systems send at 0, 0, 3, 0, 1 us: the sum waits
// for the last (3 us) and then crosses as one payload: 3 + 1 + 2 = 6 us.
TEST(SwarmXReduce, TheSumWaitsForTheLastSystemInAnUnevenTree) {
  Cluster c(5, 4, false);
  ASSERT_EQ(c.swarmx.tree().depth(), 2u);
  const double sentUs[] = {0, 0, 3, 0, 1};
  testing::Stimulus stimulus("stimulus", [&] {
    for (unsigned i = 0; i < 5; ++i) testing::writeBytes(c.systems[i]->gradients_out, 64, 150000, us(sentUs[i]));
  });
  sc_core::sc_start();
  ASSERT_EQ(c.memoryx.received.size(), 1u);
  EXPECT_EQ(c.memoryx.received[0].at, us(6));
  EXPECT_EQ(c.memoryx.received[0].bytes, 150000u);
  EXPECT_TRUE(c.memoryx.received[0].values.empty());  // timing mode: no data
}

// Offloaded activations are one system's own: 4 systems, fan-out 2, depth
// 2. System 2 writes 150,000 B at 2 us: over its own edge (1 us of bytes),
// then two nodes (1 us each) forwarding as the bytes arrive, at MemoryX at
// 5 us; its write is done when its last byte is in the tree, 3 us. It reads
// them back at 10 us: the stub MemoryX answers at once, and they stream
// down its path, at the system at 10 + 1 + 2 = 13 us. Only the 3 edges of
// that path carry them, each way.
TEST(SwarmXUnicast, ActivationsCrossOnlyTheirSystemsPath) {
  Cluster c(4, 2, false);
  ASSERT_EQ(c.swarmx.tree().depth(), 2u);
  sc_core::sc_time written, read;
  testing::Stimulus stimulus("stimulus", [&] {
    written = testing::writeBytes(c.systems[2]->activations, 64, 150000, us(2));
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_READ_COMMAND);
    p.set_address(64);
    p.set_data_length(150000);
    sc_core::sc_time delay = us(10) - sc_core::sc_time_stamp();
    c.systems[2]->activations->b_transport(p, delay);
    EXPECT_TRUE(p.is_response_ok());
    read = sc_core::sc_time_stamp() + delay;
  });
  sc_core::sc_start();
  EXPECT_EQ(written, us(3));
  ASSERT_EQ(c.memoryx.received.size(), 2u);
  EXPECT_EQ(c.memoryx.received[0].address, 64u);
  EXPECT_EQ(c.memoryx.received[0].at, us(5));
  EXPECT_EQ(c.memoryx.received[1].at, us(10));
  EXPECT_EQ(read, us(13));
  EXPECT_EQ(c.swarmx.reduceStats().bytes, 3u * 150000);
  EXPECT_EQ(c.swarmx.broadcastStats().bytes, 3u * 150000);
  EXPECT_TRUE(c.swarmx.reductions().empty());
  for (const auto& system : c.systems) EXPECT_TRUE(system->received.empty());
}

}  // namespace
}  // namespace wsesim::system
