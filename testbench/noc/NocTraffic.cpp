#include "testbench/noc/NocTraffic.h"

#include <algorithm>

namespace wsesim::noc {

NocTraffic::NocTraffic(const NocConfig& config, const fabric::FabricKernel& fabric,
                       std::vector<fabric::RouterId> sources, std::vector<std::uint8_t> sourceColors,
                       std::uint32_t fanout)
    : config_(config), mesh_(fabric.params().mesh), pattern_(config, mesh_), fanout_(fanout), bands_(fabric.bands()) {
  if (pattern_.silent()) return;
  std::uint64_t seeder = config.seed;
  sources_.resize(sources.size());
  for (std::size_t i = 0; i < sources.size(); ++i) {
    TrafficSource& s = sources_[i];
    s.router = sources[i];
    s.rng = nextRandom(seeder);
    s.color = sourceColors.empty() ? 0 : sourceColors[i];
    pattern_.firstPacket(s);
    if (s.createdAt != sim::kNever) bands_[fabric.bandIndex(s.router)].waiting.schedule(s.createdAt, std::uint32_t(i));
  }
}

std::uint64_t NocTraffic::measuredPackets() const {
  std::uint64_t packets = measuredPackets_;
  for (const SourceBand& b : bands_) packets += b.measuredPackets;
  return packets;
}

void NocTraffic::snapshot(const fabric::FabricKernel& fabric, std::vector<std::uint64_t>& into) const {
  into.resize(std::size_t(mesh_.routers()) * fabric::kPortCount);
  for (fabric::RouterId r = 0; r < mesh_.routers(); ++r)
    for (unsigned p = 0; p < fabric::kPortCount; ++p)
      into[std::size_t(r) * fabric::kPortCount + p] = fabric.transfers(r, fabric::Port(p));
}

// Counts the window's packets that have not left their source yet by
// replaying each source's generator on a copy: creation is lazy, so most of
// them do not exist yet.
void NocTraffic::closeWindow() {
  for (const TrafficSource& live : sources_) {
    TrafficSource s = live;
    for (; s.createdAt < measureEnd(); pattern_.nextPacket(s))
      if (s.createdAt >= measureStart()) ++measuredPackets_;
  }
  windowClosed_ = true;
}

void NocTraffic::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (!windowOpen_ && now >= measureStart()) {
    snapshot(fabric, transfersAtStart_);
    windowOpen_ = true;
  }
  if (!windowClosed_ && now >= measureEnd()) {
    snapshot(fabric, transfersAtEnd_);
    closeWindow();
  }
  // The bands at once when each has sources enough to pay for it.
  constexpr std::size_t kSourcesPerBandAtOnce = 64;
  fabric.forEachBand(readyLastCycle_ >= kSourcesPerBandAtOnce * bands_.size(),
                     [&](unsigned b) { inject(bands_[b], now, fabric); });
  readyLastCycle_ = 0;
  for (const SourceBand& b : bands_) readyLastCycle_ += b.ready.size();
}

void NocTraffic::inject(SourceBand& band, std::uint64_t now, fabric::FabricKernel& fabric) {
  std::vector<std::uint32_t>& ready = band.ready;
  const std::size_t stillReady = ready.size();
  band.waiting.drain(now, [&](std::uint32_t source) { ready.push_back(source); });
  // In source (router) order: under saturation most sources retry every
  // cycle, and each retry reads the source and its router's state; walked
  // in order, memory is read front to back rather than at random.
  if (ready.size() != stillReady) {
    std::sort(ready.begin() + std::ptrdiff_t(stillReady), ready.end());
    std::inplace_merge(ready.begin(), ready.begin() + std::ptrdiff_t(stillReady), ready.end());
  }
  std::size_t keep = 0;
  for (std::uint32_t index : ready) {
    TrafficSource& s = sources_[index];
    fabric::Wavelet w;
    w.color = s.color;
    w.destX = s.destX;
    w.destY = s.destY;
    w.payload = std::uint32_t(s.createdAt);
    w.last = s.sent + 1u == config_.packetWavelets;
    if (fabric.inject(s.router, w, now) && ++s.sent == config_.packetWavelets) {
      // Packets still at their source when the window closes are counted by closeWindow().
      if (!windowClosed_ && inWindow(s.createdAt)) ++band.measuredPackets;
      pattern_.nextPacket(s);
      if (s.createdAt > now) {
        if (s.createdAt != sim::kNever) band.waiting.schedule(s.createdAt, index);
        continue;
      }
    }
    ready[keep++] = index;
  }
  ready.resize(keep);
}

std::uint64_t NocTraffic::nextActivity(std::uint64_t now) const {
  std::uint64_t next = sim::kNever;
  for (const SourceBand& b : bands_) {
    if (!b.ready.empty()) return now;
    next = std::min(next, b.waiting.next());
  }
  // The window's edges are events too: statistics are taken there.
  if (!windowOpen_) next = std::min(next, measureStart());
  if (!windowClosed_) next = std::min(next, measureEnd());
  return std::max(next, now);
}

bool NocTraffic::finished(std::uint64_t now, const fabric::FabricKernel&) const {
  if (!windowClosed_) return false;
  return measuredDeliveriesMissing() == 0 || now >= measureEnd() + config_.drainCycles;
}

void NocTraffic::deliver(fabric::RouterId, const fabric::Wavelet& w, std::uint64_t arrivalCycle) {
  if (inWindow(arrivalCycle)) ++windowDeliveries_;
  if (!w.last) return;
  const std::uint64_t latency = std::uint32_t(std::uint32_t(arrivalCycle) - w.payload);
  if (!inWindow(arrivalCycle - latency)) return;
  ++measuredTailsArrived_;
  if (latency >= latencyHistogram_.size()) latencyHistogram_.resize(latency + 1, 0);
  ++latencyHistogram_[latency];
}

LatencyStats NocTraffic::latency() const {
  LatencyStats s;
  double sum = 0;
  for (std::size_t l = 0; l < latencyHistogram_.size(); ++l) {
    s.samples += latencyHistogram_[l];
    sum += double(l) * double(latencyHistogram_[l]);
    if (latencyHistogram_[l]) s.max = l;
  }
  if (s.samples == 0) return s;
  s.average = sum / double(s.samples);
  auto percentile = [&](double q) {
    const std::uint64_t rank = std::uint64_t(std::ceil(q * double(s.samples)));
    std::uint64_t seen = 0;
    for (std::size_t l = 0; l < latencyHistogram_.size(); ++l)
      if ((seen += latencyHistogram_[l]) >= std::max<std::uint64_t>(rank, 1)) return std::uint64_t(l);
    return s.max;
  };
  s.p50 = percentile(0.50);
  s.p99 = percentile(0.99);
  return s;
}

}  // namespace wsesim::noc
