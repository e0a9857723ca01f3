#include "hw/config/CostReader.h"

#include <string>

namespace wsesim::config {
namespace {

// Energies, powers and areas are non-negative; the bounds only catch unit slips (1e12 for 1).
double pj(ParamReader& p, const std::string& key) { return p.real(key, 0.0, 1.0e6); }

}  // namespace

energy::EnergyParams readEnergyParams(ParamReader& p) {
  energy::EnergyParams e;
  for (unsigned prec = 0; prec < pe::kPrecisionCount; ++prec)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op)
      e.opPj[prec][op] = pj(p, std::string("arch.energy.op_pj.") + pe::precisionName(pe::Precision(prec)) + "." +
                                   pe::opcodeName(pe::Opcode(op)));
  e.sram.readPjPerByte = pj(p, "arch.energy.sram.read_pj_per_byte");
  e.sram.writePjPerByte = pj(p, "arch.energy.sram.write_pj_per_byte");
  e.sram.referenceBankBytes = p.real("arch.energy.sram.reference_bank_bytes", 1.0, 1.0e12);
  e.sram.leakagePwPerBit = pj(p, "arch.energy.sram.leakage_pw_per_bit");
  e.fabric.wireBits = unsigned(p.integer("arch.energy.fabric.wire_bits", 1, 1024));
  e.fabric.wirePjPerBitMm = pj(p, "arch.energy.fabric.wire_pj_per_bit_mm");
  e.fabric.queueWritePj = pj(p, "arch.energy.fabric.queue_write_pj");
  e.fabric.queueReadPj = pj(p, "arch.energy.fabric.queue_read_pj");
  e.fabric.rampPj = pj(p, "arch.energy.fabric.ramp_pj");
  e.fabric.leakagePwPerBit = pj(p, "arch.energy.fabric.leakage_pw_per_bit");
  e.pe.activeCyclePj = pj(p, "arch.energy.pe.active_cycle_pj");
  e.pe.idleCyclePj = pj(p, "arch.energy.pe.idle_cycle_pj");
  e.pe.logicLeakageW = p.real("arch.energy.pe.logic_leakage_w", 0.0, 1.0);
  e.system.ioRingPjPerByte = pj(p, "arch.energy.system.io_ring_pj_per_byte");
  e.system.memoryxPjPerByte = pj(p, "arch.energy.system.memoryx_pj_per_byte");
  e.system.optimizerPjPerParameter = pj(p, "arch.energy.system.optimizer_pj_per_parameter");
  e.system.swarmxPjPerByte = pj(p, "arch.energy.system.swarmx_pj_per_byte");
  e.system.staticW = p.real("arch.energy.system.static_w", 0.0, 1.0e6);
  return e;
}

energy::AreaParams readAreaParams(ParamReader& p) {
  energy::AreaParams a;
  a.waferUsableMm2 = p.real("arch.area.wafer_usable_mm2", 1e-6, 1.0e7);
  a.sparePeFraction = p.real("arch.area.spare_pe_fraction", 0.0, 10.0);
  a.peLogicMm2 = p.real("arch.area.pe_logic_mm2", 0.0, 1.0e3);
  a.sramBitUm2 = p.real("arch.area.sram_bit_um2", 0.0, 1.0e3);
  a.sramPeripheryUm2PerSqrtBit = p.real("arch.area.sram_periphery_um2_per_sqrt_bit", 0.0, 1.0e6);
  a.routerBaseMm2 = p.real("arch.area.router_base_mm2", 0.0, 1.0e3);
  a.routerBitUm2 = p.real("arch.area.router_bit_um2", 0.0, 1.0e3);
  return a;
}

}  // namespace wsesim::config
