#include "hw/system/CsSystem.h"

#include <algorithm>
#include <string>

namespace wsesim::system {

const char* taskBoundName(TaskBound bound) {
  switch (bound) {
    case TaskBound::Compute: return "compute";
    case TaskBound::WeightStream: return "weight stream";
    case TaskBound::Activations: return "activations";
  }
  return "?";
}

CsSystem::CsSystem(sc_core::sc_module_name name, const wafer::IoParams& io, std::uint32_t meshRows)
    : sc_core::sc_module(name),
      weights_in("weights_in"),
      gradients_out("gradients_out"),
      activations("activations"),
      ring_("io_ring", io, meshRows),
      to_ring_("to_ring", ring_.channels()),
      wafer_out_("wafer_out", ring_.channels()),
      from_ring_("from_ring", ring_.channels()) {
  for (unsigned k = 0; k < ring_.channels(); ++k) {
    to_ring_[k].bind(ring_.channel_in[k]);
    wafer_out_[k].bind(ring_.egress_in[k]);
    ring_.channel_out[k].bind(from_ring_[k]);
    from_ring_[k].register_b_transport(this, &CsSystem::leaveRing, int(k));
  }
  weights_in.register_b_transport(this, &CsSystem::takeWeights);
}

void CsSystem::setWork(WaferWork work, const sc_core::sc_time& begin) {
  work_ = std::move(work);
  cursor_ = 0;
  waferFree_ = begin;
  records_.clear();
  fetchesAt_.assign(work_.size(), {});
  fetched_.assign(work_.size(), begin);
  offloaded_.assign(work_.size(), begin);
  for (std::size_t i = 0; i < work_.size(); ++i) {
    const WaferTask& t = work_[i];
    if ((t.fetchBytes && t.fetchFrom > i) || (t.afterOffloadOf && *t.afterOffloadOf >= i))
      SC_REPORT_ERROR(name(), ("task '" + t.name + "' waits for activations of a later task").c_str());
    if (t.fetchBytes) fetchesAt_[t.fetchFrom].push_back(i);
  }
  runUnstreamed();
}

StreamTiming CsSystem::spread(tlm::tlm_generic_payload& payload,
                              sc_core::sc_vector<tlm_utils::simple_initiator_socket_tagged<CsSystem>>& channels,
                              const sc_core::sc_time& head, const sc_core::sc_time& tail) {
  const std::uint64_t bytes = payload.get_data_length(), n = channels.size();
  StreamTiming crossed;
  crossed.head = sc_core::SC_ZERO_TIME;
  bool first = true;
  std::uint64_t offset = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    const std::uint64_t share = bytes / n + (k < bytes % n ? 1 : 0);
    if (share == 0) continue;
    tlm::tlm_generic_payload part;
    part.set_command(tlm::TLM_WRITE_COMMAND);
    part.set_address(payload.get_address() + offset);
    part.set_data_ptr(payload.get_data_ptr() ? payload.get_data_ptr() + offset : nullptr);
    part.set_data_length(unsigned(share));
    part.set_streaming_width(unsigned(share));
    offset += share;
    // The channels carry the stream side by side, each its share, from its first byte to its last.
    const StreamTimingScope stream(part, head, tail);
    sc_core::sc_time delay = tail - sc_core::sc_time_stamp();
    channels[k]->b_transport(part, delay);
    if (part.is_response_error())
      SC_REPORT_ERROR(name(), ("I/O ring channel " + std::to_string(k) + " refused a write: " +
                               part.get_response_string())
                                  .c_str());
    crossed.head = first ? stream.timing().head : std::min(crossed.head, stream.timing().head);
    crossed.tail = std::max(crossed.tail, stream.timing().tail);
    first = false;
  }
  return crossed;
}

void CsSystem::takeWeights(tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (payload.get_command() != tlm::TLM_WRITE_COMMAND) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  // The tasks without weights before this one ran when the previous stream ended (or at setWork).
  if (cursor_ == work_.size()) {
    SC_REPORT_ERROR(name(), ("weights at address " + std::to_string(payload.get_address()) +
                             " arrived after the wafer's last streamed task")
                                .c_str());
    payload.set_response_status(tlm::TLM_GENERIC_ERROR_RESPONSE);
    return;
  }
  const WaferTask& task = work_[cursor_];
  if (payload.get_data_length() != task.streamBytes) {
    SC_REPORT_ERROR(name(), ("task '" + task.name + "' takes " + std::to_string(task.streamBytes) +
                             " bytes of weights, the write at address " + std::to_string(payload.get_address()) +
                             " carries " + std::to_string(payload.get_data_length()))
                                .c_str());
    payload.set_response_status(tlm::TLM_BURST_ERROR_RESPONSE);
    return;
  }
  const sc_core::sc_time arrived = sc_core::sc_time_stamp() + delay;
  const StreamTiming* upstream = payload.get_extension<StreamTiming>();
  const StreamTiming atWafer = spread(payload, to_ring_, upstream ? upstream->head : arrived, arrived);

  TaskRecord r;
  r.task = cursor_;
  r.start = std::max(waferFree_, atWafer.head);
  const bool heldByActivations = startTask(r);
  r.end = std::max(r.start + task.duration, atWafer.tail + task.drain);
  r.waited = r.end - waferFree_ - task.duration;
  if (r.waited == sc_core::SC_ZERO_TIME)
    r.bound = TaskBound::Compute;
  else if (heldByActivations && r.end == r.start + task.duration)
    r.bound = TaskBound::Activations;
  else
    r.bound = TaskBound::WeightStream;
  records_.push_back(r);
  waferFree_ = r.end;
  ++cursor_;
  sendOutputs(r.task, r.start, r.end);
  // The write is done when the wafer has taken its last weight.
  delay = r.end - task.drain - sc_core::sc_time_stamp();
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  runUnstreamed();
}

