#pragma once
// Wavelets leaving the mesh through West and East edge ports into the
// wafer's side of the I/O ring (IoRingEdge), each feed (the rows of a
// channel's band) at its outbound bandwidth. It records what left each
// (edge router, side) in order, payloads included, so a mapping can
// reassemble a result streamed off the wafer. When a feed's bandwidth is
// used up in a cycle, its routers hold further wavelets back; within a
// cycle, routers visited first are served first. Everything it keeps is
// kept per feed, so the fabric's bands may step the edge routers of
// different feeds at once (rowGroups).

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

  fabric::PortMask sides() const override { return fabric::bit(fabric::Port::West) | fabric::bit(fabric::Port::East); }
  // The first row of each channel's band of rows (IoRingEdge): its West and East feeds.
  std::vector<std::uint32_t> rowGroups() const override;

  const std::vector<std::uint32_t>& payloads(fabric::RouterId r, fabric::Port side) const override;
  std::uint64_t received() const override;
  void restart() override;
  void fill(std::uint64_t now) override;
  // The cycle the last wavelet arrived outside (0: none).
  std::uint64_t lastArrival() const;

 private:
  struct Feed {
    explicit Feed(double waveletsPerCycle) : bandwidth(waveletsPerCycle) {}
    IoBandwidth bandwidth;
    std::uint64_t received = 0, lastArrival = 0;
    std::map<std::pair<fabric::RouterId, fabric::Port>, std::vector<std::uint32_t>> payloads;
  };
  // Throws FabricError for the North or South side.
  Feed& feed(fabric::RouterId from, fabric::Port side) { return feeds_[ring_.feed(side, mesh_.yOf(from))]; }

  IoRingEdge ring_;
  fabric::MeshGeometry mesh_;
  std::vector<Feed> feeds_;  // per ring feed
  bool keepPayloads_;
};

}  // namespace wsesim::wafer
