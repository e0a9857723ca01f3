#pragma once
// What feeds the wafer's cycle kernel: the PEs' compute engines
// (pe::PeArray), the NoC traffic sources, the I/O ring's edge injectors, or
// a runtime that chains several of them.
//
// The contract with the wafer (hw/wafer/Wafer), which calls beginCycle()
// once in every cycle it steps: it steps each cycle in which the fabric can
// change by itself (FabricKernel::nextChange: a wavelet moved in the cycle
// before, a held one falls due); in the other cycles, the fabric empty or
// every wavelet in it waiting, it asks nextActivity() and skips to the
// earliest of both. So a driver's beginCycle may do nothing in a cycle it
// did not name, and the answer must be exact: a cycle too late changes the
// timing, one too early costs a step.

#include <cstdint>

#include "hw/fabric/FabricKernel.h"

namespace wsesim::sim {

// No activity, ever; one value with the fabric's "no change by itself", so
// the wafer takes the earliest of both.
inline constexpr std::uint64_t kNever = fabric::FabricKernel::kNoChange;

class CycleDriver {
 public:
  virtual ~CycleDriver() = default;
  // Called at cycle `now` before the fabric moves: inject, consume, compute.
  virtual void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) = 0;
  // Earliest cycle >= now at which beginCycle has anything to do (kNever:
  // none): inject, consume, compute, give the fabric room back. Asked only
  // while the fabric cannot change by itself at `now`.
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

}  // namespace wsesim::sim
