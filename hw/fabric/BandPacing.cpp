#include "hw/fabric/BandPacing.h"

#include <algorithm>

namespace wsesim::fabric {

void BandPacing::cycleDone(bool ranAtOnce, std::uint64_t nanos, std::uint64_t active) {
  if (trial_ == kTrialCycles) {
    if (++sinceTrial_ < wait_) return;
    trial_ = 0;
    nanos_[0] = nanos_[1] = active_[0] = active_[1] = 0;
    atOnce_ = true;
    return;
  }
  nanos_[ranAtOnce] += nanos;
  active_[ranAtOnce] += active;
  if (++trial_ < kTrialCycles) {
    atOnce_ = !ranAtOnce;
    return;
  }
  // Host time per active router, compared without division: a / b < c / d.
  const bool won = active_[0] != 0 && active_[1] != 0 &&
                   static_cast<double>(nanos_[1]) * static_cast<double>(active_[0]) <
                       static_cast<double>(nanos_[0]) * static_cast<double>(active_[1]);
  if (won)
    wait_ = kShortestWait;
  else if (lostLast_)
    wait_ = std::min(wait_ * 2, kLongestWait);
  lostLast_ = !won;
  atOnce_ = won;
  sinceTrial_ = 0;
}

}  // namespace wsesim::fabric
