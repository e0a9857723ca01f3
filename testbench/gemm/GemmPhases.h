#pragma once
// Runs a GEMM mapping's phases one after the other on the wafer. Each
// phase's weights enter through an edge injector at the I/O bandwidth; once
// they are all in, every PE is idle and the fabric is empty, the PEs'
// programs are unloaded (keeping the mapping's resident buffers) and the
// next phase's programs and streams take over.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "firmware/gemm/GemmMapping.h"
#include "hw/pe/PeArray.h"
#include "hw/wafer/CycleDriver.h"
#include "hw/wafer/EdgeInjector.h"

namespace wsesim::gemm {

class GemmPhases : public wafer::CycleDriver {
 public:
  // Loads phase 0, which starts in cycle `start`; `b` gives the streamed
  // payloads (null in timing mode); both it and `routes` (the fabric's,
  // reprogrammed per phase) must outlive the run.
  GemmPhases(const firmware::GemmMapping& mapping, pe::PeArray& pes, fabric::ColorRouteTable& routes,
             const firmware::Matrix* b, double waveletsPerCycle, std::uint64_t start = 0);

  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
  std::uint64_t nextActivity(std::uint64_t now) const override;
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;
  // Phases done, plus the share of the current phase's streams sent.
  double progress(std::uint64_t now) const override;

  // The cycle after the last streamed wavelet entered the mesh (its start
  // when the GEMM streams nothing), once it has; what follows is its drain.
  const std::optional<std::uint64_t>& inputEnd() const { return inputEnd_; }
  // The cycle each phase started in.
  const std::vector<std::uint64_t>& phaseStarts() const { return phaseStarts_; }
  // The cycles of each phase so far, the current one ending at `end`.
  std::vector<std::uint64_t> phaseCycles(std::uint64_t end) const;
  std::uint64_t edgeStalls() const { return edgeStalls_ + injector_->stalls(); }

 private:
  bool streamsIn() const { return phase_ + 1 == mapping_.phases() && injector_->sent() == injector_->total(); }
  bool phaseDone(std::uint64_t now, const fabric::FabricKernel& fabric) const {
    return injector_->finished(now, fabric) && pes_.finished(now, fabric);
  }
  void startPhase(std::uint32_t phase, std::uint64_t now);

  const firmware::GemmMapping& mapping_;
  // Programs phase `phase`'s routes and loads its programs.
  void loadPhase(std::uint32_t phase);

  pe::PeArray& pes_;
  fabric::ColorRouteTable& routes_;
  fabric::MeshGeometry mesh_;
  const firmware::Matrix* b_;
  double waveletsPerCycle_;
  std::uint32_t phase_ = 0;
  std::unique_ptr<wafer::EdgeInjector> injector_;
  std::vector<std::uint64_t> phaseStarts_;
  std::uint64_t edgeStalls_ = 0;  // of finished phases
  std::optional<std::uint64_t> inputEnd_;
};

}  // namespace wsesim::gemm
