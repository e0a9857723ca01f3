#pragma once
// What a run did, counted by kind of action, for the energy model: the
// counts the fabric kernel and the PEs keep anyway (hops, injections,
// deliveries, busy cycles) and what each completed tensor op implies in
// closed form (elements by precision and opcode, SRAM bytes, wavelets
// through the RAMP). Doubles: a sampled GEMM's counts are extrapolated
// (docs/energy-model.md), and sums over a training step exceed no 2^53.

#include <cstdint>

#include "hw/pe/OpKind.h"

namespace wsesim::fabric {
class FabricKernel;
}
namespace wsesim::pe {
class PeArray;
}

namespace wsesim::energy {

struct ActionCounts {
  double opElements[pe::kPrecisionCount][pe::kOpcodeCount] = {};
  double sramReadBytes = 0, sramWriteBytes = 0;
  double rampCrossings = 0;  // PE -> router injections plus router -> PE deliveries
  double hops = 0;           // router-to-router link transfers
  double queuePushes = 0;    // wavelets written into a router queue (hops, injections, from the edge)
  double queueReads = 0;     // wavelets an output took from a queue (hops, deliveries, off the edge)
  double queuePops = 0;      // queue slots freed (a multicast is read once per output, popped once)
  double peActiveCycles = 0, peIdleCycles = 0;  // over the mesh's PEs
  double ioRingBytes = 0;    // through the wafer's I/O ring, either way
  double memoryxBytes = 0;   // MemoryX storage traffic
  double optimizerParameters = 0;  // parameter updates MemoryX ran
  double swarmxBytes = 0;    // carried by SwarmX tree edges

  double elements(pe::Opcode op, pe::Precision p) const { return opElements[unsigned(p)][unsigned(op)]; }
  ActionCounts& operator+=(const ActionCounts& o);
  ActionCounts& operator-=(const ActionCounts& o);
  ActionCounts& operator*=(double factor);
};

inline ActionCounts operator+(ActionCounts a, const ActionCounts& b) { return a += b; }
inline ActionCounts operator-(ActionCounts a, const ActionCounts& b) { return a -= b; }
inline ActionCounts operator*(ActionCounts a, double f) { return a *= f; }

// The wafer's actions so far: the fabric's counters, the PEs' (null: a
// fabric-only run, its PEs idle) and their busy cycles, with every other
// PE-cycle of the mesh's over `cycles` idle. Nothing outside the wafer.
ActionCounts waferActions(const fabric::FabricKernel& fabric, const pe::PeArray* pes, std::uint64_t cycles);

}  // namespace wsesim::energy
