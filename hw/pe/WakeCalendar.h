#pragma once
// When each PE next needs attention: a calendar of (cycle, PE) wake-ups.
// Wake-ups within `kWindow` cycles of the current one go to a ring of
// per-cycle buckets (constant time to add and to take, the common case:
// op completions and wavelet arrivals are near); later ones wait in a heap
// and move into the ring as it comes within reach.

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "hw/fabric/MeshGeometry.h"

namespace wsesim::pe {

class WakeCalendar {
 public:
  static constexpr std::uint64_t kNever = ~std::uint64_t(0);

  WakeCalendar() : buckets_(kWindow) {}

  // `cycle` must not be earlier than the cycle last drained + 1.
  void schedule(std::uint64_t cycle, fabric::RouterId pe) {
    ++pending_;
    if (cycle - base_ < kWindow) {
      addToBucket(cycle, pe);
    } else {
      far_.push(Entry{cycle, pe});
    }
  }

  bool empty() const { return pending_ == 0; }

  // The earliest cycle with a wake-up (kNever: none).
  std::uint64_t next() const;

  // Calls visit(pe) for every wake-up due at `now` (in scheduling order; a
  // PE woken several times is passed several times). Cycles before `now`
  // must have been drained already, or hold nothing.
  template <class Visit>
  void drain(std::uint64_t now, Visit&& visit) {
    advance(now);
    std::vector<fabric::RouterId>& bucket = buckets_[now % kWindow];
    if (bucket.empty()) return;
    occupied_[(now % kWindow) / 64] &= ~(std::uint64_t(1) << (now % 64));
    draining_.swap(bucket);
    pending_ -= draining_.size();
    for (fabric::RouterId pe : draining_) visit(pe);
    draining_.clear();
  }

 private:
  static constexpr std::uint64_t kWindow = 1024;  // a multiple of 64

  struct Entry {
    std::uint64_t cycle;
    fabric::RouterId pe;
    bool operator>(const Entry& o) const { return cycle > o.cycle; }
  };

  void addToBucket(std::uint64_t cycle, fabric::RouterId pe) {
    buckets_[cycle % kWindow].push_back(pe);
    occupied_[(cycle % kWindow) / 64] |= std::uint64_t(1) << (cycle % 64);
  }
  void advance(std::uint64_t now);

  std::uint64_t base_ = 0;  // the ring holds cycles [base_, base_ + kWindow)
  std::uint64_t pending_ = 0;
  std::vector<std::vector<fabric::RouterId>> buckets_;
  std::uint64_t occupied_[kWindow / 64] = {};
  std::vector<fabric::RouterId> draining_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> far_;
};

}  // namespace wsesim::pe
