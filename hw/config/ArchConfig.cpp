#include "hw/config/ArchConfig.h"

#include <algorithm>
#include <map>

#include "hw/config/CostReader.h"
#include "hw/config/ParamReader.h"
#include "hw/energy/EnergyModel.h"
#include "hw/fabric/RouterKeys.h"
#include "hw/pe/PeKeys.h"

namespace wsesim::config {

namespace {

// Reads a params struct's declared keys (common/KeyDecl.h) in their order.
template <class Params>
void readKeys(ParamReader& p, const common::KeyTable<Params>& table, Params& params) {
  std::map<std::string, std::int64_t> read;
  for (const common::IntegerKey<Params>& k : table.integers) {
    std::int64_t max = k.max;
    std::string why;
    if (k.boundBy) {
      const std::int64_t by = read.at(k.boundBy);
      max = std::min(max, k.bound ? k.bound(by) : by);
      if (k.why) why = k.why(by);
    }
    const std::int64_t value = p.integer(table.prefix + std::string(k.name), k.min, max, std::nullopt, why);
    read[k.name] = value;
    k.set(params, value);
  }
  for (const common::ChoiceKey<Params>& k : table.choices)
    k.set(params, p.choice(table.prefix + std::string(k.name), k.options()));
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
  readKeys(p, pe::peKeys(), a.pe);
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

  readKeys(p, fabric::routerKeys(), a.fabric);
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
