#pragma once
// A waveform written while the wafer runs (the VCD tracers of hw/trace,
// attached from outside). While one is attached, SystemC time follows every
// cycle the wafer steps, since a VCD file records its signals when time
// advances; it is sampled at the end of each cycle like any CycleObserver.

#include "hw/sim/CycleDriver.h"

namespace wsesim::wafer {

class WaveformObserver : public sim::CycleObserver {
 public:
  // At the start of every cycle stepped, before anything moves (e.g. to
  // mark every link idle until a transfer says otherwise).
  virtual void beginCycle() {}
};

}  // namespace wsesim::wafer
