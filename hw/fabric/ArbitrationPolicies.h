#pragma once
// The arbitration policies (`arch.fabric.arbitration`): which of the queue
// heads that want the same output in a cycle that output takes. A
// compile-time list like the routing policies' (PolicyList.h): the kernel
// is instantiated per (routing, arbitration) pair and picks the instance
// once per cycle, so its hot loop has no indirect call. The key's values
// and its error for an unknown one come from the list.
//
// A policy is a class, built per grant from what the output remembers (it
// has no configuration; the kernel keeps one ArbiterState per output in
// each router's state):
//   static constexpr const char* kName;            its arch.fabric.arbitration value
//   static constexpr ArbiterState kInitialState;   every output's state before its first grant
//   static void granted(ArbiterState&, unsigned input, unsigned color);  the output moved that head
//   explicit Policy(ArbiterState);                 the output's arbiter for this grant: decode
//                                                  the state once here, not per candidate
//   unsigned pickColor(unsigned input, std::uint32_t colors) const;
//       one input contends, with `colors` (not none): which color first
//   void pick(const std::uint32_t (&colors)[kPortCount], PortMask inputs, unsigned& input,
//             unsigned& color) const;
//       several `inputs` contend, each with its `colors` (not none): which pair first
// The kernel offers only heads whose downstream has room; when the pick's
// head is not ready yet (still on the link or ramp) it removes that pair
// and asks again. Adding one: its header and one entry in
// ArbitrationPolicyList below (docs/adding-an-arbitration-policy.md).

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "hw/fabric/FixedPriorityArbitration.h"
#include "hw/fabric/PolicyList.h"
#include "hw/fabric/RoundRobinArbitration.h"

namespace wsesim::fabric {

using ArbitrationPolicyList = std::tuple<RoundRobinArbitration, FixedPriorityArbitration>;

// Which policy of the list a fabric arbitrates with.
using ArbitrationMode = PolicyChoice<ArbitrationPolicyList>;

template <class Policy>
constexpr ArbitrationMode arbitrationMode() {
  return policyChoice<ArbitrationPolicyList, Policy>();
}

// f(PolicyTag<the policy of `mode`>{}): one comparison per policy, then a direct call.
template <class F>
decltype(auto) withArbitrationPolicy(ArbitrationMode mode, F&& f) {
  return withPolicy(mode, std::forward<F>(f));
}

// The policies' names, in list order: arch.fabric.arbitration's values.
inline std::vector<std::string> arbitrationNames() { return policyNames<ArbitrationPolicyList>(); }

inline const char* arbitrationName(ArbitrationMode mode) { return policyName(mode); }

// Throws FabricError naming the policies when none is called `name`.
inline ArbitrationMode arbitrationModeOf(const std::string& name) {
  return policyChoiceOf<ArbitrationPolicyList>(name, "arbitration policy");
}

}  // namespace wsesim::fabric
