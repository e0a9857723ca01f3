#pragma once
// The architecture parameters of a run (`arch.*`), read and validated once.

#include <cstdint>
#include <string>

#include "hw/common/EnumNames.h"
#include "hw/energy/EnergyParams.h"
#include "hw/fabric/FabricParams.h"
#include "hw/pe/PeParams.h"
#include "hw/system/SystemParams.h"
#include "hw/wafer/IoParams.h"
#include "hw/wafer/IoRingEdge.h"

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

  wafer::IoParams io;
  system::MemoryXParams memoryx;
  system::SwarmXParams swarmx;
  system::ClusterParams cluster;

  // What each firmware kernel's own loop costs per op it issues, on top of
  // the hardware's issue (pe::Program::loopCycles; docs/validation.md).
  struct Firmware {
    unsigned summaLoopCycles = 0;         // the SDK's SUMMA: a CSL loop issuing one DSD op per column
    unsigned cannonLoopCycles = 0;        // Cannon, written like it
    unsigned meshGemmLoopCycles = 0;      // WaferLLM's MeshGEMM
    unsigned weightStreamLoopCycles = 0;  // weight streaming: a data task per arriving wavelet
    // How the weight-streaming GEMM's partial sums reach a target column
    // with columns on both sides (docs/gemm-mappings.md, "The row reduction").
    enum class Reduction { Auto, Meet, Fold };
    Reduction weightStreamReduction = Reduction::Auto;
    // Slices a weight-gradient block's n's run in: each slice's column
    // reduction overlaps the next one's AXPYs (docs/gemm-mappings.md).
    unsigned weightGradSlices = 1;
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
  // The cluster of arch.cluster.systems systems around wafers of this mesh.
  system::ClusterSpec clusterSpec() const { return {memoryx, swarmx, io, cluster.systems, mesh.height}; }
  // The wafer's I/O ring carrying elements of `elementBytes` (each
  // channel's share of arch.io.bandwidth_bytes_per_s, each way).
  wafer::IoRingEdge ioRingEdge(std::uint32_t elementBytes) const;
  // The energy, power and area laws over this architecture (EnergyModel.h).
  energy::EnergyModel energyModel() const;
};

inline constexpr EnumName<ArchConfig::Firmware::Reduction> kReductionNames[] = {
    {ArchConfig::Firmware::Reduction::Auto, "auto"},
    {ArchConfig::Firmware::Reduction::Meet, "meet"},
    {ArchConfig::Firmware::Reduction::Fold, "fold"}};

}  // namespace wsesim::config
