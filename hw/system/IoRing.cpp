#include "hw/system/IoRing.h"

namespace wsesim::system {

IoRing::IoRing(sc_core::sc_module_name name, const config::ArchConfig& arch)
    : sc_core::sc_module(name), channel_in("channel_in", 2 * arch.io.channelsPerEdge) {
  const unsigned perEdge = arch.io.channelsPerEdge;
  const double channelBandwidth = arch.io.bandwidthBytesPerS / channels();
  for (unsigned k = 0; k < channels(); ++k) {
    const unsigned band = k % perEdge;
    // The middle of band k of perEdge equal bands of rows (several channels share a row on a short mesh).
    const std::uint32_t row = std::uint32_t((2 * std::uint64_t(band) + 1) * arch.mesh.height / (2 * perEdge));
    channels_.push_back(IoChannel{k < perEdge ? fabric::Port::West : fabric::Port::East, row});
    links_.emplace_back(channelBandwidth, sc_core::SC_ZERO_TIME);
    channel_in[k].register_b_transport(this, &IoRing::receive, int(k));
  }
}

sc_core::sc_time IoRing::byteArrival(const IngressRecord& record, std::uint64_t byte) const {
  return record.firstByte + links_.at(record.channel).serialisation(byte);
}

LinkStats IoRing::ingressStats() const {
  LinkStats total;
  for (const Link& l : links_) total += l.stats();
  return total;
}

void IoRing::receive(int channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay) {
  if (payload.get_command() != tlm::TLM_WRITE_COMMAND) {
    payload.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  IngressRecord r;
  r.channel = unsigned(channel);
  r.address = payload.get_address();
  r.bytes = payload.get_data_length();
  const LinkTransfer t = links_[r.channel].send(sc_core::sc_time_stamp() + delay, r.bytes);
  r.firstByte = t.head;
  r.lastByte = t.tail;
  ingress_.push_back(r);
  delay = t.tail - sc_core::sc_time_stamp();
  payload.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace wsesim::system
