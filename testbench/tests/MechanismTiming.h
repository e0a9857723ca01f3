#pragma once
// Round timing values for tests that count a mechanism's cycles by hand,
// independent of what calibration fits into the presets (the calibrated
// values are pinned by testbench/tests/pe/CalibratedTimingTest.cpp): 2
// cycles of op overhead and task start, no firmware loop cost, an fp32
// FMAC element a cycle (the SIMD width), no route switch cost; ramps, hops
// and the fabric input stay the preset's.

#include <string>
#include <vector>

namespace wsesim::testing {

inline const std::vector<std::string> kMechanismTiming = {
    "arch.pe.op_overhead_cycles=2",
    "arch.pe.task_start_cycles=2",
    "arch.firmware.summa_loop_cycles=0",
    "arch.firmware.cannon_loop_cycles=0",
    "arch.firmware.meshgemm_loop_cycles=0",
    "arch.firmware.weight_stream_loop_cycles=0",
    "arch.pe.cycles_per_element.fp32.fmac=1",
    "arch.fabric.route_switch_cycles=0",
};

// The same as --set arguments of the wsesim CLI.
inline std::string mechanismTimingFlags() {
  std::string flags;
  for (const std::string& o : kMechanismTiming) flags += " --set " + o;
  return flags;
}

}  // namespace wsesim::testing
