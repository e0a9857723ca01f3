#pragma once
// The wafer's I/O bandwidth in one direction, as credit in wavelets: a real
// rate per cycle (the configured bytes per second over the clock and the
// element size). The credit holds at most one wavelet more than a cycle's
// worth: a stream that always has a wavelet waiting goes at the rate
// exactly (what a cycle earns past a whole wavelet carries to the next,
// so a rate of 0.284 is not one wavelet every 4 cycles), and bandwidth
// unused while nothing could move is not saved up beyond one cycle's worth.
// The edge injector (ingress) and the edge collector (egress) each hold one.
//
// The credit in a cycle is computed in one step from the last wavelet's
// cycle, not summed cycle by cycle, so it does not depend on which cycles
// in between the simulation visited (the wafer skips those in which
// nothing can change), and nextAvailable() names the very cycle in which
// available() turns true.

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace wsesim::wafer {

class IoBandwidth {
 public:
  // `waveletsPerCycle` must be positive.
  explicit IoBandwidth(double waveletsPerCycle)
      : rate_(waveletsPerCycle), cap_(std::max(waveletsPerCycle, 1.0) + std::min(waveletsPerCycle, 1.0)) {}

  // Counts the credit earned up to cycle `now` (the first call: one cycle's
  // worth); `now` must not go back.
  void advance(std::uint64_t now) {
    if (!started_) {
      started_ = true;
      since_ = now;
      creditSince_ = std::min(rate_, cap_);
    }
    lastCycle_ = now;
    credit_ = creditAt(now);
  }
  // Unused long enough to hold all the credit it can from cycle `now` on
  // (`now` not before the last cycle advanced to): a wavelet may move in it.
  void fill(std::uint64_t now) {
    started_ = true;
    since_ = lastCycle_ = now;
    creditSince_ = credit_ = cap_;
  }
  bool available() const { return credit_ >= 1.0; }
  void consume() {
    credit_ -= 1.0;
    since_ = lastCycle_;
    creditSince_ = credit_;
  }
  // The first cycle >= now in which a wavelet may move (`now` not before
  // the last cycle advanced to).
  std::uint64_t nextAvailable(std::uint64_t now) const {
    if (!started_ || creditAt(now) >= 1.0) return now;
    // The closed form's guess, corrected to creditAt's own rounding.
    std::uint64_t wait = std::uint64_t(std::ceil((1.0 - creditSince_) / rate_));
    while (creditAt(since_ + wait) < 1.0) ++wait;
    while (wait > 0 && creditAt(since_ + wait - 1) >= 1.0) --wait;
    return std::max(now, since_ + wait);
  }
  double rate() const { return rate_; }

 private:
  double creditAt(std::uint64_t cycle) const { return std::min(creditSince_ + rate_ * double(cycle - since_), cap_); }

  double rate_;
  double cap_;  // a cycle's worth (at least one wavelet) and what one cycle earns (at most one)
  bool started_ = false;
  std::uint64_t since_ = 0;    // the credit grows from creditSince_ in this cycle
  double creditSince_ = 0;
  std::uint64_t lastCycle_ = 0;  // the last cycle advanced to
  double credit_ = 0;            // in lastCycle_
};

}  // namespace wsesim::wafer
