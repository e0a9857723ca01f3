#pragma once
// The fabric's parameters, beside the kernel that runs them. The numbers of
// a machine come from its preset through config::ArchConfig (the one source
// of every `arch.*` value); a default-constructed set is no machine, and the
// kernel rejects what it cannot run (no colors, a zero hop latency).

#include <cstdint>

#include "hw/fabric/ArbitrationPolicies.h"
#include "hw/fabric/MeshGeometry.h"
#include "hw/fabric/RoutingPolicies.h"

namespace wsesim::fabric {

// The routers and the links between them (`arch.fabric.*`).
struct RouterParams {
  unsigned colorBits = 0;          // the wavelet's color field
  unsigned colors = 0;             // routable colors, at most 2^colorBits
  unsigned queueDepth = 0;         // wavelets per (input port, color) queue
  unsigned hopLatencyCycles = 0;   // router to router
  unsigned rampLatencyCycles = 0;  // between a router and its PE, either way
  unsigned routeSwitchCycles = 0;  // to reprogram the routes between two phases of a mapping
  RoutingMode routing;             // a policy of RoutingPolicyList (arch.fabric.routing)
  ArbitrationMode arbitration;     // a policy of ArbitrationPolicyList (arch.fabric.arbitration)
};

// What a FabricKernel is built from: the mesh, its routers and links, and
// the run's deadlock watchdog: cycles in which wavelets wait in the fabric
// but nothing moves and nothing is due (FabricKernel::notePendingUntil),
// after which the run is declared deadlocked (`run.watchdog_cycles`).
struct FabricParams : RouterParams {
  MeshGeometry mesh;
  std::uint64_t watchdogCycles = 0;
};

}  // namespace wsesim::fabric
