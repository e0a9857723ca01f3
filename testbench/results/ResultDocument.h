#pragma once
// The JSON document of one run (the CLI contract scripts rely on).

#include <nlohmann/json.hpp>

#include <cstdint>

#include "hw/config/ArchConfig.h"
#include "hw/config/ParamReader.h"

namespace wsesim::results {

// The fully resolved configuration as nested JSON with typed values; fed
// back to `wsesim run` (JSON is YAML) it reproduces the run.
nlohmann::json resolvedConfigJson(const config::ParamReader& params);

struct RunMeasurements {
  std::uint64_t cycles = 0;
  double wallSeconds = 0;
  std::uint64_t plannedHostBytes = 0;  // Workload::plannedHostBytes, checked before the run
};

nlohmann::json resultDocument(const config::ParamReader& params, const config::ArchConfig& arch,
                              const RunMeasurements& measured, nlohmann::json workload);

}  // namespace wsesim::results
