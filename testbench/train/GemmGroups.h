#pragma once
// The wafer's side of a training step on several host cores. The step's
// distinct GEMMs fall into groups that share nothing while simulated: a
// GEMM with representative phases reads the lines of its phases' kinds that
// earlier GEMMs of its layout learnt (SimulatedGemm::begin), so GEMMs
// sharing a line key (SimulatedGemm::lineKeys) stay together, in the step's
// order; otherwise each GEMM is a group of its own. Each
// group runs as a GEMM sequence on a chip of its own, without SystemC (its
// kernel is one per process and single-threaded), whose mesh is as wide as
// the group's widest GEMM needs (SimulatedGemm::meshColumns: the rows it
// simulates), and `run.threads` workers take the groups, costliest first.
// A GEMM's cycles are its own (SimulatedGemm.h: a phase's route switch is
// its own, not its predecessor's), so the timing is the same whichever
// thread ran it, and the same as one sequence, on a mesh that wide, of the
// GEMMs needing it. (A wider mesh would change a narrower GEMM's cycles by
// a few: the weights fed from the East edge would cross its columns left
// empty; and it costs the host more.)

#include <cstdint>
#include <vector>

#include "firmware/runtime/GemmSequence.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/chip/ChipParts.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/RunConfig.h"
#include "hw/sim/CycleDriver.h"
#include "testbench/train/WaferTimingCache.h"

namespace wsesim::train {

// The groups of `gemms` (indices, each group in the gemms' order; groups in
// the order of their first GEMM). `sharedLines`: the GEMMs sample
// representative phases, whose lines GEMMs with a key in common share.
std::vector<std::vector<std::size_t>> independentGemmGroups(const std::vector<const runtime::SimulatedGemm*>& gemms,
                                                            bool sharedLines);

// GEMM `gemm`, at `position` in the sequence `driver` ran, which ended at
// cycle `end`, on a mesh of `meshColumns` columns; `streamedBytes` of
// weights in at the edge.
GemmTiming sequencedGemmTiming(const runtime::GemmSequence& driver, std::size_t position,
                               const runtime::SimulatedGemm& gemm, std::uint64_t end, const config::ArchConfig& arch,
                               std::uint32_t meshColumns, std::uint64_t streamedBytes);

// What the groups' simulation takes: the chip they run on and how many at once.
struct GroupedRun {
  config::ArchConfig arch;         // as the step has it (each group's chip cut to its columns)
  config::RunConfig run;
  chip::ChipParts parts;           // built without SystemC whatever it says
  unsigned workers = 1;            // threads; 1: the caller's alone
  sim::ProgressObserver* progress = nullptr;
};

// What the groups' simulation found, and how long each group took the host.
struct GroupedTiming {
  WaferTiming timing;
  std::vector<double> groupSeconds;  // per group, in the groups' order
};

// The wafer's timing of every GEMM of `gemms` (their `streamedBytes`),
// simulating `groups` as above: every group runs, and the error of the
// earliest GEMM that failed (in `gemms` order) is rethrown, so that what
// fails is the same for any number of workers.
GroupedTiming simulateGemmGroups(const std::vector<runtime::SimulatedGemm*>& gemms,
                                 const std::vector<std::vector<std::size_t>>& groups,
                                 const std::vector<std::uint64_t>& streamedBytes, const GroupedRun& how);

}  // namespace wsesim::train
