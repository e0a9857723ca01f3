#include "testbench/results/HostStats.h"

#include <sys/resource.h>

#include <fstream>
#include <string>

namespace wsesim::results {

std::uint64_t peakRssBytes() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return std::uint64_t(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

std::uint64_t availableHostBytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string name;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> name >> kib >> unit)
    if (name == "MemAvailable:") return kib * 1024;
  return 0;
}

std::uint64_t hostMemoryLimit(const config::RunConfig& run) {
  return run.maxHostBytes ? *run.maxHostBytes : availableHostBytes();
}

}  // namespace wsesim::results
