#include "hw/config/ArchConfig.h"

#include "hw/config/ArchKeys.h"
#include "hw/config/CostReader.h"
#include "hw/config/KeyReader.h"
#include "hw/config/ParamReader.h"
#include "hw/energy/EnergyModel.h"
#include "hw/fabric/RouterKeys.h"
#include "hw/pe/PeKeys.h"
#include "hw/system/SystemKeys.h"
#include "hw/wafer/IoKeys.h"

namespace wsesim::config {

ArchConfig ArchConfig::read(ParamReader& p) {
  ArchConfig a;
  a.preset = p.text("arch.preset", std::string());
  a.description = p.text("arch.description", std::string());
  readKeys(p, meshKeys(), a.mesh);
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
  readKeys(p, wafer::ioKeys(), a.io);
  readKeys(p, system::memoryxKeys(), a.memoryx);
  readKeys(p, system::swarmxKeys(), a.swarmx);
  readKeys(p, system::clusterKeys(), a.cluster);
  readKeys(p, firmwareKeys(), a.firmware);
  a.energy = readEnergyParams(p);
  a.area = readAreaParams(p);
  return a;
}

wafer::IoRingEdge ArchConfig::ioRingEdge(std::uint32_t elementBytes) const {
  const double channelBytesPerS = io.bandwidthBytesPerS / (2.0 * io.channelsPerEdge);
  return wafer::IoRingEdge(mesh.height, io.channelsPerEdge, channelBytesPerS / clockHz / elementBytes);
}

energy::EnergyModel ArchConfig::energyModel() const { return {energy, area, pe, fabric, mesh, clockHz}; }

}  // namespace wsesim::config
