#pragma once
// One PE's traffic generator. Packets are created by a Bernoulli process
// (one packet per cycle with probability rate / packet_wavelets) and
// generated lazily: the source holds only its next packet, so a source
// backlogged at saturation costs no memory. The implicit source queue is
// "every packet created up to now and not yet injected".

#include <cmath>
#include <cstdint>

#include "hw/fabric/MeshGeometry.h"
#include "hw/sim/CycleDriver.h"
#include "testbench/noc/NocConfig.h"

namespace wsesim::noc {

// splitmix64: tiny state, good enough statistics for traffic generation.
inline std::uint64_t nextRandom(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
inline double uniform01(std::uint64_t& state) { return double(nextRandom(state) >> 11) * 0x1.0p-53; }
inline std::uint32_t uniformBelow(std::uint64_t& state, std::uint32_t n) {
  return std::uint32_t((nextRandom(state) >> 32) * n >> 32);
}

struct TrafficSource {
  fabric::RouterId router = 0;
  std::uint64_t rng = 0;
  // Creation cycle of the packet being injected; sim::kNever for a source
  // whose next packet lies past any cycle a run can reach (tiny rates).
  std::uint64_t createdAt = 0;
  std::uint16_t destX = 0, destY = 0;
  std::uint8_t color = 0;
  std::uint16_t sent = 0;  // wavelets of the current packet already injected
};

// Chooses destinations and colors for one traffic pattern.
class TrafficPattern {
 public:
  TrafficPattern(const NocConfig& config, fabric::MeshGeometry mesh);

  // Advances `s` to its next packet: creation time, destination, color.
  // Called only for a source whose current packet exists (createdAt <= now).
  void nextPacket(TrafficSource& s) const;
  // First packet of a fresh source (creation >= cycle 0).
  void firstPacket(TrafficSource& s) const;
  bool silent() const { return packetProbability_ <= 0; }

 private:
  std::uint64_t gap(std::uint64_t& rng) const;
  void chooseDestination(TrafficSource& s) const;

  NocConfig config_;
  fabric::MeshGeometry mesh_;
  double packetProbability_;
  double logOneMinusP_;
};

}  // namespace wsesim::noc
