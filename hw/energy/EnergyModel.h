#pragma once
// Energy, power and area of a configuration from its coefficients
// (`arch.energy.*`, `arch.area.*`) and a run's action counts
// (docs/energy-model.md has the equations and every coefficient's source):
//
//   SRAM access energy per byte  = coefficient x sqrt(bank bytes / reference bank bytes)
//   SRAM area                    = banks x (bits x cell + periphery x sqrt(bits)), bits per bank
//   SRAM leakage                 = bits x leakage per bit
//   router queue bits            = 5 ports x colors x queue depth x wire bits
//   router area, leakage         = base + queue bits x per-bit coefficient
//   PE tile                      = logic + SRAM + router;  PE pitch = sqrt(tile) (a link's length)
//   wafer area                   = mesh PEs x (1 + spare fraction) x tile, against the usable area
//   energy                       = sum over actions of count x energy per action
//                                  + leakage power x physical PEs x seconds + system static power x seconds

#include <cstdint>

#include "hw/energy/ActionCounts.h"
#include "hw/energy/EnergyParams.h"
#include "hw/fabric/FabricParams.h"
#include "hw/fabric/MeshGeometry.h"
#include "hw/pe/PeArray.h"
#include "hw/pe/PeParams.h"

namespace wsesim::energy {

struct AreaEstimate {
  double sramMm2 = 0, routerMm2 = 0, logicMm2 = 0;  // per PE
  double tileMm2() const { return sramMm2 + routerMm2 + logicMm2; }
  double pitchMm = 0;         // PE to PE
  double physicalPes = 0;     // the mesh's PEs and the spares
  double waferMm2 = 0;        // physical PEs x tile
  double usableMm2 = 0;
  bool fits() const { return waferMm2 <= usableMm2; }
};

// Joules per component; total() is their sum.
struct EnergyBreakdown {
  double compute = 0;        // tensor op elements
  double sram = 0;           // SRAM reads and writes
  double fabric = 0;         // link wires, router queues, RAMP crossings
  double peCycles = 0;       // per active and idle PE-cycle (clock, control)
  double leakage = 0;        // SRAM, router queues, logic, over the run's time
  double ioRing = 0;
  double memoryx = 0;
  double optimizer = 0;
  double swarmx = 0;
  double systemStatic = 0;   // each CS system's parts outside the wafer
  double total() const {
    return compute + sram + fabric + peCycles + leakage + ioRing + memoryx + optimizer + swarmx + systemStatic;
  }
};

// Per action of one kind, in pJ, for this configuration (the laws above applied).
struct ActionEnergies {
  double sramReadPerByte = 0, sramWritePerByte = 0;
  double hopWire = 0;           // one link transfer's wire
  double leakagePerPeW = 0;     // SRAM, queues and logic of one PE
};

// The laws above over one architecture: its coefficients, and the sizes
// and clock they scale with (config::ArchConfig::energyModel() builds it).
class EnergyModel {
 public:
  EnergyModel(const EnergyParams& energy, const AreaParams& area, const pe::PeParams& pe,
              const fabric::RouterParams& fabric, const fabric::MeshGeometry& mesh, double clockHz);

  const AreaEstimate& area() const { return area_; }
  const ActionEnergies& perAction() const { return perAction_; }

  // `actions` over `seconds` on `systems` CS systems (their wafers' counts
  // summed in `actions`), each with the mesh's PEs powered.
  EnergyBreakdown energyOf(const ActionCounts& actions, double seconds, unsigned systems = 1) const;

  // One PE's energy (pJ) over `cycles`, `busyCycles` of them busy: its ops
  // and SRAM (`actions`), its RAMP crossings (`delivered` to it), its
  // router's outgoing link transfers (`hopsOut`) with their queue reads and
  // the next router's writes, its cycles and its leakage. For wafer heatmaps
  // and the timeline's power.
  double peEnergyPj(const pe::PeActions& actions, std::uint64_t busyCycles, std::uint64_t hopsOut,
                    std::uint64_t delivered, std::uint64_t cycles) const;

 private:
  EnergyParams energy_;
  double secondsPerCycle_;
  AreaEstimate area_;
  ActionEnergies perAction_;
};

}  // namespace wsesim::energy
