#pragma once
// Every `arch.energy.*` and `arch.area.*` key, declared once beside
// EnergyParams and AreaParams (common/KeyDecl.h).

#include "hw/common/KeyDecl.h"
#include "hw/energy/EnergyParams.h"

namespace wsesim::energy {

// Energies and powers are non-negative; the bound only catches unit slips
// (1e12 for 1). The op_pj family is read to it too.
inline constexpr double kMaxPj = 1.0e6;

// The family: op_pj, one key per precision and op (read by the config layer).
const common::KeyTable<EnergyParams>& energyKeys();
const common::KeyTable<AreaParams>& areaKeys();

}  // namespace wsesim::energy
