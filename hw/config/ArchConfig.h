#pragma once
// The architecture parameters of a run (`arch.*`), read and validated once.

#include <cstdint>
#include <string>

#include "hw/config/ParamReader.h"
#include "hw/energy/EnergyParams.h"
#include "hw/fabric/FabricKernel.h"
#include "hw/pe/OpKind.h"

namespace wsesim::config {

struct ArchConfig {
  std::string preset;
  std::string description;
  fabric::MeshGeometry mesh;
  double clockHz = 0;
  struct Pe {
    std::uint64_t sramBytes = 0;
    unsigned sramBanks = 0;          // interleaved banks
    unsigned sramBankWordBytes = 0;  // consecutive words go to consecutive banks
    unsigned sramReadPorts = 0;      // memory vectors an op can read per cycle at full rate
    unsigned threads = 0;            // hardware threads for asynchronous ops
    unsigned tasks = 0;              // task IDs
    unsigned dataTasks = 0;          // tasks that can be bound to a color
    unsigned opOverheadCycles = 0;   // per tensor op, before its first element
    unsigned taskStartCycles = 0;    // from picking a task to issuing its first instruction
    unsigned fabricInputCycles = 0;  // from the RAMP delivering a wavelet to the PE using it
    unsigned indexRegisters = 0;     // per PE, for descriptors that step through a buffer
    pe::LaneTable lanes;
    pe::ElementCycleTable cyclesPerElement;
  } pe;
  struct Fabric {
    unsigned colorBits = 0;
    unsigned colors = 0;
    unsigned queueDepth = 0;
    unsigned hopLatencyCycles = 0;
    unsigned rampLatencyCycles = 0;
    unsigned routeSwitchCycles = 0;  // to reprogram the routes between two phases of a mapping
    // One stage of a chain through PEs: onto the RAMP, one hop, off the RAMP into the next PE.
    unsigned relayStageCycles(const Pe& pe) const { return 2 * rampLatencyCycles + hopLatencyCycles + pe.fabricInputCycles; }
    fabric::RoutingMode routing = fabric::routingMode<fabric::ColorRouting>();
  } fabric;

  struct Io {
    double bandwidthBytesPerS = 0;  // into the wafer, all edge channels together
    unsigned channelsPerEdge = 0;   // I/O channels on the West edge, and as many on the East
  } io;

  // The weight store and optimizer of a cluster (docs/system-model.md).
  struct MemoryX {
    std::uint64_t capacityBytes = 0;  // weights + optimizer state
    double bandwidthBytesPerS = 0;    // its storage: weight fetches and optimizer reads/writes
    double optimizerFlopsPerS = 0;    // optimizer arithmetic
    double latencyS = 0;              // per storage access
    unsigned prefetchLayers = 0;      // layers fetched ahead of the one streaming out
  } memoryx;

  // The broadcast/reduce tree between MemoryX and the systems.
  struct SwarmX {
    double nicBandwidthBytesPerS = 0;  // one NIC
    unsigned nicsPerLink = 0;          // NICs bundled in each tree edge
    unsigned fanOut = 0;               // children per node
    double nodeLatencyS = 0;           // per node a payload passes, cable included
    double linkBandwidthBytesPerS() const { return nicBandwidthBytesPerS * nicsPerLink; }
  } swarmx;

  struct Cluster {
    unsigned systems = 0;  // CS systems, data parallel
  } cluster;

  // The cost side: energy per action, leakage, area (hw/energy, docs/energy-model.md).
  energy::EnergyParams energy;
  energy::AreaParams area;

  static ArchConfig read(ParamReader& params);

  double secondsPerCycle() const { return 1.0 / clockHz; }
};

}  // namespace wsesim::config
