#include "hw/energy/EnergyModel.h"

#include <algorithm>
#include <cmath>

#include "hw/fabric/Port.h"

namespace wsesim::energy {
namespace {

constexpr double kPj = 1e-12;
constexpr double kUm2PerMm2 = 1e6;

double sramBankBits(const config::ArchConfig& arch) { return double(arch.pe.sramBytes) * 8.0 / arch.pe.sramBanks; }

// Every (input port, color) queue of a router, each queue_depth wavelets deep.
double routerQueueBits(const config::ArchConfig& arch) {
  return double(fabric::kPortCount) * arch.fabric.colors * arch.fabric.queueDepth * arch.energy.fabric.wireBits;
}

}  // namespace

AreaEstimate areaEstimate(const config::ArchConfig& arch) {
  const AreaParams& a = arch.area;
  const double bankBits = sramBankBits(arch);
  AreaEstimate e;
  e.sramMm2 = arch.pe.sramBanks * (bankBits * a.sramBitUm2 + std::sqrt(bankBits) * a.sramPeripheryUm2PerSqrtBit) /
              kUm2PerMm2;
  e.routerMm2 = a.routerBaseMm2 + routerQueueBits(arch) * a.routerBitUm2 / kUm2PerMm2;
  e.logicMm2 = a.peLogicMm2;
  e.pitchMm = std::sqrt(e.tileMm2());
  e.physicalPes = double(arch.mesh.routers()) * (1.0 + a.sparePeFraction);
  e.waferMm2 = e.physicalPes * e.tileMm2();
  e.usableMm2 = a.waferUsableMm2;
  return e;
}

ActionEnergies actionEnergies(const config::ArchConfig& arch) {
  const EnergyParams& e = arch.energy;
  // CACTI-style: bit and word lines grow with the side of a bank, the square
  // root of its capacity (Horowitz's 8 KB / 32 KB / 1 MB reads follow it).
  const double sramScale = std::sqrt(double(arch.pe.sramBytes) / arch.pe.sramBanks / e.sram.referenceBankBytes);
  ActionEnergies per;
  per.sramReadPerByte = e.sram.readPjPerByte * sramScale;
  per.sramWritePerByte = e.sram.writePjPerByte * sramScale;
  per.hopWire = e.fabric.wireBits * areaEstimate(arch).pitchMm * e.fabric.wirePjPerBitMm;
  per.leakagePerPeW = (double(arch.pe.sramBytes) * 8.0 * e.sram.leakagePwPerBit +
                       routerQueueBits(arch) * e.fabric.leakagePwPerBit) * kPj +
                      e.pe.logicLeakageW;
  return per;
}

EnergyBreakdown energyOf(const ActionCounts& a, const config::ArchConfig& arch, double seconds, unsigned systems) {
  const EnergyParams& e = arch.energy;
  const ActionEnergies per = actionEnergies(arch);
  EnergyBreakdown b;
  for (unsigned p = 0; p < pe::kPrecisionCount; ++p)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op) b.compute += a.opElements[p][op] * e.opPj[p][op] * kPj;
  b.sram = (a.sramReadBytes * per.sramReadPerByte + a.sramWriteBytes * per.sramWritePerByte) * kPj;
  b.fabric = (a.hops * per.hopWire + a.queuePushes * e.fabric.queueWritePj + a.queueReads * e.fabric.queueReadPj +
              a.rampCrossings * e.fabric.rampPj) *
             kPj;
  b.peCycles = (a.peActiveCycles * e.pe.activeCyclePj + a.peIdleCycles * e.pe.idleCyclePj) * kPj;
  b.leakage = per.leakagePerPeW * areaEstimate(arch).physicalPes * systems * seconds;
  b.ioRing = a.ioRingBytes * e.system.ioRingPjPerByte * kPj;
  b.memoryx = a.memoryxBytes * e.system.memoryxPjPerByte * kPj;
  b.optimizer = a.optimizerParameters * e.system.optimizerPjPerParameter * kPj;
  b.swarmx = a.swarmxBytes * e.system.swarmxPjPerByte * kPj;
  b.systemStatic = e.system.staticW * systems * seconds;
  return b;
}

double peEnergyPj(const config::ArchConfig& arch, const ActionEnergies& per, const pe::PeActions& c,
                  std::uint64_t busyCycles, std::uint64_t hopsOut, std::uint64_t delivered, std::uint64_t cycles) {
  const EnergyParams& e = arch.energy;
  double pj = 0;
  for (unsigned p = 0; p < pe::kPrecisionCount; ++p)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op) pj += double(c.opElements[p][op]) * e.opPj[p][op];
  pj += double(c.sramReadBytes) * per.sramReadPerByte + double(c.sramWriteBytes) * per.sramWritePerByte;
  // A hop is charged to its sender: the wire, the read here and the write at the next router.
  pj += double(hopsOut) * (per.hopWire + e.fabric.queueReadPj + e.fabric.queueWritePj);
  pj += double(c.waveletsSent) * (e.fabric.rampPj + e.fabric.queueWritePj);
  pj += double(delivered) * (e.fabric.rampPj + e.fabric.queueReadPj);
  const double busy = std::min(double(cycles), double(busyCycles));
  pj += busy * e.pe.activeCyclePj + (double(cycles) - busy) * e.pe.idleCyclePj;
  pj += per.leakagePerPeW * double(cycles) * arch.secondsPerCycle() / kPj;
  return pj;
}

}  // namespace wsesim::energy
