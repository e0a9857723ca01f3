#include "hw/config/CostReader.h"

#include <string>

#include "hw/config/KeyReader.h"
#include "hw/energy/EnergyKeys.h"

namespace wsesim::config {

energy::EnergyParams readEnergyParams(ParamReader& p) {
  energy::EnergyParams e;
  const common::KeyTable<energy::EnergyParams>& table = energy::energyKeys();
  for (unsigned prec = 0; prec < pe::kPrecisionCount; ++prec)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op)
      e.opPj[prec][op] = p.real(std::string(table.prefix) + "op_pj." + pe::precisionName(pe::Precision(prec)) + "." +
                                    pe::opcodeName(pe::Opcode(op)),
                                0.0, energy::kMaxPj);
  readKeys(p, table, e);
  return e;
}

energy::AreaParams readAreaParams(ParamReader& p) {
  energy::AreaParams a;
  readKeys(p, energy::areaKeys(), a);
  return a;
}

}  // namespace wsesim::config
