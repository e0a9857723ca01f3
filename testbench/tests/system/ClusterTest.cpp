// The cluster end to end: MemoryX streams one layer, SwarmX broadcasts it
// to N systems, each wafer computes and sends its gradients back, SwarmX
// sums them, MemoryX updates the layer.
//
// Everything moves at 150e9 B/s (MemoryX storage, SwarmX links, each
// system's I/O ring); SwarmX nodes add 1 us. The layer: 75,000 parameters,
// 150,000 B of fp16 weights (1 us at 150e9). The wafer: a 10 us forward
// GEMM on the weights, then a 5 us weight-gradient GEMM sending 300,000 B
// of fp32 gradients (2 us of bytes, so no slower than it computes). SGD
// touches 12 B per parameter: 900,000 B, 6 us.
//
// One system (no SwarmX node between MemoryX and it): fetch 0-1 us; the
// weights stream 1-2 us; forward 1-11 us; weight gradient 11-16 us, the
// gradients at MemoryX by 16 us; update 16-22 us. Four systems (fan-out 4:
// one node): the weights reach every system 1 us later and the sum reaches
// MemoryX 1 us after the last system sent: each way one node latency,
// 24 us in all.

#include <gtest/gtest.h>

#include "hw/system/Cluster.h"
#include "testbench/tests/system/SystemTestSupport.h"

namespace wsesim::system {
namespace {

using testing::us;

ClusterSpec clusterOf(unsigned systems) {
  ClusterSpec spec;
  spec.meshRows = 8;
  spec.io.channelsPerEdge = 1;
  spec.io.bandwidthBytesPerS = 150e9;
  spec.memoryx.capacityBytes = 1ull << 40;
  spec.memoryx.bandwidthBytesPerS = 150e9;
  spec.memoryx.optimizerFlopsPerS = 1e12;
  spec.memoryx.latencyS = 0;
  spec.memoryx.prefetchLayers = 1;
  spec.swarmx = testing::swarmx(4, 1);
  spec.systems = systems;
  return spec;
}

ClusterWork oneLayer(std::uint64_t gradientAddress) {
  WaferTask forward;
  forward.name = "forward";
  forward.duration = us(10);
  forward.streamed = true;
  forward.streamBytes = 150000;
  WaferTask grad;
  grad.name = "weight_grad";
  grad.duration = us(5);
  grad.gradients = true;
  grad.gradientAddress = gradientAddress;
  grad.gradientBytes = 300000;
  return ClusterWork{{StreamRequest(0)}, {{forward, grad}}};
}

void expectStep(unsigned systems, double stepUs) {
  const ModelWeights model{"one", {LayerWeights{"w", 75000, 2}}};
  Cluster* cluster = nullptr;
  Cluster c("cluster", clusterOf(systems), model, optimizerModel("sgd"), nullptr,
            [&] { return oneLayer(cluster->memoryx.layerAddress(0)); });
  cluster = &c;
  sc_core::sc_start();
  EXPECT_EQ(c.finished() - c.began(), us(stepUs));
  ASSERT_EQ(c.memoryx.updates().size(), 1u);
  EXPECT_EQ(c.memoryx.updates()[0].end, us(stepUs));
  const double node = c.swarmx.tree().depth();  // node latencies each way, in us
  for (const CsSystem& s : c.systems) {
    ASSERT_EQ(s.records().size(), 2u) << s.name();
    EXPECT_EQ(s.records()[0].start, us(1 + node)) << s.name();
    EXPECT_EQ(s.records()[1].end, us(16 + node)) << s.name();
  }
  ASSERT_EQ(c.swarmx.reductions().size(), 1u);
  EXPECT_EQ(c.swarmx.reductions()[0].arrived, us(16 + 2 * node));
  EXPECT_EQ(c.swarmx.broadcastStats().bytes, 150000u * (systems == 1 ? 1 : 1 + systems));
}

TEST(Cluster, OneSystemStepIsFetchComputeGradientsAndUpdate) { expectStep(1, 22); }

TEST(Cluster, FourSystemsAddOneNodeLatencyEachWay) { expectStep(4, 24); }

}  // namespace
}  // namespace wsesim::system
