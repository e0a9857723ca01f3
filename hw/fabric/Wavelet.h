#pragma once
// The unit of transfer on the fabric.

#include <cstdint>

namespace wsesim::fabric {

struct Wavelet {
  std::uint32_t payload = 0;  // 32-bit data word
  std::uint8_t color = 0;     // selects the route (color mode) and the queue
  bool control = false;       // control wavelet (advances switch positions)
  bool last = false;          // last wavelet of a multi-wavelet message
  // Destination router, used only when the fabric routes by address (XY).
  std::uint16_t destX = 0;
  std::uint16_t destY = 0;
};

}  // namespace wsesim::fabric
