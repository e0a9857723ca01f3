#include "testbench/workload/Simulation.h"

#include <sstream>

namespace wsesim::workload {

std::string finishTimeline(trace::TimelineRecorder& timeline, std::uint64_t end) {
  std::ostringstream out;
  timeline.write(out, end);
  return out.str();
}

}  // namespace wsesim::workload
