#include "testbench/workload/ClusterModel.h"

#include <utility>

#include "hw/trace/SystemVcd.h"

namespace wsesim::workload {
namespace {

// The scaling reference: the same cluster with one system.
system::ClusterSpec oneSystem(const config::ArchConfig& arch) {
  system::ClusterSpec one = arch.clusterSpec();
  one.systems = 1;
  return one;
}

}  // namespace

ClusterModel::ClusterModel(const config::ArchConfig& arch, const system::ModelWeights& weights,
                           const system::OptimizerModel& optimizer, const sc_core::sc_event* trigger, Work work,
                           bool scalingReference)
    : work_(std::move(work)) {
  cluster_ = std::make_unique<system::Cluster>("cluster", arch.clusterSpec(), weights, optimizer, trigger,
                                               [this] { return work_(cluster_->memoryx, false); });
  if (!scalingReference || arch.cluster.systems == 1) return;
  reference_ = std::make_unique<system::Cluster>("one_system", oneSystem(arch), weights, optimizer, trigger,
                                                 [this] { return work_(reference_->memoryx, true); });
}

std::uint64_t ClusterModel::plannedHostBytes(const config::ArchConfig& arch, bool scalingReference) {
  return system::Cluster::plannedHostBytes(arch.clusterSpec()) +
         (scalingReference && arch.cluster.systems > 1 ? system::Cluster::plannedHostBytes(oneSystem(arch)) : 0);
}

std::string ClusterModel::waveform() const { return trace::systemVcd(*cluster_); }

}  // namespace wsesim::workload
