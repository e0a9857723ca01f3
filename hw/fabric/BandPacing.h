#pragma once
// Whether the fabric's bands step at once in a cycle: only while that is
// measured to be faster than one thread stepping them in turn. On a host
// whose cores are busy with other work (more threads than free cores), or
// for a workload whose cycles are too short to split, one thread is
// faster, by up to tens of times. Host time decides only how fast a run
// goes: a cycle gives the same results either way.
//
// A trial alternates the two ways over kTrialCycles cycles that could
// split, compares their host time per active router, and the faster rules
// until the next trial; each trial the bands lose after losing one doubles
// the wait before the next (up to kLongestWait cycles: a run's first
// cycles, its mesh still filling, may not pay for the split when its
// later ones do), one they win resets it.

#include <cstdint>

namespace wsesim::fabric {

class BandPacing {
 public:
  // Whether the next cycle that could split does.
  bool atOnce() const { return atOnce_; }
  // A cycle that could split has run (at once or not) in `nanos` of host
  // time, with `active` routers stepped.
  void cycleDone(bool ranAtOnce, std::uint64_t nanos, std::uint64_t active);

  static constexpr unsigned kTrialCycles = 16;
  static constexpr std::uint64_t kShortestWait = 256, kLongestWait = 1u << 16;

 private:
  bool atOnce_ = true;
  unsigned trial_ = 0;           // cycles of the current trial run so far; kTrialCycles: none under way
  std::uint64_t sinceTrial_ = 0;  // cycles since the last trial ended
  std::uint64_t wait_ = kShortestWait;
  bool lostLast_ = false;  // the bands lost the last trial
  std::uint64_t nanos_[2] = {}, active_[2] = {};  // per way (0: one thread, 1: at once), this trial
};

}  // namespace wsesim::fabric
