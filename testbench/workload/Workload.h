#pragma once
// A workload is what a run simulates (`workload.type`: NoC traffic, a chain
// reduction on the PEs, a GEMM, a training step). Each type reads its own
// `workload.*` keys, builds the chip it needs (hw/chip/WaferChip) with its
// own routes, programs and controller, runs it, and reports type-specific
// results.

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>

#include "hw/chip/WaferChip.h"
#include "hw/config/ArchConfig.h"
#include "hw/config/ParamReader.h"
#include "hw/config/RunConfig.h"
#include "testbench/workload/HostMemoryPlan.h"

namespace wsesim::workload {

// What a run records besides its results (the chip takes them).
using RunOptions = chip::RunOptions;

class Workload {
 public:
  virtual ~Workload() = default;
  // Elaborates, simulates to completion (sc_start), and keeps the results.
  // Throws on a failed simulation (deadlock, misrouted wavelet).
  virtual void run(const RunOptions& options) = 0;
  // The run's cycles (a training step's: all its steps'), once run() returned.
  std::uint64_t cycles() const { return cycles_; }
  // The host memory run() takes at most, from the configuration alone,
  // checked against run.max_host_bytes before building anything: the
  // chip's parts at full size on the mesh it simulates (chipHostMemory)
  // plus the workload's own large state.
  virtual HostMemoryPlan plannedHostMemory() const = 0;
  // The type's results, then the run's cost beside them (energy, power,
  // area, efficiency: results/EnergyReport.h).
  nlohmann::json results() const;
  // A few human-readable lines for the terminal: the type's, then the
  // energy summary.
  std::string summary() const;
  // Per-PE and per-link statistics (results/WaferMap.h) if the run was asked for them, else null.
  const nlohmann::json& waferMap() const { return waferMap_; }
  // The Chrome-trace JSON of the run's timeline if it was asked for, else empty.
  const std::string& timeline() const { return timeline_; }
  // The system model's waveform (trace/SystemVcd.h) when a waveform was
  // asked for and the run used the system model, else empty.
  const std::string& systemWaveform() const { return systemWaveform_; }

 protected:
  virtual nlohmann::json typeResults() const = 0;
  virtual std::string typeSummary() const = 0;

  std::uint64_t cycles_ = 0;  // set by run()
  nlohmann::json cost_;  // set by run(): results::energyResults, plus what the type adds
  nlohmann::json waferMap_;
  std::string timeline_;
  std::string systemWaveform_;
};

using WorkloadFactory = std::function<std::unique_ptr<Workload>(
    config::ParamReader& params, const config::ArchConfig& arch, const config::RunConfig& run)>;

}  // namespace wsesim::workload
