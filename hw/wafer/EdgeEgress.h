#pragma once
// What software reading a result streamed off the wafer sees of the egress
// edge (firmware's mappings, through this interface only): what left each
// edge router through each side. EdgeCollector implements it.

#include <cstdint>
#include <vector>

#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/Port.h"

namespace wsesim::wafer {

class EdgeEgress {
 public:
  virtual ~EdgeEgress() = default;
  // Payloads that left router `r` through `side`, in order (empty unless
  // payloads are kept: functional mode).
  virtual const std::vector<std::uint32_t>& payloads(fabric::RouterId r, fabric::Port side) const = 0;
  // Wavelets that left the mesh, all routers and sides together.
  virtual std::uint64_t received() const = 0;
  // The wavelets leaving from now on (a new GEMM's results) have the ring's
  // bandwidth afresh, as EdgeIngress::stream gives a phase's streams: what
  // left before carries no credit over, so a GEMM's cycles do not depend
  // on what ran before it.
  virtual void restart() = 0;
  // The ring's bandwidth, unused since the last wavelet left, holds all the
  // credit it can from cycle `now` on: a GEMM's next phase (GemmPhases)
  // starts so, as it would after a drain, whether or not the phase before
  // ran on this chip.
  virtual void fill(std::uint64_t now) = 0;
};

}  // namespace wsesim::wafer
