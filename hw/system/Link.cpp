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

Link::Link(double bytesPerSecond, sc_core::sc_time latency, LinkOrder order)
    : bytesPerSecond_(bytesPerSecond), latency_(latency), order_(order) {
  if (!(bytesPerSecond > 0)) throw std::invalid_argument("Link: bandwidth must be positive");
}

sc_core::sc_time Link::serialisation(std::uint64_t bytes) const {
  return sc_core::sc_time(double(bytes) / bytesPerSecond_, sc_core::SC_SEC);
}

std::pair<sc_core::sc_time, sc_core::sc_time> Link::place(const sc_core::sc_time& headReady,
                                                          const sc_core::sc_time& tailReady,
                                                          const sc_core::sc_time& serialised) const {
  // At line rate from its start, unless the stream feeding the link is slower.
  const auto leaving = [&](const sc_core::sc_time& start) { return std::max(start + serialised, tailReady); };
  if (order_ == LinkOrder::Offered) {
    const sc_core::sc_time start = std::max(headReady, freeAt_);
    return {start, leaving(start)};
  }
  sc_core::sc_time start = headReady;
  auto next = busy_.upper_bound(start);
  if (next != busy_.begin() && std::prev(next)->second > start) start = std::prev(next)->second;
  for (; next != busy_.end() && next->first < leaving(start); ++next) start = std::max(start, next->second);
  return {start, leaving(start)};
}

LinkTransfer Link::forward(const sc_core::sc_time& headReady, const sc_core::sc_time& tailReady, std::uint64_t bytes) {
  const sc_core::sc_time serialised = serialisation(bytes);
  const auto [start, left] = place(headReady, tailReady, serialised);
  if (order_ == LinkOrder::Offered)
    freeAt_ = left;
  else if (left > start)
    busy_.emplace(start, left);
  stats_.bytes += bytes;
  stats_.transfers += 1;
  stats_.busy += serialised;
  return LinkTransfer{start, start + latency_, left + latency_};
}

}  // namespace wsesim::system
