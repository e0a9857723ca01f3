// The wsesim executable. main() is ours rather than libsystemc's so the
// banner can be switched off before the SystemC kernel starts; it then hands
// over to SystemC, which calls sc_main.
#include <systemc>

#include <cstdlib>
#include <iostream>

#include "testbench/cli/Cli.h"
#include "testbench/results/PartialFiles.h"

int sc_main(int argc, char* argv[]) {
  // 1 fs keeps the clock period (909.09 ps at 1.1 GHz) within 1e-6 of exact
  // in SystemC time and waveforms.
  sc_core::sc_set_time_resolution(1, sc_core::SC_FS);
  // stdout carries results only: SystemC's notices (simulation stopped,
  // trace timescale) are not for the user.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  return wsesim::cli::main(argc, argv, std::cout, std::cerr);
}

int main(int argc, char* argv[]) {
  // From the first moment: an interrupted wsesim says so and exits 128 + n
  // (testbench/results/PartialFiles.h), whenever the signal comes.
  wsesim::results::removePartialFilesOnInterrupt();
  // stdout carries results only.
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
