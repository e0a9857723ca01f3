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

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "hw/fabric/ColorRouting.h"
#include "hw/fabric/FabricError.h"
#include "hw/fabric/XyRouting.h"

namespace wsesim::fabric {

using RoutingPolicyList = std::tuple<ColorRouting, XyRouting>;

// Which policy of the list a fabric routes with: its index.
struct RoutingMode {
  std::uint8_t index = 0;
  friend bool operator==(RoutingMode a, RoutingMode b) { return a.index == b.index; }
  friend bool operator!=(RoutingMode a, RoutingMode b) { return a.index != b.index; }
};

template <class Policy, std::size_t I = 0>
constexpr RoutingMode routingMode() {
  static_assert(I < std::tuple_size_v<RoutingPolicyList>, "not in RoutingPolicyList");
  if constexpr (std::is_same_v<Policy, std::tuple_element_t<I, RoutingPolicyList>>)
    return RoutingMode{std::uint8_t(I)};
  else
    return routingMode<Policy, I + 1>();
}

// The type of a policy, handed to withRoutingPolicy's callback.
template <class Policy>
struct RoutingPolicyTag {
  using type = Policy;
};

// f(RoutingPolicyTag<the policy of `mode`>{}): one comparison per policy, then a direct call.
template <std::size_t I = 0, class F>
decltype(auto) withRoutingPolicy(RoutingMode mode, F&& f) {
  if constexpr (I + 1 < std::tuple_size_v<RoutingPolicyList>)
    if (mode.index != I) return withRoutingPolicy<I + 1>(mode, std::forward<F>(f));
  return f(RoutingPolicyTag<std::tuple_element_t<I, RoutingPolicyList>>{});
}

template <std::size_t... I>
std::vector<std::string> routingNames(std::index_sequence<I...>) {
  return {std::tuple_element_t<I, RoutingPolicyList>::kName...};
}
// The policies' names, in list order: arch.fabric.routing's values.
inline std::vector<std::string> routingNames() {
  return routingNames(std::make_index_sequence<std::tuple_size_v<RoutingPolicyList>>{});
}

inline const char* routingName(RoutingMode mode) {
  return withRoutingPolicy(mode, [](auto policy) { return decltype(policy)::type::kName; });
}

// Throws FabricError naming the policies when none is called `name`.
inline RoutingMode routingModeOf(const std::string& name) {
  const std::vector<std::string> names = routingNames();
  std::string known;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return RoutingMode{std::uint8_t(i)};
    known += (i ? ", " : "") + names[i];
  }
  throw FabricError("no routing policy named '" + name + "' (known: " + known + ")");
}

}  // namespace wsesim::fabric
