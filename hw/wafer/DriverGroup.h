#pragma once
// Several cycle drivers acting as one: each cycle they run in the order
// given (e.g. the weight stream at the wafer's edge, then the PEs), the
// group's next activity is the earliest of theirs, and it is finished when
// all of them are.

#include <algorithm>
#include <vector>

#include "hw/wafer/CycleDriver.h"

namespace wsesim::wafer {

class DriverGroup : public CycleDriver {
 public:
  explicit DriverGroup(std::vector<CycleDriver*> drivers) : drivers_(std::move(drivers)) {}

  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override {
    for (CycleDriver* d : drivers_) d->beginCycle(now, fabric);
  }
  std::uint64_t nextActivity(std::uint64_t now) const override {
    std::uint64_t next = kNever;
    for (const CycleDriver* d : drivers_) next = std::min(next, d->nextActivity(now));
    return next;
  }
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override {
    return std::all_of(drivers_.begin(), drivers_.end(), [&](const CycleDriver* d) { return d->finished(now, fabric); });
  }

 private:
  std::vector<CycleDriver*> drivers_;
};

}  // namespace wsesim::wafer
