#pragma once
// When each of a cycle driver's agents (PEs, traffic sources) next needs
// attention: a calendar of (cycle, id) wake-ups. Wake-ups within `kWindow`
// cycles of the current one go to a ring of per-cycle buckets (constant
// time to add and to take, the common case: op completions, wavelet
// arrivals and the next packet of a source are near); later ones wait in a
// heap and move into the ring as it comes within reach. A heap for all of
// them costs log2(n) compares per wake-up whose outcomes no branch
// predictor learns: 7% of a 256 x 256 NoC run.
//
// A bucket is a list of fixed-size chunks from one shared pool, so memory
// follows the wake-ups pending at once, not the most a bucket ever held
// times the ring's 1024 buckets (with a vector per bucket, 65,536 traffic
// sources at 0.1 packets/cycle kept 14 MiB; a full wafer would keep 300).

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "hw/sim/CycleDriver.h"

namespace wsesim::sim {

class WakeCalendar {
 public:
  WakeCalendar() : buckets_(kWindow) {}

  // `cycle` must not be earlier than the cycle last drained + 1.
  void schedule(std::uint64_t cycle, std::uint32_t id) {
    ++pending_;
    if (cycle - base_ < kWindow) {
      addToBucket(cycle, id);
    } else {
      far_.push(Entry{cycle, id});
    }
  }

  bool empty() const { return pending_ == 0; }

  // The earliest cycle with a wake-up (kNever: none).
  std::uint64_t next() const;

  // The wake-ups due at `now` (an id woken several times counts each time).
  // Cycles before `now` must have been drained already, or hold nothing.
  std::size_t due(std::uint64_t now) {
    advance(now);
    return buckets_[std::size_t(now % kWindow)].count;
  }

  // Calls visit(id) for every wake-up due at `now` (in scheduling order; an
  // id woken several times is passed several times). Cycles before `now`
  // must have been drained already, or hold nothing.
  template <class Visit>
  void drain(std::uint64_t now, Visit&& visit) {
    advance(now);
    const std::size_t b = std::size_t(now % kWindow);
    const Bucket bucket = buckets_[b];
    if (bucket.head == kNoChunk) return;
    // Detached before any visit, which may schedule more wake-ups.
    buckets_[b] = Bucket{};
    occupied_[b / 64] &= ~(std::uint64_t(1) << (b % 64));
    pending_ -= bucket.count;
    for (std::uint32_t c = bucket.head; c != kNoChunk;) {
      // By index, not reference: a visit's schedule() may grow the pool.
      for (std::uint32_t i = 0; i < chunks_[c].count; ++i) visit(chunks_[c].ids[i]);
      const std::uint32_t next = chunks_[c].next;
      chunks_[c].next = freeChunks_;
      freeChunks_ = c;
      c = next;
    }
  }

 private:
  static constexpr std::uint64_t kWindow = 1024;  // a multiple of 64
  static constexpr std::uint32_t kNoChunk = ~std::uint32_t(0);

  struct Entry {
    std::uint64_t cycle;
    std::uint32_t id;
    bool operator>(const Entry& o) const { return cycle > o.cycle; }
  };
  struct Chunk {
    std::uint32_t ids[62];
    std::uint32_t count;
    std::uint32_t next;  // the bucket's next chunk, or the free list's
  };
  // A bucket's chunks, in scheduling order.
  struct Bucket {
    std::uint32_t head = kNoChunk, tail = kNoChunk;
    std::uint32_t count = 0;  // wake-ups
  };

  void addToBucket(std::uint64_t cycle, std::uint32_t id);
  std::uint32_t newChunk();
  void advance(std::uint64_t now);

  std::uint64_t base_ = 0;  // the ring holds cycles [base_, base_ + kWindow)
  std::uint64_t pending_ = 0;
  std::vector<Bucket> buckets_;
  std::uint64_t occupied_[kWindow / 64] = {};
  std::vector<Chunk> chunks_;
  std::uint32_t freeChunks_ = kNoChunk;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> far_;
};

}  // namespace wsesim::sim
