#include "hw/wafer/WakeCalendar.h"

namespace wsesim::wafer {

std::uint64_t WakeCalendar::next() const {
  if (pending_ == 0) return kNever;
  if (pending_ == far_.size()) return far_.top().cycle;
  // The first occupied bucket at or after base_, wrapping around the ring.
  constexpr unsigned kWords = kWindow / 64;
  const unsigned start = unsigned(base_ % kWindow);
  for (unsigned k = 0; k <= kWords; ++k) {
    const unsigned word = (start / 64 + k) % kWords;
    std::uint64_t bits = occupied_[word];
    if (k == 0) bits &= ~std::uint64_t(0) << (start % 64);                   // from base_ on
    if (k == kWords) bits &= (std::uint64_t(1) << (start % 64)) - 1;         // wrapped: before base_
    if (!bits) continue;
    const std::uint64_t slot = std::uint64_t(word) * 64 + unsigned(__builtin_ctzll(bits));
    return base_ + (slot + kWindow - start) % kWindow;
  }
  return kNever;  // unreachable: pending_ counts a bucket entry
}

void WakeCalendar::advance(std::uint64_t now) {
  if (now <= base_) return;
  base_ = now;
  while (!far_.empty() && far_.top().cycle - base_ < kWindow) {
    addToBucket(far_.top().cycle, far_.top().id);
    far_.pop();
  }
}

}  // namespace wsesim::wafer
