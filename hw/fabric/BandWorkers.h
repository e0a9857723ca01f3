#pragma once
// The threads that step the bands of the mesh at once (FabricKernel with
// run.threads > 1). A call runs one function on every band, band 0 on the
// caller's thread and each other band on a thread of its own, and returns
// when all have returned: a fork and a join, two per simulated cycle.
//
// A cycle's share of a band takes microseconds to milliseconds, less than
// putting a thread to sleep and waking it costs, so the threads wait by
// spinning on one counter, then by yielding their core (to threads with
// work, on a host with fewer cores than threads); after about a
// millisecond without work (the run is in its serial parts) they block,
// and the next call wakes them.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wsesim::fabric {

class BandWorkers {
 public:
  // `bands` >= 2: bands - 1 threads are started.
  explicit BandWorkers(unsigned bands);
  BandWorkers(const BandWorkers&) = delete;
  BandWorkers& operator=(const BandWorkers&) = delete;
  ~BandWorkers();

  unsigned bands() const { return unsigned(threads_.size()) + 1; }
  // Calls job(b) for every band b, at once; returns when every call has.
  // `job` must not throw (a band keeps its error for the caller).
  void run(const std::function<void(unsigned)>& job);

 private:
  void work(unsigned band);

  const std::function<void(unsigned)>* job_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};  // bumped by each run(); 0 stops nobody
  std::atomic<unsigned> running_{0};          // bands other than 0 still in the current job
  std::atomic<unsigned> blocked_{0};          // threads waiting on wake_
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::thread> threads_;
};

}  // namespace wsesim::fabric
