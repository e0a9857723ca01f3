#include "hw/config/ArchConfig.h"

#include <algorithm>
#include <map>

#include "hw/config/ArchKeys.h"
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
  using Kind = typename common::Key<Params>::Kind;
  std::map<std::string, std::int64_t> integers;  // read so far, for the keys they bound
  for (const common::Key<Params>& k : table.keys) {
    const std::string key = table.prefix + std::string(k.name);
    if (k.kind == Kind::Real) {
      k.setReal(params, p.real(key, k.realMin, k.realMax));
    } else if (k.kind == Kind::Choice) {
      k.setChoice(params, p.choice(key, k.options()));
    } else {
      std::int64_t max = k.integerMax;
      std::string why;
      if (k.boundBy) {
        const std::int64_t by = integers.at(k.boundBy);
        max = std::min(max, k.bound ? k.bound(by) : by);
        if (k.why) why = k.why(by);
      }
      const std::int64_t value = p.integer(key, k.integerMin, max, std::nullopt, why);
      integers[k.name] = value;
      k.setInteger(params, value);
    }
  }
}

}  // namespace

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
  readKeys(p, ioKeys(), a.io);
  readKeys(p, memoryxKeys(), a.memoryx);
  readKeys(p, swarmxKeys(), a.swarmx);
  readKeys(p, clusterKeys(), a.cluster);
  readKeys(p, firmwareKeys(), a.firmware);
  a.energy = readEnergyParams(p);
  a.area = readAreaParams(p);
  return a;
}

energy::EnergyModel ArchConfig::energyModel() const { return {energy, area, pe, fabric, mesh, clockHz}; }

}  // namespace wsesim::config
