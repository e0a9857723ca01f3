#pragma once
// Progress of a long run on one terminal line, rewritten in place: the
// simulated cycle, the share of the workload done and the time left at the
// pace so far. Only used when stderr is a terminal; a pipe or a log file
// stays quiet.

#include <chrono>
#include <cstdint>
#include <ostream>

#include "hw/sim/CycleDriver.h"

namespace wsesim::cli {

class ProgressLine : public sim::ProgressObserver {
 public:
  explicit ProgressLine(std::ostream& out) : out_(out), start_(std::chrono::steady_clock::now()) {}

  void progress(std::uint64_t cycle, double fraction, bool done) override;

 private:
  std::ostream& out_;
  std::chrono::steady_clock::time_point start_;
  bool shown_ = false;
};

}  // namespace wsesim::cli
