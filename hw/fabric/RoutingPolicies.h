#pragma once
// The routing policies (`arch.fabric.routing`): how a router chooses the
// outputs of the wavelet at the head of a queue. A compile-time list, not a
// run-time registry: the kernel is instantiated once per policy and picks
// the instance once per call (withRoutingPolicy), so its hot loop has no
// indirect call. The key's values and its error for an unknown one come
// from the list.
//
// A policy is a class with
//   static constexpr const char* kName;              its arch.fabric.routing value
//   Policy(const MeshGeometry&, const ColorRouteTable*);
//   static void checkSetup(const ColorRouteTable*);  throws FabricError if it cannot run so
//   PortMask forward(RouterId, x, y, const QueuedWavelet&) const;
//   void checkInjection(RouterId, const Wavelet&) const;           a wavelet entering the mesh
//   void checkArrival(RouterId, Port in, const QueuedWavelet&) const;  one arriving on `in`
// Adding one: its header and one entry in RoutingPolicyList below
// (docs/adding-a-routing-policy.md).

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hw/fabric/ColorRouting.h"
#include "hw/fabric/PolicyList.h"
#include "hw/fabric/XyRouting.h"

namespace wsesim::fabric {

using RoutingPolicyList = std::tuple<ColorRouting, XyRouting>;

// Which policy of the list a fabric routes with.
using RoutingMode = PolicyChoice<RoutingPolicyList>;

template <class Policy>
constexpr RoutingMode routingMode() {
  return policyChoice<RoutingPolicyList, Policy>();
}

// f(PolicyTag<the policy of `mode`>{}): one comparison per policy, then a direct call.
template <class F>
decltype(auto) withRoutingPolicy(RoutingMode mode, F&& f) {
  return withPolicy(mode, std::forward<F>(f));
}

// The policies' names, in list order: arch.fabric.routing's values.
inline std::vector<std::string> routingNames() { return policyNames<RoutingPolicyList>(); }

inline const char* routingName(RoutingMode mode) { return policyName(mode); }

// Throws FabricError naming the policies when none is called `name`.
inline RoutingMode routingModeOf(const std::string& name) {
  return policyChoiceOf<RoutingPolicyList>(name, "routing policy");
}

}  // namespace wsesim::fabric
