#include "hw/config/ArchKeys.h"

namespace wsesim::config {

const common::KeyTable<fabric::MeshGeometry>& meshKeys() {
  using Key = common::Key<fabric::MeshGeometry>;
  // Coordinates travel in 16-bit wavelet fields.
  static const common::KeyTable<fabric::MeshGeometry> keys = {"arch.mesh.", {
      Key::integer("width", 1, 65535, [](fabric::MeshGeometry& m, std::int64_t v) { m.width = std::uint32_t(v); },
                   "PEs per row (x)"),
      Key::integer("height", 1, 65535, [](fabric::MeshGeometry& m, std::int64_t v) { m.height = std::uint32_t(v); },
                   "rows (y)"),
  }, {}};
  return keys;
}

const common::KeyTable<ArchConfig::Io>& ioKeys() {
  using Key = common::Key<ArchConfig::Io>;
  static const common::KeyTable<ArchConfig::Io> keys = {"arch.io.", {
      Key::real("bandwidth_bytes_per_s", 1.0, 1.0e15, [](ArchConfig::Io& io, double v) { io.bandwidthBytesPerS = v; },
                "bandwidth into the wafer from outside, all edge channels together (the weight stream's budget)"),
      // Not bounded by the mesh height: a small corner of a wafer keeps its system's channels, several to a row.
      Key::integer("channels_per_edge", 1, 65535,
                   [](ArchConfig::Io& io, std::int64_t v) { io.channelsPerEdge = unsigned(v); },
                   "I/O ring channels on the West edge and as many on the East; each gets bandwidth / (2 x channels) "
                   "and serves a band of rows; not bounded by the mesh height, so a corner preset keeps its system's "
                   "channels, several to a row (system-model.md)"),
  }, {}};
  return keys;
}

const common::KeyTable<ArchConfig::MemoryX>& memoryxKeys() {
  using Key = common::Key<ArchConfig::MemoryX>;
  using M = ArchConfig::MemoryX;
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

const common::KeyTable<ArchConfig::SwarmX>& swarmxKeys() {
  using Key = common::Key<ArchConfig::SwarmX>;
  using S = ArchConfig::SwarmX;
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

const common::KeyTable<ArchConfig::Cluster>& clusterKeys() {
  using Key = common::Key<ArchConfig::Cluster>;
  // The largest advertised cluster: 2048 CS-3 (WSE-FACTS "MemoryX and SwarmX").
  static const common::KeyTable<ArchConfig::Cluster> keys = {"arch.cluster.", {
      Key::integer("systems", 1, 2048, [](ArchConfig::Cluster& c, std::int64_t v) { c.systems = unsigned(v); },
                   "CS systems in the cluster, data parallel"),
  }, {}};
  return keys;
}

const common::KeyTable<ArchConfig::Firmware>& firmwareKeys() {
  using Key = common::Key<ArchConfig::Firmware>;
  using F = ArchConfig::Firmware;
  static const common::KeyTable<F> keys = {"arch.firmware.", {
      Key::integer("summa_loop_cycles", 0, 1024, [](F& f, std::int64_t v) { f.summaLoopCycles = unsigned(v); },
                   "cycles the SUMMA program's own loop spends before each op it issues (scalar bookkeeping), on top "
                   "of `arch.pe.op_overhead_cycles`"),
      Key::integer("cannon_loop_cycles", 0, 1024, [](F& f, std::int64_t v) { f.cannonLoopCycles = unsigned(v); },
                   "the same for the Cannon program"),
      Key::integer("meshgemm_loop_cycles", 0, 1024, [](F& f, std::int64_t v) { f.meshGemmLoopCycles = unsigned(v); },
                   "the same for the MeshGEMM program"),
      Key::integer("weight_stream_loop_cycles", 0, 1024,
                   [](F& f, std::int64_t v) { f.weightStreamLoopCycles = unsigned(v); },
                   "the same for the weight-streaming programs (forward, backward-data, weight-gradient): a data task "
                   "per arriving wavelet"),
  }, {}};
  return keys;
}

}  // namespace wsesim::config
