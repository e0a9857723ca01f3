#include "testbench/workload/Simulation.h"

#include <sstream>

namespace wsesim::workload {

SimulationTimes simulate(wafer::Wafer& wafer, const RunOptions& options,
                         std::chrono::steady_clock::time_point elaborationStart,
                         const std::function<void(sc_core::sc_trace_file*)>& traceMore, const pe::PeArray* pes) {
  SimulationTimes times;
  if (options.timeline) {
    times.timeline = std::make_unique<trace::TimelineRecorder>(wafer.arch(), wafer.runConfig().vcdRegion,
                                                               wafer.fabric(), pes,
                                                               wafer.runConfig().timelineLinkWindow);
    wafer.addTraceObserver(times.timeline.get());
  }
  sc_core::sc_trace_file* vcd = nullptr;
  if (!options.vcdBaseName.empty()) {
    vcd = sc_core::sc_create_vcd_trace_file(options.vcdBaseName.c_str());
    // One VCD tick per time-resolution step, so cycle times print exactly.
    vcd->set_time_unit(sc_core::sc_get_time_resolution().to_seconds() * 1e15, sc_core::SC_FS);
    wafer.traceTo(vcd);
    if (traceMore) traceMore(vcd);
  }
  wafer.setProgressObserver(options.progress);
  const auto elaborated = std::chrono::steady_clock::now();
  sc_core::sc_start();
  const auto finished = std::chrono::steady_clock::now();
  if (vcd) sc_core::sc_close_vcd_trace_file(vcd);
  wafer.rethrowError();
  times.elaborationSeconds = std::chrono::duration<double>(elaborated - elaborationStart).count();
  times.simulationSeconds = std::chrono::duration<double>(finished - elaborated).count();
  return times;
}

std::string finishTimeline(trace::TimelineRecorder& timeline, std::uint64_t end) {
  std::ostringstream out;
  timeline.write(out, end);
  return out.str();
}

}  // namespace wsesim::workload
