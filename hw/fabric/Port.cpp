#include "hw/fabric/Port.h"

#include <cctype>

namespace wsesim::fabric {

const char* portName(Port p) {
  switch (p) {
    case Port::North: return "N";
    case Port::East: return "E";
    case Port::South: return "S";
    case Port::West: return "W";
    case Port::Ramp: return "RAMP";
  }
  return "?";
}

std::optional<Port> parsePort(std::string_view name) {
  std::string upper;
  for (char ch : name) upper.push_back(char(std::toupper(static_cast<unsigned char>(ch))));
  for (unsigned i = 0; i < kPortCount; ++i) {
    const Port p = Port(i);
    if (upper == portName(p)) return p;
  }
  if (upper == "NORTH") return Port::North;
  if (upper == "EAST") return Port::East;
  if (upper == "SOUTH") return Port::South;
  if (upper == "WEST") return Port::West;
  return std::nullopt;
}

std::string portMaskName(PortMask mask) {
  std::string out = "{";
  for (unsigned i = 0; i < kPortCount; ++i) {
    if (!(mask & (1u << i))) continue;
    if (out.size() > 1) out += ",";
    out += portName(Port(i));
  }
  return out + "}";
}

}  // namespace wsesim::fabric
