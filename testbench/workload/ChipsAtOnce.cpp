#include "testbench/workload/ChipsAtOnce.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <optional>
#include <system_error>
#include <thread>

namespace wsesim::workload {
namespace {

// The tasks' progress told to the run's observer as one.
class SharedProgress {
 public:
  SharedProgress(sim::ProgressObserver* out, const std::vector<double>& weights)
      : out_(out), weights_(weights), cycles_(weights.size()), fractions_(weights.size()) {
    for (std::size_t t = 0; t < weights_.size(); ++t) tasks_.push_back(One{this, t});
  }
  sim::ProgressObserver* of(std::size_t task) { return out_ ? &tasks_[task] : nullptr; }
  void finish() {
    if (out_) out_->progress(std::accumulate(cycles_.begin(), cycles_.end(), std::uint64_t(0)), 1.0, true);
  }

 private:
  struct One : sim::ProgressObserver {
    SharedProgress* all;
    std::size_t task;
    One(SharedProgress* a, std::size_t t) : all(a), task(t) {}
    void progress(std::uint64_t cycle, double fraction, bool done) override { all->update(task, cycle, fraction, done); }
  };

  void update(std::size_t task, std::uint64_t cycle, double fraction, bool done) {
    const std::lock_guard<std::mutex> lock(mutex_);
    cycles_[task] = cycle;
    fractions_[task] = done ? 1.0 : std::max(0.0, fraction);
    double total = 0, weight = 0;
    for (std::size_t t = 0; t < weights_.size(); ++t) {
      total += weights_[t] * fractions_[t];
      weight += weights_[t];
    }
    out_->progress(std::accumulate(cycles_.begin(), cycles_.end(), std::uint64_t(0)), total / weight, false);
  }

  sim::ProgressObserver* out_;
  std::vector<double> weights_;
  std::vector<One> tasks_;
  std::mutex mutex_;
  std::vector<std::uint64_t> cycles_;
  std::vector<double> fractions_;
};

}  // namespace

chip::ChipParts partsWithoutSystemc(const chip::ChipParts& parts, const config::ArchConfig& arch) {
  chip::ChipParts on = parts;
  on.systemc = false;
  for (std::optional<wafer::IoRingEdge>* ring : {&on.ingress, &on.egress})
    if (*ring) ring->emplace(arch.mesh.height, arch.io.channelsPerEdge, (*ring)->waveletsPerChannelCycle());
  return on;
}

std::vector<std::exception_ptr> runAtOnce(
    const std::vector<double>& costs, unsigned workers, sim::ProgressObserver* progress,
    const std::function<void(std::size_t task, sim::ProgressObserver* progress)>& task) {
  std::vector<std::size_t> order(costs.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
  SharedProgress shared(progress, costs);
  std::vector<std::exception_ptr> errors(costs.size());
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    for (std::size_t i = next++; i < order.size(); i = next++) {
      const std::size_t t = order[i];
      try {
        task(t, shared.of(t));
      } catch (...) {
        errors[t] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> helpers;
  const unsigned threads = std::max(1u, std::min<unsigned>(workers, unsigned(costs.size())));
  for (unsigned w = 1; w < threads; ++w) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // the host gives no more threads: fewer workers take the same tasks
    }
  }
  work();
  for (std::thread& t : helpers) t.join();
  if (std::none_of(errors.begin(), errors.end(), [](const std::exception_ptr& e) { return bool(e); }))
    shared.finish();
  return errors;
}

}  // namespace wsesim::workload
