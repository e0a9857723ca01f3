#pragma once
// Wavelets leaving the mesh through West and East edge ports into the
// wafer's side of the I/O ring (IoRingEdge), each feed (the rows of a
// channel's band) at its outbound bandwidth. It records what left each
// (edge router, side) in order, payloads included, so a mapping can
// reassemble a result streamed off the wafer. When a feed's bandwidth is
// used up in a cycle, its routers hold further wavelets back; within a
// cycle, routers visited first are served first.

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "hw/fabric/FabricKernel.h"
#include "hw/wafer/EdgeEgress.h"
#include "hw/wafer/IoBandwidth.h"
#include "hw/wafer/IoRingEdge.h"

namespace wsesim::wafer {

class EdgeCollector : public fabric::EdgeSink, public EdgeEgress {
 public:
  // `keepPayloads`: record payloads (functional mode) or only count them.
  EdgeCollector(const IoRingEdge& ring, const fabric::MeshGeometry& mesh, bool keepPayloads);

  // Throws FabricError for a wavelet leaving through the North or South edge (no ring channels there).
  std::uint64_t firstAcceptingCycle(std::uint64_t now, fabric::RouterId from, fabric::Port side) override;
  void leave(fabric::RouterId from, fabric::Port side, const fabric::Wavelet& w, std::uint64_t arrivalCycle) override;

  const std::vector<std::uint32_t>& payloads(fabric::RouterId r, fabric::Port side) const override;
  std::uint64_t received() const override { return received_; }
  void restart() override;
  // The cycle the last wavelet arrived outside (0: none).
  std::uint64_t lastArrival() const { return lastArrival_; }

 private:
  IoBandwidth& bandwidth(fabric::RouterId from, fabric::Port side);

  IoRingEdge ring_;
  fabric::MeshGeometry mesh_;
  std::vector<IoBandwidth> feeds_;  // per ring feed
  bool keepPayloads_;
  std::map<std::pair<fabric::RouterId, fabric::Port>, std::vector<std::uint32_t>> payloads_;
  std::uint64_t received_ = 0, lastArrival_ = 0;
};

}  // namespace wsesim::wafer
