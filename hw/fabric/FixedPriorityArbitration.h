#pragma once
// Fixed-priority arbitration: an output grants the requesting input port
// that comes first in the fixed order N, E, S, W, RAMP (the Port numbers),
// and of its colors the lowest. A lower-priority input moves only in a
// cycle in which no higher one has a head ready to go through that output
// (ready, with room downstream), so a saturating stream starves the others
// (the PE's own injections, last in the order, first of all): the
// architect's "what if" against round-robin. A modelling choice, not the
// WSE's (whose arbitration is not public). An arbitration policy
// (ArbitrationPolicies.h).

#include <cstdint>

#include "hw/fabric/ArbiterState.h"
#include "hw/fabric/LowestBit.h"
#include "hw/fabric/Port.h"

namespace wsesim::fabric {

struct FixedPriorityArbitration {
  static constexpr const char* kName = "fixed_priority";

  // Remembers nothing: the order never changes.
  static constexpr ArbiterState kInitialState = 0;
  static void granted(ArbiterState&, unsigned, unsigned) {}
  explicit FixedPriorityArbitration(ArbiterState) {}

  unsigned pickColor(unsigned, std::uint32_t colors) const { return lowestBit(colors); }

  void pick(const std::uint32_t (&colors)[kPortCount], PortMask inputs, unsigned& input, unsigned& color) const {
    input = lowestBit(inputs);
    color = lowestBit(colors[input]);
  }
};

}  // namespace wsesim::fabric
