#pragma once
// Stand-ins the system tests bind around the module under test: a CS system
// that records the weights it receives and sends gradients, a MemoryX that
// records the gradients it receives, and a thread running a test's stimulus.
// Times in the tests are in microseconds (us below).

#include <gtest/gtest.h>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_target_socket.h>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstring>
#include <functional>
#include <vector>

#include "hw/system/SystemParams.h"
#include "hw/system/StreamTiming.h"

namespace wsesim::system::testing {

inline sc_core::sc_time us(double v) { return sc_core::sc_time(v, sc_core::SC_US); }

struct Received {
  sc_core::sc_time at;  // last byte in
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  std::vector<float> values;  // when the payload carries data
};

inline Received record(const tlm::tlm_generic_payload& p, const sc_core::sc_time& delay) {
  Received r{sc_core::sc_time_stamp() + delay, p.get_address(), p.get_data_length(), {}};
  if (p.get_data_ptr()) {
    r.values.resize(p.get_data_length() / sizeof(float));
    std::memcpy(r.values.data(), p.get_data_ptr(), r.values.size() * sizeof(float));
  }
  return r;
}

// Writes `bytes` (no data) to `address` at `at` (absolute) through
// `socket`, from inside a thread; returns when the write completed.
template <typename Socket>
sc_core::sc_time writeBytes(Socket& socket, std::uint64_t address, std::uint64_t bytes, const sc_core::sc_time& at) {
  tlm::tlm_generic_payload p;
  p.set_command(tlm::TLM_WRITE_COMMAND);
  p.set_address(address);
  p.set_data_length(unsigned(bytes));
  p.set_streaming_width(unsigned(bytes));
  sc_core::sc_time delay = at - sc_core::sc_time_stamp();
  socket->b_transport(p, delay);
  EXPECT_TRUE(p.is_response_ok()) << p.get_response_string();
  return sc_core::sc_time_stamp() + delay;
}

// An initiator and nothing else.
struct StubInitiator : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<StubInitiator> out{"out"};
  explicit StubInitiator(sc_core::sc_module_name name) : sc_core::sc_module(name) {}
};

// A target for any number of initiators that records every write (with its
// StreamTiming's first byte, if any).
struct StubTarget : sc_core::sc_module {
  tlm_utils::multi_passthrough_target_socket<StubTarget> in{"in"};
  std::vector<Received> received;
  std::vector<sc_core::sc_time> heads;

  explicit StubTarget(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    in.register_b_transport(this, &StubTarget::take);
  }
  void take(int, tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    received.push_back(record(p, delay));
    const StreamTiming* t = p.get_extension<StreamTiming>();
    heads.push_back(t ? t->head : received.back().at);
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// A CS system: computes on each layer for `computeTime` once its weights are in.
struct StubSystem : sc_core::sc_module {
  tlm_utils::simple_target_socket<StubSystem> weights_in{"weights_in"};
  tlm_utils::simple_initiator_socket<StubSystem> gradients_out{"gradients_out"};
  tlm_utils::simple_initiator_socket<StubSystem> activations{"activations"};
  sc_core::sc_time computeTime = sc_core::SC_ZERO_TIME;
  // When non-zero: after computing on a layer, send that many bytes of
  // gradients (no data) for its address, as a backward pass does.
  std::uint64_t echoGradientBytes = 0;
  std::vector<Received> received;

  explicit StubSystem(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    weights_in.register_b_transport(this, &StubSystem::take);
  }
  void take(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    received.push_back(record(p, delay));
    delay += computeTime;
    p.set_response_status(tlm::TLM_OK_RESPONSE);
    if (echoGradientBytes) writeBytes(gradients_out, p.get_address(), echoGradientBytes, sc_core::sc_time_stamp() + delay);
  }
  // Writes `values` (fp32) to `address` at `at` (absolute); from inside a thread.
  void sendGradients(std::uint64_t address, std::vector<float>& values, const sc_core::sc_time& at) {
    tlm::tlm_generic_payload p;
    p.set_command(tlm::TLM_WRITE_COMMAND);
    p.set_address(address);
    p.set_data_ptr(reinterpret_cast<unsigned char*>(values.data()));
    p.set_data_length(unsigned(values.size() * sizeof(float)));
    p.set_streaming_width(p.get_data_length());
    sc_core::sc_time delay = at - sc_core::sc_time_stamp();
    gradients_out->b_transport(p, delay);
    if (p.is_response_error()) SC_REPORT_ERROR(name(), p.get_response_string().c_str());
  }
};

// MemoryX's place in the tree: sends weights, records gradients.
struct StubMemoryX : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<StubMemoryX> weights_out{"weights_out"};
  tlm_utils::simple_target_socket<StubMemoryX> gradients_in{"gradients_in"};
  tlm_utils::simple_target_socket<StubMemoryX> activations_in{"activations_in"};
  std::vector<Received> received;

  explicit StubMemoryX(sc_core::sc_module_name name) : sc_core::sc_module(name) {
    gradients_in.register_b_transport(this, &StubMemoryX::take);
    activations_in.register_b_transport(this, &StubMemoryX::take);
  }
  void take(tlm::tlm_generic_payload& p, sc_core::sc_time& delay) {
    received.push_back(record(p, delay));
    p.set_response_status(tlm::TLM_OK_RESPONSE);
  }
};

// Runs `body` as an SC_THREAD from time zero.
struct Stimulus : sc_core::sc_module {
  SC_HAS_PROCESS(Stimulus);
  Stimulus(sc_core::sc_module_name name, std::function<void()> body)
      : sc_core::sc_module(name), body_(std::move(body)) {
    SC_THREAD(run);
  }
  void run() { body_(); }
  std::function<void()> body_;
};

// SwarmX links of 12 x 12.5e9 = 150e9 B/s (the wse2 preset's), so 150,000 bytes take 1 us.
inline SwarmXParams swarmx(unsigned fanOut, double nodeLatencyUs) {
  SwarmXParams s;
  s.nicBandwidthBytesPerS = 12.5e9;
  s.nicsPerLink = 12;
  s.fanOut = fanOut;
  s.nodeLatencyS = nodeLatencyUs * 1e-6;
  return s;
}

}  // namespace wsesim::system::testing
