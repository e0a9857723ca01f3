#include "testbench/workload/Simulation.h"

#include <cstdio>
#include <sstream>

namespace wsesim::workload {

std::string finishTimeline(trace::TimelineRecorder& timeline, std::uint64_t end) {
  std::ostringstream out;
  timeline.write(out, end);
  return out.str();
}

std::string checkSummaryLine(bool checked, std::uint64_t mismatches, double maxError, const std::string& errorOf) {
  if (!checked) return "  result    not checked (run.mode: timing keeps no data)\n";
  char line[160];
  std::snprintf(line, sizeof line, "  result    %llu mismatches against the reference, max |error| %.3g%s\n",
                (unsigned long long)mismatches, maxError, errorOf.c_str());
  return line;
}

}  // namespace wsesim::workload
