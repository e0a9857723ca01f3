#pragma once
// What every workload's results share about a run's timeline.

#include <cstdint>
#include <string>

#include "hw/trace/TimelineRecorder.h"

namespace wsesim::workload {

// The timeline's JSON text, with what is still open ended at cycle `end`.
std::string finishTimeline(trace::TimelineRecorder& timeline, std::uint64_t end);

}  // namespace wsesim::workload
