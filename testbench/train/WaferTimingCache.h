#pragma once
// The wafer's side of a training step, kept on disk (`run.wafer_timing_cache`)
// so that runs differing only outside the wafer (MemoryX, SwarmX, the
// number of systems, steps, the optimizer) reuse the cycle-level timing
// instead of simulating the wafer again: a cluster sweep simulates the
// wafer once. An entry is keyed by every configuration value the wafer's
// timing depends on, by the step's GEMMs as the run laid them out (the
// workload appends them: `auto` lays a step out on values outside the
// wafer), and by a hash of the wsesim executable itself, so a rebuilt
// simulator never reads timings an older one wrote.

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hw/config/ParamReader.h"
#include "testbench/train/StepOnCluster.h"

namespace wsesim::train {

struct WaferTiming {
  std::vector<GemmTiming> gemms;  // per distinct GEMM of the step, in order of first use
  std::uint64_t simulatedCycles = 0, weightsIn = 0, gradientsOut = 0;  // of the run that simulated them
};

// The configuration values the wafer's timing depends on, one `key=value`
// line each: everything resolved except the system around the wafer
// (arch.memoryx, arch.swarmx, arch.cluster; the cost coefficients arch.energy
// and arch.area, applied to the stored action counts; the I/O ring's channels feed
// the wafer, so arch.io counts), how the run is observed (run.*), the workload's steps, optimizer and
// wafers, and the keys that lay the step out (micro_batch, activation_recompute,
// activation_offload), for which the caller appends the GEMMs they lay out.
std::string waferTimingKey(const std::map<std::string, config::ResolvedParam>& resolved);

class WaferTimingCache {
 public:
  // `key`: waferTimingKey's lines and whatever else the workload's wafer timing depends on.
  WaferTimingCache(const std::filesystem::path& dir, const std::string& key);

  // The entry for the key, if one was stored.
  std::optional<WaferTiming> load() const;
  // Throws naming the key and the file unless store() could write the
  // entry (creating the directory): asked before a run simulates the wafer,
  // so a cache that cannot be kept fails the run at once, not after it.
  void checkStorable() const;
  // Writes the entry atomically (creating the directory); throws naming the file on failure.
  void store(const WaferTiming& timing) const;
  const std::filesystem::path& file() const { return file_; }

 private:
  void createDirectory() const;

  std::string key_;  // with the executable's hash
  std::filesystem::path file_;
};

}  // namespace wsesim::train
