#pragma once
// The wafer's I/O bandwidth in one direction, as credit in wavelets: a real
// rate per cycle (the configured bytes per second over the clock and the
// element size). Bandwidth unused while nothing could move is not saved up
// beyond one cycle's worth (plus the fraction carried to the next wavelet).
// The edge injector (ingress) and the edge collector (egress) each hold one.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace wsesim::wafer {

class IoBandwidth {
 public:
  // `waveletsPerCycle` must be positive.
  explicit IoBandwidth(double waveletsPerCycle) : rate_(waveletsPerCycle) {}

  // Adds the credit earned up to cycle `now` (once per cycle; later calls in the same cycle add nothing).
  void advance(std::uint64_t now) {
    if (started_ && now == lastCycle_) return;
    const double cycles = started_ ? double(now - lastCycle_) : 1.0;
    credit_ = std::min(credit_ + rate_ * cycles, std::max(rate_, 1.0));
    started_ = true;
    lastCycle_ = now;
  }
  bool available() const { return credit_ >= 1.0; }
  void consume() { credit_ -= 1.0; }
  // The first cycle >= now in which a wavelet may move.
  std::uint64_t nextAvailable(std::uint64_t now) const {
    if (!started_ || credit_ + rate_ >= 1.0) return now;
    const double wait = std::ceil((1.0 - credit_) / rate_);
    return std::max(now, lastCycle_ + std::uint64_t(wait));
  }
  double rate() const { return rate_; }

 private:
  double rate_;
  double credit_ = 0;
  bool started_ = false;
  std::uint64_t lastCycle_ = 0;  // the last cycle credit was counted for
};

}  // namespace wsesim::wafer
