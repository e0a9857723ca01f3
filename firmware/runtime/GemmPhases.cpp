#include "firmware/runtime/GemmPhases.h"

namespace wsesim::runtime {

GemmPhases::GemmPhases(SimulatedGemm& gemm, pe::PeGrid& pes, fabric::ColorRouteTable& routes,
                       wafer::EdgeIngress& ingress, const firmware::Matrix* b, std::uint32_t routeSwitchCycles,
                       std::uint64_t start)
    : gemm_(gemm),
      pes_(pes),
      routes_(routes),
      ingress_(ingress),
      mesh_(routes.mesh()),
      b_(b),
      routeSwitchCycles_(routeSwitchCycles),
      stallsBefore_(ingress.stalls()) {
  if (mapping().outline().pacedPhases) {
    pacing_ = std::make_unique<PePacing>(mapping(), pes, routes, routeSwitchCycles, start);
    return;
  }
  startRound(start);
}

void GemmPhases::startRound(std::uint64_t now) {
  routes_.clear();
  mapping().programRoutes(routes_);
  roundStart_ = phaseStarts_.size();
  roundPeFinish_.clear();
  startPhase(0, now, false);
}

void GemmPhases::startPhase(std::uint32_t phase, std::uint64_t now, bool switching) {
  phase_ = phase;
  const std::uint64_t revision = routes_.revision();
  mapping().programPhaseRoutes(routes_, phase);
  runsAt_ = now + (switching && routes_.revision() != revision ? routeSwitchCycles_ : 0);
  loaded_ = false;
  if (runsAt_ == now) loadPhase(now);
  phaseStarts_.push_back(now);
}

void GemmPhases::loadPhase(std::uint64_t now) {
  mapping().load(pes_, mesh_, phase_);
  ingress_.stream(mapping().streams(mesh_, b_, phase_), now, gemm_.ingressRing());
  loaded_ = true;
}

void GemmPhases::unload(const std::vector<std::string>& kept) {
  pes_.checkQuiescent();
  for (std::uint32_t y = 0; y < mapping().gridY(); ++y)
    for (std::uint32_t x = 0; x < mapping().gridX(); ++x) pes_.unload(mapping().pe(mesh_, x, y), kept);
}

std::vector<std::uint32_t> GemmPhases::peFinish() const {
  std::vector<std::uint32_t> finish;
  if (!gemm_.extrapolatesCuts()) return finish;
  finish.reserve(std::size_t(mapping().gridX()) * mapping().gridY());
  for (std::uint32_t y = 0; y < mapping().gridY(); ++y)
    for (std::uint32_t x = 0; x < mapping().gridX(); ++x) {
      const std::uint64_t last = pes_.lastBusyCycle(mapping().pe(mesh_, x, y));
      finish.push_back(std::uint32_t(last > runsAt_ ? last - runsAt_ : 0));
    }
  return finish;
}

std::vector<SimulatedGemm::PhaseRun> GemmPhases::roundPhases(std::uint64_t end) const {
  const std::vector<std::uint64_t>& starts = phaseStarts();
  std::vector<SimulatedGemm::PhaseRun> phases;
  for (std::size_t p = roundStart_; p < starts.size(); ++p) {
    const std::size_t i = p - roundStart_;
    phases.push_back({(p + 1 < starts.size() ? starts[p + 1] : end) - starts[p],
                      i < roundPeFinish_.size() ? roundPeFinish_[i] : peFinish()});
  }
  return phases;
}

void GemmPhases::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (pacing_) return pacing_->beginCycle(now, fabric);
  if (!loaded_ && now >= runsAt_) {
    pes_.skipTo(now);
    loadPhase(now);
  }
  if (phase_ + 1 < mapping().phases() && phaseDone(now, fabric)) {
    roundPeFinish_.push_back(peFinish());
    unload(mapping().keptBuffers());
    startPhase(phase_ + 1, now, true);
  } else if (roundDone(now, fabric) && gemm_.anotherRound(roundPhases(now))) {
    unload({});
    gemm_.nextRound(roundPhases(now), roundInputEnd());
    startRound(now);
  }
}

// The chip takes the earliest of this, the ingress's and the PEs' next activity.
std::uint64_t GemmPhases::nextActivity(std::uint64_t now) const {
  if (pacing_) return pacing_->nextActivity(now);
  if (!loaded_) return runsAt_;  // the ingress and the PEs are idle while the routers switch
  // Asked while the fabric cannot change by itself: with nothing left to
  // do in this phase, the next phase (or round) starts now if the fabric is
  // empty; wavelets stuck in it are a deadlock, which stepping on reports.
  if (nothingScheduled(now) && (phase_ + 1 < mapping().phases() || gemm_.anotherRound(roundPhases(now))))
    return now;
  return sim::kNever;
}

double GemmPhases::progress(std::uint64_t) const {
  if (pacing_) return pacing_->progress();
  const double phase = loaded_ && ingress_.total() ? double(ingress_.sent()) / double(ingress_.total()) : 0.0;
  return (phase_ + phase) / mapping().phases();
}

bool GemmPhases::finished(std::uint64_t now, const fabric::FabricKernel& fabric) const {
  if (pacing_) return pacing_->lastPhasesLoaded() && pes_.finished(now, fabric);
  return roundDone(now, fabric) && !gemm_.anotherRound(roundPhases(now));
}

}  // namespace wsesim::runtime
