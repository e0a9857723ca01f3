#pragma once
// Per-PE and per-link statistics of a finished run, one value per router in
// row-major order (`id = y * width + x`), for wafer heatmaps
// (`wsesim run --map`, `scripts/plot.py --map`). Integers, so a full
// wafer's map stays a few tens of MB:
//
//   link_load_permille.{N,E,S,W,RAMP}: wavelets sent through that output
//     per 1000 cycles (1000: the link busy every cycle);
//   pe_busy_permille: cycles with a task running or an op in flight, per 1000;
//   sram_high_water_bytes: the PE's SRAM high-water mark;
//   pe_energy_pj: the PE's energy over the run (energy::EnergyModel::peEnergyPj: its ops,
//     SRAM, RAMP crossings, outgoing hops, cycles and leakage; its ops and
//     SRAM only if the PE array kept each PE's actions).
//
// The PE fields are present when the run has PEs.

#include <nlohmann/json.hpp>

#include <cstdint>

#include "hw/config/ArchConfig.h"
#include "hw/fabric/FabricKernel.h"
#include "hw/pe/PeArray.h"

namespace wsesim::results {

// `arch`: the architecture simulated (its mesh the fabric's), for the energy.
nlohmann::json waferMap(const fabric::FabricKernel& fabric, const pe::PeArray* pes, std::uint64_t cycles,
                        const config::ArchConfig& arch);

}  // namespace wsesim::results
