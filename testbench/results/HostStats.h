#pragma once
// What a run cost the host machine.

#include <cstdint>

namespace wsesim::results {

std::uint64_t peakRssBytes();

// Memory the host can give a new process without swapping: MemAvailable in
// /proc/meminfo. 0 when it cannot be read.
std::uint64_t availableHostBytes();

}  // namespace wsesim::results
