#include "testbench/results/ClusterReport.h"

namespace wsesim::results {
namespace {

nlohmann::json linkJson(const system::LinkStats& s) {
  return {{"bytes", s.bytes}, {"transfers", s.transfers}, {"busy_seconds", s.busy.to_seconds()}};
}

}  // namespace

std::string streamBound(const system::TaskRecord& record, const system::LayerStream& stream,
                        const config::ArchConfig& arch) {
  if (record.bound == system::TaskBound::Compute) return "compute";
  if (record.bound == system::TaskBound::Activations) return "activations";
  if (stream.exposed > sc_core::SC_ZERO_TIME) return "memoryx";
  return arch.swarmx.linkBandwidthBytesPerS() < arch.io.bandwidthBytesPerS ? "swarmx" : "io_ring";
}

nlohmann::json clusterTraffic(const system::Cluster& cluster) {
  system::LinkStats ingress, egress;
  for (const system::CsSystem& cs : cluster.systems) {
    ingress += cs.ioRing().ingressStats();
    egress += cs.ioRing().egressStats();
  }
  return {{"memoryx_storage", linkJson(cluster.memoryx.storageStats())},
          {"swarmx_broadcast", linkJson(cluster.swarmx.broadcastStats())},
          {"swarmx_reduce", linkJson(cluster.swarmx.reduceStats())},
          {"io_ring_ingress", linkJson(ingress)},
          {"io_ring_egress", linkJson(egress)}};
}

energy::ActionCounts clusterActions(const system::Cluster& cluster) {
  energy::ActionCounts a;
  a.memoryxBytes = double(cluster.memoryx.storageStats().bytes);
  for (const system::OptimizerUpdate& u : cluster.memoryx.updates())
    a.optimizerParameters += double(cluster.memoryx.model().layers[u.layer].parameters);
  a.swarmxBytes = double(cluster.swarmx.broadcastStats().bytes + cluster.swarmx.reduceStats().bytes);
  for (const system::CsSystem& cs : cluster.systems)
    a.ioRingBytes += double(cs.ioRing().ingressStats().bytes + cs.ioRing().egressStats().bytes);
  return a;
}

nlohmann::json memoryxFigures(const system::Cluster& cluster) {
  double exposed = 0, optimizerBusy = 0;
  for (const system::LayerStream& l : cluster.memoryx.streams()) exposed += l.exposed.to_seconds();
  for (const system::OptimizerUpdate& u : cluster.memoryx.updates()) optimizerBusy += (u.end - u.start).to_seconds();
  std::uint64_t accumulatedBytes = 0, offloaded = 0, fetched = 0;
  for (const system::GradientAccumulation& a : cluster.memoryx.accumulations()) accumulatedBytes += a.bytesTouched;
  for (const system::ActivationTransfer& a : cluster.memoryx.activationTransfers()) (a.write ? offloaded : fetched) += a.bytes;
  return {{"exposed_fetch_seconds", exposed},
          {"optimizer_busy_seconds", optimizerBusy},
          {"updates", cluster.memoryx.updates().size()},
          {"gradient_accumulations", cluster.memoryx.accumulations().size()},
          {"accumulation_bytes", accumulatedBytes},
          {"activations_offloaded_bytes", offloaded},
          {"activations_fetched_bytes", fetched}};
}

nlohmann::json perSystemTiming(const system::Cluster& cluster) {
  nlohmann::json perSystem = nlohmann::json::array();
  for (std::size_t i = 0; i < cluster.systems.size(); ++i) {
    const system::CsSystem& cs = cluster.systems[i];
    sc_core::sc_time busy = sc_core::SC_ZERO_TIME, forActivations = sc_core::SC_ZERO_TIME;
    for (const system::WaferTask& t : cs.work()) busy += t.duration;
    for (const system::TaskRecord& r : cs.records())
      if (r.bound == system::TaskBound::Activations) forActivations += r.waited;
    const double active = (cs.waferFree() - cluster.began()).to_seconds();
    perSystem.push_back({{"system", i}, {"wafer_busy_seconds", busy.to_seconds()},
                         {"wafer_idle_seconds", active - busy.to_seconds()},
                         {"wafer_activation_wait_seconds", forActivations.to_seconds()},
                         {"wafer_end_seconds", active}});
  }
  return perSystem;
}

nlohmann::json streamBounds(const system::Cluster& cluster, const config::ArchConfig& arch) {
  nlohmann::json bounds = nlohmann::json::object();
  const system::CsSystem& first = cluster.systems[0];
  std::size_t stream = 0;
  for (const system::TaskRecord& r : first.records()) {
    const system::WaferTask& t = first.work()[r.task];
    if (!t.streamed) continue;
    nlohmann::json& b = bounds[t.kind][streamBound(r, cluster.memoryx.streams().at(stream++), arch)];
    if (b.is_null()) b = {{"tasks", 0}, {"waited_seconds", 0.0}};
    b["tasks"] = b["tasks"].get<std::uint64_t>() + 1;
    b["waited_seconds"] = b["waited_seconds"].get<double>() + r.waited.to_seconds();
  }
  return bounds;
}

}  // namespace wsesim::results
