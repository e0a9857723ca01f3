#pragma once
// What a run cost the host machine.

#include <cstdint>

#include "hw/config/RunConfig.h"

namespace wsesim::results {

std::uint64_t peakRssBytes();

// Memory the host can give a new process without swapping: MemAvailable in
// /proc/meminfo. 0 when it cannot be read.
std::uint64_t availableHostBytes();

// The most host memory `run` may plan to take: run.max_host_bytes, else
// availableHostBytes() (0: no limit known).
std::uint64_t hostMemoryLimit(const config::RunConfig& run);

}  // namespace wsesim::results
