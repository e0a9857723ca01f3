#pragma once
// What the PE model is built from (`arch.pe.*`), beside it. The numbers of a
// machine come from its preset through config::ArchConfig (the one source of
// every `arch.*` value); a default-constructed set is no machine.

#include <cstdint>

#include "hw/pe/OpKind.h"

namespace wsesim::pe {

struct PeParams {
  std::uint64_t sramBytes = 0;
  unsigned sramBanks = 0;          // interleaved banks
  unsigned sramBankWordBytes = 0;  // consecutive words go to consecutive banks
  unsigned sramReadPorts = 0;      // memory vectors an op can read per cycle at full rate
  unsigned threads = 0;            // hardware threads for asynchronous ops
  unsigned tasks = 0;              // task IDs
  unsigned dataTasks = 0;          // tasks that can be bound to a color
  unsigned opOverheadCycles = 0;   // per tensor op, before its first element: the hardware's issue (a program's loop adds its own)
  unsigned taskStartCycles = 0;    // from picking a task to issuing its first instruction
  unsigned fabricInputCycles = 0;  // from the RAMP delivering a wavelet to the PE using it
  unsigned indexRegisters = 0;     // per PE, for descriptors that step through a buffer
  // Wavelets of one color the RAMP can hand the PE before it has used the
  // first; while the inbox is full the router holds that color back.
  unsigned rampInboxDepth = 0;
  LaneTable lanes;
  ElementCycleTable cyclesPerElement;
};

// How a run treats data (`run.mode`).
// functional: SRAM holds real bytes and ops compute real values.
// timing: no data at all, the same programs and the same cycle counts.
enum class DataMode { Functional, Timing };

}  // namespace wsesim::pe
