#pragma once
// Round-robin arbitration: an output grants the (input port, color) pairs
// that want it in turn, input-major (N, E, S, W, RAMP; colors ascending
// within an input), starting just after the pair it granted last. Under
// load every backlogged pair gets an equal share of the link. A modelling
// choice: the WSE's arbitration is not public. An arbitration policy
// (ArbitrationPolicies.h).

#include <cstdint>

#include "hw/fabric/ArbiterState.h"
#include "hw/fabric/LowestBit.h"
#include "hw/fabric/Port.h"

namespace wsesim::fabric {

class RoundRobinArbitration {
 public:
  static constexpr const char* kName = "round_robin";

  // The state is the last pair granted, input << 8 | color; before the
  // first grant (RAMP, 31), so that the first search starts at N's lowest color.
  static constexpr ArbiterState kInitialState = ArbiterState((kPortCount - 1) << 8 | 31);

  static void granted(ArbiterState& last, unsigned input, unsigned color) {
    last = ArbiterState(input << 8 | color);
  }

  explicit RoundRobinArbitration(ArbiterState last)
      : lastInput_(last >> 8), colorsAfter_((~0u << (last & 0xffu)) << 1) {}

  // One input contends: its next requesting color after the last grant if
  // that was this input's, else its lowest.
  unsigned pickColor(unsigned input, std::uint32_t colors) const {
    const std::uint32_t later = input == lastInput_ ? colors & colorsAfter_ : 0u;
    return lowestBit(later ? later : colors);
  }

  // Several inputs contend (`inputs`, each with its requesting `colors`):
  // the next pair after the last grant, wrapping around.
  void pick(const std::uint32_t (&colors)[kPortCount], PortMask inputs, unsigned& input, unsigned& color) const {
    if (std::uint32_t m = (inputs >> lastInput_) & 1u ? colors[lastInput_] & colorsAfter_ : 0u) {
      input = lastInput_;
      color = lowestBit(m);
      return;
    }
    // The next requesting input after the last one, wrapping around to it.
    const unsigned later = inputs & (~0u << (lastInput_ + 1));
    input = lowestBit(later ? later : inputs);
    color = lowestBit(colors[input]);
  }

 private:
  unsigned lastInput_;
  std::uint32_t colorsAfter_;  // the colors above the last granted one (none above 31)
};

}  // namespace wsesim::fabric
