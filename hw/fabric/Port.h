#pragma once
// The five router ports of a PE: four mesh neighbours and the RAMP to the
// PE's own compute engine. Directions follow the Cerebras SDK: North is the
// row above (y - 1), East the next column (x + 1).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace wsesim::fabric {

enum class Port : std::uint8_t { North = 0, East = 1, South = 2, West = 3, Ramp = 4 };

inline constexpr unsigned kPortCount = 5;

// A set of ports, bit i = Port(i).
using PortMask = std::uint8_t;

constexpr PortMask bit(Port p) { return PortMask(1u << unsigned(p)); }

// N <-> S and E <-> W are two apart; the RAMP is its own opposite.
constexpr Port opposite(Port p) { return p == Port::Ramp ? p : Port((unsigned(p) + 2) & 3u); }

const char* portName(Port p);
std::optional<Port> parsePort(std::string_view name);
// "{E,S,RAMP}" style text, for error messages and reports.
std::string portMaskName(PortMask mask);

}  // namespace wsesim::fabric
