#pragma once
// The cost side of an architecture: energy per action, leakage and area
// coefficients (`arch.energy.*`, `arch.area.*`; config::readEnergyParams and
// readAreaParams fill them from the preset, the one source of their values).
// The laws that turn them into a configuration's energy and area are in
// EnergyModel.h; every value's source is in the presets and
// docs/energy-model.md.

#include "hw/pe/OpKind.h"

namespace wsesim::energy {

struct EnergyParams {
  // Per element a tensor op processes, by precision and opcode (pJ).
  double opPj[pe::kPrecisionCount][pe::kOpcodeCount] = {};
  struct Sram {
    double readPjPerByte = 0;   // at referenceBankBytes; scales with sqrt(bank bytes)
    double writePjPerByte = 0;  // likewise
    double referenceBankBytes = 0;
    double leakagePwPerBit = 0;
  } sram;
  struct Fabric {
    unsigned wireBits = 0;         // bits a wavelet occupies on a link and in a queue slot
    double wirePjPerBitMm = 0;     // a link's length is the PE pitch (EnergyModel)
    double queueWritePj = 0;       // per wavelet pushed into a router queue
    double queueReadPj = 0;        // per wavelet an output takes from a queue
    double rampPj = 0;             // per wavelet crossing between a PE and its router, either way
    double leakagePwPerBit = 0;    // of the queues' storage
  } fabric;
  struct Pe {
    double activeCyclePj = 0;  // per cycle a PE runs a task or holds an op: clock, control, pipeline
    double idleCyclePj = 0;    // per cycle it does not
    double logicLeakageW = 0;  // per PE, SRAM and router queues aside
  } pe;
  struct System {
    double ioRingPjPerByte = 0;     // into or out of the wafer through the I/O ring
    double memoryxPjPerByte = 0;    // MemoryX storage reads and writes
    double optimizerPjPerParameter = 0;  // MemoryX's update of one parameter
    double swarmxPjPerByte = 0;     // per byte a SwarmX tree edge carries
    double staticW = 0;             // a CS system's parts outside the wafer (cooling, power conversion, host I/O)
  } system;
};

struct AreaParams {
  double waferUsableMm2 = 0;   // the silicon the PEs can occupy
  double sparePeFraction = 0;  // physical PEs beyond the mesh (redundancy, support), as a fraction of it
  double peLogicMm2 = 0;       // compute engine, control, local cache: all but SRAM and router queues
  double sramBitUm2 = 0;       // one SRAM cell
  double sramPeripheryUm2PerSqrtBit = 0;  // decoders and sense amplifiers along a bank's edges
  double routerBaseMm2 = 0;    // crossbar, arbitration, route tables
  double routerBitUm2 = 0;     // one bit of queue storage
};

}  // namespace wsesim::energy
