// CsSystem: a wafer's tasks placed against the weights that arrive through
// its I/O ring. The ring here: 1e9 B/s over 2 channels (0.5e9 B/s each), so
// 1000 B of weights cross it in 1 us. Times in microseconds.

#include <gtest/gtest.h>

#include "hw/system/CsSystem.h"
#include "testbench/tests/system/SystemTestSupport.h"

namespace wsesim::system {
namespace {

using testing::us;

// One channel a side at 1 GB/s, serving a mesh of 8 rows.
wafer::IoParams ringOf1GBps() {
  wafer::IoParams io;
  io.channelsPerEdge = 1;
  io.bandwidthBytesPerS = 1e9;
  return io;
}

WaferTask streamed(const std::string& name, double durationUs, double drainUs, std::uint64_t bytes) {
  WaferTask t;
  t.name = name;
  t.duration = us(durationUs);
  t.drain = us(drainUs);
  t.streamed = true;
  t.streamBytes = bytes;
  return t;
}

WaferTask onWafer(const std::string& name, double durationUs) {
  WaferTask t;
  t.name = name;
  t.duration = us(durationUs);
  return t;
}

// The `i`-th transfer `target` took: its address, bytes and when its last byte was there.
void expectTransfer(const testing::StubTarget& target, std::size_t i, std::uint64_t address, std::uint64_t bytes,
                    double atUs) {
  ASSERT_LT(i, target.received.size());
  EXPECT_EQ(target.received[i].address, address) << i;
  EXPECT_EQ(target.received[i].bytes, bytes) << i;
  EXPECT_EQ(target.received[i].at, us(atUs)) << i;
}

// A system with a stub network on both sides.
struct Bench {
  Bench() : system("system", ringOf1GBps(), 8), network("network"), gradients("gradients"), store("store") {
    network.out.bind(system.weights_in);
    system.gradients_out.bind(gradients.in);
    system.activations.bind(store.in);
  }
  // Writes `bytes` of weights from inside a thread, streaming in from
  // `headUs` to `tailUs` (all there at `tailUs` when they are equal, no
  // StreamTiming); returns when the write completed.
  sc_core::sc_time write(std::uint64_t bytes, double headUs, double tailUs) {
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_data_length(unsigned(bytes));
    p.set_streaming_width(unsigned(bytes));
    sc_core::sc_time delay = us(tailUs) - sc_core::sc_time_stamp();
    if (headUs == tailUs) {
      network.out->b_transport(p, delay);
    } else {
      const StreamTimingScope stream(p, us(headUs), us(tailUs));
      network.out->b_transport(p, delay);
    }
    EXPECT_TRUE(p.is_response_ok());
    return sc_core::sc_time_stamp() + delay;
  }
  CsSystem system;
  testing::StubInitiator network;
  testing::StubTarget gradients;
  testing::StubTarget store;  // where offloaded activations go and come back from
};

// Weights streaming in from 0 to 1 us at the ring's rate; the task takes
// 5 us with a 1 us drain: the wafer is the bound, it ends at 5 us and has
// taken its last weight at 5 - 1 = 4 us, when the write completes.
TEST(CsSystem, AComputeBoundTaskEndsItsDurationAfterItsStart) {
  Bench b;
  b.system.setWork({streamed("gemm", 5, 1, 1000)}, sc_core::SC_ZERO_TIME);
  sc_core::sc_time done;
  testing::Stimulus s("s", [&] { done = b.write(1000, 0, 1); });
  sc_core::sc_start();
  EXPECT_EQ(done, us(4));
  ASSERT_EQ(b.system.records().size(), 1u);
  EXPECT_EQ(b.system.records()[0].start, us(0));
  EXPECT_EQ(b.system.records()[0].end, us(5));
  EXPECT_EQ(b.system.records()[0].bound, TaskBound::Compute);
  EXPECT_EQ(b.system.records()[0].waited, sc_core::SC_ZERO_TIME);
}

// A 1 us task (0.2 us drain) fed by weights that stream in from 0 to 3 us
// (slower than the ring): it ends its drain after the last weight, 3.2 us,
// and waited 2.2 us for them.
TEST(CsSystem, AStreamBoundTaskEndsItsDrainAfterItsLastWeight) {
  Bench b;
  b.system.setWork({streamed("gemm", 1, 0.2, 1000)}, sc_core::SC_ZERO_TIME);
  sc_core::sc_time done;
  testing::Stimulus s("s", [&] { done = b.write(1000, 0, 3); });
  sc_core::sc_start();
  EXPECT_EQ(done, us(3));
  ASSERT_EQ(b.system.records().size(), 1u);
  EXPECT_EQ(b.system.records()[0].end, us(3.2));
  EXPECT_EQ(b.system.records()[0].waited, us(2.2));
  EXPECT_EQ(b.system.records()[0].bound, TaskBound::WeightStream);
}

// In order: layer norm 0-2 us; backward-data (3 us, drain 0.5) on weights
// all there at 0 that cross the ring by 1 us: 2-5 us, its write done at
// 4.5 us; weight gradient 5-9 us, its 2000 B of gradients leave through the
// ring's egress (2 us of bytes, no faster than computed) from 5 to 9 us;
// GELU 9-10 us; then the next layer's weights, written at 4.5 us, in by
// 5.5 us, wait for the wafer: 10-11 us, write done at 11 us.
TEST(CsSystem, TasksRunInOrderAndGradientsLeaveAsTheyAreComputed) {
  Bench b;
  WaferTask grad = onWafer("weight_grad", 4);
  grad.gradients = true;
  grad.gradientAddress = 64;
  grad.gradientBytes = 2000;
  b.system.setWork({onWafer("layer_norm", 2), streamed("backward_data", 3, 0.5, 1000), grad, onWafer("gelu", 1),
                    streamed("next", 1, 0, 1000)},
                   sc_core::SC_ZERO_TIME);
  std::vector<sc_core::sc_time> done;
  testing::Stimulus s("s", [&] {
    done.push_back(b.write(1000, 0, 0));
    wait(done.back() - sc_core::sc_time_stamp());
    done.push_back(b.write(1000, 4.5, 4.5));
  });
  sc_core::sc_start();
  EXPECT_EQ(done, (std::vector<sc_core::sc_time>{us(4.5), us(11)}));
  const std::vector<TaskRecord>& r = b.system.records();
  ASSERT_EQ(r.size(), 5u);
  const std::vector<double> starts{0, 2, 5, 9, 10}, ends{2, 5, 9, 10, 11};
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].task, i);
    EXPECT_EQ(r[i].start, us(starts[i])) << i;
    EXPECT_EQ(r[i].end, us(ends[i])) << i;
  }
  EXPECT_EQ(r[1].bound, TaskBound::Compute);
  ASSERT_EQ(b.gradients.received.size(), 1u);
  expectTransfer(b.gradients, 0, 64, 2000, 9);
  EXPECT_EQ(b.gradients.heads[0], us(5));
  EXPECT_EQ(b.system.ioRing().egressStats().bytes, 2000u);
  EXPECT_EQ(b.system.ioRing().ingressStats().bytes, 2000u);
}

