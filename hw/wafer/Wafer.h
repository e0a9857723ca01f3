#pragma once
// The wafer as a SystemC module. Its single thread steps the flat fabric
// kernel cycle by cycle (no process or signal per router), skipping the
// cycles in which neither the fabric nor the driver can change anything
// (sim::CycleDriver states the contract). SystemC time follows the kernel
// at every stretch it skips (one wait() each), at the end of the run, and
// at every cycle while a waveform is traced; busy stretches run without
// yielding to the SystemC scheduler.

#include <systemc>

#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <vector>

#include "hw/fabric/FabricKernel.h"
#include "hw/sim/CycleDriver.h"
#include "hw/wafer/WaveformObserver.h"

namespace wsesim::wafer {

class Wafer : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Wafer);

  // The fabric (its watchdog included), the clock that turns cycles into
  // SystemC time, and the run's bound (run.max_cycles: a wafer not done by
  // then fails the run; unset: none) are all it takes of the machine.
  // `routes` is needed in color routing mode and must outlive the wafer.
  Wafer(sc_core::sc_module_name name, const fabric::FabricParams& fabric, double clockHz,
        std::optional<std::uint64_t> maxCycles, const fabric::ColorRouteTable* routes);
  // The most host memory a wafer of `fabric` takes, before building it (the
  // fabric kernel's arrays; FabricKernel::plannedHostBytes).
  static std::size_t plannedHostBytes(const fabric::FabricParams& fabric);

  void setDriver(sim::CycleDriver* driver) { driver_ = driver; }
  // Samples `observer` at the end of every cycle stepped (and, while a
  // waveform is attached, of the last busy cycle before an idle stretch).
  void addTraceObserver(sim::CycleObserver* observer) { observers_.push_back(observer); }
  // Attaches a waveform: from then on SystemC time follows every cycle
  // stepped, and the waveform hears each cycle begin and is sampled at its end.
  void addWaveform(WaveformObserver* waveform) { waveforms_.push_back(waveform); }
  void setProgressObserver(sim::ProgressObserver* observer) { progress_ = observer; }
  // When the driver is done the wafer notifies finishedEvent() and, unless
  // told not to, stops the simulation; a model that runs on after the wafer
  // (the cluster around it) waits for the event instead. An error stops it
  // always, without the event.
  void setStopWhenFinished(bool stop) { stopWhenFinished_ = stop; }
  const sc_core::sc_event& finishedEvent() const { return finished_; }

  fabric::FabricKernel& fabric() { return fabric_; }
  const fabric::FabricKernel& fabric() const { return fabric_; }
  // Cycles simulated so far (the cycle after the last one stepped).
  std::uint64_t cycles() const { return now_; }
  // An error raised inside the simulation thread, rethrown after sc_start().
  void rethrowError() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run();
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
  sc_core::sc_time period_;
  std::uint64_t now_ = 0;
  bool stopWhenFinished_ = true;
  sc_core::sc_event finished_;
  std::exception_ptr error_;
};

}  // namespace wsesim::wafer
