#include "hw/wafer/EdgeInjector.h"

#include <algorithm>
#include <cmath>

namespace wsesim::wafer {

EdgeInjector::EdgeInjector(std::vector<EdgeStream> streams, double waveletsPerCycle)
    : streams_(std::move(streams)), next_(streams_.size(), 0), rate_(waveletsPerCycle) {
  for (std::size_t s = 0; s < streams_.size(); ++s)
    if (streams_[s].count > 0) open_.push_back(s);
}

void EdgeInjector::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (open_.empty()) return;
  // Bandwidth unused while nothing could be sent is not saved up beyond one
  // cycle's worth (plus the fraction carried to the next wavelet).
  const double cycles = started_ ? double(now - lastCycle_) : 1.0;
  credit_ = std::min(credit_ + rate_ * cycles, std::max(rate_, 1.0));
  started_ = true;
  lastCycle_ = now;
  // Round-robin: start with the first open stream after the last one served.
  const std::size_t n = open_.size();
  const std::size_t first =
      std::size_t(std::upper_bound(open_.begin(), open_.end(), lastServed_) - open_.begin()) % n;
  bool closed = false;
  for (std::size_t i = 0; i < n && credit_ >= 1.0; ++i) {
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
    credit_ -= 1.0;
    ++sent_;
    lastServed_ = s;
    if (++next_[s] == stream.count) closed = true;
  }
  if (closed)
    open_.erase(std::remove_if(open_.begin(), open_.end(), [&](std::size_t s) { return next_[s] == streams_[s].count; }),
                open_.end());
}

std::uint64_t EdgeInjector::nextActivity(std::uint64_t now) const {
  if (open_.empty()) return kNever;
  if (!started_ || credit_ + rate_ >= 1.0) return now;
  // The first cycle the bandwidth allows another wavelet.
  const double wait = std::ceil((1.0 - credit_) / rate_);
  return std::max(now, lastCycle_ + std::uint64_t(wait));
}

bool EdgeInjector::finished(std::uint64_t, const fabric::FabricKernel&) const { return open_.empty(); }

}  // namespace wsesim::wafer
