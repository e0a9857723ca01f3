#include "hw/energy/EnergyModel.h"

#include <algorithm>
#include <cmath>

#include "hw/fabric/Port.h"

namespace wsesim::energy {
namespace {

constexpr double kPj = 1e-12;
constexpr double kUm2PerMm2 = 1e6;

// Every (input port, color) queue of a router, each queue_depth wavelets deep.
double routerQueueBits(const fabric::RouterParams& fabric, const EnergyParams& e) {
  return double(fabric::kPortCount) * fabric.colors * fabric.queueDepth * e.fabric.wireBits;
}

AreaEstimate areaEstimate(const AreaParams& a, const pe::PeParams& pe, double queueBits,
                          const fabric::MeshGeometry& mesh) {
  const double bankBits = double(pe.sramBytes) * 8.0 / pe.sramBanks;
  AreaEstimate e;
  e.sramMm2 =
      pe.sramBanks * (bankBits * a.sramBitUm2 + std::sqrt(bankBits) * a.sramPeripheryUm2PerSqrtBit) / kUm2PerMm2;
  e.routerMm2 = a.routerBaseMm2 + queueBits * a.routerBitUm2 / kUm2PerMm2;
  e.logicMm2 = a.peLogicMm2;
  e.pitchMm = std::sqrt(e.tileMm2());
  e.physicalPes = double(mesh.routers()) * (1.0 + a.sparePeFraction);
  e.waferMm2 = e.physicalPes * e.tileMm2();
  e.usableMm2 = a.waferUsableMm2;
  return e;
}

ActionEnergies actionEnergies(const EnergyParams& e, const pe::PeParams& pe, double queueBits, double pitchMm) {
  // CACTI-style: bit and word lines grow with the side of a bank, the square
  // root of its capacity (Horowitz's 8 KB / 32 KB / 1 MB reads follow it).
  const double sramScale = std::sqrt(double(pe.sramBytes) / pe.sramBanks / e.sram.referenceBankBytes);
  ActionEnergies per;
  per.sramReadPerByte = e.sram.readPjPerByte * sramScale;
  per.sramWritePerByte = e.sram.writePjPerByte * sramScale;
  per.hopWire = e.fabric.wireBits * pitchMm * e.fabric.wirePjPerBitMm;
  per.leakagePerPeW =
      (double(pe.sramBytes) * 8.0 * e.sram.leakagePwPerBit + queueBits * e.fabric.leakagePwPerBit) * kPj +
      e.pe.logicLeakageW;
  return per;
}

}  // namespace

EnergyModel::EnergyModel(const EnergyParams& energy, const AreaParams& area, const pe::PeParams& pe,
                         const fabric::RouterParams& fabric, const fabric::MeshGeometry& mesh, double clockHz)
    : energy_(energy),
      secondsPerCycle_(1.0 / clockHz),
      area_(areaEstimate(area, pe, routerQueueBits(fabric, energy), mesh)),
      perAction_(actionEnergies(energy, pe, routerQueueBits(fabric, energy), area_.pitchMm)) {}

EnergyBreakdown EnergyModel::energyOf(const ActionCounts& a, double seconds, unsigned systems) const {
  const EnergyParams& e = energy_;
  const ActionEnergies& per = perAction_;
  EnergyBreakdown b;
  for (unsigned p = 0; p < pe::kPrecisionCount; ++p)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op) b.compute += a.opElements[p][op] * e.opPj[p][op] * kPj;
  b.sram = (a.sramReadBytes * per.sramReadPerByte + a.sramWriteBytes * per.sramWritePerByte) * kPj;
  b.fabric = (a.hops * per.hopWire + a.queuePushes * e.fabric.queueWritePj + a.queueReads * e.fabric.queueReadPj +
              a.rampCrossings * e.fabric.rampPj) *
             kPj;
  b.peCycles = (a.peActiveCycles * e.pe.activeCyclePj + a.peIdleCycles * e.pe.idleCyclePj) * kPj;
  b.leakage = per.leakagePerPeW * area_.physicalPes * systems * seconds;
  b.ioRing = a.ioRingBytes * e.system.ioRingPjPerByte * kPj;
  b.memoryx = a.memoryxBytes * e.system.memoryxPjPerByte * kPj;
  b.optimizer = a.optimizerParameters * e.system.optimizerPjPerParameter * kPj;
  b.swarmx = a.swarmxBytes * e.system.swarmxPjPerByte * kPj;
  b.systemStatic = e.system.staticW * systems * seconds;
  return b;
}

double EnergyModel::peEnergyPj(const pe::PeActions& c, std::uint64_t busyCycles, std::uint64_t hopsOut,
                               std::uint64_t delivered, std::uint64_t cycles) const {
  const EnergyParams& e = energy_;
  const ActionEnergies& per = perAction_;
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
  pj += per.leakagePerPeW * double(cycles) * secondsPerCycle_ / kPj;
  return pj;
}

}  // namespace wsesim::energy
