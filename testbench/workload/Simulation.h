#pragma once
// The part every workload's run shares: open the waveform file if one was
// asked for, simulate the elaborated wafer to the end, close the file, and
// rethrow what went wrong inside the simulation.

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "hw/pe/PeArray.h"
#include "hw/trace/TimelineRecorder.h"
#include "hw/wafer/Wafer.h"
#include "testbench/workload/Workload.h"

namespace wsesim::workload {

struct SimulationTimes {
  double elaborationSeconds = 0;  // from `elaborationStart` to sc_start
  double simulationSeconds = 0;
  // The run's timeline when options.timeline asked for one; the workload
  // may add spans before finishTimeline().
  std::unique_ptr<trace::TimelineRecorder> timeline;
};

// `traceMore` registers the workload's own signals (PEs) in the open file;
// `pes` (null for fabric-only runs) adds the PEs' tasks to a timeline.
SimulationTimes simulate(wafer::Wafer& wafer, const RunOptions& options,
                         std::chrono::steady_clock::time_point elaborationStart,
                         const std::function<void(sc_core::sc_trace_file*)>& traceMore = {},
                         const pe::PeArray* pes = nullptr);

// The timeline's JSON text, with what is still open ended at cycle `end`.
std::string finishTimeline(trace::TimelineRecorder& timeline, std::uint64_t end);

}  // namespace wsesim::workload
