#include "firmware/runtime/GemmPhases.h"

#include <stdexcept>
#include <string>
#include <utility>

namespace wsesim::runtime {

GemmPhases::GemmPhases(SimulatedGemm& gemm, pe::PeGrid& pes, fabric::ColorRouteTable& routes,
                       wafer::EdgeIngress& ingress, wafer::EdgeEgress& egress, const firmware::Matrix* b,
                       std::uint32_t routeSwitchCycles, std::optional<Alone> alone)
    : gemm_(gemm),
      pes_(pes),
      routes_(routes),
      ingress_(ingress),
      egress_(egress),
      mesh_(routes.mesh()),
      b_(b),
      routeSwitchCycles_(routeSwitchCycles),
      stallsBefore_(ingress.stalls()),
      alone_(alone) {}

GemmPhases::GemmPhases(SimulatedGemm& gemm, pe::PeGrid& pes, fabric::ColorRouteTable& routes,
                       wafer::EdgeIngress& ingress, wafer::EdgeEgress& egress, const firmware::Matrix* b,
                       std::uint32_t routeSwitchCycles, std::uint64_t start)
    : GemmPhases(gemm, pes, routes, ingress, egress, b, routeSwitchCycles, std::nullopt) {
  if (mapping().outline().pacedPhases) {
    pacing_ = std::make_unique<PePacing>(mapping(), pes, routes, routeSwitchCycles, start);
    return;
  }
  startRound(start);
}

namespace {

// The PEs as a mapping loading a phase sees them, each program it loads
// placed as run (PeGrid::placeAsRun), unloaded keeping `kept`.
class PlacedAsRun : public pe::PeControl {
 public:
  PlacedAsRun(pe::PeGrid& pes, const std::vector<std::string>& kept) : pes_(pes), kept_(kept) {}
  pe::ProgramId addProgram(pe::Program program, pe::ProgramLifetime lifetime) override {
    return pes_.addProgram(std::move(program), lifetime);
  }
  void load(fabric::RouterId pe, pe::ProgramId id) override { pes_.placeAsRun(pe, id, kept_); }
  void unload(fabric::RouterId pe, const std::vector<std::string>& keep) override { pes_.unload(pe, keep); }
  void write(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
             const std::vector<float>& values) override {
    pes_.write(pe, buffer, offset, values);
  }
  std::vector<float> read(fabric::RouterId pe, const std::string& buffer, std::uint32_t offset,
                          std::uint32_t count) const override {
    return pes_.read(pe, buffer, offset, count);
  }

 private:
  pe::PeGrid& pes_;
  const std::vector<std::string>& kept_;
};

}  // namespace

GemmPhases::GemmPhases(SimulatedGemm& gemm, pe::PeGrid& pes, fabric::ColorRouteTable& routes,
                       wafer::EdgeIngress& ingress, wafer::EdgeEgress& egress, std::uint32_t routeSwitchCycles,
                       Alone alone)
    : GemmPhases(gemm, pes, routes, ingress, egress, nullptr, routeSwitchCycles, std::optional<Alone>(alone)) {
  if (mapping().outline().pacedPhases) throw std::logic_error("a paced mapping's phase cannot run alone");
  if (alone.phase >= mapping().phases())
    throw std::logic_error("phase " + std::to_string(alone.phase) + " of a round of " +
                           std::to_string(mapping().phases()) + " phases");
  routes_.clear();
  mapping().programRoutes(routes_);
  PlacedAsRun ran(pes_, mapping().keptBuffers());
  for (std::uint32_t phase = 0; phase < alone.phase; ++phase) {
    mapping().programPhaseRoutes(routes_, phase);
    mapping().load(ran, mesh_, phase);
  }
  if (alone.phase > 0 || gemm_.roundsRun() > 1) egress_.fill(0);
  startPhase(alone.phase, 0, alone.phase > 0);
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
  if (phase_ < lastPhase() && phaseDone(now, fabric)) {
    roundPeFinish_.push_back(peFinish());
    unload(mapping().keptBuffers());
    fabric.restartArbiters();
    egress_.fill(now);
    startPhase(phase_ + 1, now, true);
  } else if (roundDone(now, fabric) && anotherRound(roundPhases(now))) {
    unload({});
    gemm_.nextRound(roundPhases(now), roundInputEnd());
    fabric.restartArbiters();
    egress_.fill(now);
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
  if (nothingScheduled(now) && (phase_ < lastPhase() || anotherRound(roundPhases(now))))
    return now;
  return sim::kNever;
}

double GemmPhases::progress(std::uint64_t) const {
  if (pacing_) return pacing_->progress();
  const double phase = loaded_ && ingress_.total() ? double(ingress_.sent()) / double(ingress_.total()) : 0.0;
  return alone_ ? phase : (phase_ + phase) / mapping().phases();
}

bool GemmPhases::finished(std::uint64_t now, const fabric::FabricKernel& fabric) const {
  if (pacing_) return pacing_->lastPhasesLoaded() && pes_.finished(now, fabric);
  return roundDone(now, fabric) && !anotherRound(roundPhases(now));
}

}  // namespace wsesim::runtime
