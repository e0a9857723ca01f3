#pragma once
// Wavelets leaving the mesh through edge ports, at the wafer's outbound I/O
// bandwidth: the stand-in for the I/O ring's egress until the system model
// exists. It records what left each (edge router, side) in order, payloads
// included, so a mapping can reassemble a result streamed off the wafer.
// When the bandwidth is used up in a cycle, routers hold further wavelets
// back; within a cycle, routers visited first are served first.

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "hw/fabric/FabricKernel.h"
#include "hw/wafer/IoBandwidth.h"

namespace wsesim::wafer {

class EdgeCollector : public fabric::EdgeSink {
 public:
  // `keepPayloads`: record payloads (functional mode) or only count them.
  EdgeCollector(double waveletsPerCycle, bool keepPayloads)
      : bandwidth_(waveletsPerCycle), keepPayloads_(keepPayloads) {}

  bool accepts(std::uint64_t now) override;
  void leave(fabric::RouterId from, fabric::Port side, const fabric::Wavelet& w, std::uint64_t arrivalCycle) override;

  // Payloads that left router `r` through `side`, in order (empty unless kept).
  const std::vector<std::uint32_t>& payloads(fabric::RouterId r, fabric::Port side) const;
  std::uint64_t received() const { return received_; }
  // The cycle the last wavelet arrived outside (0: none).
  std::uint64_t lastArrival() const { return lastArrival_; }

 private:
  IoBandwidth bandwidth_;
  bool keepPayloads_;
  std::map<std::pair<fabric::RouterId, fabric::Port>, std::vector<std::uint32_t>> payloads_;
  std::uint64_t received_ = 0, lastArrival_ = 0;
};

}  // namespace wsesim::wafer
