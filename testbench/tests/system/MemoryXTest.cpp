// MemoryX: the capacity check, weight streaming with the next layer
// prefetched while the current one streams (and the wafer computes), and
// the optimizer update's cost. Wired as in a cluster of one system:
// MemoryX -> SwarmX -> system, and back.
#include <gtest/gtest.h>

#include "hw/common/ConfigError.h"
#include "hw/system/MemoryX.h"
#include "hw/system/SwarmX.h"
#include "testbench/tests/config/ConfigTestUtil.h"
#include "testbench/tests/system/SystemTestSupport.h"

namespace wsesim::system {
namespace {

using testing::us;

MemoryXParams memoryxParams(double bandwidth, double latencyUs, unsigned prefetchLayers) {
  MemoryXParams m;
  m.capacityBytes = 4000000000000;
  m.bandwidthBytesPerS = bandwidth;
  m.optimizerFlopsPerS = 1e12;
  m.latencyS = latencyUs * 1e-6;
  m.prefetchLayers = prefetchLayers;
  return m;
}

// `layers` layers of 75,000 fp16 parameters = 150,000 B each.
ModelWeights equalLayers(unsigned layers) {
  ModelWeights m{"equal", {}};
  for (unsigned i = 0; i < layers; ++i) m.layers.push_back({"layer" + std::to_string(i), 75000, 2});
  return m;
}

struct OneSystemCluster {
  MemoryX memoryx;
  SwarmX swarmx;
  testing::StubSystem system{"system"};

