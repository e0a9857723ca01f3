#pragma once
// The system model a GEMM-running workload (gemm, train) places its wafer
// timing on, built in one place: the cluster (hw/system/Cluster: MemoryX,
// the SwarmX tree and arch.cluster.systems systems) and, when the workload
// asks for a scaling reference and there are several systems, a one-system
// cluster beside it on the same wafer timing (a few TLM transactions more).
// Both start when `trigger` fires (the wafer model's end) or at time zero,
// and take their work from `work` then.

#include <systemc>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "hw/config/ArchConfig.h"
#include "hw/system/Cluster.h"

namespace wsesim::workload {

class ClusterModel {
 public:
  // The work of a cluster whose MemoryX is `memoryx` (it gives the layers'
  // addresses); `reference`: the one-system cluster's.
  using Work = std::function<system::ClusterWork(const system::MemoryX& memoryx, bool reference)>;

  // Throws config::ConfigError when the model does not fit MemoryX.
  ClusterModel(const config::ArchConfig& arch, const system::ModelWeights& weights,
               const system::OptimizerModel& optimizer, const sc_core::sc_event* trigger, Work work,
               bool scalingReference);

  // What the clusters take of the host's memory, planned before they are
  // built (system::Cluster::plannedHostBytes).
  static std::uint64_t plannedHostBytes(const config::ArchConfig& arch, bool scalingReference);

  const system::Cluster& cluster() const { return *cluster_; }
  // After the run: the cluster's time from its start to its last task and
  // update, and the one-system reference's (the cluster's without one).
  double seconds() const { return secondsOf(*cluster_); }
  double oneSystemSeconds() const { return secondsOf(reference_ ? *reference_ : *cluster_); }
  // The cluster's waveform (trace/SystemVcd.h).
  std::string waveform() const;

 private:
  static double secondsOf(const system::Cluster& c) { return (c.finished() - c.began()).to_seconds(); }

  Work work_;
  std::unique_ptr<system::Cluster> cluster_, reference_;
};

}  // namespace wsesim::workload
