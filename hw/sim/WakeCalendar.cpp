#include "hw/sim/WakeCalendar.h"

#include <iterator>

namespace wsesim::sim {

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

void WakeCalendar::addToBucket(std::uint64_t cycle, std::uint32_t id) {
  const std::size_t b = std::size_t(cycle % kWindow);
  Bucket& bucket = buckets_[b];
  if (bucket.tail == kNoChunk || chunks_[bucket.tail].count == std::size(chunks_[bucket.tail].ids)) {
    const std::uint32_t c = newChunk();
    if (bucket.tail == kNoChunk)
      bucket.head = c;
    else
      chunks_[bucket.tail].next = c;
    bucket.tail = c;
  }
  Chunk& tail = chunks_[bucket.tail];
  tail.ids[tail.count++] = id;
  ++bucket.count;
  occupied_[b / 64] |= std::uint64_t(1) << (b % 64);
}

std::uint32_t WakeCalendar::newChunk() {
  std::uint32_t c = freeChunks_;
  if (c != kNoChunk) {
    freeChunks_ = chunks_[c].next;
  } else {
    c = std::uint32_t(chunks_.size());
    chunks_.emplace_back();
  }
  chunks_[c].count = 0;
  chunks_[c].next = kNoChunk;
  return c;
}

void WakeCalendar::advance(std::uint64_t now) {
  if (now <= base_) return;
  base_ = now;
  while (!far_.empty() && far_.top().cycle - base_ < kWindow) {
    addToBucket(far_.top().cycle, far_.top().id);
    far_.pop();
  }
}

}  // namespace wsesim::sim
