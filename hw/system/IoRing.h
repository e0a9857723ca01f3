#pragma once
// The I/O ring of one CS system, ingress side, as a loosely-timed TLM-2.0
// module: arch.io.channels_per_edge channels on the West edge and as many on
// the East, each a target socket receiving payloads at its share of the
// system's I/O bandwidth (arch.io.bandwidth_bytes_per_s / all channels).
// Channel k of an edge sits at the middle of the k-th band of rows.
//
// It records, per payload, when its bytes could enter the wafer: byte i at
// start + i / channel bandwidth. Turning those bytes into wavelets at the
// edge routers (with the fabric's backpressure) is done today by the
// wafer's EdgeInjector and is not wired to the ring yet; neither is egress
// (docs/system-model.md, "Not built yet").

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/fabric/Port.h"
#include "hw/system/Link.h"

namespace wsesim::system {

struct IoChannel {
  fabric::Port edge = fabric::Port::West;
  std::uint32_t row = 0;  // of the edge router it feeds
};

// One payload through one channel, in absolute simulated time.
struct IngressRecord {
  unsigned channel = 0;
  std::uint64_t address = 0;
  std::uint64_t bytes = 0;
  sc_core::sc_time firstByte, lastByte;  // at the wafer's edge
};

class IoRing : public sc_core::sc_module {
 public:
  // Channel k (West: 0 .. C - 1, East: C .. 2C - 1): writes of payloads for the wafer.
  sc_core::sc_vector<tlm_utils::simple_target_socket_tagged<IoRing>> channel_in;

  IoRing(sc_core::sc_module_name name, const config::ArchConfig& arch);

  unsigned channels() const { return unsigned(channel_in.size()); }
  const IoChannel& channel(unsigned k) const { return channels_.at(k); }
  double channelBytesPerS() const { return links_.front().bytesPerSecond(); }
  // When byte `byte` of a recorded payload reaches the wafer's edge.
  sc_core::sc_time byteArrival(const IngressRecord& record, std::uint64_t byte) const;

  const std::vector<IngressRecord>& ingress() const { return ingress_; }
  LinkStats ingressStats() const;

 private:
  void receive(int channel, tlm::tlm_generic_payload& payload, sc_core::sc_time& delay);

  std::vector<IoChannel> channels_;
  std::vector<Link> links_;  // per channel, into the wafer
  std::vector<IngressRecord> ingress_;
};

}  // namespace wsesim::system
