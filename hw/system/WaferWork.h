#pragma once
// What one CS system's wafer does in a run, as the system model sees it:
// tasks in execution order, each timed beforehand by the cycle-level wafer
// model (or a cost model) with its weights arriving at the wafer's full
// I/O rate. The system model then places them in time against the weight
// streams that really arrive (docs/system-model.md, "The wafer in the
// system").

#include <systemc>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wsesim::system {

struct WaferTask {
  std::string name;
  std::string kind;           // what it is, for reports (a GEMM's pass, "op")
  sc_core::sc_time duration;  // on the wafer alone, weights at the I/O ring's rate
  // Fed by a weight stream: the system's next weight write, in order, of
  // `streamBytes`. `drain` is the part of `duration` after its last weight
  // entered the wafer (the reduction tail), from the cycle-level run.
  bool streamed = false;
  std::uint64_t streamBytes = 0;
  sc_core::sc_time drain;
  // Its output leaves the wafer, as it is computed, as `gradientBytes` of
  // gradients for the MemoryX layer at `gradientAddress`.
  bool gradients = false;
  std::uint64_t gradientAddress = 0, gradientBytes = 0;
  // Activation offload (docs/training.md): `offloadBytes` of the
  // activations it reads leave the wafer as it runs, for MemoryX to keep at
  // `activationAddress`; or `fetchBytes` from there must be back on the
  // wafer before it starts, fetched from the start of the earlier task
  // `fetchFrom` on. The system's own data: SwarmX neither copies nor sums it.
  std::uint64_t activationAddress = 0, offloadBytes = 0, fetchBytes = 0;
  std::size_t fetchFrom = 0;
  // Nor does it start before the offload of the earlier task
  // `afterOffloadOf` has left the wafer (the SRAM it frees is this one's).
  std::optional<std::size_t> afterOffloadOf;
};

using WaferWork = std::vector<WaferTask>;

inline sc_core::sc_time cyclesToTime(std::uint64_t cycles, double clockHz) {
  return sc_core::sc_time(double(cycles) / clockHz, sc_core::SC_SEC);
}

// How many times a GEMM takes a layer's weights: what entered the wafer
// over what the layer holds (a GEMM in passes over its rows re-streams
// them), at least once.
inline unsigned streamRepeats(std::uint64_t streamedBytes, std::uint64_t layerBytes) {
  const double repeats = double(streamedBytes) / double(layerBytes);
  return repeats < 1.5 ? 1u : unsigned(repeats + 0.5);
}

}  // namespace wsesim::system
