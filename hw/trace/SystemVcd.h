#pragma once
// The system model's activity as a VCD waveform (docs/waveforms.md,
// "System signals"). The cluster runs loosely timed: its modules record
// when things happened instead of driving signals a tracer could sample, so
// the waveform is written from those records after the run. Times are from
// the cluster's start, in picoseconds.

#include <string>

#include "hw/system/Cluster.h"

namespace wsesim::trace {

// The VCD text: MemoryX (the layer fetched, streamed and updated), SwarmX
// (reductions in flight) and per system (the wafer's task, whether it
// waits for weights, the I/O ring busy each way).
std::string systemVcd(const system::Cluster& cluster);

}  // namespace wsesim::trace
