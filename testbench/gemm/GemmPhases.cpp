#include "testbench/gemm/GemmPhases.h"

namespace wsesim::gemm {

GemmPhases::GemmPhases(const firmware::GemmMapping& mapping, pe::PeArray& pes, const fabric::MeshGeometry& mesh,
                       fabric::ColorRouteTable& routes, const firmware::Matrix* b, double waveletsPerCycle)
    : mapping_(mapping), pes_(pes), mesh_(mesh), routes_(routes), b_(b), waveletsPerCycle_(waveletsPerCycle) {
  mapping_.programPhaseRoutes(routes_, 0);
  mapping_.load(pes_, mesh_, 0);
  startPhase(0, 0);
}

void GemmPhases::startPhase(std::uint32_t phase, std::uint64_t now) {
  if (injector_) edgeStalls_ += injector_->stalls();
  phase_ = phase;
  injector_ = std::make_unique<wafer::EdgeInjector>(mapping_.streams(mesh_, b_, phase), waveletsPerCycle_);
  phaseStarts_.push_back(now);
}

void GemmPhases::beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) {
  if (phase_ + 1 < mapping_.phases() && phaseDone(now, fabric)) {
    pes_.checkQuiescent();
    const std::vector<std::string> kept = mapping_.keptBuffers();
    for (std::uint32_t y = 0; y < mapping_.gridY(); ++y)
      for (std::uint32_t x = 0; x < mapping_.gridX(); ++x) pes_.unload(mesh_.id(x, y), kept);
    mapping_.programPhaseRoutes(routes_, phase_ + 1);
    mapping_.load(pes_, mesh_, phase_ + 1);
    startPhase(phase_ + 1, now);
  }
  injector_->beginCycle(now, fabric);
  pes_.beginCycle(now, fabric);
}

std::uint64_t GemmPhases::nextActivity(std::uint64_t now) const {
  const std::uint64_t next = std::min(injector_->nextActivity(now), pes_.nextActivity(now));
  // Asked only while the fabric is idle: nothing left to do in this phase
  // means the next one starts now.
  if (next == wafer::kNever && phase_ + 1 < mapping_.phases()) return now;
  return next;
}

bool GemmPhases::finished(std::uint64_t now, const fabric::FabricKernel& fabric) const {
  return phase_ + 1 == mapping_.phases() && phaseDone(now, fabric);
}

}  // namespace wsesim::gemm
