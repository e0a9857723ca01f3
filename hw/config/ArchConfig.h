#pragma once
// The architecture parameters of a run (`arch.*`), read and validated once.

#include <cstdint>
#include <string>

#include "hw/energy/EnergyParams.h"
#include "hw/fabric/FabricParams.h"
#include "hw/pe/PeParams.h"

namespace wsesim::energy {
class EnergyModel;
}
namespace wsesim::config {
class ParamReader;  // only the readers include it: firmware gets the structs (docs/README.md)
}

namespace wsesim::config {

struct ArchConfig {
  std::string preset;
  std::string description;
  fabric::MeshGeometry mesh;
  double clockHz = 0;
  pe::PeParams pe;
  fabric::RouterParams fabric;

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

  // What each firmware kernel's own loop costs per op it issues, on top of
  // the hardware's issue (pe::Program::loopCycles; docs/validation.md).
  struct Firmware {
    unsigned summaLoopCycles = 0;         // the SDK's SUMMA: a CSL loop issuing one DSD op per column
    unsigned cannonLoopCycles = 0;        // Cannon, written like it
    unsigned meshGemmLoopCycles = 0;      // WaferLLM's MeshGEMM
    unsigned weightStreamLoopCycles = 0;  // weight streaming: a data task per arriving wavelet
  } firmware;

  // The cost side: energy per action, leakage, area (hw/energy, docs/energy-model.md).
  energy::EnergyParams energy;
  energy::AreaParams area;

  static ArchConfig read(ParamReader& params);

  double secondsPerCycle() const { return 1.0 / clockHz; }
  // The fabric kernel's parameters: this mesh and these routers, watched by
  // the run's watchdog (run.watchdog_cycles).
  fabric::FabricParams fabricParams(std::uint64_t watchdogCycles) const { return {fabric, mesh, watchdogCycles}; }
  // One stage of a chain through PEs: onto the RAMP, one hop, off the RAMP into the next PE.
  unsigned relayStageCycles() const {
    return 2 * fabric.rampLatencyCycles + fabric.hopLatencyCycles + pe.fabricInputCycles;
  }
  // The energy, power and area laws over this architecture (EnergyModel.h).
  energy::EnergyModel energyModel() const;
};

}  // namespace wsesim::config