void CsSystem::runUnstreamed() {
  while (cursor_ < work_.size() && !work_[cursor_].streamed) {
    const WaferTask& task = work_[cursor_];
    TaskRecord r;
    r.task = cursor_;
    r.start = waferFree_;
    if (startTask(r)) {
      r.waited = r.start - waferFree_;
      r.bound = TaskBound::Activations;
    }
    r.end = r.start + task.duration;
    records_.push_back(r);
    waferFree_ = r.end;
    ++cursor_;
    sendOutputs(r.task, r.start, r.end);
  }
}

bool CsSystem::startTask(TaskRecord& r) {
  const WaferTask& task = work_[r.task];
  const sc_core::sc_time ready =
      std::max(fetched_[r.task], task.afterOffloadOf ? offloaded_[*task.afterOffloadOf] : sc_core::SC_ZERO_TIME);
  const bool held = ready > r.start;
  if (held) r.start = ready;
  for (std::size_t later : fetchesAt_[r.task]) fetch(later, r.start);
  return held;
}

void CsSystem::fetch(std::size_t task, const sc_core::sc_time& at) {
  const WaferTask& t = work_[task];
  tlm::tlm_generic_payload& payload = payloads_.allocate(t.fetchBytes, false);
  payload.set_command(tlm::TLM_READ_COMMAND);
  payload.set_address(t.activationAddress);
  StreamTiming atSystem;
  {
    // The read's bytes stream from MemoryX's storage down to the system.
    const StreamTimingScope stream(payload, at, at);
    sc_core::sc_time delay = at - sc_core::sc_time_stamp();
    activations->b_transport(payload, delay);
    if (payload.is_response_error())
      SC_REPORT_ERROR(name(), ("the activations task '" + t.name + "' fetches at address " +
                               std::to_string(t.activationAddress) + " were refused: " + payload.get_response_string())
                                  .c_str());
    atSystem = stream.timing();
  }
  // Into the wafer through the ring, beside the weights.
  payload.set_command(tlm::TLM_WRITE_COMMAND);
  fetched_[task] = spread(payload, to_ring_, atSystem.head, atSystem.tail).tail;
  payload.release();
}

void CsSystem::sendOutputs(std::size_t i, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  const WaferTask& task = work_[i];
  if (task.gradients)
    sendOut(gradients_out, task.gradientAddress, task.gradientBytes, start, end, "gradients of task '" + task.name + "'");
  if (task.offloadBytes)
    offloaded_[i] = sendOut(activations, task.activationAddress, task.offloadBytes, start, end,
                            "activations offloaded by task '" + task.name + "'");
}

sc_core::sc_time CsSystem::sendOut(tlm_utils::simple_initiator_socket<CsSystem>& socket, std::uint64_t address,
                                   std::uint64_t bytes, const sc_core::sc_time& start, const sc_core::sc_time& end,
                                   const std::string& what) {
  tlm::tlm_generic_payload& payload = payloads_.allocate(bytes, false);
  payload.set_command(tlm::TLM_WRITE_COMMAND);
  payload.set_address(address);
  // They leave as the task computes them: through the ring's egress, then on to SwarmX.
  const StreamTiming out = spread(payload, wafer_out_, start, end);
  const StreamTimingScope stream(payload, out.head, out.tail);
  sc_core::sc_time delay = out.tail - sc_core::sc_time_stamp();
  socket->b_transport(payload, delay);
  if (payload.is_response_error())
    SC_REPORT_ERROR(name(), (what + " at address " + std::to_string(address) + " were refused: " +
                             payload.get_response_string())
                                .c_str());
  payload.release();
  return sc_core::sc_time_stamp() + delay;
}

void CsSystem::leaveRing(int, tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
  // The network interface takes each channel's share; sendOut writes the whole on.
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace wsesim::system
