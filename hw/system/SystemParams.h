#pragma once
// The parameters of the system around the wafer (docs/system-model.md),
// keys in SystemKeys.h: MemoryX (`arch.memoryx.*`), the SwarmX tree
// (`arch.swarmx.*`) and the cluster (`arch.cluster.*`).

#include <cstdint>

#include "hw/wafer/IoParams.h"

namespace wsesim::system {

// The weight store and optimizer of a cluster.
struct MemoryXParams {
  std::uint64_t capacityBytes = 0;  // weights + optimizer state
  double bandwidthBytesPerS = 0;    // its storage: weight fetches and optimizer reads/writes
  double optimizerFlopsPerS = 0;    // optimizer arithmetic
  double latencyS = 0;              // per storage access
  unsigned prefetchLayers = 0;      // layers fetched ahead of the one streaming out
};

// The broadcast/reduce tree between MemoryX and the systems.
struct SwarmXParams {
  double nicBandwidthBytesPerS = 0;  // one NIC
  unsigned nicsPerLink = 0;          // NICs bundled in each tree edge
  unsigned fanOut = 0;               // children per node
  double nodeLatencyS = 0;           // per node a payload passes, cable included
  double linkBandwidthBytesPerS() const { return nicBandwidthBytesPerS * nicsPerLink; }
};

struct ClusterParams {
  unsigned systems = 0;  // CS systems, data parallel
};

// What a cluster is built from: its parts' parameters, its systems, and
// the rows of their wafers (which the I/O ring's channels serve in bands).
struct ClusterSpec {
  MemoryXParams memoryx;
  SwarmXParams swarmx;
  wafer::IoParams io;
  unsigned systems = 0;
  std::uint32_t meshRows = 0;
};

}  // namespace wsesim::system
