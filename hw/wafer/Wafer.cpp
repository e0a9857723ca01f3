#include "hw/wafer/Wafer.h"

namespace wsesim::wafer {

Wafer::Wafer(sc_core::sc_module_name name, CycleLoop& loop, double clockHz)
    : sc_module(name), loop_(loop), period_(sc_core::sc_time::from_seconds(1.0 / clockHz)) {
  SC_THREAD(run);
}

void Wafer::run() {
  try {
    loop_.run([&](std::uint64_t cycles) { wait(period_ * double(cycles)); });
  } catch (...) {
    error_ = std::current_exception();
  }
  if (!error_) finished_.notify();
  if (stopWhenFinished_ || error_) sc_core::sc_stop();
}

}  // namespace wsesim::wafer
