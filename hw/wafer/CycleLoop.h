#pragma once
// The wafer's cycle loop, free of SystemC: it steps the flat fabric kernel
// cycle by cycle (no process or signal per router), skipping the cycles in
// which neither the fabric nor the driver can change anything
// (sim::CycleDriver states the contract). The SystemC module wafer::Wafer
// runs it in its thread and lets SystemC time follow it; a chip run by a
// worker thread (the train workload's GEMM groups, on several cores) runs
// it alone, since SystemC's kernel is one per process and single-threaded.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "hw/fabric/FabricKernel.h"
#include "hw/sim/CycleDriver.h"
#include "hw/wafer/WaveformObserver.h"

namespace wsesim::wafer {

class CycleLoop {
 public:
  // The fabric (its watchdog included) and the run's bound (run.max_cycles:
  // a wafer not done by then fails the run; unset: none). `routes` is needed
  // in color routing mode and must outlive the loop. `threads` step the
  // fabric's bands at once (FabricKernel).
  CycleLoop(const fabric::FabricParams& fabric, std::optional<std::uint64_t> maxCycles,
            const fabric::ColorRouteTable* routes, unsigned threads = 1);
  // The most host memory the loop takes, before building it (the fabric
  // kernel's arrays; FabricKernel::plannedHostBytes).
  static std::size_t plannedHostBytes(const fabric::FabricParams& fabric, unsigned threads = 1);

  void setDriver(sim::CycleDriver* driver) { driver_ = driver; }
  // Samples `observer` at the end of every cycle stepped (and, while a
  // waveform is attached, of the last busy cycle before an idle stretch).
  void addTraceObserver(sim::CycleObserver* observer) { observers_.push_back(observer); }
  // Attaches a waveform: from then on time follows every cycle stepped, and
  // the waveform hears each cycle begin and is sampled at its end.
  void addWaveform(WaveformObserver* waveform) { waveforms_.push_back(waveform); }
  bool traced() const { return !waveforms_.empty(); }
  void setProgressObserver(sim::ProgressObserver* observer) { progress_ = observer; }

  fabric::FabricKernel& fabric() { return fabric_; }
  const fabric::FabricKernel& fabric() const { return fabric_; }
  // Cycles simulated so far (the cycle after the last one stepped).
  std::uint64_t cycles() const { return now_; }

  // Runs until the driver is done. `follow(cycles)` is told how many cycles
  // outside time must advance by before the loop goes on: at every stretch
  // skipped, every cycle while a waveform is attached, and the end. Throws
  // what the fabric or the driver throws, or std::runtime_error past
  // run.max_cycles.
  void run(const std::function<void(std::uint64_t)>& follow);

 private:
  void sample(std::uint64_t cycle);
  void beginWaveformCycle();
  // Tells the progress observer, if a second of wall time has passed since it last heard.
  void reportProgress();

  std::optional<std::uint64_t> maxCycles_;
  fabric::FabricKernel fabric_;
  sim::CycleDriver* driver_ = nullptr;
  std::vector<WaveformObserver*> waveforms_;
  std::vector<sim::CycleObserver*> observers_;
  sim::ProgressObserver* progress_ = nullptr;
  std::chrono::steady_clock::time_point lastReport_;
  std::uint64_t now_ = 0;
};

}  // namespace wsesim::wafer
