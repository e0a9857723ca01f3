#pragma once
// What a run cost the host machine.

#include <cstdint>

namespace wsesim::results {

std::uint64_t peakRssBytes();

}  // namespace wsesim::results
