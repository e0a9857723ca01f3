#pragma once
// A GEMM simulated with each round's phases (SimulatedGemm) on chips of
// their own, several at once (workload/ChipsAtOnce.h). A phase run alone
// (runtime::GemmPhases::Alone) starts as it does in its round on one chip:
// the fabric empty, the PEs idle, the arbiters restarted, the egress's
// credit full, the buffers the phases before it keep in place. So it takes
// the cycles, and counts the wavelets, hops, tasks and stalls, it does
// there, and the chips' findings put together in the phases' order are the
// one chip's, to the cycle and the count, whatever the threads.
//
// For GEMMs simulated in timing mode (the streamed wavelets carry no
// values for a later phase to read) whose phases are apart (not paced:
// GemmOutline::pacedPhases). Waveforms, timelines and wafer maps are one
// chip's records, and MemoryX's cluster follows one chip in SystemC: the
// gemm workload runs those on one chip.

#include <cstdint>
#include <vector>

#include "firmware/runtime/SimulatedGemm.h"
#include "hw/chip/ChipParts.h"
#include "hw/chip/WaferChip.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"
#include "hw/energy/ActionCounts.h"
#include "hw/fabric/FabricKernel.h"
#include "hw/sim/CycleDriver.h"

namespace wsesim::gemm {

// What the phases' chips take.
struct PassChipsRun {
  config::ArchConfig arch;       // as the GEMM runs on it (its route switch)
  config::ArchConfig simulated;  // the mesh its rows (and columns) simulated run on
  config::RunConfig run;
  chip::ChipParts parts;  // built without SystemC whatever it says
  unsigned threads = 1;      // run.threads: their fabrics' bands when the phases are fewer
  unsigned chipsAtOnce = 1;  // at most run.threads (the workload's memory may hold fewer)
  sim::ProgressObserver* progress = nullptr;
};

// What the wafer model found of a GEMM: on one chip, or on the phases'
// chips together, as one chip running the phases in turn finds it.
struct GemmChipFindings {
  std::vector<std::uint64_t> phaseStarts;  // every round's phases
  std::uint64_t cycles = 0;                // simulated
  runtime::GemmTime time;                  // the whole GEMM's (SimulatedGemm::fullTime)
  std::uint64_t busyCycles = 0, tasks = 0;  // the PEs' (PeCounters)
  std::uint64_t sramHighWater = 0;          // the simulated grid's fullest PE's
  std::uint64_t edgeStalls = 0;
  fabric::FabricCounters fabric;
  energy::ActionCounts actions;  // over the cycles simulated
  // Of the host: the largest chip's, and the cycles its bands ran at once.
  std::uint64_t peBytes = 0, fabricBytes = 0, cyclesInBands = 0, peCyclesInBands = 0;
  unsigned fabricBands = 1;
  std::uint32_t chips = 1;  // simulated: one, or a chip per phase of every round
};

// What `chip` found running `mapping` (its grid's PEs, on the chip's
// mesh), its ingress having stalled `edgeStalls` cycles; phaseStarts and
// time are the caller's.
GemmChipFindings chipFindings(const chip::WaferChip& chip, const firmware::GemmMapping& mapping,
                              std::uint64_t edgeStalls);

// Runs `gemm` (its rounds, each in turn: what a round ran decides the
// next) as above. What a phase throws is rethrown once its round's phases
// have all run, the earliest phase's, so that what fails does not depend
// on the threads.
GemmChipFindings simulatePassChips(runtime::SimulatedGemm& gemm, const PassChipsRun& how);

}  // namespace wsesim::gemm
