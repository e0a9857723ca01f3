#include "testbench/workload/Simulation.h"

namespace wsesim::workload {

SimulationTimes simulate(wafer::Wafer& wafer, const RunOptions& options,
                         std::chrono::steady_clock::time_point elaborationStart,
                         const std::function<void(sc_core::sc_trace_file*)>& traceMore) {
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
  return SimulationTimes{std::chrono::duration<double>(elaborated - elaborationStart).count(),
                         std::chrono::duration<double>(finished - elaborated).count()};
}

}  // namespace wsesim::workload
