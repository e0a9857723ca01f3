#include "testbench/results/HostStats.h"

#include <sys/resource.h>

namespace wsesim::results {

std::uint64_t peakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return std::uint64_t(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

}  // namespace wsesim::results
