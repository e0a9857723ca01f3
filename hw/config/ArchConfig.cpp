#include "hw/config/ArchConfig.h"

#include <algorithm>
#include <map>

#include "hw/config/CostReader.h"
#include "hw/config/ParamReader.h"
#include "hw/energy/EnergyModel.h"
#include "hw/pe/PeKeys.h"

namespace wsesim::config {

namespace {

// Reads a params struct's declared keys (common/KeyDecl.h) in their order.
template <class Params>
void readKeys(ParamReader& p, const std::string& prefix, const std::vector<common::IntegerKey<Params>>& keys,
              Params& params) {
  std::map<std::string, std::int64_t> read;
  for (const common::IntegerKey<Params>& k : keys) {
    const std::int64_t max = k.atMost ? std::min(k.max, read.at(k.atMost)) : k.max;
    const std::int64_t value = p.integer(prefix + k.name, k.min, max);
    read[k.name] = value;
    k.set(params, value);
  }
}

}  // namespace

ArchConfig ArchConfig::read(ParamReader& p) {
  ArchConfig a;
  a.preset = p.text("arch.preset", std::string());
  a.description = p.text("arch.description", std::string());
  // Coordinates travel in 16-bit wavelet fields.
  a.mesh.width = std::uint32_t(p.integer("arch.mesh.width", 1, 65535));
  a.mesh.height = std::uint32_t(p.integer("arch.mesh.height", 1, 65535));
  a.clockHz = p.real("arch.clock_hz", 1.0, 1.0e12);
  readKeys(p, pe::kPeKeyPrefix, pe::peKeys(), a.pe);
  for (unsigned prec = 0; prec < pe::kPrecisionCount; ++prec)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op) {
      const std::string entry = std::string(pe::precisionName(pe::Precision(prec))) + "." + pe::opcodeName(pe::Opcode(op));
      const unsigned lanes = unsigned(p.integer("arch.pe.lanes." + entry, 1, 64));
      a.pe.lanes.lanes[prec][op] = lanes;
      // No faster than the SIMD width allows (with slack for a rounded 1/3).
      a.pe.cyclesPerElement.cycles[prec][op] =
          p.real("arch.pe.cycles_per_element." + entry, (1.0 - 1e-9) / lanes, 1024.0, std::nullopt,
                 "at least 1 / arch.pe.lanes." + entry + " = 1/" + std::to_string(lanes));
    }

  // The per-port color bitmasks of the kernel hold 32 colors, i.e. 5 bits.
  a.fabric.colorBits = unsigned(p.integer("arch.fabric.color_bits", 1, 5));
  const std::int64_t colorLimit = std::int64_t(1) << a.fabric.colorBits;
  a.fabric.colors = unsigned(p.integer("arch.fabric.colors", 1, colorLimit, std::nullopt,
                                       "the " + std::to_string(a.fabric.colorBits) +
                                           "-bit color field of arch.fabric.color_bits holds " +
                                           std::to_string(colorLimit) + " colors"));
  // Queue counts are 8-bit.
  a.fabric.queueDepth = unsigned(p.integer("arch.fabric.queue_depth", 1, 255));
  a.fabric.hopLatencyCycles = unsigned(p.integer("arch.fabric.hop_latency_cycles", 1, 1024));
  a.fabric.rampLatencyCycles = unsigned(p.integer("arch.fabric.ramp_latency_cycles", 0, 1024));
  a.fabric.routeSwitchCycles = unsigned(p.integer("arch.fabric.route_switch_cycles", 0, 1 << 20));
  a.fabric.routing = fabric::routingModeOf(p.choice("arch.fabric.routing", fabric::routingNames()));
  a.fabric.arbitration =
      fabric::arbitrationModeOf(p.choice("arch.fabric.arbitration", fabric::arbitrationNames()));
  a.io.bandwidthBytesPerS = p.real("arch.io.bandwidth_bytes_per_s", 1.0, 1.0e15);
  // Not bounded by the mesh height: a small corner of a wafer keeps its system's channels, several to a row.
  a.io.channelsPerEdge = unsigned(p.integer("arch.io.channels_per_edge", 1, 65535));

  // Integer keys read as doubles beyond 2^53 would lose bytes.
  a.memoryx.capacityBytes =
      std::uint64_t(p.integer("arch.memoryx.capacity_bytes", 1, std::int64_t(1) << 53));
  a.memoryx.bandwidthBytesPerS = p.real("arch.memoryx.bandwidth_bytes_per_s", 1.0, 1.0e15);
  a.memoryx.optimizerFlopsPerS = p.real("arch.memoryx.optimizer_flops_per_s", 1.0, 1.0e18);
  a.memoryx.latencyS = p.real("arch.memoryx.latency_s", 0.0, 1.0);
  a.memoryx.prefetchLayers = unsigned(p.integer("arch.memoryx.prefetch_layers", 0, 64));

  a.swarmx.nicBandwidthBytesPerS = p.real("arch.swarmx.nic_bandwidth_bytes_per_s", 1.0, 1.0e15);
  a.swarmx.nicsPerLink = unsigned(p.integer("arch.swarmx.nics_per_link", 1, 1024));
  a.swarmx.fanOut = unsigned(p.integer("arch.swarmx.fan_out", 2, 64));
  a.swarmx.nodeLatencyS = p.real("arch.swarmx.node_latency_s", 0.0, 1.0);

  // The largest advertised cluster: 2048 CS-3 (WSE-FACTS "MemoryX and SwarmX").
  a.cluster.systems = unsigned(p.integer("arch.cluster.systems", 1, 2048));
  a.firmware.summaLoopCycles = unsigned(p.integer("arch.firmware.summa_loop_cycles", 0, 1024));
  a.firmware.cannonLoopCycles = unsigned(p.integer("arch.firmware.cannon_loop_cycles", 0, 1024));
  a.firmware.meshGemmLoopCycles = unsigned(p.integer("arch.firmware.meshgemm_loop_cycles", 0, 1024));
  a.firmware.weightStreamLoopCycles = unsigned(p.integer("arch.firmware.weight_stream_loop_cycles", 0, 1024));
  a.energy = readEnergyParams(p);
  a.area = readAreaParams(p);
  return a;
}

energy::EnergyModel ArchConfig::energyModel() const { return {energy, area, pe, fabric, mesh, clockHz}; }

}  // namespace wsesim::config
