#include "hw/wafer/EdgeCollector.h"

#include <algorithm>

namespace wsesim::wafer {

EdgeCollector::EdgeCollector(const IoRingEdge& ring, const fabric::MeshGeometry& mesh, bool keepPayloads)
    : ring_(ring), mesh_(mesh), keepPayloads_(keepPayloads) {
  for (unsigned f = 0; f < ring.feeds(); ++f) feeds_.emplace_back(ring.waveletsPerCycle(f));
}

void EdgeCollector::restart() {
  for (IoBandwidth& feed : feeds_) feed = IoBandwidth(feed.rate());
}

IoBandwidth& EdgeCollector::bandwidth(fabric::RouterId from, fabric::Port side) {
  return feeds_[ring_.feed(side, mesh_.yOf(from))];
}

std::uint64_t EdgeCollector::firstAcceptingCycle(std::uint64_t now, fabric::RouterId from, fabric::Port side) {
  IoBandwidth& b = bandwidth(from, side);
  b.advance(now);
  return b.available() ? now : b.nextAvailable(now + 1);
}

void EdgeCollector::leave(fabric::RouterId from, fabric::Port side, const fabric::Wavelet& w,
                          std::uint64_t arrivalCycle) {
  bandwidth(from, side).consume();
  ++received_;
  lastArrival_ = std::max(lastArrival_, arrivalCycle);
  if (keepPayloads_) payloads_[{from, side}].push_back(w.payload);
}

const std::vector<std::uint32_t>& EdgeCollector::payloads(fabric::RouterId r, fabric::Port side) const {
  static const std::vector<std::uint32_t> none;
  const auto it = payloads_.find({r, side});
  return it == payloads_.end() ? none : it->second;
}

}  // namespace wsesim::wafer
