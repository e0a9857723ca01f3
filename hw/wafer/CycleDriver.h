#pragma once
// What feeds the wafer's cycle kernel: a traffic generator for NoC studies,
// the PEs' compute engines (PeArray), the I/O ring's edge injectors, or a
// workload's phase controller around them. The wafer calls it once per
// simulated cycle and asks it when it next has work, to jump over idle
// stretches.

#include <cstdint>
#include <limits>

#include "hw/fabric/FabricKernel.h"

namespace wsesim::wafer {

inline constexpr std::uint64_t kNever = std::numeric_limits<std::uint64_t>::max();

class CycleDriver {
 public:
  virtual ~CycleDriver() = default;
  // Called at cycle `now` before the fabric moves: inject, consume, compute.
  virtual void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) = 0;
  // Earliest cycle >= now at which beginCycle has anything to do (kNever: none).
  virtual std::uint64_t nextActivity(std::uint64_t now) const = 0;
  // True once the workload is complete at cycle `now`.
  virtual bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const = 0;
  // The fraction of the workload done at cycle `now`, in [0, 1], or a
  // negative number when the driver cannot tell (progress reports only).
  virtual double progress(std::uint64_t /*now*/) const { return -1; }
};

// Hears about a long run's progress about once a second of wall time.
class ProgressObserver {
 public:
  virtual ~ProgressObserver() = default;
  // `fraction` as CycleDriver::progress; `done` once, when the run ends.
  virtual void progress(std::uint64_t cycle, double fraction, bool done) = 0;
};

// Samples state at the end of every cycle while a waveform is traced.
class CycleObserver {
 public:
  virtual ~CycleObserver() = default;
  virtual void sample(std::uint64_t cycle) = 0;
};

}  // namespace wsesim::wafer
