#pragma once
// The set of routers that hold wavelets, as a two-level bitmap. Routers are
// visited in index order, so a cycle walks router state front to back
// (friendly to caches and prefetchers) however traffic is scattered, and an
// idle mesh costs one word per 4096 routers to scan.

#include <cstdint>
#include <vector>

namespace wsesim::fabric {

class ActiveSet {
 public:
  explicit ActiveSet(std::uint32_t capacity)
      : words_((capacity + 63) / 64, 0), summary_((words_.size() + 63) / 64, 0) {}

  // Without a branch on whether r is already in: routers join the set in
  // no order a predictor could learn.
  void insert(std::uint32_t r) {
    std::uint64_t& word = words_[r >> 6];
    const std::uint64_t bit = std::uint64_t(1) << (r & 63);
    count_ += (word & bit) == 0;
    word |= bit;
    summary_[r >> 12] |= std::uint64_t(1) << ((r >> 6) & 63);
  }

  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }

  // Calls fn(r) for every member in increasing order and empties the set.
  template <class Fn>
  [[gnu::always_inline]] inline void drain(Fn&& fn) {
    for (std::size_t s = 0; s < summary_.size(); ++s) {
      for (std::uint64_t sw = summary_[s]; sw; sw &= sw - 1) {
        const std::size_t w = s * 64 + std::size_t(__builtin_ctzll(sw));
        std::uint64_t word = words_[w];
        words_[w] = 0;
        for (; word; word &= word - 1) fn(std::uint32_t(w * 64 + std::size_t(__builtin_ctzll(word))));
      }
      summary_[s] = 0;
    }
    count_ = 0;
  }

  template <class Fn>
  void forEach(Fn&& fn) const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (std::uint64_t word = words_[w]; word; word &= word - 1)
        fn(std::uint32_t(w * 64 + std::size_t(__builtin_ctzll(word))));
  }

  std::size_t hostBytes() const { return (words_.capacity() + summary_.capacity()) * sizeof(std::uint64_t); }
  static std::size_t plannedHostBytes(std::uint32_t capacity) {
    const std::size_t words = (std::size_t(capacity) + 63) / 64;
    return (words + (words + 63) / 64) * sizeof(std::uint64_t);
  }

 private:
  std::vector<std::uint64_t> words_;
  std::vector<std::uint64_t> summary_;
  std::size_t count_ = 0;
};

}  // namespace wsesim::fabric
