#pragma once
// Runs GEMMs one after another on one wafer, in one simulation: each with
// its routes, programs and phases (GemmPhases). When one is done (its
// streams in, its PEs idle, the fabric empty), its PEs are unloaded with
// nothing kept, the routes are cleared, and the next starts in the same
// cycle. How the train workload simulates the GEMMs of a training step.

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "firmware/gemm/GemmMapping.h"
#include "hw/pe/PeArray.h"
#include "hw/wafer/CycleDriver.h"
#include "testbench/gemm/GemmPhases.h"

namespace wsesim::gemm {

class GemmSequence : public wafer::CycleDriver {
 public:
  // Timing mode: streams carry no payloads. `gemms` and `routes` must outlive the run.
  GemmSequence(std::vector<const firmware::GemmMapping*> gemms, pe::PeArray& pes, fabric::ColorRouteTable& routes,
               double waveletsPerCycle);

  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
  std::uint64_t nextActivity(std::uint64_t now) const override;
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;
  double progress(std::uint64_t now) const override;

  // The cycle each GEMM started in (so far).
  const std::vector<std::uint64_t>& starts() const { return starts_; }
  // GEMM `index`'s phases' cycles (GemmPhases::phaseCycles), the current
  // GEMM's last phase ending at `end`.
  std::vector<std::uint64_t> phaseCycles(std::size_t index, std::uint64_t end) const {
    return index < phaseCycles_.size() ? phaseCycles_[index] : current_->phaseCycles(end);
  }
  // GEMM `index`'s input end (GemmPhases::inputEnd), once it has one.
  std::optional<std::uint64_t> inputEnd(std::size_t index) const {
    return index < inputEnds_.size() ? inputEnds_[index] : index == index_ ? current_->inputEnd() : std::nullopt;
  }

 private:
  void start(std::size_t index, std::uint64_t now);
  bool last() const { return index_ + 1 == gemms_.size(); }

  std::vector<const firmware::GemmMapping*> gemms_;
  pe::PeArray& pes_;
  fabric::ColorRouteTable& routes_;
  double waveletsPerCycle_;
  std::size_t index_ = 0;
  std::unique_ptr<GemmPhases> current_;
  std::vector<std::uint64_t> starts_;
  std::vector<std::optional<std::uint64_t>> inputEnds_;  // of the GEMMs done
  std::vector<std::vector<std::uint64_t>> phaseCycles_;  // of the GEMMs done
};

}  // namespace wsesim::gemm
