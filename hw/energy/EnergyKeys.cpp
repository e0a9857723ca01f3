#include "hw/energy/EnergyKeys.h"

namespace wsesim::energy {

const common::KeyTable<EnergyParams>& energyKeys() {
  using Key = common::Key<EnergyParams>;
  using E = EnergyParams;
  static const common::KeyTable<E> keys = {"arch.energy.", {
      Key::real("sram.read_pj_per_byte", 0.0, kMaxPj, [](E& e, double v) { e.sram.readPjPerByte = v; },
                "SRAM read energy per byte at a bank of `reference_bank_bytes`; scales with sqrt(bank bytes)"),
      Key::real("sram.write_pj_per_byte", 0.0, kMaxPj, [](E& e, double v) { e.sram.writePjPerByte = v; },
                "SRAM write energy per byte at a bank of `reference_bank_bytes`; scales with sqrt(bank bytes)"),
      Key::real("sram.reference_bank_bytes", 1.0, 1.0e12, [](E& e, double v) { e.sram.referenceBankBytes = v; },
                "the bank size the SRAM energies are given for"),
      Key::real("sram.leakage_pw_per_bit", 0.0, kMaxPj, [](E& e, double v) { e.sram.leakagePwPerBit = v; },
                "SRAM leakage per bit, pW"),
      Key::integer("fabric.wire_bits", 1, 1024, [](E& e, std::int64_t v) { e.fabric.wireBits = unsigned(v); },
                   "bits of a wavelet on a link and in a queue slot"),
      Key::real("fabric.wire_pj_per_bit_mm", 0.0, kMaxPj, [](E& e, double v) { e.fabric.wirePjPerBitMm = v; },
                "link wire energy; a link is a PE pitch long"),
      Key::real("fabric.queue_write_pj", 0.0, kMaxPj, [](E& e, double v) { e.fabric.queueWritePj = v; },
                "per wavelet written into a router queue"),
      Key::real("fabric.queue_read_pj", 0.0, kMaxPj, [](E& e, double v) { e.fabric.queueReadPj = v; },
                "per wavelet read out of a router queue"),
      Key::real("fabric.ramp_pj", 0.0, kMaxPj, [](E& e, double v) { e.fabric.rampPj = v; }, "per wavelet crossing the RAMP"),
      Key::real("fabric.leakage_pw_per_bit", 0.0, kMaxPj, [](E& e, double v) { e.fabric.leakagePwPerBit = v; },
                "router queue storage leakage per bit, pW"),
      Key::real("pe.active_cycle_pj", 0.0, kMaxPj, [](E& e, double v) { e.pe.activeCyclePj = v; },
                "per busy PE-cycle (clock, control)"),
      Key::real("pe.idle_cycle_pj", 0.0, kMaxPj, [](E& e, double v) { e.pe.idleCyclePj = v; },
                "per idle PE-cycle (clock up to the gated units)"),
      Key::real("pe.logic_leakage_w", 0.0, 1.0, [](E& e, double v) { e.pe.logicLeakageW = v; },
                "per PE, SRAM and queues aside"),
      Key::real("system.io_ring_pj_per_byte", 0.0, kMaxPj, [](E& e, double v) { e.system.ioRingPjPerByte = v; },
                "per byte through the I/O ring"),
      Key::real("system.memoryx_pj_per_byte", 0.0, kMaxPj, [](E& e, double v) { e.system.memoryxPjPerByte = v; },
                "per byte of MemoryX storage traffic"),
      Key::real("system.optimizer_pj_per_parameter", 0.0, kMaxPj,
                [](E& e, double v) { e.system.optimizerPjPerParameter = v; },
                "per parameter MemoryX's optimizer updates"),
      Key::real("system.swarmx_pj_per_byte", 0.0, kMaxPj, [](E& e, double v) { e.system.swarmxPjPerByte = v; },
                "per byte over a SwarmX tree edge"),
      Key::real("system.static_w", 0.0, 1.0e6, [](E& e, double v) { e.system.staticW = v; },
                "per CS system, beside the wafer (cooling, power conversion)"),
  }, {
      {"op_pj.<precision>.<op>", "energy per element of this tensor op at this precision, pJ"},
  }};
  return keys;
}

const common::KeyTable<AreaParams>& areaKeys() {
  using Key = common::Key<AreaParams>;
  using A = AreaParams;
  static const common::KeyTable<A> keys = {"arch.area.", {
      Key::real("wafer_usable_mm2", 1e-6, 1.0e7, [](A& a, double v) { a.waferUsableMm2 = v; },
                "silicon the PEs may occupy; a configuration larger is reported as not fitting"),
      Key::real("spare_pe_fraction", 0.0, 10.0, [](A& a, double v) { a.sparePeFraction = v; },
                "physical PEs beyond the mesh, as a fraction of it (they take area and leak)"),
      Key::real("pe_logic_mm2", 0.0, 1.0e3, [](A& a, double v) { a.peLogicMm2 = v; },
                "a PE's area besides SRAM and router queues"),
      Key::real("sram_bit_um2", 0.0, 1.0e3, [](A& a, double v) { a.sramBitUm2 = v; },
                "SRAM area per bank: bits x this + sqrt(bits) x periphery"),
      Key::real("sram_periphery_um2_per_sqrt_bit", 0.0, 1.0e6, [](A& a, double v) { a.sramPeripheryUm2PerSqrtBit = v; },
                "SRAM area per bank: bits x cell + sqrt(bits) x this"),
      Key::real("router_base_mm2", 0.0, 1.0e3, [](A& a, double v) { a.routerBaseMm2 = v; },
                "router area: this + queue bits (5 x colors x queue depth x wire bits) x per-bit area"),
      Key::real("router_bit_um2", 0.0, 1.0e3, [](A& a, double v) { a.routerBitUm2 = v; }, "router area per queue bit"),
  }, {}};
  return keys;
}

}  // namespace wsesim::energy
