#pragma once
// When each traffic source creates its next packet: a calendar of wake-ups.
//
// Every source sleeps between packets, and a cycle wakes the few whose
// packet is due. A binary heap of (cycle, source) did that at the cost of
// log2(sources) compares per wake-up whose outcomes no branch predictor
// can learn: 7% of a 256 x 256 run. The calendar is a timing wheel
// instead: one bucket per cycle of the next kWheelCycles, and a heap only
// for the rare wake-up further ahead (inter-packet gaps are geometric, so
// past a few mean gaps they are rare at any rate).

#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "hw/wafer/CycleDriver.h"

namespace wsesim::noc {

class WakeCalendar {
 public:
  WakeCalendar() : buckets_(kWheelCycles), occupied_{} {}

  // Wakes `source` in `cycle` (one already taken: at the next takeDue).
  void schedule(std::uint64_t cycle, std::uint32_t source);

  // Appends every source due up to and including `now` to `out`, in no
  // particular order; later cycles are taken next.
  void takeDue(std::uint64_t now, std::vector<std::uint32_t>& out);

  // The earliest cycle a source is scheduled in; wafer::kNever if none is.
  std::uint64_t next() const;

 private:
  static constexpr std::uint64_t kWheelCycles = 1024;  // a power of two
  static constexpr std::size_t kWords = kWheelCycles / 64;

  std::size_t bucketOf(std::uint64_t cycle) const { return std::size_t(cycle & (kWheelCycles - 1)); }
  // The earliest occupied bucket's cycle, counting from `from_`; wafer::kNever if none.
  std::uint64_t nextInWheel() const;

  // Bucket c & (kWheelCycles - 1) holds the wake-ups of cycle c, for c in
  // [from_, from_ + kWheelCycles): the wheel's cycles, not yet taken.
  std::vector<std::vector<std::uint32_t>> buckets_;
  std::uint64_t occupied_[kWords];  // per bucket, whether it holds any
  std::uint64_t from_ = 0;
  // Wake-ups scheduled past the wheel's cycles; taken from here when due.
  using Wake = std::pair<std::uint64_t, std::uint32_t>;
  std::priority_queue<Wake, std::vector<Wake>, std::greater<Wake>> far_;
};

}  // namespace wsesim::noc
