#include "hw/wafer/CycleLoop.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace wsesim::wafer {

CycleLoop::CycleLoop(const fabric::FabricParams& fabric, std::optional<std::uint64_t> maxCycles,
                     const fabric::ColorRouteTable* routes, unsigned threads)
    : maxCycles_(maxCycles), fabric_(fabric, routes, threads) {}

std::size_t CycleLoop::plannedHostBytes(const fabric::FabricParams& fabric, unsigned threads) {
  return sizeof(CycleLoop) + fabric::FabricKernel::plannedHostBytes(fabric, threads);
}

void CycleLoop::sample(std::uint64_t cycle) {
  for (WaveformObserver* w : waveforms_) w->sample(cycle);
  for (sim::CycleObserver* o : observers_) o->sample(cycle);
}

void CycleLoop::beginWaveformCycle() {
  for (WaveformObserver* w : waveforms_) w->beginCycle();
}

void CycleLoop::reportProgress() {
  const auto now = std::chrono::steady_clock::now();
  if (now - lastReport_ < std::chrono::seconds(1)) return;
  lastReport_ = now;
  progress_->progress(now_, driver_->progress(now_), false);
}

void CycleLoop::run(const std::function<void(std::uint64_t)>& follow) {
  lastReport_ = std::chrono::steady_clock::now();
  std::uint64_t synced = 0;  // the cycle outside time has reached
  auto advanceTo = [&](std::uint64_t cycle) {
    if (cycle > synced) follow(cycle - synced);
    synced = cycle;
  };
  const bool tracing = !waveforms_.empty();
  const bool sampling = tracing || !observers_.empty();
  while (driver_ && !driver_->finished(now_, fabric_)) {
    // Nothing can change before the earliest of the fabric's next change
    // and the driver's next activity: the cycles in between are skipped.
    if (const std::uint64_t fabricNext = fabric_.nextChange(now_); fabricNext > now_) {
      std::uint64_t next = std::min(fabricNext, driver_->nextActivity(now_));
      if (next == sim::kNever) break;
      if (maxCycles_) next = std::min(next, *maxCycles_);  // fail there, as stepping would
      if (next > now_) {
        // The waveform shows the mesh going quiet right after its last
        // busy cycle, not the last transfers held across the gap.
        if (tracing && now_ > synced) {
          advanceTo(now_);
          beginWaveformCycle();
          sample(now_);
        }
        now_ = next;
        advanceTo(now_);
        if (progress_) reportProgress();
      }
    }
    if (tracing) {
      advanceTo(now_);
      beginWaveformCycle();
    }
    if (maxCycles_ && now_ >= *maxCycles_)
      throw std::runtime_error("the wafer had not finished by cycle " + std::to_string(now_) +
                               ", run.max_cycles = " + std::to_string(*maxCycles_));
    driver_->beginCycle(now_, fabric_);
    fabric_.step(now_);
    if (sampling) sample(now_);
    // The clock is read every 64 cycles: cheap beside stepping them.
    if (progress_ && (now_ & 63) == 0) reportProgress();
    ++now_;
  }
  if (progress_) progress_->progress(now_, 1.0, true);
  advanceTo(now_);
}

}  // namespace wsesim::wafer
