#include "hw/wafer/EdgeInjector.h"

#include <algorithm>

namespace wsesim::wafer {

EdgeInjector::EdgeInjector(std::vector<EdgeStream> streams, double waveletsPerCycle)
    : streams_(std::move(streams)), next_(streams_.size(), 0), bandwidth_(waveletsPerCycle) {
  for (std::size_t s = 0; s < streams_.size(); ++s) {
    if (streams_[s].count > 0) open_.push_back(s);
    total_ += streams_[s].count;
  }
}

void EdgeInjector::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (open_.empty()) return;
  bandwidth_.advance(now);
  // Round-robin: start with the first open stream after the last one served.
  const std::size_t n = open_.size();
  const std::size_t first =
      std::size_t(std::upper_bound(open_.begin(), open_.end(), lastServed_) - open_.begin()) % n;
  bool closed = false;
  for (std::size_t i = 0; i < n && bandwidth_.available(); ++i) {
    const std::size_t slot = (first + i) % n;
    const std::size_t s = open_[slot];
    EdgeStream& stream = streams_[s];
    fabric::Wavelet w;
    w.color = std::uint8_t(stream.color);
    w.payload = stream.payload ? stream.payload(next_[s]) : 0;
    w.stamp = now;
    if (!fabric.injectAtEdge(stream.router, stream.side, w, now)) {
      ++stalls_;
      continue;
    }
    bandwidth_.consume();
    ++sent_;
    lastServed_ = s;
    if (++next_[s] == stream.count) closed = true;
  }
  if (closed)
    open_.erase(std::remove_if(open_.begin(), open_.end(), [&](std::size_t s) { return next_[s] == streams_[s].count; }),
                open_.end());
}

std::uint64_t EdgeInjector::nextActivity(std::uint64_t now) const {
  return open_.empty() ? kNever : bandwidth_.nextAvailable(now);
}

bool EdgeInjector::finished(std::uint64_t, const fabric::FabricKernel&) const { return open_.empty(); }

}  // namespace wsesim::wafer
