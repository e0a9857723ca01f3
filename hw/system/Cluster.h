#pragma once
// The cluster: MemoryX, the SwarmX tree and N CS systems
// (arch.cluster.systems), bound as in docs/system-model.md. Data parallel:
// every system runs the same mapping on its own batch.
//
// The run starts when `trigger` fires (the wafer model's end, when the
// wafers' tasks were timed in the same simulation) or at time zero. Then
// `prepare` gives MemoryX's schedule and the wafers' work: one WaferWork
// shared by every system (one wafer simulated in detail, its timing reused:
// they are identical), or one per system (every wafer simulated). Times the
// cluster reports are from that start.

#include <systemc>

#include <functional>
#include <vector>

#include "hw/config/ArchConfig.h"
#include "hw/system/CsSystem.h"
#include "hw/system/MemoryX.h"
#include "hw/system/SwarmX.h"

namespace wsesim::system {

struct ClusterWork {
  std::vector<StreamRequest> schedule;
  std::vector<WaferWork> wafers;  // one for all systems, or one per system
};

class Cluster : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Cluster);
  // Throws config::ConfigError when the model does not fit MemoryX.
  Cluster(sc_core::sc_module_name name, const config::ArchConfig& arch, ModelWeights model,
          const OptimizerModel& optimizer, const sc_core::sc_event* trigger, std::function<ClusterWork()> prepare);

  MemoryX memoryx;
  SwarmX swarmx;
  sc_core::sc_vector<CsSystem> systems;

  // After the run: when it started, and when its last wafer task and last
  // optimizer update were done (absolute).
  const sc_core::sc_time& began() const { return began_; }
  sc_core::sc_time finished() const;

 private:
  void run();

  const sc_core::sc_event* trigger_;
  std::function<ClusterWork()> prepare_;
  sc_core::sc_time began_;
};

}  // namespace wsesim::system
