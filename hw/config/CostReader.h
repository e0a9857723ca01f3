#pragma once
// Reads the cost side of an architecture (`arch.energy.*`, `arch.area.*`)
// into hw/energy's parameter structs; every value's source is in the
// presets and docs/energy-model.md.

#include "hw/config/ParamReader.h"
#include "hw/energy/EnergyParams.h"

namespace wsesim::config {

energy::EnergyParams readEnergyParams(ParamReader& params);
energy::AreaParams readAreaParams(ParamReader& params);

}  // namespace wsesim::config
