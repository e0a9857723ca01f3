#pragma once
// One stage of a run that goes through several, told to the run's
// observer as its share of the whole: a training step that simulates its
// GEMMs' groups and then, for the wafer's timeline, map or waveform,
// simulates them again on one chip reports one progress, not two that
// each start from nothing (and an observer's estimate of the time left,
// from the time so far, stays true). Only the last stage ends the run.

#include <cstdint>

#include "hw/sim/CycleDriver.h"

namespace wsesim::sim {

class ProgressShare : public ProgressObserver {
 public:
  // The stage's fractions [0, 1] map onto [from, to] of the whole; `out`
  // may be null (nothing is told).
  ProgressShare(ProgressObserver* out, double from, double to, bool last)
      : out_(out), from_(from), to_(to), last_(last) {}
  void progress(std::uint64_t cycle, double fraction, bool done) override {
    if (!out_ || (done && !last_)) return;
    out_->progress(cycle, done ? 1.0 : fraction < 0 ? fraction : from_ + (to_ - from_) * fraction, done);
  }
  // Null when there is no observer to tell.
  ProgressObserver* observer() { return out_ ? this : nullptr; }

 private:
  ProgressObserver* out_;
  double from_, to_;
  bool last_;
};

}  // namespace wsesim::sim
