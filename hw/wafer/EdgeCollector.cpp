#include "hw/wafer/EdgeCollector.h"

#include <algorithm>

namespace wsesim::wafer {

bool EdgeCollector::accepts(std::uint64_t now) {
  bandwidth_.advance(now);
  return bandwidth_.available();
}

void EdgeCollector::leave(fabric::RouterId from, fabric::Port side, const fabric::Wavelet& w,
                          std::uint64_t arrivalCycle) {
  bandwidth_.consume();
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
