#pragma once
// The index of the lowest set bit of a port or color mask, which is not empty.

#include <cstdint>

namespace wsesim::fabric {

inline unsigned lowestBit(std::uint32_t mask) { return unsigned(__builtin_ctz(mask)); }

}  // namespace wsesim::fabric
