#include "hw/config/RunConfig.h"

#include <sched.h>

#include <algorithm>
#include <thread>

#include "hw/config/ParamReader.h"

namespace wsesim::config {

RunConfig RunConfig::read(ParamReader& p, const ArchConfig& arch) {
  RunConfig r;
  r.mode = p.choice("run.mode", kDataModeNames, DataMode::Functional);
  // The watchdog must outlast a lone wavelet crossing the mesh corner to
  // corner, or a healthy run with little traffic would be declared deadlocked.
  const std::int64_t crossing =
      (std::int64_t(arch.mesh.width) + arch.mesh.height - 2) * arch.fabric.hopLatencyCycles +
      2 * std::int64_t(arch.fabric.rampLatencyCycles);
  r.watchdogCycles = std::uint64_t(p.integer("run.watchdog_cycles", crossing + 1, std::int64_t(1) << 40,
                                             std::max<std::int64_t>(100000, 10 * crossing),
                                             "longer than a zero-load corner-to-corner crossing, " +
                                                 std::to_string(crossing) + " cycles"));

  // A VCD of a full wafer would be terabytes: only a rectangle is traced.
  const std::int64_t w = arch.mesh.width, h = arch.mesh.height;
  r.vcdRegion.x0 = std::uint32_t(p.integer("run.vcd.region.x0", 0, w - 1, 0));
  r.vcdRegion.y0 = std::uint32_t(p.integer("run.vcd.region.y0", 0, h - 1, 0));
  r.vcdRegion.x1 = std::uint32_t(
      p.integer("run.vcd.region.x1", r.vcdRegion.x0, w - 1, std::min<std::int64_t>(w - 1, r.vcdRegion.x0 + 3)));
  r.vcdRegion.y1 = std::uint32_t(
      p.integer("run.vcd.region.y1", r.vcdRegion.y0, h - 1, std::min<std::int64_t>(h - 1, r.vcdRegion.y0 + 3)));
  r.timelineLinkWindow =
      std::uint64_t(p.integer("run.timeline.link_window_cycles", 1, std::int64_t(1) << 32, 100));
  if (const auto bytes = p.optionalInteger("run.max_host_bytes", 1 << 20, std::int64_t(1) << 62))
    r.maxHostBytes = std::uint64_t(*bytes);
  if (const auto cycles = p.optionalInteger("run.max_cycles", 1, std::int64_t(1) << 62))
    r.maxCycles = std::uint64_t(*cycles);
  if (const auto threads = p.optionalInteger("run.threads", 1, 4096)) r.threads = unsigned(*threads);
  return r;
}

unsigned RunConfig::hostThreads() const {
  if (threads) return *threads;
  cpu_set_t mask;
  if (sched_getaffinity(0, sizeof mask, &mask) == 0) return unsigned(std::max(1, CPU_COUNT(&mask)));
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace wsesim::config
