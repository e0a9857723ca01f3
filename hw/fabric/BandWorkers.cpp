#include "hw/fabric/BandWorkers.h"

namespace wsesim::fabric {

namespace {

// A waiting thread spins this many times (a few microseconds), then yields
// its core this many times (with a core to spare, each yield returns at
// once: about a millisecond in all; with more threads than cores, the core
// goes to a thread with work), and only then does a worker block.
constexpr unsigned kSpins = 1u << 8;
constexpr unsigned kYields = 1u << 12;

inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

}  // namespace

BandWorkers::BandWorkers(unsigned bands) {
  threads_.reserve(bands - 1);
  for (unsigned b = 1; b < bands; ++b) threads_.emplace_back([this, b] { work(b); });
}

BandWorkers::~BandWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void BandWorkers::run(const std::function<void(unsigned)>& job) {
  job_ = &job;
  running_.store(unsigned(threads_.size()), std::memory_order_relaxed);
  // Sequentially consistent with the workers' `blocked_` and generation
  // reads: either a worker sees the new generation before it blocks, or
  // this call sees it blocked and wakes it.
  generation_.fetch_add(1);
  if (blocked_.load() != 0) {
    std::lock_guard<std::mutex> lock(mutex_);
    wake_.notify_all();
  }
  job(0);
  for (unsigned spins = 0; running_.load(std::memory_order_acquire) != 0; ++spins) {
    if (spins < kSpins)
      pause();
    else
      std::this_thread::yield();
  }
}

void BandWorkers::work(unsigned band) {
  std::uint64_t seen = 0;
  for (;;) {
    unsigned spins = 0;
    std::uint64_t now;
    while ((now = generation_.load(std::memory_order_acquire)) == seen) {
      if (++spins < kSpins) {
        pause();
        continue;
      }
      if (spins < kSpins + kYields) {
        std::this_thread::yield();
        continue;
      }
      blocked_.fetch_add(1);
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_.load() != seen; });
      }
      blocked_.fetch_sub(1);
    }
    seen = now;
    if (stop_.load()) return;
    (*job_)(band);
    running_.fetch_sub(1, std::memory_order_release);
  }
}

}  // namespace wsesim::fabric
