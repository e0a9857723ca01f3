#include "hw/energy/ActionCounts.h"

#include <algorithm>

#include "hw/fabric/FabricKernel.h"
#include "hw/pe/PeArray.h"

namespace wsesim::energy {
namespace {

// Applies fn(mine, theirs) to every count of a and b.
template <class Fn>
void eachCount(ActionCounts& a, const ActionCounts& b, Fn&& fn) {
  for (unsigned p = 0; p < pe::kPrecisionCount; ++p)
    for (unsigned op = 0; op < pe::kOpcodeCount; ++op) fn(a.opElements[p][op], b.opElements[p][op]);
  for (double ActionCounts::*m :
       {&ActionCounts::sramReadBytes, &ActionCounts::sramWriteBytes, &ActionCounts::rampCrossings,
        &ActionCounts::hops, &ActionCounts::queuePushes, &ActionCounts::queueReads, &ActionCounts::queuePops,
        &ActionCounts::peActiveCycles, &ActionCounts::peIdleCycles, &ActionCounts::ioRingBytes,
        &ActionCounts::memoryxBytes, &ActionCounts::optimizerParameters, &ActionCounts::swarmxBytes})
    fn(a.*m, b.*m);
}

}  // namespace

ActionCounts& ActionCounts::operator+=(const ActionCounts& o) {
  eachCount(*this, o, [](double& x, double y) { x += y; });
  return *this;
}

ActionCounts& ActionCounts::operator-=(const ActionCounts& o) {
  eachCount(*this, o, [](double& x, double y) { x -= y; });
  return *this;
}

ActionCounts& ActionCounts::operator*=(double factor) {
  eachCount(*this, *this, [factor](double& x, double) { x *= factor; });
  return *this;
}

ActionCounts waferActions(const fabric::FabricKernel& fabric, const pe::PeArray* pes, std::uint64_t cycles) {
  const fabric::FabricCounters& f = fabric.counters();
  ActionCounts a;
  a.hops = double(f.hops);
  a.rampCrossings = double(f.injected + f.delivered);
  // Every hop, injection and edge arrival writes a queue; every hop,
  // delivery and edge departure reads one; what is still queued was not popped.
  a.queuePushes = double(f.hops + f.injected + f.fromEdge);
  a.queueReads = double(f.hops + f.delivered + f.toEdge);
  a.queuePops = a.queuePushes - double(f.queued);
  const double peCycles = double(fabric.params().mesh.routers()) * double(cycles);
  if (pes) {
    const pe::PeActions t = pes->actionTotals();
    for (unsigned p = 0; p < pe::kPrecisionCount; ++p)
      for (unsigned op = 0; op < pe::kOpcodeCount; ++op) a.opElements[p][op] = double(t.opElements[p][op]);
    a.sramReadBytes = double(t.sramReadBytes);
    a.sramWriteBytes = double(t.sramWriteBytes);
    a.peActiveCycles = std::min(peCycles, double(pes->totals().busyCycles));
  }
  a.peIdleCycles = peCycles - a.peActiveCycles;
  return a;
}

}  // namespace wsesim::energy
