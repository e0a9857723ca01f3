#pragma once
// The wafer as a SystemC module. Its single thread runs the wafer's cycle
// loop (CycleLoop); SystemC time follows the loop at every stretch it
// skips (one wait() each), at the end of the run, and at every cycle while
// a waveform is traced; busy stretches run without yielding to the SystemC
// scheduler.

#include <systemc>

#include <exception>

#include "hw/wafer/CycleLoop.h"

namespace wsesim::wafer {

class Wafer : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Wafer);

  // Runs `loop` (which must outlive the module) at the clock that turns
  // cycles into SystemC time.
  Wafer(sc_core::sc_module_name name, CycleLoop& loop, double clockHz);

  // When the driver is done the wafer notifies finishedEvent() and, unless
  // told not to, stops the simulation; a model that runs on after the wafer
  // (the cluster around it) waits for the event instead. An error stops it
  // always, without the event.
  void setStopWhenFinished(bool stop) { stopWhenFinished_ = stop; }
  const sc_core::sc_event& finishedEvent() const { return finished_; }

  CycleLoop& loop() { return loop_; }
  fabric::FabricKernel& fabric() { return loop_.fabric(); }
  const fabric::FabricKernel& fabric() const { return loop_.fabric(); }
  // Cycles simulated so far (the cycle after the last one stepped).
  std::uint64_t cycles() const { return loop_.cycles(); }
  // An error raised inside the simulation thread, rethrown after sc_start().
  void rethrowError() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void run();

  CycleLoop& loop_;
  sc_core::sc_time period_;
  bool stopWhenFinished_ = true;
  sc_core::sc_event finished_;
  std::exception_ptr error_;
};

}  // namespace wsesim::wafer