  OneSystemCluster(const MemoryXParams& params, ModelWeights model, const std::string& optimizer)
      : memoryx("memoryx", params, std::move(model), optimizerModel(optimizer)),
        swarmx("swarmx", testing::swarmx(4, 1.0), 1, false) {
    memoryx.weights_out.bind(swarmx.from_memoryx);
    swarmx.to_memoryx.bind(memoryx.gradients_in);
    swarmx.activations_to_memoryx.bind(memoryx.activations_in);
    swarmx.to_systems.bind(system.weights_in);
    system.gradients_out.bind(swarmx.from_systems);
    system.activations.bind(swarmx.activations_from_systems);
  }
};

std::vector<sc_core::sc_time> exposed(const MemoryX& m) {
  std::vector<sc_core::sc_time> v;
  for (const LayerStream& s : m.streams()) v.push_back(s.exposed);
  return v;
}

// Fetch F = 150,000 B / 75e9 B/s = 2 us (storage latency 0). One system,
// so MemoryX's link goes straight to it: T = 1 us; the system computes C
// once the weights are in, so a layer streams for S = T + C.
//
// C = 5 us, S = 6 us > F, one layer prefetched:
//   fetch0 [0, 2]   stream0 [2, 8]    exposed 2 (nothing to hide behind)
//   fetch1 [2, 4]   stream1 [8, 14]   exposed 0
//   fetch2 [8, 10]  stream2 [14, 20]  exposed 0 (fetch2 waited for stream0's buffer)
TEST(MemoryXPrefetch, HidesTheNextLayerWhenComputeIsLongerThanTheFetch) {
  OneSystemCluster c(memoryxParams(75e9, 0, 1), equalLayers(3), "sgd");
  c.system.computeTime = us(5);
  c.memoryx.setSchedule({0, 1, 2});
  sc_core::sc_start();
  EXPECT_EQ(exposed(c.memoryx), (std::vector<sc_core::sc_time>{us(2), us(0), us(0)}));
  ASSERT_EQ(c.memoryx.streams().size(), 3u);
  EXPECT_EQ(c.memoryx.streams()[2].fetchStart, us(8));
  EXPECT_EQ(c.memoryx.streams()[2].streamEnd, us(20));
  EXPECT_EQ(c.system.received[1].at, us(9));  // stream1 starts at 8, its last byte is in 1 us later
  EXPECT_EQ(c.system.received[1].address, 150000u);
}

// C = 0.5 us, S = 1.5 us < F = 2 us: each fetch shows for F - S = 0.5 us.
//   fetch0 [0, 2]   stream0 [2, 3.5]    exposed 2
//   fetch1 [2, 4]   stream1 [4, 5.5]    exposed 0.5
//   fetch2 [4, 6]   stream2 [6, 7.5]    exposed 0.5
TEST(MemoryXPrefetch, ExposesTheFetchWhenComputeIsShorter) {
  OneSystemCluster c(memoryxParams(75e9, 0, 1), equalLayers(3), "sgd");
  c.system.computeTime = us(0.5);
  c.memoryx.setSchedule({0, 1, 2});
  sc_core::sc_start();
  EXPECT_EQ(exposed(c.memoryx), (std::vector<sc_core::sc_time>{us(2), us(0.5), us(0.5)}));
  EXPECT_EQ(c.memoryx.streams()[2].streamEnd, us(7.5));
}

// Without prefetch every fetch waits for the previous stream: C = 5 us as
// in the first case, but each layer is exposed for the whole F = 2 us:
//   fetch0 [0, 2] stream0 [2, 8]; fetch1 [8, 10] stream1 [10, 16]; fetch2 [16, 18] stream2 [18, 24]
TEST(MemoryXPrefetch, WithoutPrefetchEveryFetchIsExposed) {
  OneSystemCluster c(memoryxParams(75e9, 0, 0), equalLayers(3), "sgd");
  c.system.computeTime = us(5);
  c.memoryx.setSchedule({0, 1, 2});
  sc_core::sc_start();
  EXPECT_EQ(exposed(c.memoryx), (std::vector<sc_core::sc_time>{us(2), us(2), us(2)}));
  EXPECT_EQ(c.memoryx.streams()[2].streamEnd, us(24));
}

// 1e9 parameters x 12 B (adam: weight, m, v in fp32) = 12e9 B > 1e10 B.
// Backward passes: after computing on a layer (C = 5 us) the system sends
// its 300,000 B of gradients (2 us to MemoryX), and SGD's update then takes
// 900,000 B of storage traffic (12 us). Prefetch puts layer 1's fetch to
// storage before layer 0 streams out, ahead of layer 0's update:
//   fetch0 [0, 2]  fetch1 [2, 4]  stream0 [2, 8]  update0 [10, 22]
//   stream1 [8, 14] exposed 0
// and layer 2's, asked at 8 when stream0's buffer frees, takes storage's
// idle time before the update that was offered first: fetch2 [8, 10],
// stream2 [14, 20] exposed 0.
TEST(MemoryXPrefetch, PrefetchGoesAheadOfTheUpdatesTheStreamBrings) {
  OneSystemCluster c(memoryxParams(75e9, 0, 1), equalLayers(3), "sgd");
  c.system.computeTime = us(5);
  c.system.echoGradientBytes = 300000;
  c.memoryx.setSchedule({{0, 1, true}, {1, 1, true}, {2, 1, true}});
  sc_core::sc_start();
  EXPECT_EQ(exposed(c.memoryx), (std::vector<sc_core::sc_time>{us(2), us(0), us(0)}));
  ASSERT_EQ(c.memoryx.updates().size(), 3u);
  EXPECT_EQ(c.memoryx.updates()[0].start, us(10));
  EXPECT_EQ(c.memoryx.updates()[0].end, us(22));
  EXPECT_EQ(c.memoryx.streams()[1].fetchEnd, us(4));
  EXPECT_EQ(c.memoryx.streams()[2].fetchStart, us(8));
  EXPECT_EQ(c.memoryx.streams()[2].fetchEnd, us(10));
}

// A layer streamed for its backward pass is not fetched again (the next
// step's forward) until its gradients have updated it: stream0 [2, 8],
// gradients in at 10, update [10, 22], then fetch [22, 24] and stream.
TEST(MemoryXPrefetch, ALayerIsFetchedAgainOnlyAfterItsUpdate) {
  OneSystemCluster c(memoryxParams(75e9, 0, 1), equalLayers(1), "sgd");
  c.system.computeTime = us(5);
  c.system.echoGradientBytes = 300000;
  c.memoryx.setSchedule({{0, 1, true}, {0, 1, false}});
  sc_core::sc_start();
  ASSERT_EQ(c.memoryx.streams().size(), 2u);
  EXPECT_EQ(c.memoryx.streams()[1].fetchStart, us(22));
  EXPECT_EQ(c.memoryx.streams()[1].streamStart, us(24));
}

TEST(MemoryXCapacity, AModelThatDoesNotFitNamesItsSizeAndTheCapacity) {
  MemoryXParams params = memoryxParams(150e9, 1, 1);
  params.capacityBytes = 10000000000;
  const ModelWeights model{"big", {{"ffn", 1000000000, 2}}};
  const std::string message = config::testing::configErrorOf(
      [&] { MemoryX memoryx("memoryx", params, model, optimizerModel("adam")); });
  config::testing::expectMentions(message, {"MemoryX", "'big'", "12000000000 bytes", "1000000000 parameters",
                                            "12 bytes", "adam", "arch.memoryx.capacity_bytes",
                                            "10000000000 bytes"});
}

// The same model with sgd needs 1e9 x 4 B = 4e9 B: it fits.
TEST(MemoryXCapacity, TheOptimizerStateDecidesWhetherItFits) {
  MemoryXParams params = memoryxParams(150e9, 1, 1);
  params.capacityBytes = 10000000000;
  MemoryX memoryx("memoryx", params, ModelWeights{"big", {{"ffn", 1000000000, 2}}}, optimizerModel("sgd"));
  EXPECT_EQ(memoryx.storedBytes(), 4000000000u);
}

// Storage 100e9 B/s with 1 us latency, 1e12 FLOP/s. The update cost
// depends on the layer's parameters, not on the gradient payload's size,
// so the payloads are 150,000 B: 1 us over the link. Layer 1's (1e6
// parameters) sent at 9 us arrive at 10 us:
//   adam: 28 B x 1e6 = 28e6 B -> 280 us + 1 us latency; 12 FLOPs x 1e6 = 12e6 -> 12 us:
//         storage-bound, ends at 10 + 281 = 291 us.
// Layer 0's (2e6 parameters) arrive at 20 us and wait for the optimizer
// until 291 us: 56e6 B -> 560 us + 1 us, ends at 852 us.
TEST(MemoryXOptimizer, AdamUpdateIsBoundByTheBytesItTouches) {
  const ModelWeights model{"two", {{"a", 2000000, 2}, {"b", 1000000, 2}}};
  OneSystemCluster c(memoryxParams(100e9, 1, 1), model, "adam");
  testing::Stimulus stimulus("stimulus", [&] {
    testing::writeBytes(c.system.gradients_out, c.memoryx.layerAddress(1), 150000, us(9));
    testing::writeBytes(c.system.gradients_out, c.memoryx.layerAddress(0), 150000, us(19));
  });
  sc_core::sc_start();
  ASSERT_EQ(c.memoryx.updates().size(), 2u);
  const OptimizerUpdate& first = c.memoryx.updates()[0];
  EXPECT_EQ(first.layer, 1u);
  EXPECT_EQ(first.gradientsArrived, us(10));
  EXPECT_EQ(first.bytesTouched, 28000000u);
  EXPECT_DOUBLE_EQ(first.flops, 12e6);
  EXPECT_EQ(first.bound, UpdateBound::StorageBandwidth);
  EXPECT_EQ(first.end, us(291));
  const OptimizerUpdate& second = c.memoryx.updates()[1];
  EXPECT_EQ(second.layer, 0u);
  EXPECT_EQ(second.start, us(291));
  EXPECT_EQ(second.end, us(852));
}

// sgd at 1e9 FLOP/s on layer 1 (1e6 parameters): 2 FLOPs x 1e6 -> 2000 us,
// against 12 B x 1e6 = 12e6 B -> 120 + 1 us: bound by the optimizer's
// throughput, ends at 10 + 2000 = 2010 us.
TEST(MemoryXOptimizer, SgdUpdateIsBoundByFlopsOnASlowOptimizer) {
  MemoryXParams params = memoryxParams(100e9, 1, 1);
  params.optimizerFlopsPerS = 1e9;
  OneSystemCluster c(params, ModelWeights{"two", {{"a", 2000000, 2}, {"b", 1000000, 2}}}, "sgd");
  testing::Stimulus stimulus("stimulus", [&] {
    testing::writeBytes(c.system.gradients_out, c.memoryx.layerAddress(1), 150000, us(9));
  });
  sc_core::sc_start();
  ASSERT_EQ(c.memoryx.updates().size(), 1u);
  EXPECT_EQ(c.memoryx.updates()[0].bytesTouched, 12000000u);
  EXPECT_EQ(c.memoryx.updates()[0].bound, UpdateBound::OptimizerThroughput);
  EXPECT_EQ(c.memoryx.updates()[0].end, us(2010));
}

// Gradients for an address that is no layer's base are refused by
// MemoryX (address error), and SwarmX reports it, naming the address.
TEST(MemoryXOptimizer, GradientsAtAnUnknownAddressAreRefused) {
  OneSystemCluster c(memoryxParams(100e9, 1, 1), equalLayers(2), "sgd");
  testing::Stimulus stimulus("stimulus", [&] {
    std::vector<float> g(4);
    c.system.sendGradients(7, g, us(0));
  });
  try {
    sc_core::sc_start();
    ADD_FAILURE() << "expected an error";
  } catch (const std::exception& e) {
    config::testing::expectMentions(e.what(), {"refused the gradients at address 7", "ADDRESS_ERROR"});
  }
}

}  // namespace
}  // namespace wsesim::system
