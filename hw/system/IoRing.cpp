#include "hw/system/IoRing.h"

#include "hw/system/StreamTiming.h"
#include "hw/wafer/IoRingEdge.h"

namespace wsesim::system {
namespace {

LinkStats total(const std::vector<Link>& links) {
  LinkStats sum;
  for (const Link& l : links) sum += l.stats();
  return sum;
}

// Carries a write over `link` and records it; false (and the payload's
// response set) when it is not a write.
bool cross(Link& link, unsigned channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay,
           std::vector<ChannelRecord>& records) {
  if (payload.get_command() != tlm::TLM_WRITE_COMMAND) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return false;
  }
  ChannelRecord r;
  r.channel = channel;
  r.address = payload.get_address();
  r.bytes = payload.get_data_length();
  const LinkTransfer t = forwardOver(link, payload, sc_core::sc_time_stamp() + delay);
  r.firstByte = t.head;
  r.lastByte = t.tail;
  records.push_back(r);
  delay = t.tail - sc_core::sc_time_stamp();
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
  return true;
}

}  // namespace

IoRing::IoRing(sc_core::sc_module_name name, const wafer::IoParams& io, std::uint32_t meshRows)
    : sc_core::sc_module(name),
      channel_in("channel_in", 2 * io.channelsPerEdge),
      egress_in("egress_in", 2 * io.channelsPerEdge),
      channel_out("channel_out", 2 * io.channelsPerEdge) {
  const double channelBandwidth = io.bandwidthBytesPerS / channels();
  // The wafer side's bands of rows: only the geometry is used here.
  const wafer::IoRingEdge edge(meshRows, io.channelsPerEdge, 1.0);
  for (unsigned k = 0; k < channels(); ++k) {
    // The middle of the channel's band (several channels share a row on a short mesh).
    const std::uint32_t row = edge.rowBegin(k) + (edge.rowEnd(k) - edge.rowBegin(k)) / 2;
    channels_.push_back(IoChannel{edge.edge(k), row});
    in_.emplace_back(channelBandwidth, sc_core::SC_ZERO_TIME);
    out_.emplace_back(channelBandwidth, sc_core::SC_ZERO_TIME);
    channel_in[k].register_b_transport(this, &IoRing::receive, int(k));
    egress_in[k].register_b_transport(this, &IoRing::send, int(k));
  }
}

sc_core::sc_time IoRing::byteArrival(const ChannelRecord& record, std::uint64_t byte) const {
  return record.firstByte + in_.at(record.channel).serialisation(byte);
}

LinkStats IoRing::ingressStats() const { return total(in_); }
LinkStats IoRing::egressStats() const { return total(out_); }

void IoRing::receive(int channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  cross(in_[unsigned(channel)], unsigned(channel), payload, delay, ingress_);
}

void IoRing::send(int channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (cross(out_[unsigned(channel)], unsigned(channel), payload, delay, egress_))
    channel_out[channel]->b_transport(payload, delay);
}

}  // namespace wsesim::system
