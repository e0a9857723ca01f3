#include "testbench/noc/TrafficSource.h"

namespace wsesim::noc {

TrafficPattern::TrafficPattern(const NocConfig& config, fabric::MeshGeometry mesh)
    : config_(config),
      mesh_(mesh),
      packetProbability_(config.injectionRate / config.packetWavelets),
      logOneMinusP_(packetProbability_ < 1 ? std::log1p(-packetProbability_) : 0) {}

// Cycles from one Bernoulli success to the next: geometric, >= 1, or
// sim::kNever when it does not fit in 63 bits. At legal tiny rates it does
// not: at 1e-30 a typical gap is 7e29 cycles, and converting that double to
// an integer is undefined (x86 gave 0, a gap of 1: a fully loaded fabric).
// A run ends before cycle 2^42 (NocConfig's ranges), so such a source never
// fires, exactly as its geometric distribution says.
std::uint64_t TrafficPattern::gap(std::uint64_t& rng) const {
  if (packetProbability_ >= 1) return 1;
  const double u = 1.0 - uniform01(rng);  // (0, 1]
  const double failures = std::floor(std::log(u) / logOneMinusP_);
  if (!(failures < 0x1p63)) return sim::kNever;
  return 1 + std::uint64_t(failures);
}

void TrafficPattern::firstPacket(TrafficSource& s) const {
  const std::uint64_t g = gap(s.rng);
  s.createdAt = g == sim::kNever ? sim::kNever : g - 1;
  chooseDestination(s);
}

void TrafficPattern::nextPacket(TrafficSource& s) const {
  // createdAt <= now < 2^42 here, so the sum of a finite gap cannot wrap.
  const std::uint64_t g = gap(s.rng);
  s.createdAt = g == sim::kNever ? sim::kNever : s.createdAt + g;
  s.sent = 0;
  chooseDestination(s);
}

void TrafficPattern::chooseDestination(TrafficSource& s) const {
  const std::uint32_t x = mesh_.xOf(s.router), y = mesh_.yOf(s.router);
  const std::uint32_t n = mesh_.routers();
  auto uniformOther = [&]() {
    std::uint32_t d = uniformBelow(s.rng, n - 1);
    if (d >= s.router) ++d;
    return d;
  };
  fabric::RouterId dest = s.router;
  switch (config_.pattern) {
    case Pattern::UniformRandom:
      dest = uniformOther();
      break;
    case Pattern::Transpose:
      dest = mesh_.id(y, x);
      break;
    case Pattern::BitComplement:
      dest = mesh_.id(mesh_.width - 1 - x, mesh_.height - 1 - y);
      break;
    case Pattern::Hotspot: {
      const fabric::RouterId hot = mesh_.id(config_.hotspotX, config_.hotspotY);
      dest = (uniform01(s.rng) < config_.hotspotFraction && hot != s.router) ? hot : uniformOther();
      break;
    }
    case Pattern::NearestNeighbour: {
      fabric::RouterId options[4];
      unsigned count = 0;
      for (fabric::Port p : {fabric::Port::North, fabric::Port::East, fabric::Port::South, fabric::Port::West})
        if (const fabric::RouterId nb = mesh_.neighbour(s.router, p); nb != fabric::kNoRouter) options[count++] = nb;
      dest = options[uniformBelow(s.rng, count)];
      break;
    }
    case Pattern::RowBroadcast:
    case Pattern::ColumnBroadcast:
      break;  // the color route decides; the source's color is fixed
  }
  s.destX = std::uint16_t(mesh_.xOf(dest));
  s.destY = std::uint16_t(mesh_.yOf(dest));
  if (!isBroadcast(config_.pattern)) s.color = std::uint8_t(uniformBelow(s.rng, config_.colors));
}

}  // namespace wsesim::noc
