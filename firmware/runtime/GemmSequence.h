#pragma once
// Runs GEMMs one after another on one wafer, in one simulation: each with
// its routes, programs, phases and rounds (GemmPhases). When one is done
// (its streams in, its PEs idle, the fabric empty), its PEs are unloaded
// with nothing kept and the next starts in the same cycle with its own
// routes, the routers' arbiters restarted, its streams and results on the
// ring's bandwidth afresh, so that its cycles are its own whatever ran
// before it. How the train workload simulates the GEMMs of a training step.
// With representative phases, a GEMM interpolates the kinds of phases an
// earlier GEMM of the same layout learnt the line of (SimulatedGemm::begin).

#include <cstdint>
#include <memory>
#include <vector>

#include "firmware/runtime/GemmPhases.h"
#include "firmware/runtime/SimulatedGemm.h"
#include "hw/energy/ActionCounts.h"
#include "hw/energy/ActionMeter.h"
#include "hw/pe/PeGrid.h"
#include "hw/sim/CycleDriver.h"
#include "hw/wafer/EdgeEgress.h"
#include "hw/wafer/EdgeIngress.h"

namespace wsesim::runtime {

class GemmSequence : public sim::CycleDriver {
 public:
  // Timing mode: streams carry no payloads. `gemms` (each run once), the
  // PEs, `routes`, `ingress`, `egress` and `meter` (the wafer's actions,
  // read as each GEMM ends) must outlive the run.
  GemmSequence(std::vector<SimulatedGemm*> gemms, pe::PeGrid& pes, fabric::ColorRouteTable& routes,
               wafer::EdgeIngress& ingress, wafer::EdgeEgress& egress, const energy::ActionMeter& meter,
               std::uint32_t routeSwitchCycles);

  void beginCycle(std::uint64_t now, fabric::FabricKernel& fabric) override;
  std::uint64_t nextActivity(std::uint64_t now) const override;
  bool finished(std::uint64_t now, const fabric::FabricKernel& fabric) const override;
  double progress(std::uint64_t now) const override;

  // The cycle each GEMM started in (so far).
  const std::vector<std::uint64_t>& starts() const { return starts_; }
  // GEMM `index`'s whole time (GemmPhases::fullTime), once it is done; the
  // last one ends at `end`.
  GemmTime fullTime(std::size_t index, std::uint64_t end, const config::ArchConfig& arch,
                    std::uint32_t meshColumns) const;
  // The wafer's actions while GEMM `index` ran (all its rounds), once it is
  // done; the last one ends at `end`.
  energy::ActionCounts actions(std::size_t index, std::uint64_t end) const;

 private:
  void start(std::size_t index, std::uint64_t now);
  bool last() const { return index_ + 1 == gemms_.size(); }

  // What a finished GEMM's last round ran: GemmPhases::roundPhases and roundInputEnd.
  struct LastRound {
    std::vector<SimulatedGemm::PhaseRun> phases;
    std::uint64_t inputEnd = 0;
  };

  std::vector<SimulatedGemm*> gemms_;
  pe::PeGrid& pes_;
  fabric::ColorRouteTable& routes_;
  wafer::EdgeIngress& ingress_;
  wafer::EdgeEgress& egress_;
  const energy::ActionMeter& meter_;
  std::uint32_t routeSwitchCycles_;
  SimulatedGemm::KindLines learnt_;  // by the GEMMs done so far
  std::size_t index_ = 0;
  std::unique_ptr<GemmPhases> current_;
  std::vector<std::uint64_t> starts_;
  std::vector<LastRound> done_;  // of the GEMMs done
  std::vector<energy::ActionCounts> actionsAtEnd_;  // the wafer's, as each GEMM done ended
};

}  // namespace wsesim::runtime
