#pragma once
// What software running a mapping sees of the wafer's ingress edge (the
// runtime of firmware/runtime, through this interface only): it hands over
// a phase's streams and watches them go in. EdgeInjector implements it; the
// chip (hw/chip/WaferChip) steps it every cycle.

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include "hw/wafer/EdgeStream.h"
#include "hw/wafer/IoRingEdge.h"

namespace wsesim::wafer {

class EdgeIngress {
 public:
  virtual ~EdgeIngress() = default;
  // Replaces the streams, all sent, by `streams`, which enter from cycle
  // `now` on `ring`'s bandwidth afresh: the ring of this wafer's edges,
  // built for the bytes each of their wavelets takes (a GEMM's weights,
  // dense or sparse: IoRingEdge's wavelets per cycle). Throws FabricError
  // for a stream that does not enter from the West or East edge of the
  // mesh, and std::logic_error while the streams before still have
  // wavelets to send.
  virtual void stream(std::vector<EdgeStream> streams, std::uint64_t now, const IoRingEdge& ring) = 0;
  // The same on the ring the ingress was built with.
  void stream(std::vector<EdgeStream> streams, std::uint64_t now) { stream(std::move(streams), now, ring()); }
  virtual const IoRingEdge& ring() const = 0;
  // Wavelets sent and in all of the current streams.
  virtual std::uint64_t sent() const = 0;
  virtual std::uint64_t total() const = 0;
  // The cycle after the current streams' last wavelet entered the mesh (the
  // cycle they were handed over if they hold none); meaningful once sent() == total().
  virtual std::uint64_t inputEnd() const = 0;
  // Cycles in which a stream had bandwidth for a wavelet but its edge queue
  // was full, over all streams handed over so far.
  virtual std::uint64_t stalls() const = 0;
  // Earliest cycle >= now at which a stream may send (kNever: none has wavelets left).
  virtual std::uint64_t nextActivity(std::uint64_t now) const = 0;
};

}  // namespace wsesim::wafer
