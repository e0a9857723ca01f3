#pragma once
// Reads the wafer's action counts so far, for software that splits a run's
// energy between the pieces of work it ran one after another (the runtime's
// GEMM sequences). The chip (hw/chip/WaferChip) implements it.

#include <cstdint>

#include "hw/energy/ActionCounts.h"

namespace wsesim::energy {

class ActionMeter {
 public:
  virtual ~ActionMeter() = default;
  // The wafer's actions over cycles [0, `cycles`) (energy::waferActions).
  virtual ActionCounts actionsUntil(std::uint64_t cycles) const = 0;
};

}  // namespace wsesim::energy
