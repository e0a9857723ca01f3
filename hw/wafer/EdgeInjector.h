#pragma once
// Streams of wavelets entering the mesh at its edge, sharing the wafer's
// I/O bandwidth: the stand-in for the I/O ring until the system model
// exists. Each stream enters one edge router on one unconnected port, at
// most one wavelet per cycle (the link rate), in order; together they move
// at most `wavelets per cycle` (a real number: the configured bandwidth over
// the clock and the element size), shared round-robin. A stream held back by
// a full queue retries next cycle.

#include <cstdint>
#include <cstddef>
#include <functional>
#include <vector>

#include "hw/fabric/FabricKernel.h"
#include "hw/wafer/CycleDriver.h"
#include "hw/wafer/IoBandwidth.h"

namespace wsesim::wafer {

struct EdgeStream {
  fabric::RouterId router = 0;
  fabric::Port side = fabric::Port::North;
  unsigned color = 0;
  std::uint64_t count = 0;                         // wavelets in the stream
  std::function<std::uint32_t(std::uint64_t)> payload;  // of wavelet i (unset: 0)
};

class EdgeInjector : public CycleDriver {
 public:
  // `waveletsPerCycle` must be positive.
  EdgeInjector(std::vector<EdgeStream> streams, double waveletsPerCycle);

  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
  std::uint64_t nextActivity(std::uint64_t now) const override;
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;

  std::uint64_t sent() const { return sent_; }
  // Wavelets in all streams.
  std::uint64_t total() const { return total_; }
  // Cycles in which a stream had bandwidth for a wavelet but its edge queue was full.
  std::uint64_t stalls() const { return stalls_; }

 private:
  std::vector<EdgeStream> streams_;
  std::vector<std::uint64_t> next_;  // per stream: index of its next wavelet
  std::vector<std::size_t> open_;    // streams with wavelets left, in stream order
  IoBandwidth bandwidth_;
  std::size_t lastServed_ = SIZE_MAX;  // the stream that sent last (round-robin)
  std::uint64_t sent_ = 0, stalls_ = 0, total_ = 0;
};

}  // namespace wsesim::wafer
