#include "hw/system/SystemKeys.h"

namespace wsesim::system {

const common::KeyTable<MemoryXParams>& memoryxKeys() {
  using Key = common::Key<MemoryXParams>;
  using M = MemoryXParams;
  static const common::KeyTable<M> keys = {"arch.memoryx.", {
      // Integer keys read as doubles beyond 2^53 would lose bytes.
      Key::integer("capacity_bytes", 1, std::int64_t(1) << 53,
                   [](M& m, std::int64_t v) { m.capacityBytes = std::uint64_t(v); },
                   "MemoryX storage for weights + optimizer state; a model that does not fit is an error naming its "
                   "size and this key"),
      Key::real("bandwidth_bytes_per_s", 1.0, 1.0e15, [](M& m, double v) { m.bandwidthBytesPerS = v; },
                "MemoryX storage bandwidth: weight fetches and optimizer reads/writes share it"),
      Key::real("optimizer_flops_per_s", 1.0, 1.0e18, [](M& m, double v) { m.optimizerFlopsPerS = v; },
                "optimizer arithmetic throughput"),
      Key::real("latency_s", 0.0, 1.0, [](M& m, double v) { m.latencyS = v; }, "per storage access"),
      Key::integer("prefetch_layers", 0, 64, [](M& m, std::int64_t v) { m.prefetchLayers = unsigned(v); },
                   "layers fetched ahead of the one streaming out (0: no prefetch)"),
  }, {}};
  return keys;
}

const common::KeyTable<SwarmXParams>& swarmxKeys() {
  using Key = common::Key<SwarmXParams>;
  using S = SwarmXParams;
  static const common::KeyTable<S> keys = {"arch.swarmx.", {
      Key::real("nic_bandwidth_bytes_per_s", 1.0, 1.0e15, [](S& s, double v) { s.nicBandwidthBytesPerS = v; },
                "one SwarmX NIC"),
      Key::integer("nics_per_link", 1, 1024, [](S& s, std::int64_t v) { s.nicsPerLink = unsigned(v); },
                   "NICs per tree edge: link bandwidth = nic bandwidth x this"),
      Key::integer("fan_out", 2, 64, [](S& s, std::int64_t v) { s.fanOut = unsigned(v); },
                   "children per broadcast/reduce node (hardware: 4, or 2 for its 2 x 1:2 mode)"),
      Key::real("node_latency_s", 0.0, 1.0, [](S& s, double v) { s.nodeLatencyS = v; },
                "per node a payload passes, cable included"),
  }, {}};
  return keys;
}

const common::KeyTable<ClusterParams>& clusterKeys() {
  using Key = common::Key<ClusterParams>;
  // The largest advertised cluster: 2048 CS-3 (WSE-FACTS "MemoryX and SwarmX").
  static const common::KeyTable<ClusterParams> keys = {"arch.cluster.", {
      Key::integer("systems", 1, 2048, [](ClusterParams& c, std::int64_t v) { c.systems = unsigned(v); },
                   "CS systems in the cluster, data parallel"),
  }, {}};
  return keys;
}

}  // namespace wsesim::system
