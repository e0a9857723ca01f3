#pragma once
// The PEs of one band of the fabric (FabricKernel::bandIndex): their
// wake-ups, and what their visits in a cycle gather for the array to merge
// in band order once every band is done. While the fabric's bands run at
// once, a band's PEs are visited by the thread that steps its routers, so
// a visit writes only its own PE, its own router and its own band. With
// one band (one thread) the band is the whole array.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "hw/fabric/MeshGeometry.h"
#include "hw/sim/WakeCalendar.h"

namespace wsesim::pe {

// Cache-line aligned: two bands' threads write their own bands' fields.
struct alignas(64) PeBand {
  // An inbox popped from full: the router may deliver again from the next cycle.
  struct Release {
    fabric::RouterId pe;
    std::uint8_t color;
  };

  sim::WakeCalendar wakes;
  std::vector<Release> releases;
  std::vector<fabric::RouterId> ends;  // programs ended in this cycle's visits, while watched
  // The latest cycle a visit found certain to change something (FabricKernel::notePendingUntil).
  std::uint64_t pendingUntil = 0;
  // Op elements by registered action class (PeArray::registerActionClass).
  static constexpr std::size_t kActionClasses = 256;
  std::uint64_t classElements[kActionClasses] = {};
};

}  // namespace wsesim::pe
