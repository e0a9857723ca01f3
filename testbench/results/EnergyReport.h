#pragma once
// The cost side of a run's results (docs/energy-model.md): its action
// counts, energy per component, average power, area against the wafer's
// usable area, and efficiency, as the JSON fields every workload reports
// (`actions`, `energy`, `power`, `area`, `efficiency`), plus their summary lines.

#include <nlohmann/json.hpp>

#include <string>

#include "hw/config/ArchConfig.h"
#include "hw/energy/ActionCounts.h"
#include "hw/energy/EnergyModel.h"

namespace wsesim::results {

// What the energy covers and is divided by.
struct EnergyScope {
  double seconds = 0;    // the run's (or step's) time: leakage and static power accrue over it
  unsigned systems = 1;  // CS systems whose wafers `actions` sums
  double flops = 0;      // useful FLOPs, for FLOP/J
  double samples = 0;    // for J per sample and samples/J (0: not reported)
  double tokens = 0;     // for J per token (0: not reported)
};

nlohmann::json actionsJson(const energy::ActionCounts& actions);
// Back from actionsJson's form; throws nlohmann::json's errors on another.
energy::ActionCounts actionsFromJson(const nlohmann::json& json);
// The components of `b` in joules, keyed as the results name them.
nlohmann::json componentsJson(const energy::EnergyBreakdown& b);
nlohmann::json areaJson(const energy::AreaEstimate& area);

// {actions, energy, power, area, efficiency} for the workload's results.
nlohmann::json energyResults(const energy::ActionCounts& actions, const config::ArchConfig& arch,
                             const EnergyScope& scope);

// Two lines for the terminal: energy and power; area, and whether it fits the wafer.
std::string energySummary(const nlohmann::json& results);

}  // namespace wsesim::results
