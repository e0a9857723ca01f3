#include "testbench/noc/NocConfig.h"

#include <algorithm>

#include "hw/common/ConfigError.h"

namespace wsesim::noc {
bool isBroadcast(Pattern p) { return p == Pattern::RowBroadcast || p == Pattern::ColumnBroadcast; }

NocConfig NocConfig::read(config::ParamReader& p, const config::ArchConfig& arch) {
  using config::ConfigError;
  NocConfig c;
  // The default follows the routing, so that a run with every default
  // runs: a multicast over static color routes (the presets' routing, the
  // hardware's), or uniform random traffic in packet mode.
  const bool xy = arch.fabric.routing == fabric::routingMode<fabric::XyRouting>();
  c.pattern = p.choice("workload.pattern", kPatternNames, xy ? Pattern::UniformRandom : Pattern::RowBroadcast);
  const std::string pattern = patternName(c.pattern);

  if (isBroadcast(c.pattern) && xy)
    throw ConfigError("workload.pattern = " + pattern +
                      " multicasts over static color routes: it needs arch.fabric.routing = color");
  if (!isBroadcast(c.pattern) && !xy)
    throw ConfigError("workload.pattern = " + pattern +
                      " sends to addresses (packet mode): it needs arch.fabric.routing = xy");
  const std::uint32_t w = arch.mesh.width, h = arch.mesh.height;
  if (c.pattern == Pattern::Transpose && w != h)
    throw ConfigError("workload.pattern = transpose needs a square mesh, got arch.mesh " + std::to_string(w) + "x" +
                      std::to_string(h));
  if ((c.pattern == Pattern::UniformRandom || c.pattern == Pattern::Hotspot ||
       c.pattern == Pattern::NearestNeighbour) && std::uint64_t(w) * h < 2)
    throw ConfigError("workload.pattern = " + pattern + " needs at least 2 PEs");
  if (c.pattern == Pattern::RowBroadcast && w < 2)
    throw ConfigError("workload.pattern = row_broadcast needs arch.mesh.width >= 2");
  if (c.pattern == Pattern::ColumnBroadcast && h < 2)
    throw ConfigError("workload.pattern = column_broadcast needs arch.mesh.height >= 2");

  c.injectionRate = p.real("workload.injection_rate", 0.0, 1.0, 0.01);
  c.packetWavelets = unsigned(p.integer("workload.packet_wavelets", 1, 65535, 1));
  c.warmupCycles = std::uint64_t(p.integer("workload.warmup_cycles", 0, std::int64_t(1) << 40, 1000));
  c.measureCycles = std::uint64_t(p.integer("workload.measure_cycles", 1, std::int64_t(1) << 40, 10000));
  c.drainCycles = std::uint64_t(p.integer("workload.drain_cycles", 0, std::int64_t(1) << 40, 100000));
  c.seed = std::uint64_t(p.integer("workload.seed", 0, std::int64_t(1) << 62, 1));

  if (isBroadcast(c.pattern)) {
    const std::int64_t line = c.pattern == Pattern::RowBroadcast ? w : h;
    c.broadcastSources = unsigned(p.integer("workload.broadcast_sources", 1,
                                            std::min<std::int64_t>(line, arch.fabric.colors), 1,
                                            "one color per source, at most arch.fabric.colors and one per PE"));
  } else {
    c.colors = unsigned(p.integer("workload.colors", 1, arch.fabric.colors, 1, "at most arch.fabric.colors"));
  }
  if (c.pattern == Pattern::Hotspot) {
    c.hotspotX = std::uint32_t(p.integer("workload.hotspot.x", 0, w - 1, w / 2));
    c.hotspotY = std::uint32_t(p.integer("workload.hotspot.y", 0, h - 1, h / 2));
    c.hotspotFraction = p.real("workload.hotspot.fraction", 0.0, 1.0, 0.1);
  }
  return c;
}

}  // namespace wsesim::noc
