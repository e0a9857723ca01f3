#pragma once
// The cluster: MemoryX, the SwarmX tree and N CS systems
// (arch.cluster.systems, ClusterSpec), bound as in docs/system-model.md. Data parallel:
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

#include "hw/system/CsSystem.h"
#include "hw/system/MemoryX.h"
#include "hw/system/SwarmX.h"
#include "hw/system/SystemParams.h"

namespace wsesim::system {

struct ClusterWork {
  std::vector<StreamRequest> schedule;
  std::vector<WaferWork> wafers;  // one for all systems, or one per system
};

class Cluster : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(Cluster);
  // Throws config::ConfigError when the model does not fit MemoryX.
  Cluster(sc_core::sc_module_name name, const ClusterSpec& spec, ModelWeights model,
          const OptimizerModel& optimizer, const sc_core::sc_event* trigger, std::function<ClusterWork()> prepare);

  MemoryX memoryx;
  SwarmX swarmx;
  sc_core::sc_vector<CsSystem> systems;

  // What the cluster's systems take of the host's memory, planned before
  // they are built: per system, SystemC objects for each of its I/O ring
  // channels (the system's, the ring's and the wafer's sockets and their
  // names: 13.2 KiB a channel measured with Debian's SystemC 2.3.4, planned
  // at 14) and a few for the rest (planned at 32 KiB). wse2's 120 channels
  // make a system 1.7 MiB: 2,048 systems take 3.3 GiB.
  static std::uint64_t plannedHostBytes(const ClusterSpec& spec) {
    const std::uint64_t perSystem = 2ull * spec.io.channelsPerEdge * 14 * 1024 + 32 * 1024;
    return std::uint64_t(spec.systems) * perSystem;
  }

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
