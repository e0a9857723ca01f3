#include "hw/system/MemoryX.h"

#include <tlm_utils/tlm_quantumkeeper.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "hw/common/ConfigError.h"
#include "hw/system/StreamTiming.h"

namespace wsesim::system {
namespace {

std::string bytesText(double bytes) {
  char text[64];
  std::snprintf(text, sizeof text, "%.0f bytes (%.3g GB)", bytes, bytes / 1e9);
  return text;
}

sc_core::sc_time seconds(double s) { return sc_core::sc_time(s, sc_core::SC_SEC); }

}  // namespace

const char* updateBoundName(UpdateBound bound) {
  return bound == UpdateBound::StorageBandwidth ? "storage bandwidth" : "optimizer throughput";
}

MemoryX::MemoryX(sc_core::sc_module_name name, const MemoryXParams& params, ModelWeights model,
                 const OptimizerModel& optimizer)
    : sc_core::sc_module(name),
      weights_out("weights_out"),
      gradients_in("gradients_in"),
      activations_in("activations_in"),
      params_(params),
      model_(std::move(model)),
      optimizer_(optimizer),
      storage_(params.bandwidthBytesPerS, seconds(params.latencyS), LinkOrder::EarliestGap) {
  const double stored = double(storedBytes());
  if (stored > double(params_.capacityBytes))
    throw config::ConfigError("MemoryX: model '" + model_.name + "' needs " + bytesText(stored) + " (" +
                              std::to_string(model_.parameters()) + " parameters x " +
                              std::to_string(optimizer_.storedBytesPerParameter) + " bytes of weights and " +
                              optimizer_.name + " state), more than arch.memoryx.capacity_bytes = " +
                              bytesText(double(params_.capacityBytes)));
  std::uint64_t address = 0;
  for (std::size_t i = 0; i < model_.layers.size(); ++i) {
    layerAddress_.push_back(address);
    layerAt_[address] = i;
    address += std::max<std::uint64_t>(model_.layers[i].streamedBytes(), 1);  // distinct even when empty
  }
  updatedAt_.assign(model_.layers.size(), sc_core::SC_ZERO_TIME);
  gradientsDue_.assign(model_.layers.size(), false);
  arrivals_.resize(model_.layers.size());
  accumulated_.assign(model_.layers.size(), 0);
  gradients_in.register_b_transport(this, &MemoryX::receiveGradients);
  activations_in.register_b_transport(this, &MemoryX::serveActivations);
  SC_THREAD(streamWeights);
}

void MemoryX::startStreaming(std::vector<StreamRequest> schedule) {
  schedule_ = std::move(schedule);
  start_.notify();
}

std::uint64_t MemoryX::storedBytes() const { return model_.parameters() * optimizer_.storedBytesPerParameter; }

void MemoryX::streamWeights() {
  // Loosely timed: the thread runs ahead of SystemC time by its local offset
  // and syncs when the global quantum says so.
  if (schedule_.empty()) wait(start_);
  const sc_core::sc_time begin = sc_core::sc_time_stamp();
  tlm_utils::tlm_quantumkeeper clock;
  clock.reset();
  const std::size_t window = params_.prefetchLayers;
  std::vector<LinkTransfer> fetches;  // per schedule entry, as issued
  // Entry j's fetch from storage into a staging buffer: the buffers hold the
  // layer streaming out and `window` ahead of it, so entry j's waits until
  // entry j - window - 1 has streamed out, and after its layer's last update.
  const auto fetch = [&](std::size_t j) {
    const std::size_t layer = schedule_[j].layer;
    const sc_core::sc_time bufferFree = j > window ? streams_[j - window - 1].streamEnd : begin;
    fetches.push_back(storage_.send(std::max(bufferFree, updatedAt_[layer]), model_.layers[layer].streamedBytes()));
    if (schedule_[j].gradients && !schedule_[j].accumulate) gradientsDue_[layer] = true;
  };
  for (const StreamRequest& r : schedule_)
    if (r.gradients) arrivals_.at(r.layer).push_back(r.accumulate);
  for (std::size_t k = 0; k < schedule_.size(); ++k) {
    // Prefetch: the entries up to `window` ahead go to storage before this
    // one streams out, ahead of the optimizer updates its gradients bring
    // (storage serves in the order asked). A layer whose gradients are due
    // waits for its own turn: the next step streams updated weights.
    while (fetches.size() < schedule_.size() && fetches.size() <= k + window &&
           (fetches.size() == k || !gradientsDue_[schedule_[fetches.size()].layer]))
      fetch(fetches.size());
    const std::size_t layer = schedule_.at(k).layer;
    const std::uint64_t bytes = model_.layers.at(layer).streamedBytes();
    LayerStream s;
    s.layer = layer;
    s.fetchStart = fetches[k].start;
    s.fetchEnd = fetches[k].tail;
    const sc_core::sc_time previousEnd = k > 0 ? streams_[k - 1].streamEnd : begin;
    s.streamStart = std::max(s.fetchEnd, previousEnd);
    s.exposed = s.streamStart - previousEnd;

    tlm::tlm_generic_payload& payload = payloads_.allocate(bytes * schedule_[k].repeats, false);
    payload.set_command(tlm::TLM_WRITE_COMMAND);
    payload.set_address(layerAddress(layer));
    sc_core::sc_time delay = s.streamStart - sc_core::sc_time_stamp();
    weights_out->b_transport(payload, delay);
    if (payload.is_response_error())
      SC_REPORT_ERROR(name(), ("weights of layer '" + model_.layers[layer].name +
                               "' were refused: " + payload.get_response_string())
                                  .c_str());
    payload.release();
    s.streamEnd = sc_core::sc_time_stamp() + delay;
    streams_.push_back(s);
    clock.set(delay);
    if (clock.need_sync()) clock.sync();
  }
  clock.sync();
}

void MemoryX::receiveGradients(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (payload.get_command() != tlm::TLM_WRITE_COMMAND) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  const auto found = layerAt_.find(payload.get_address());
  if (found == layerAt_.end()) {
    payload.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const std::size_t index = found->second;
  const LayerWeights& layer = model_.layers[index];
  const sc_core::sc_time arrived = sc_core::sc_time_stamp() + delay;
  std::deque<bool>& arrivals = arrivals_[index];
  const bool accumulate = !arrivals.empty() && arrivals.front();
  if (!arrivals.empty()) arrivals.pop_front();
  if (accumulate) {
    // The first micro-batch's gradients are written; later ones read the sum and write it back.
    GradientAccumulation a;
    a.layer = index;
    a.gradientsArrived = arrived;
    a.bytesTouched = payload.get_data_length() * (accumulated_[index]++ == 0 ? 1 : 2);
    a.end = storage_.send(arrived, a.bytesTouched).tail;
    accumulations_.push_back(a);
    payload.set_response_status(tlm::TLM_OK_RESPONSE);
    return;
  }
  OptimizerUpdate u;
  u.layer = index;
  u.gradientsArrived = arrived;
  u.start = std::max(u.gradientsArrived, optimizerFreeAt_);
  // After micro-batches, the update adds the accumulated sum it reads.
  u.bytesTouched = layer.parameters * optimizer_.touchedBytesPerParameter +
                   (accumulated_[index] > 0 ? payload.get_data_length() : 0);
  accumulated_[index] = 0;
  u.flops = double(layer.parameters) * optimizer_.flopsPerParameter;
  // The update's storage traffic and its arithmetic overlap: the slower one bounds it.
  const sc_core::sc_time memoryDone = storage_.send(u.start, u.bytesTouched).tail;
  const sc_core::sc_time computeDone = u.start + seconds(u.flops / params_.optimizerFlopsPerS);
  u.end = std::max(memoryDone, computeDone);
  u.bound = memoryDone >= computeDone ? UpdateBound::StorageBandwidth : UpdateBound::OptimizerThroughput;
  optimizerFreeAt_ = u.end;
  updatedAt_[u.layer] = u.end;
  gradientsDue_[u.layer] = false;
  updates_.push_back(u);
  // A posted write: it completes on arrival; the update runs on inside MemoryX.
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

void MemoryX::serveActivations(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  ActivationTransfer a;
  a.address = payload.get_address();
  a.bytes = payload.get_data_length();
  a.write = payload.get_command() == tlm::TLM_WRITE_COMMAND;
  if (!a.write && payload.get_command() != tlm::TLM_READ_COMMAND) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  // A write is buffered as it streams in and stored once all of it is
  // there, as gradients are; a read streams out as storage reads it.
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  const LinkTransfer t = storage_.send(now + delay, a.bytes);
  StreamTiming* timing = payload.get_extension<StreamTiming>();
  if (!a.write && timing) {
    timing->head = t.head;
    timing->tail = t.tail;
  }
  a.offered = t.start;
  a.end = t.tail;
  activationTransfers_.push_back(a);
  delay = t.tail - now;
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace wsesim::system
