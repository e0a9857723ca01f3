#pragma once
// Streams of wavelets entering the mesh at its West and East edges through
// the wafer's side of the I/O ring (IoRingEdge). Each stream enters one
// edge router on its edge port, at most one wavelet per cycle (the link
// rate), in order; the streams of one feed (the rows of a channel's band)
// share its bandwidth round-robin. A stream held back by a full queue
// waits until the fabric says the queue has room (EdgeSource), and counts a
// stall in every cycle its turn came in the meantime, as if it had retried:
// backpressure from the fabric to the ring. A mapping's
// phases hand over their streams one after another (EdgeIngress::stream).

#include <cstdint>
#include <cstddef>
#include <unordered_map>
#include <vector>

#include "hw/fabric/FabricKernel.h"
#include "hw/sim/CycleDriver.h"
#include "hw/wafer/EdgeIngress.h"
#include "hw/wafer/IoBandwidth.h"
#include "hw/wafer/IoRingEdge.h"

namespace wsesim::wafer {

class EdgeInjector : public sim::CycleDriver, public EdgeIngress, public fabric::EdgeSource {
 public:
  // Without streams until stream() hands some over.
  EdgeInjector(const IoRingEdge& ring, const fabric::MeshGeometry& mesh);
  // With `streams` from cycle 0; throws FabricError for a stream that does
  // not enter from the West or East edge of `mesh`.
  EdgeInjector(std::vector<EdgeStream> streams, const IoRingEdge& ring, const fabric::MeshGeometry& mesh);

  using EdgeIngress::stream;
  void stream(std::vector<EdgeStream> streams, std::uint64_t now, const IoRingEdge& ring) override;
  const IoRingEdge& ring() const override { return ring_; }
  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
  std::uint64_t nextActivity(std::uint64_t now) const override;
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;
  void edgeInputFreed(fabric::RouterId at, fabric::Port side, unsigned color) override;

  std::uint64_t sent() const override { return sent_; }
  std::uint64_t total() const override { return total_; }
  std::uint64_t inputEnd() const override { return inputEnd_; }
  std::uint64_t stalls() const override { return stalls_; }
  // Feeds the current streams use.
  std::size_t feedsUsed() const { return feeds_.size(); }

 private:
  // One feed's bandwidth and the streams drawing on it.
  struct Feed {
    IoBandwidth bandwidth;
    std::vector<std::size_t> open;       // streams with wavelets left, in stream order
    std::size_t lastServed = SIZE_MAX;   // the stream that sent last (round-robin)
    std::size_t blocked = 0;             // open streams whose queue is full
  };
  void serve(Feed& feed, std::uint64_t now, fabric::FabricKernel& fabric);

  IoRingEdge ring_;  // the one it was built with
  fabric::MeshGeometry mesh_;
  std::vector<EdgeStream> streams_;
  std::vector<std::uint64_t> next_;  // per stream: index of its next wavelet
  std::vector<char> blocked_;        // per stream: its queue was full, and has not had room since
  std::vector<std::size_t> feedOf_;  // per stream: its entry in feeds_
  std::unordered_multimap<std::uint64_t, std::size_t> byQueue_;  // (router, side, color) -> its streams
  std::vector<Feed> feeds_;          // those with streams
  std::size_t openFeeds_ = 0;
  std::uint64_t sent_ = 0, stalls_ = 0, total_ = 0, inputEnd_ = 0;
};

}  // namespace wsesim::wafer
