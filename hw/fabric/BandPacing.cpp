#include "hw/fabric/BandPacing.h"

#include <algorithm>

namespace wsesim::fabric {

void BandPacing::cycleDone(std::uint64_t nanos, std::uint64_t active) {
  ++cycles_;
  if (!inTrial_) {
    // Only the cycles just before the trial count: the load changes (a
    // run's mesh fills up), and the trial is compared with its neighbours.
    if (cycles_ + (kTrialCycles - kSettleCycles) > wait_) {
      nanos_[0] += nanos;
      active_[0] += active;
    }
    if (cycles_ < wait_) return;
    inTrial_ = true;
    atOnce_ = !atOnce_;
    cycles_ = nanos_[1] = active_[1] = 0;
    return;
  }
  if (cycles_ > kSettleCycles) {
    nanos_[1] += nanos;
    active_[1] += active;
  }
  if (cycles_ < kTrialCycles) return;
  // Host time per active router of the split and of one thread, compared
  // without division; the trial ran the way not in use.
  const bool trialSplit = atOnce_;
  const double split = double(nanos_[trialSplit ? 1 : 0]) * double(active_[trialSplit ? 0 : 1]);
  const double one = double(nanos_[trialSplit ? 0 : 1]) * double(active_[trialSplit ? 1 : 0]);
  const bool won = active_[0] != 0 && active_[1] != 0 && split < kLeeway * one;
  if (won)
    wait_ = kShortestWait;
  else if (lostLast_)
    wait_ = std::min(wait_ * 2, kLongestWait);
  lostLast_ = !won;
  atOnce_ = won;
  inTrial_ = false;
  cycles_ = nanos_[0] = active_[0] = 0;
}

}  // namespace wsesim::fabric
