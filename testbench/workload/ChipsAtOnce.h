#pragma once
// Chips simulated at once, each by one of a few host threads, without
// SystemC (its kernel is one per process and single-threaded): a training
// step's groups of GEMMs (testbench/train/GemmGroups.h) and a GEMM's phases
// (testbench/gemm/GemmPassChips.h). Each chip is its own, so what they find
// does not depend on which thread ran which, nor on how many there were.

#include <cstddef>
#include <exception>
#include <functional>
#include <vector>

#include "hw/chip/ChipParts.h"
#include "hw/config/ArchConfig.h"
#include "hw/sim/CycleDriver.h"

namespace wsesim::workload {

// `parts` without SystemC, on the mesh of `arch`: the I/O ring's channels
// there, each at the rate it has.
chip::ChipParts partsWithoutSystemc(const chip::ChipParts& parts, const config::ArchConfig& arch);

// Runs task(i, progress) for every i < costs.size() on `workers` threads
// (the caller's one of them; fewer when the host gives no more), costliest
// first, so that the last task a thread starts is a cheap one. What each
// task reports of its progress reaches `progress` (null: nobody) as the
// whole's: the fractions weighed by the tasks' costs, the cycles summed.
// Returns what each task threw (null: nothing), every task having run.
std::vector<std::exception_ptr> runAtOnce(
    const std::vector<double>& costs, unsigned workers, sim::ProgressObserver* progress,
    const std::function<void(std::size_t task, sim::ProgressObserver* progress)>& task);

}  // namespace wsesim::workload
