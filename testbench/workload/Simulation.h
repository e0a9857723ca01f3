#pragma once
// The part every workload's run shares: open the waveform file if one was
// asked for, simulate the elaborated wafer to the end, close the file, and
// rethrow what went wrong inside the simulation.

#include <chrono>
#include <functional>

#include "hw/wafer/Wafer.h"
#include "testbench/workload/Workload.h"

namespace wsesim::workload {

struct SimulationTimes {
  double elaborationSeconds = 0;  // from `elaborationStart` to sc_start
  double simulationSeconds = 0;
};

// `traceMore` registers the workload's own signals (PEs) in the open file.
SimulationTimes simulate(wafer::Wafer& wafer, const RunOptions& options,
                         std::chrono::steady_clock::time_point elaborationStart,
                         const std::function<void(sc_core::sc_trace_file*)>& traceMore = {});

}  // namespace wsesim::workload
