#pragma once
// What the workloads' results share: a run's timeline, the summary's
// line on the result's check.

#include <cstdint>
#include <string>

#include "hw/trace/TimelineRecorder.h"

namespace wsesim::workload {

// The timeline's JSON text, with what is still open ended at cycle `end`.
std::string finishTimeline(trace::TimelineRecorder& timeline, std::uint64_t end);

// The summary's `result` line: the mismatches against the reference and
// the largest error (`errorOf` says against what), or why nothing was
// checked (timing mode keeps no data).
std::string checkSummaryLine(bool checked, std::uint64_t mismatches, double maxError, const std::string& errorOf);

}  // namespace wsesim::workload
