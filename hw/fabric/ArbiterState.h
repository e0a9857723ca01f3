#pragma once
// What an arbitration policy remembers per router output between cycles,
// kept in the router's cache line (FabricKernel's RouterState). Its meaning
// is the policy's own (round-robin: the last grant); a policy that needs
// none ignores it, and then the cycle's code neither reads nor writes it.
// 16 bits, not 8: a byte array in the router state would alias every
// pointer the kernel holds, so each store to it would reload them all.

#include <cstdint>

namespace wsesim::fabric {

using ArbiterState = std::uint16_t;

}  // namespace wsesim::fabric
