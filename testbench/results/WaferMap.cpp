#include "testbench/results/WaferMap.h"

#include <algorithm>
#include <vector>

#include "hw/energy/EnergyModel.h"

namespace wsesim::results {
namespace {

std::uint32_t permille(std::uint64_t part, std::uint64_t whole) {
  return whole ? std::uint32_t(std::min<std::uint64_t>(1000, (part * 1000 + whole / 2) / whole)) : 0;
}

}  // namespace

nlohmann::json waferMap(const fabric::FabricKernel& fabric, const pe::PeArray* pes, std::uint64_t cycles,
                        const config::ArchConfig& arch) {
  const fabric::MeshGeometry& mesh = fabric.params().mesh;
  const fabric::RouterId routers = mesh.routers();
  nlohmann::json map = {{"format", "wsesim-wafer-map-1"},
                        {"width", mesh.width},
                        {"height", mesh.height},
                        {"cycles", cycles}};
  std::vector<std::uint32_t> values(routers);
  for (unsigned o = 0; o < fabric::kPortCount; ++o) {
    for (fabric::RouterId r = 0; r < routers; ++r) values[r] = permille(fabric.transfers(r, fabric::Port(o)), cycles);
    map["link_load_permille"][fabric::portName(fabric::Port(o))] = values;
  }
  if (pes) {
    for (fabric::RouterId r = 0; r < routers; ++r) values[r] = permille(pes->counters(r).busyCycles, cycles);
    map["pe_busy_permille"] = values;
    for (fabric::RouterId r = 0; r < routers; ++r) values[r] = std::uint32_t(pes->sram(r).highWater());
    map["sram_high_water_bytes"] = values;
    const energy::EnergyModel model = arch.energyModel();
    std::vector<std::uint64_t> energy(routers);
    for (fabric::RouterId r = 0; r < routers; ++r) {
      std::uint64_t hopsOut = 0;
      for (fabric::Port o : {fabric::Port::North, fabric::Port::East, fabric::Port::South, fabric::Port::West})
        hopsOut += fabric.transfers(r, o);
      energy[r] = std::uint64_t(model.peEnergyPj(pes->actions(r) ? *pes->actions(r) : pe::PeActions{},
                                                   pes->counters(r).busyCycles, hopsOut,
                                                   fabric.transfers(r, fabric::Port::Ramp), cycles) +
                                0.5);
    }
    map["pe_energy_pj"] = energy;
  }
  return map;
}

}  // namespace wsesim::results
