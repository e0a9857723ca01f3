#include "testbench/gemm/GemmPhases.h"

namespace wsesim::gemm {

GemmPhases::GemmPhases(SimulatedGemm& gemm, pe::PeArray& pes, fabric::ColorRouteTable& routes,
                       const firmware::Matrix* b, const wafer::IoRingEdge& ring, std::uint32_t routeSwitchCycles,
                       std::uint64_t start)
    : gemm_(gemm),
      pes_(pes),
      routes_(routes),
      mesh_(routes.mesh()),
      b_(b),
      ring_(ring),
      routeSwitchCycles_(routeSwitchCycles) {
  startRound(start);
}

void GemmPhases::startRound(std::uint64_t now) {
  routes_.clear();
  mapping().programRoutes(routes_);
  roundStart_ = phaseStarts_.size();
  inputEnd_.reset();
  startPhase(0, now, false);
}

void GemmPhases::startPhase(std::uint32_t phase, std::uint64_t now, bool switching) {
  if (injector_) edgeStalls_ += injector_->stalls();
  phase_ = phase;
  const std::uint64_t revision = routes_.revision();
  mapping().programPhaseRoutes(routes_, phase);
  runsAt_ = now + (switching && routes_.revision() != revision ? routeSwitchCycles_ : 0);
  loaded_ = false;
  if (runsAt_ == now) loadPrograms();
  injector_ = std::make_unique<wafer::EdgeInjector>(mapping().streams(mesh_, b_, phase), ring_, mesh_);
  phaseStarts_.push_back(now);
}

void GemmPhases::loadPrograms() {
  mapping().load(pes_, mesh_, phase_);
  loaded_ = true;
}

void GemmPhases::unload(const std::vector<std::string>& kept) {
  pes_.checkQuiescent();
  for (std::uint32_t y = 0; y < mapping().gridY(); ++y)
    for (std::uint32_t x = 0; x < mapping().gridX(); ++x) pes_.unload(mapping().pe(mesh_, x, y), kept);
}

std::vector<std::uint64_t> GemmPhases::roundPhaseCycles(std::uint64_t end) const {
  std::vector<std::uint64_t> cycles;
  for (std::size_t p = roundStart_; p < phaseStarts_.size(); ++p)
    cycles.push_back((p + 1 < phaseStarts_.size() ? phaseStarts_[p + 1] : end) - phaseStarts_[p]);
  return cycles;
}

void GemmPhases::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (!loaded_ && now >= runsAt_) {
    pes_.skipTo(now);
    loadPrograms();
  }
  if (phase_ + 1 < mapping().phases() && phaseDone(now, fabric)) {
    unload(mapping().keptBuffers());
    startPhase(phase_ + 1, now, true);
  } else if (roundDone(now, fabric) && gemm_.anotherRound(roundPhaseCycles(now))) {
    unload({});
    gemm_.nextRound(roundPhaseCycles(now), roundInputEnd());
    startRound(now);
  }
  if (!loaded_) return pes_.beginCycle(now, fabric);  // the routers are still switching
  if (!inputEnd_ && streamsIn()) inputEnd_ = now;
  injector_->beginCycle(now, fabric);
  if (!inputEnd_ && streamsIn()) inputEnd_ = now + 1;
  pes_.beginCycle(now, fabric);
}

std::uint64_t GemmPhases::nextActivity(std::uint64_t now) const {
  if (!loaded_) return runsAt_;
  const std::uint64_t next = std::min(injector_->nextActivity(now), pes_.nextActivity(now));
  // Asked only while the fabric is idle: nothing left to do in this phase
  // means the next phase (or round) starts now.
  if (next == sim::kNever &&
      (phase_ + 1 < mapping().phases() || gemm_.anotherRound(roundPhaseCycles(now))))
    return now;
  return next;
}

double GemmPhases::progress(std::uint64_t) const {
  const double phase = injector_->total() ? double(injector_->sent()) / double(injector_->total()) : 0.0;
  return (phase_ + phase) / mapping().phases();
}

bool GemmPhases::finished(std::uint64_t now, const fabric::FabricKernel& fabric) const {
  return roundDone(now, fabric) && !gemm_.anotherRound(roundPhaseCycles(now));
}

}  // namespace wsesim::gemm
