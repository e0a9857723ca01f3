#pragma once
// A wavelet as the fabric holds it, in its queues and on its way to the
// next one: its fields and the first cycle a router may forward it (link
// or ramp latency elapsed), in 16 bytes. A queue of depth 4 fills one cache
// line, and the first slots of a router's five homes 80 bytes. The ready
// cycle has 48 bits (FabricKernel stops at cycle 2^47). The kernel unpacks
// a Wavelet only where one leaves the fabric.

#include <cstdint>

#include "hw/fabric/Wavelet.h"

namespace wsesim::fabric {

class QueuedWavelet {
 public:
  QueuedWavelet() = default;
  QueuedWavelet(const Wavelet& w, std::uint64_t readyAt)
      : payload_(w.payload),
        destX_(w.destX),
        destY_(w.destY),
        bits_(readyAt | std::uint64_t(w.color) << 48 | std::uint64_t(w.control) << 56 | std::uint64_t(w.last) << 57) {}

  std::uint64_t readyAt() const { return bits_ & kReadyMask; }
  unsigned color() const { return unsigned(bits_ >> 48) & 0xffu; }
  std::uint16_t destX() const { return destX_; }
  std::uint16_t destY() const { return destY_; }
  Wavelet wavelet() const {
    return Wavelet{payload_, std::uint8_t(color()), bool(bits_ >> 56 & 1), bool(bits_ >> 57 & 1), destX_, destY_};
  }
  // The same wavelet, ready at another cycle (after its next hop).
  QueuedWavelet readyAt(std::uint64_t cycle) const {
    QueuedWavelet w = *this;
    w.bits_ = (bits_ & ~kReadyMask) | cycle;
    return w;
  }

 private:
  static constexpr std::uint64_t kReadyMask = (std::uint64_t(1) << 48) - 1;

  std::uint32_t payload_;
  std::uint16_t destX_, destY_;
  // The ready cycle (bits 0-47), color (48-55), control (56) and last (57)
  // in one word, written whole: bit-fields here made every push read the
  // slot first (to keep the bits no field covers), a cache miss per hop.
  std::uint64_t bits_;
};
static_assert(sizeof(QueuedWavelet) == 16, "a queued wavelet is 16 bytes");

}  // namespace wsesim::fabric
