#include "hw/system/Link.h"

#include <algorithm>
#include <stdexcept>

namespace wsesim::system {

LinkStats& LinkStats::operator+=(const LinkStats& other) {
  bytes += other.bytes;
  transfers += other.transfers;
  busy += other.busy;
  return *this;
}

Link::Link(double bytesPerSecond, sc_core::sc_time latency) : bytesPerSecond_(bytesPerSecond), latency_(latency) {
  if (!(bytesPerSecond > 0)) throw std::invalid_argument("Link: bandwidth must be positive");
}

sc_core::sc_time Link::serialisation(std::uint64_t bytes) const {
  return sc_core::sc_time(double(bytes) / bytesPerSecond_, sc_core::SC_SEC);
}

LinkTransfer Link::forward(const sc_core::sc_time& headReady, const sc_core::sc_time& tailReady, std::uint64_t bytes) {
  const sc_core::sc_time start = std::max(headReady, freeAt_);
  const sc_core::sc_time serialised = serialisation(bytes);
  // At line rate from `start`, unless the stream feeding the link is slower.
  const sc_core::sc_time left = std::max(start + serialised, tailReady);
  freeAt_ = left;
  stats_.bytes += bytes;
  stats_.transfers += 1;
  stats_.busy += serialised;
  return LinkTransfer{start, start + latency_, left + latency_};
}

}  // namespace wsesim::system
