#include "hw/system/CsSystem.h"

#include <algorithm>
#include <string>

namespace wsesim::system {

const char* taskBoundName(TaskBound bound) { return bound == TaskBound::Compute ? "compute" : "weight stream"; }

CsSystem::CsSystem(sc_core::sc_module_name name, const wafer::IoParams& io, std::uint32_t meshRows)
    : sc_core::sc_module(name),
      weights_in("weights_in"),
      gradients_out("gradients_out"),
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
  r.end = std::max(r.start + task.duration, atWafer.tail + task.drain);
  r.waited = r.end - waferFree_ - task.duration;
  r.bound = r.waited > sc_core::SC_ZERO_TIME ? TaskBound::WeightStream : TaskBound::Compute;
  records_.push_back(r);
  waferFree_ = r.end;
  ++cursor_;
  if (task.gradients) sendGradients(task, r.start, r.end);
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
    r.end = r.start + task.duration;
    records_.push_back(r);
    waferFree_ = r.end;
    ++cursor_;
    if (task.gradients) sendGradients(task, r.start, r.end);
  }
}

void CsSystem::sendGradients(const WaferTask& task, const sc_core::sc_time& start, const sc_core::sc_time& end) {
  tlm::tlm_generic_payload& payload = payloads_.allocate(task.gradientBytes, false);
  payload.set_command(tlm::TLM_WRITE_COMMAND);
  payload.set_address(task.gradientAddress);
  // Gradients leave as the task computes them: through the ring's egress, then on to SwarmX.
  const StreamTiming out = spread(payload, wafer_out_, start, end);
  const StreamTimingScope stream(payload, out.head, out.tail);
  sc_core::sc_time delay = out.tail - sc_core::sc_time_stamp();
  gradients_out->b_transport(payload, delay);
  if (payload.is_response_error())
    SC_REPORT_ERROR(name(), ("gradients of task '" + task.name + "' were refused: " + payload.get_response_string())
                                .c_str());
  payload.release();
}

void CsSystem::leaveRing(int, tlm::tlm_generic_payload& payload, sc_core::sc_time&) {
  // The network interface takes each channel's share; sendGradients writes the whole on.
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace wsesim::system
