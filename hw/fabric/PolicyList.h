#pragma once
// What the fabric's compile-time policy lists (RoutingPolicies.h,
// ArbitrationPolicies.h) share: a list is a std::tuple of policy classes,
// each with `static constexpr const char* kName` (its key value); a run
// picks one by index (PolicyChoice), and the kernel turns that index into
// the policy's type once per call (withPolicy), so the code inside is
// instantiated per policy and calls it directly, with no indirect call.

#include <cstddef>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "hw/fabric/FabricError.h"

namespace wsesim::fabric {

// Which policy of `List` a fabric uses: its index.
template <class List>
struct PolicyChoice {
  std::uint8_t index = 0;
  friend bool operator==(PolicyChoice a, PolicyChoice b) { return a.index == b.index; }
  friend bool operator!=(PolicyChoice a, PolicyChoice b) { return a.index != b.index; }
};

template <class List, class Policy, std::size_t I = 0>
constexpr PolicyChoice<List> policyChoice() {
  static_assert(I < std::tuple_size_v<List>, "not in the policy list");
  if constexpr (std::is_same_v<Policy, std::tuple_element_t<I, List>>)
    return PolicyChoice<List>{std::uint8_t(I)};
  else
    return policyChoice<List, Policy, I + 1>();
}

// The type of a policy, handed to withPolicy's callback.
template <class Policy>
struct PolicyTag {
  using type = Policy;
};

// f(PolicyTag<the policy of `choice`>{}): one comparison per policy, then a direct call.
template <class List, std::size_t I = 0, class F>
decltype(auto) withPolicy(PolicyChoice<List> choice, F&& f) {
  if constexpr (I + 1 < std::tuple_size_v<List>)
    if (choice.index != I) return withPolicy<List, I + 1>(choice, std::forward<F>(f));
  return f(PolicyTag<std::tuple_element_t<I, List>>{});
}

template <class List, std::size_t... I>
std::vector<std::string> policyNames(std::index_sequence<I...>) {
  return {std::tuple_element_t<I, List>::kName...};
}
// The policies' names, in list order: their key's values.
template <class List>
std::vector<std::string> policyNames() {
  return policyNames<List>(std::make_index_sequence<std::tuple_size_v<List>>{});
}

template <class List>
const char* policyName(PolicyChoice<List> choice) {
  return withPolicy(choice, [](auto policy) { return decltype(policy)::type::kName; });
}

// Throws FabricError naming the policies when none is called `name`;
// `kind` says which list it is ("routing policy").
template <class List>
PolicyChoice<List> policyChoiceOf(const std::string& name, const char* kind) {
  const std::vector<std::string> names = policyNames<List>();
  std::string known;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return PolicyChoice<List>{std::uint8_t(i)};
    known += (i ? ", " : "") + names[i];
  }
  throw FabricError(std::string("no ") + kind + " named '" + name + "' (known: " + known + ")");
}

}  // namespace wsesim::fabric
