#include "hw/wafer/EdgeCollector.h"

#include <algorithm>

namespace wsesim::wafer {

EdgeCollector::EdgeCollector(const IoRingEdge& ring, const fabric::MeshGeometry& mesh, bool keepPayloads)
    : ring_(ring), mesh_(mesh), keepPayloads_(keepPayloads) {
  for (unsigned f = 0; f < ring.feeds(); ++f) feeds_.emplace_back(ring.waveletsPerCycle(f));
}

std::vector<std::uint32_t> EdgeCollector::rowGroups() const {
  // Both edges' channels serve the same bands of rows.
  std::vector<std::uint32_t> firstRows;
  for (unsigned c = 0; c < ring_.channels() / 2; ++c)
    if (firstRows.empty() || firstRows.back() != ring_.rowBegin(c)) firstRows.push_back(ring_.rowBegin(c));
  return firstRows;
}

void EdgeCollector::restart() {
  for (Feed& f : feeds_) f.bandwidth = IoBandwidth(f.bandwidth.rate());
}

void EdgeCollector::fill(std::uint64_t now) {
  for (Feed& f : feeds_) f.bandwidth.fill(now);
}

std::uint64_t EdgeCollector::firstAcceptingCycle(std::uint64_t now, fabric::RouterId from, fabric::Port side) {
  IoBandwidth& b = feed(from, side).bandwidth;
  b.advance(now);
  return b.available() ? now : b.nextAvailable(now + 1);
}

void EdgeCollector::leave(fabric::RouterId from, fabric::Port side, const fabric::Wavelet& w,
                          std::uint64_t arrivalCycle) {
  Feed& f = feed(from, side);
  f.bandwidth.consume();
  ++f.received;
  f.lastArrival = std::max(f.lastArrival, arrivalCycle);
  if (keepPayloads_) f.payloads[{from, side}].push_back(w.payload);
}

const std::vector<std::uint32_t>& EdgeCollector::payloads(fabric::RouterId r, fabric::Port side) const {
  static const std::vector<std::uint32_t> none;
  if (side != fabric::Port::West && side != fabric::Port::East) return none;
  const auto& kept = feeds_[ring_.feed(side, mesh_.yOf(r))].payloads;
  const auto it = kept.find({r, side});
  return it == kept.end() ? none : it->second;
}

std::uint64_t EdgeCollector::received() const {
  std::uint64_t total = 0;
  for (const Feed& f : feeds_) total += f.received;
  return total;
}

std::uint64_t EdgeCollector::lastArrival() const {
  std::uint64_t last = 0;
  for (const Feed& f : feeds_) last = std::max(last, f.lastArrival);
  return last;
}

}  // namespace wsesim::wafer
