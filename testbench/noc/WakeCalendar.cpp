#include "testbench/noc/WakeCalendar.h"

#include <algorithm>

namespace wsesim::noc {

void WakeCalendar::schedule(std::uint64_t cycle, std::uint32_t source) {
  if (cycle - from_ >= kWheelCycles) {
    far_.emplace(cycle, source);
    return;
  }
  const std::size_t b = bucketOf(cycle);
  buckets_[b].push_back(source);
  occupied_[b / 64] |= std::uint64_t(1) << (b % 64);
}

void WakeCalendar::takeDue(std::uint64_t now, std::vector<std::uint32_t>& out) {
  if (now < from_) return;
  // A jump over idle cycles may pass several buckets, or the whole wheel.
  const std::uint64_t last = std::min(now, from_ + kWheelCycles - 1);
  for (std::uint64_t cycle = from_; cycle <= last; ++cycle) {
    const std::size_t b = bucketOf(cycle);
    std::uint64_t& word = occupied_[b / 64];
    const std::uint64_t bit = std::uint64_t(1) << (b % 64);
    if (!(word & bit)) continue;
    word &= ~bit;
    out.insert(out.end(), buckets_[b].begin(), buckets_[b].end());
    buckets_[b].clear();
  }
  from_ = now + 1;
  while (!far_.empty() && far_.top().first <= now) {
    out.push_back(far_.top().second);
    far_.pop();
  }
}

std::uint64_t WakeCalendar::next() const {
  const std::uint64_t far = far_.empty() ? wafer::kNever : far_.top().first;
  return std::min(nextInWheel(), far);
}

std::uint64_t WakeCalendar::nextInWheel() const {
  const std::size_t start = bucketOf(from_);
  // Word by word from the bucket of from_, around the wheel and back to
  // the buckets below it in its word.
  for (std::size_t i = 0; i <= kWords; ++i) {
    const std::size_t word = (start / 64 + i) % kWords;
    std::uint64_t bits = occupied_[word];
    if (i == 0) bits &= ~std::uint64_t(0) << (start % 64);
    if (i == kWords) bits &= (std::uint64_t(1) << (start % 64)) - 1;
    if (bits) {
      const std::size_t b = word * 64 + std::size_t(__builtin_ctzll(bits));
      return from_ + ((b - start) & (kWheelCycles - 1));
    }
  }
  return wafer::kNever;
}

}  // namespace wsesim::noc
