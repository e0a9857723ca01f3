#pragma once
// The I/O ring of one CS system, as a loosely-timed TLM-2.0 module:
// arch.io.channels_per_edge channels on the West edge and as many on the
// East, each carrying its share of the system's I/O bandwidth
// (arch.io.bandwidth_bytes_per_s / all channels) in each direction. Channel
// k of an edge sits at the middle of the k-th band of rows
// (wafer::IoRingEdge, which also feeds the band's edge routers in the
// cycle-level wafer model).
//
// Ingress: channel k's target socket `channel_in[k]` receives payloads for
// the wafer; egress: the wafer writes payloads to `egress_in[k]` and the
// channel writes them on through its initiator `channel_out[k]`. Both
// directions forward cut-through when a payload carries StreamTiming and
// record, per payload, when its bytes crossed. Which edge routers the
// bytes enter as wavelets is the wafer model's business: its edge injector
// and collector draw on the same channels, band by band, at the same
// bandwidth (docs/system-model.md).

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <vector>

#include "hw/wafer/IoParams.h"
#include "hw/fabric/Port.h"
#include "hw/system/Link.h"

namespace wsesim::system {

struct IoChannel {
  fabric::Port edge = fabric::Port::West;
  std::uint32_t row = 0;  // of the edge router it feeds
};

// One payload through one channel, in absolute simulated time.
struct ChannelRecord {
  unsigned channel = 0;
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  sc_core::sc_time firstByte, lastByte;  // at the channel's far side
};

class IoRing : public sc_core::sc_module {
 public:
  // Channel k (West: 0 .. C - 1, East: C .. 2C - 1): writes of payloads for the wafer.
  sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<IoRing>> channel_in;
  // Channel k's wafer side: writes of payloads leaving the wafer...
  sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<IoRing>> egress_in;
  // ...written on, once they crossed the channel, towards the network.
  sc_core::sc_vector<tlm_utils::simple_initiator_socket_tagged<IoRing>> channel_out;

  // The ring's channels and bandwidth, and the rows of the mesh they serve.
  IoRing(sc_core::sc_module_name name, const wafer::IoParams& io, std::uint32_t meshRows);

  unsigned channels() const { return unsigned(channel_in.size()); }
  const IoChannel& channel(unsigned k) const { return channels_.at(k); }
  double channelBytesPerS() const { return in_.front().bytesPerSecond(); }
  // When byte `byte` of a recorded ingress payload reaches the wafer's edge.
  sc_core::sc_time byteArrival(const ChannelRecord& record, std::uint64_t byte) const;

  const std::vector<ChannelRecord>& ingress() const { return ingress_; }
  const std::vector<ChannelRecord>& egress() const { return egress_; }
  LinkStats ingressStats() const;
  LinkStats egressStats() const;

 private:
  void receive(int channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);
  void send(int channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  std::vector<IoChannel> channels_;
  std::vector<Link> in_, out_;  // per channel, into and out of the wafer
  std::vector<ChannelRecord> ingress_, egress_;
};

}  // namespace wsesim::system