// Activation offload. The forward GEMM (0-2 us, weights in by 1 us) sends
// its 4000 B of activations out as it runs: through the egress from 0 to
// 4 us (the ring's rate), written at address 64. The next layer takes the
// SRAM they leave: it waits for them, 4-5 us. The op above (5-6 us)
// starts the fetch of 3000 B back for the weight gradient: the store
// answers at once, and the bytes cross the ring's ingress in 3 us, in by
// 8 us; the gradient waits 2 us for them (8-12 us). The next op (12-16 us)
// fetches 1000 B for the last gradient, in by 13 us: no wait (16-17 us).
TEST(CsSystem, OffloadedActivationsLeaveAsComputedAndComeBackBeforeTheirTask) {
  Bench b;
  WaferTask forward = streamed("forward", 2, 0, 1000);
  forward.activationAddress = 64;
  forward.offloadBytes = 4000;
  WaferTask nextLayer = onWafer("next_layer", 1);
  nextLayer.afterOffloadOf = 0;
  WaferTask grad = onWafer("weight_grad", 4);
  grad.activationAddress = 64;
  grad.fetchBytes = 3000;
  grad.fetchFrom = 2;
  WaferTask lastGrad = onWafer("last_weight_grad", 1);
  lastGrad.activationAddress = 4096;
  lastGrad.fetchBytes = 1000;
  lastGrad.fetchFrom = 4;
  b.system.setWork({forward, nextLayer, onWafer("above", 1), grad, onWafer("above_again", 4), lastGrad},
                   sc_core::SC_ZERO_TIME);
  testing::Stimulus s("s", [&] { b.write(1000, 0, 0); });
  sc_core::sc_start();
  const std::vector<TaskRecord>& r = b.system.records();
  ASSERT_EQ(r.size(), 6u);
  const std::vector<double> starts{0, 4, 5, 8, 12, 16}, ends{2, 5, 6, 12, 16, 17};
  for (std::size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].start, us(starts[i])) << i;
    EXPECT_EQ(r[i].end, us(ends[i])) << i;
  }
  for (std::size_t i : {1, 3}) {
    EXPECT_EQ(r[i].bound, TaskBound::Activations) << i;
    EXPECT_EQ(r[i].waited, us(2)) << i;
  }
  EXPECT_EQ(r[5].bound, TaskBound::Compute);
  ASSERT_EQ(b.store.received.size(), 3u);
  expectTransfer(b.store, 0, 64, 4000, 4);  // the offload, from 0 us
  EXPECT_EQ(b.store.heads[0], us(0));
  expectTransfer(b.store, 1, 64, 3000, 5);  // the fetches
  expectTransfer(b.store, 2, 4096, 1000, 12);
  EXPECT_EQ(b.system.ioRing().egressStats().bytes, 4000u);
  EXPECT_EQ(b.system.ioRing().ingressStats().bytes, 5000u);
  EXPECT_TRUE(b.gradients.received.empty());
}

TEST(CsSystem, AWriteOfTheWrongSizeNamesTheTaskAndBothSizes) {
  Bench b;
  b.system.setWork({streamed("ffn_up", 1, 0, 1000)}, sc_core::SC_ZERO_TIME);
  testing::Stimulus s("s", [&] {
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_data_length(999);
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    b.network.out->b_transport(p, delay);
  });
  try {
    sc_core::sc_start();
    FAIL() << "no error";
  } catch (const std::exception& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'ffn_up' takes 1000 bytes"), std::string::npos) << what;
    EXPECT_NE(what.find("carries 999"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace wsesim::system
