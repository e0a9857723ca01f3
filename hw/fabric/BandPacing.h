#pragma once
// Whether the fabric's bands step at once in a cycle: only while that is
// measured to be faster than one thread stepping them in turn. On a host
// whose cores are busy with other work (more threads than free cores), or
// for a workload whose cycles are too short to split, one thread is
// faster, by up to tens of times. Host time decides only how fast a run
// goes: a cycle gives the same results either way.
//
// The way in use runs for a while (kShortestWait cycles that could split,
// and more after trials the split lost twice in a row, up to
// kLongestWait); then a trial runs kTrialCycles of the other way, of which
// the first kSettleCycles are not counted (switching ways moves the
// routers' state between the cores' caches). Its host time per active
// router is compared with that of as many cycles of the way in use just
// before it, and the faster way (the split, unless a quarter slower) runs
// next.

#include <cstdint>

namespace wsesim::fabric {

class BandPacing {
 public:
  // Whether the next cycle that could split does.
  bool atOnce() const { return atOnce_; }
  // A cycle that could split has run (at once or not) in `nanos` of host
  // time, with `active` routers stepped.
  void cycleDone(std::uint64_t nanos, std::uint64_t active);

  static constexpr unsigned kTrialCycles = 24, kSettleCycles = 8;
  static constexpr std::uint64_t kShortestWait = 1024, kLongestWait = 1u << 16;
  // The split keeps its place unless this much slower: a trial is short
  // and noisy, and an oversubscribed host makes the split several times
  // slower, not a little.
  static constexpr double kLeeway = 1.25;

 private:
  bool atOnce_ = true;
  bool inTrial_ = false;
  std::uint64_t cycles_ = 0;  // of the way in use since the last trial, or of the trial
  std::uint64_t wait_ = kShortestWait;
  bool lostLast_ = false;                       // the split lost the last trial
  std::uint64_t nanos_[2] = {}, active_[2] = {};  // [0]: the way in use, [1]: the trial's
};

}  // namespace wsesim::fabric
